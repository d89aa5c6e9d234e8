/// \file tuning.cuh
/// \brief Per-architecture default policies: the only place where tgemm's tuning numbers live.
///
/// Each architecture is a struct naming its policies and the architecture before it, newest first (the CUB
/// chain). Device code compiled for `__CUDA_ARCH__` = X uses the newest entry with `arch <= X`; the host makes
/// the same choice from the PTX version the device will run, so grid and block always match the code.
#pragma once

#include <cstdint>
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

/// Problems whose m (or n) is at most this use a tile only 32 wide in that dimension.
inline constexpr int64_t narrow_extent = 32;

/// A 32 x 128 tile for problems with very few rows (m <= narrow_extent): 128 threads, 4 x 8 per thread.
template <int Stages>
using narrow_m_policy = policy<block_shape<32, 128, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 4, Stages>;
/// A 128 x 32 tile for problems with very few columns (n <= narrow_extent).
template <int Stages>
using narrow_n_policy = policy<block_shape<128, 32, 16>, warp_shape<32, 32>, thread_shape<8, 4>, 4, Stages>;

/// Turing (sm_75): 64 KiB of shared memory per SM and no cp.async; the second stage is filled with plain
/// loads, which still halves the barriers per k slice.
struct sm75 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 750;
  /// No older entry: the end of the chain.
  using previous = void;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 2>;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = general;
  /// m <= narrow_extent.
  using narrow_m = narrow_m_policy<2>;
  /// n <= narrow_extent.
  using narrow_n = narrow_n_policy<2>;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>;
};

/// Ampere A100 (sm_80): cp.async and 164 KiB of shared memory per SM: a three-stage pipeline.
struct sm80 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 800;
  /// The next older entry of the chain.
  using previous = sm75;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3>;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = general;
  /// m <= narrow_extent.
  using narrow_m = narrow_m_policy<3>;
  /// n <= narrow_extent.
  using narrow_n = narrow_n_policy<3>;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>;
};

/// Ampere GA10x and Ada (sm_86, sm_89): 100 KiB of shared memory per SM; a two-stage pipeline keeps two
/// blocks resident.
struct sm86 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 860;
  /// The next older entry of the chain.
  using previous = sm80;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 2>;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = general;
  /// m <= narrow_extent.
  using narrow_m = narrow_m_policy<2>;
  /// n <= narrow_extent.
  using narrow_n = narrow_n_policy<2>;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>;
};

/// Hopper (sm_90, H100/H200): 228 KiB of shared memory per SM. Measured on an H200 (bench --set candidates):
/// 256 x 128 tiles with 16 x 8 per thread beat 128 x 128 ones by 10-15 % at 4096^3; 128 x 128 keeps two blocks
/// per SM for problems with fewer tiles.
struct sm90 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 900;
  /// The next older entry of the chain.
  using previous = sm86;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4.
  using general = policy<block_shape<256, 128, 16>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 3>;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3>;
  /// m <= narrow_extent.
  using narrow_m = narrow_m_policy<3>;
  /// n <= narrow_extent.
  using narrow_n = narrow_n_policy<3>;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>;
};

/// The chain tgemm::gemm() dispatches over, newest architecture first.
using default_chain = sm90;

/// Picks the policy for large problems with aligned operands.
struct pick_general {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::general;
};

/// Picks the policy for problems with too few large tiles to fill the GPU.
struct pick_medium {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::medium;
};

/// Picks the policy for problems with very few rows.
struct pick_narrow_m {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::narrow_m;
};

/// Picks the policy for problems with very few columns.
struct pick_narrow_n {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::narrow_n;
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
