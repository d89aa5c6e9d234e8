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
/// Problems whose m (or n) is at most this use a tile only 16 wide in that dimension: they stream the other
/// operand once, and a 32-wide tile would spend half its multiply-adds on rows that do not exist.
inline constexpr int64_t tiny_extent = 16;

/// A 32 x 128 tile for problems with very few rows (tiny_extent < m <= narrow_extent): 128 threads, 4 x 8 per thread.
template <int Stages>
using narrow_m_policy = policy<block_shape<32, 128, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 4, Stages>;
/// A 128 x 32 tile for problems with very few columns (tiny_extent < n <= narrow_extent).
template <int Stages>
using narrow_n_policy = policy<block_shape<128, 32, 16>, warp_shape<32, 32>, thread_shape<8, 4>, 4, Stages>;

/// A 16 x 128 tile for problems with at most tiny_extent rows: 64 threads, 4 x 8 per thread, 32-deep slices (so
/// that the 16-row slice of A still gives each thread two vectors to load). Measured on an H200 through
/// tgemm::gemm() at (16, 8192, 8192): 21.7 TFLOP/s against 14.4 for the 32-row tile, split-K included; two
/// stages beat three (18.9), and 16-deep slices in three or four stages (17.3, 16.6) or a 256-wide tile (16.3)
/// were slower. Two stages also fit every architecture's shared memory, so one tile serves the whole chain.
using tiny_m_policy = policy<block_shape<16, 128, 32>, warp_shape<16, 64>, thread_shape<4, 8>, 4, 2>;
/// A 128 x 16 tile for problems with at most tiny_extent columns (tiny_m_policy transposed). (8192, 16, 8192):
/// 23.2 TFLOP/s against 16.7 for the 32-column tile.
using tiny_n_policy = policy<block_shape<128, 16, 32>, warp_shape<64, 16>, thread_shape<8, 4>, 4, 2>;

/// A 64 x 64 tile with 32-deep slices: 128 threads, 4 x 8 per thread, several blocks per multiprocessor.
template <int Stages>
using small_policy = policy<block_shape<64, 64, 32>, warp_shape<32, 32>, thread_shape<4, 8>, 4, Stages>;

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
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<2>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<2>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>;
  /// Large problems whose op(A) is read along k (A transposed in column-major terms) and whose B is read along k
  /// too: both operands are staged through registers.
  using general_tn = general;
  /// Large problems whose op(A) is read along k and whose B is read along n.
  using general_tt = general;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = policy<block_shape<64, 64, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 4, 2>;
  /// Throughput of `medium` and `small` relative to the general tiles on full waves (measured; the dispatcher
  /// weighs them against how evenly each tile size fills the multiprocessors).
  static constexpr double medium_speed = 1.0;
  /// See medium_speed.
  static constexpr double small_speed = 0.85;
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
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<3>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<3>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>;
  /// Large problems whose op(A) is read along k (A transposed in column-major terms) and whose B is read along k
  /// too: both operands are staged through registers.
  using general_tn = general;
  /// Large problems whose op(A) is read along k and whose B is read along n.
  using general_tt = general;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = small_policy<3>;
  /// Throughput of `medium` and `small` relative to the general tiles on full waves (measured; the dispatcher
  /// weighs them against how evenly each tile size fills the multiprocessors).
  static constexpr double medium_speed = 1.0;
  /// See medium_speed.
  static constexpr double small_speed = 0.85;
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
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<2>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<2>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>;
  /// Large problems whose op(A) is read along k (A transposed in column-major terms) and whose B is read along k
  /// too: both operands are staged through registers.
  using general_tn = general;
  /// Large problems whose op(A) is read along k and whose B is read along n.
  using general_tt = general;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = small_policy<2>;
  /// Throughput of `medium` and `small` relative to the general tiles on full waves (measured; the dispatcher
  /// weighs them against how evenly each tile size fills the multiprocessors).
  static constexpr double medium_speed = 1.0;
  /// See medium_speed.
  static constexpr double small_speed = 0.85;
};

/// Hopper (sm_90, H100/H200): 228 KiB of shared memory per SM. Measured on an H200 (bench --set candidates, see
/// docs/performance.md): 256 x 128 tiles with 16 x 8 per thread (the shape cuBLAS's own FP32 kernel uses) beat
/// 128 x 128 ones; 8-deep slices in four stages are fastest when A streams in with cp.async, while an operand
/// staged through registers (read along k) wants 16-deep slices, and when only A is staged the 128 x 256 tile
/// keeps the staged operand the narrow one.
struct sm90 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 900;
  /// The next older entry of the chain.
  using previous = sm86;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4, op(A) read
  /// along m (A not transposed, in column-major terms).
  using general = policy<block_shape<256, 128, 8>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 4>;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3>;
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<3>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<3>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>;
  /// Large problems whose op(A) is read along k (A transposed in column-major terms) and whose B is read along k
  /// too: both operands are staged through registers.
  using general_tn = policy<block_shape<256, 128, 16>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 3>;
  /// Large problems whose op(A) is read along k and whose B is read along n.
  using general_tt = policy<block_shape<128, 256, 16>, warp_shape<64, 64>, thread_shape<8, 16>, 4, 3>;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = small_policy<3>;
  /// Throughput of `medium` and `small` relative to the general tiles on full waves (measured; the dispatcher
  /// weighs them against how evenly each tile size fills the multiprocessors).
  static constexpr double medium_speed = 0.95;
  /// See medium_speed.
  static constexpr double small_speed = 0.87;
};

/// The chain tgemm::gemm() dispatches over, newest architecture first.
using default_chain = sm90;

/// Picks the policy for large problems with aligned operands.
struct pick_general {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::general;
};

/// Picks the large-problem policy for op(A) read along k and B read along k.
struct pick_general_tn {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::general_tn;
};

/// Picks the large-problem policy for op(A) read along k and B read along n.
struct pick_general_tt {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::general_tt;
};

/// Picks the policy for problems too small for the medium tile.
struct pick_small {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::small;
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

/// Picks the policy for problems with at most tiny_extent rows.
struct pick_tiny_m {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::tiny_m;
};

/// Picks the policy for problems with at most tiny_extent columns.
struct pick_tiny_n {
  /// The chosen policy of the chain entry Tuning.
  template <class Tuning>
  using policy = typename Tuning::tiny_n;
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
