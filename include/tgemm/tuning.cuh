/// \file tuning.cuh
/// \brief Per-architecture default policies: the only place where tgemm's tuning numbers live.
///
/// Each architecture is a struct naming its policies and the architecture before it, newest first (the CUB
/// chain). Device code compiled for `__CUDA_ARCH__` = X uses the newest entry with `arch <= X`; the host makes
/// the same choice from the PTX version the device will run, so grid and block always match the code.
#pragma once

#include <type_traits>

#include "policy.cuh"

/// The architecture the current compilation pass generates code for (e.g. 900), or 0 in the host pass.
#if defined(__CUDA_ARCH__)
#define TGEMM_DEVICE_ARCH __CUDA_ARCH__
#else
#define TGEMM_DEVICE_ARCH 0
#endif

/// The per-architecture tuning chain and the metafunctions that walk it.
namespace tgemm::tuning {

/// Turing (sm_75): 64 KiB of shared memory per SM and no cp.async; the second stage is filled with plain
/// loads, which still halves the barriers per k slice.
struct sm75 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 750;
  /// No older entry: the end of the chain.
  using previous = void;
  /// For operands aligned to 16 bytes with leading dimensions that are multiples of 4: vector loads.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 2>;
  /// The same tiles with scalar loads, for any alignment.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>;
};

/// Ampere A100 (sm_80): cp.async and 164 KiB of shared memory per SM: a three-stage pipeline.
struct sm80 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 800;
  /// The next older entry of the chain.
  using previous = sm75;
  /// For operands aligned to 16 bytes with leading dimensions that are multiples of 4: vector loads.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3>;
  /// The same tiles with scalar loads, for any alignment.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>;
};

/// Ampere GA10x and Ada (sm_86, sm_89): 100 KiB of shared memory per SM; a two-stage pipeline keeps two
/// blocks resident.
struct sm86 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 860;
  /// The next older entry of the chain.
  using previous = sm80;
  /// For operands aligned to 16 bytes with leading dimensions that are multiples of 4: vector loads.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 2>;
  /// The same tiles with scalar loads, for any alignment.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>;
};

/// Hopper (sm_90, H100/H200): 228 KiB of shared memory per SM; deeper k slices and three stages.
struct sm90 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 900;
  /// The next older entry of the chain.
  using previous = sm86;
  /// For operands aligned to 16 bytes with leading dimensions that are multiples of 4: vector loads.
  using general = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3>;
  /// The same tiles with scalar loads, for any alignment.
  using unaligned = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>;
};

/// The chain tgemm::gemm() dispatches over, newest architecture first.
using default_chain = sm90;

/// Picks the policy for 16-byte-aligned operands (vector loads).
struct pick_general {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::general;
};

/// Picks the policy that works for any alignment (scalar loads).
struct pick_unaligned {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::unaligned;
};

/// The newest entry of Chain whose arch is at most Arch (the oldest entry when none is, for example Arch = 0 in the
/// host pass).
template <class Chain, int Arch, class = void>
struct select {
  /// The selected chain entry.
  using type = std::conditional_t<(Arch >= Chain::arch), Chain, typename select<typename Chain::previous, Arch>::type>;
};
/// The end of the chain: its oldest entry is selected whatever Arch is.
template <class Chain, int Arch>
struct select<Chain, Arch, std::enable_if_t<std::is_void<typename Chain::previous>::value>> {
  /// The chain's oldest entry.
  using type = Chain;
};
/// Shorthand for select<Chain, Arch>::type.
template <class Chain, int Arch>
using select_t = typename select<Chain, Arch>::type;

/// Calls f(Tuning{}) with the chain entry for a runtime architecture (e.g. 900): the host-side twin of select_t.
template <class Chain, class F>
decltype(auto) with_tuning(int arch, F&& f) {
  if constexpr (std::is_void<typename Chain::previous>::value) {
    return f(Chain{});
  } else {
    if (arch >= Chain::arch) return f(Chain{});
    return with_tuning<typename Chain::previous>(arch, static_cast<F&&>(f));
  }
}

}  // namespace tgemm::tuning
