/// \file tuning/simt_f32.cuh
/// \brief The tuning table for float on the SIMT mainloop: one entry per architecture, every number the
/// dispatcher uses for float (tile choices and thresholds) and where it was measured.
///
/// Each entry names its policies (one per slot, see tuning/slots.cuh), the thresholds it inherits from
/// simt_f32_thresholds or overrides, and the architecture before it, newest first (the CUB chain that
/// tuning::select walks). Device code compiled for `__CUDA_ARCH__` = X uses the newest entry with `arch <= X`;
/// the host makes the same choice from the PTX version the device runs, so grid and block always match the code.
#pragma once

#include <cstdint>

#include "../policy/policy.cuh"
#include "../policy/run_time_layouts.cuh"
#include "gemv.cuh"

namespace tgemm::tuning {

// The thin tiles read their thin operand's layout at run time and the scalar-load tile both layouts
// (run_time_layouts): their loads are a small part of their time, and a source calling tgemm::gemm() for float
// compiles 11 kernels fewer (34 -> 23 for sm_90a). The other tiles keep a kernel per op pair: one kernel for both
// layouts holds the staged copy's registers either way, which cost the medium and small tiles a block per
// multiprocessor (H100: the small tile 125-128 -> 160 registers, and 1000^3 then planned onto it ran 18-34 % slower).

/// A 32 x 128 tile for problems with very few rows (tiny_extent < m <= narrow_extent): 128 threads, 4 x 8 per thread.
template <int Stages>
using narrow_m_policy =
    run_time_layouts<policy<block_shape<32, 128, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 4, Stages>, true, false>;
/// A 128 x 32 tile for problems with very few columns (tiny_extent < n <= narrow_extent).
template <int Stages>
using narrow_n_policy =
    run_time_layouts<policy<block_shape<128, 32, 16>, warp_shape<32, 32>, thread_shape<8, 4>, 4, Stages>, false, true>;

/// A 16 x 128 tile for problems with at most tiny_extent rows: 64 threads, 4 x 8 per thread, 32-deep slices (so
/// that the 16-row slice of A still gives each thread two vectors to load). Measured on an H200 through
/// tgemm::gemm() at (16, 8192, 8192): 21.7 TFLOP/s against 14.4 for the 32-row tile, split-K included; two
/// stages beat three (18.9), and 16-deep slices in three or four stages (17.3, 16.6) or a 256-wide tile (16.3)
/// were slower. Two stages also fit every architecture's shared memory, so one tile serves the whole chain.
using tiny_m_policy =
    run_time_layouts<policy<block_shape<16, 128, 32>, warp_shape<16, 64>, thread_shape<4, 8>, 4, 2>, true, false>;
/// A 128 x 16 tile for problems with at most tiny_extent columns (tiny_m_policy transposed). (8192, 16, 8192):
/// 23.2 TFLOP/s against 16.7 for the 32-column tile.
using tiny_n_policy =
    run_time_layouts<policy<block_shape<128, 16, 32>, warp_shape<64, 16>, thread_shape<8, 4>, 4, 2>, false, true>;

/// A 64 x 64 tile with 32-deep slices: 128 threads, 4 x 8 per thread, several blocks per multiprocessor.
template <int Stages>
using small_policy = policy<block_shape<64, 64, 32>, warp_shape<32, 32>, thread_shape<4, 8>, 4, Stages>;

/// A 32 x 32 tile in one warp (4 x 8 per thread, 16-deep slices, two stages) for batches of products that one or two
/// such tiles cover, run in one grid: each block multiplies a product (or half of one) whole, and many small blocks
/// keep more of the batch's loads in flight than the 64 x 64 tile, three quarters of which lies outside a 32 x 32
/// product. Measured on an H200 (GPU time of device::gemm() launched once per tile, queued launches, median of 40;
/// scratch probe, NN, tight strides), ms: 4096 x 32^3 0.0228 against 0.0657 for small_policy<3> (cuBLAS 0.0258),
/// 16384 x 32^3 0.0710 against 0.2417 (cuBLAS 0.0777), 8192 x 16^3 0.0269 (cuBLAS 0.0261), 2048 x (32, 64, 48) 0.0260
/// against 0.0548 (cuBLAS 0.0284). 64 x 64 products keep the small tile. 32-deep slices: 0.0223, 0.0615, 0.0341.
using products_policy = policy<block_shape<32, 32, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 4, 2>;

/// The dispatcher's thresholds for float, shared by every entry unless it overrides one. Measured on an H200.
struct simt_f32_thresholds {
  /// Problems whose m (or n) is at most this use a tile only 32 wide in that dimension (slots narrow_m/_n).
  static constexpr int64_t narrow_extent = 32;
  /// Problems whose m (or n) is at most this use a tile only 16 wide in that dimension (tiny_m/_n): they stream
  /// the other operand once, and a 32-wide tile would spend half its multiply-adds on rows that do not exist.
  static constexpr int64_t tiny_extent = 16;
  /// Problems of at least this many flops (2mnk) repack misaligned A and B rather than use scalar loads: the
  /// copy costs one pass over A and B, which large products repay many times over.
  static constexpr double pack_min_flops = double(int64_t(1) << 27);
  /// Aligned problems at least this large whose operands are not both read along m and n are rewritten into
  /// that layout (A column-major, B transposed) when the other extent is at least layout_pack_min_extent: both
  /// tiles then stream in with cp.async and the main loop needs no register staging. On an H200 that kernel ran
  /// 52.1 TFLOP/s at 4096^3 against 48.9 for the register-staged one, and repacking an operand costs one pass
  /// over it (56 us for B at 4095^3, about 2 % of the product).
  static constexpr double layout_pack_flops = double(int64_t(1) << 34);
  /// See layout_pack_flops: the pass over B is repaid over m (over n for A).
  static constexpr int64_t layout_pack_min_extent = 2048;
  /// Repacked operands are padded along m (n) to a multiple of this, the largest block tile extent, when that
  /// adds at most an eighth to the copy (extents of at least 8 x pack_padding); shorter ones to a multiple of 4.
  static constexpr int64_t pack_padding = 256;
  /// Repacking rewrites an operand in the layout the SIMT loads want (op(A) along m, op(B) along n), transposing
  /// through shared memory where needed; tables whose kernels read any layout set this to keep the operand's
  /// layout and only realign it (kernel::realign_operand: a straight copy with 16-byte stores).
  static constexpr bool pack_keeps_layout = false;
  /// Split-K partial products are bounded by this many bytes; beyond it the split shrinks.
  static constexpr int64_t max_partials_bytes = int64_t(512) << 20;
  /// A split-K slice is at least this many block_k steps deep.
  static constexpr int64_t split_min_steps = 4;
  /// A product whose tiles are too few to fill the GPU splits k on the medium tile, or on the small tile when the
  /// medium tiles number fewer than this fraction of the multiprocessors (0: always the medium tile).
  static constexpr double split_small_below = 0;
  /// A split-K slice of the small tile is at least this many of its block_k steps deep.
  static constexpr int64_t split_small_min_steps = 4;
  /// Larger products (2mnk flops) keep the medium tile's split whatever split_small_below says.
  static constexpr double split_small_max_flops = 1e300;
  /// Products of at least this many elements whose C the epilogue could only write element by element (a
  /// misaligned pointer or ldc) are computed into an aligned buffer and copied to C. On an H200 (gemm(),
  /// beta = 0.5, ldc = m or m + 1): 4095^3 2.92 -> 2.83 ms, 2047^3 0.411 -> 0.393, 8192 x 8192 x 256 with ldc
  /// 8193 1.21 -> 1.15; at 1536 x 1400 x 512 (2.2 M elements) the copy did not pay: 0.075 -> 0.077 ms.
  static constexpr int64_t staged_c_min_elements = int64_t(3) << 20;
  /// A peeled large problem loses a little to the strips' extra launches: the score of the peeled plan is
  /// scaled by this before it is compared.
  static constexpr double peel_speed = 0.98;
  /// Throughput of `medium` relative to the large tiles on full waves (measured; the dispatcher weighs it
  /// against how evenly each tile size fills the multiprocessors).
  static constexpr double medium_speed = 1.0;
  /// Throughput of `small` relative to the large tiles on full waves.
  static constexpr double small_speed = 0.85;
  /// Products with one row or one column (m = 1 or n = 1) run on the GEMV kernels (kernel/gemv.cuh), which read the
  /// other operand once with 16-byte loads, when its lines are 16-byte aligned. The kernels take up to eight
  /// vectors, but on an H200 two to eight ran slower than the thin tiles (scratch probe, 8 x 8192 x 8192: float
  /// 0.10-0.15 ms against the 16-row tile's 0.08-0.10, bf16 0.08-0.13 against 0.043), so only one is sent to them.
  static constexpr bool gemv = true;
  /// The GEMV kernels split k when their blocks (all products of a batch together) number fewer than this many per
  /// multiprocessor: each block keeps only a few loads in flight per thread, so a few blocks cannot keep the memory
  /// busy. On an H200 (scratch probe, 1 x 8192 x 8192 and 1 x 2048 x 65536, float, bf16, double) both kernels streamed
  /// fastest with about 512 blocks (3.9 per SM), the split's reduction included: gemv_along_n's 64 float blocks 0.33 ->
  /// 0.073 ms in 8 slices, gemv_along_k's 64 blocks of 1 x 2048 x 65536 0.33 -> 0.136 ms in 8.
  static constexpr double gemv_along_k_min_blocks = 3.5;
  /// See gemv_along_k_min_blocks.
  static constexpr double gemv_along_n_min_blocks = 3.5;
  /// Each GEMV slice of k is at least this deep.
  static constexpr int64_t gemv_min_slice_k = 512;
  /// The most slices a split GEMV along n sums inside its launch on sm_90 and newer (tuning/gemv.cuh).
  static constexpr int64_t gemv_cluster_slices = tuning::gemv_cluster_slices;
  /// The bound instead where gemv_cluster_slices slices would make fewer blocks than multiprocessors (tuning/gemv.cuh).
  static constexpr int64_t gemv_wide_cluster_slices = tuning::gemv_wide_cluster_slices;
  /// The entry's sm_90a kernel (a wgmma_policy), or void for none. An entry that names one runs every problem
  /// that suits it there, on a device that executes the sm_90a image (tgemm::gemm() checks which image runs).
  using wgmma = void;
  /// A problem suits the sm_90a kernel when neither m nor n is thin (at most narrow_extent) and its tiles fill at
  /// least this fraction of the multiprocessors (smaller grids split k on it, below, or keep the other tiles).
  static constexpr double wgmma_min_wave = 0.5;
  /// A strided batch of products too small to fill the GPU alone runs on the sm_90a kernel in one grid (the batch
  /// walked with the tiles) when its tiles together fill wgmma_min_wave and at least this fraction of each tile is
  /// inside C (a 64 x 64 product would use an eighth of a 128 x 256 tile: the mma.sync tiles serve it better).
  static constexpr double wgmma_batch_min_use = 0.5;
  /// A batch runs on the smaller sm_90a tile (wgmma_small) instead where at least twice as much of it as of the large
  /// one is inside C (a 128 x 128 product fills half of a 128 x 256 tile, two whole 64 x 128 ones), its products are
  /// larger than one small tile (those keep the small mma.sync tile), and its tiles fill as above
  /// (detail::wgmma_batch_takes_small).
  static constexpr bool wgmma_batch_small = false;
  /// The entry's batch tile (a wgmma_policy), or void for none: strided batches and pointer arrays without a fused
  /// epilogue take it before the smaller and the large tile where detail::wgmma_batch_takes_batch_tile() says so (as
  /// much of it as of the smaller tile inside C, and twice as much as of the large one, or the large tiles of the
  /// whole batch under one wave with k at most wgmma_batch_tile_max_k). Only batched calls compile its kernels.
  using wgmma_batch = void;
  /// See wgmma_batch.
  static constexpr int64_t wgmma_batch_tile_max_k = 0;
  /// Where those tiles would fill fewer, the sm_90a kernel splits k instead (float partial products, then the
  /// reduction) when k is at least wgmma_split_min_k, into slices at least wgmma_split_min_slice_k deep (rounded up
  /// to whole block_k steps), as many as one wave of blocks holds; wgmma_split_min_k = 0: it never splits (the other
  /// kernels take the problem). Measured on an H200 (tgemm_bench_tensorop --set few_tiles, bf16 and TF32, against
  /// the mma.sync plans; bench/results/h200-hopper-tma-store-split-k.txt): with k of 2048 to 8192 the split ran
  /// 1.2-4.4x faster (128 x 4096 x 4096 bf16 95 -> 154 TFLOP/s, 256 x 256 x 8192 bf16 13 -> 58), at 1024^3 and
  /// 512^3 0.76-0.88x (hence the 2048), and TF32 256 x 256 x 8192 in 64 slices of 128 lost too, 53 -> 46 (hence
  /// slices of 256 or more: 32 slices there, not measured yet; every other measured shape splits as it was measured).
  static constexpr int64_t wgmma_split_min_k = 2048;
  /// See wgmma_split_min_k.
  static constexpr int64_t wgmma_split_min_slice_k = 256;
  /// The sm_90a kernel's float partial products are bounded by this many bytes; beyond it the split shrinks.
  static constexpr int64_t wgmma_max_partials_bytes = int64_t(512) << 20;
  /// The entry's smaller sm_90a tile (a wgmma_policy), or void for none: problems whose large tiles (wgmma) would
  /// fill fewer than wgmma_small_below_wave of the multiprocessors, with k at most wgmma_small_max_k, run unsplit on
  /// it when its tiles fill at least wgmma_small_min_wave of them and at most wgmma_small_max_waves waves (before any
  /// split of k is considered).
  using wgmma_small = void;
  /// The policy that runs the large tile's problems when the call has a fused epilogue (tgemm::epilogue), or void:
  /// wgmma itself. Its tile order groups as many rows of C as wgmma's (wgmma_group_m of wgmma's tile rows).
  using wgmma_fused = void;
  /// Where wgmma_fused names a policy: fused calls with k up to this run on it, deeper ones on wgmma's cooperative
  /// tile with the fused stores (its epilogue is not hidden, but each tile copies fewer bytes per product). The largest
  /// int64_t: every fused call runs wgmma_fused, and the cooperative fused kernels are not built.
  static constexpr int64_t wgmma_fused_pingpong_max_k = INT64_MAX;
  /// See wgmma_small. Measured on an H200 (scratch probe, bf16 NN, against the 128 x 256 tile split as the plans split
  /// it; bench/results/h200-hopper-few-tiles.txt): 64 x 128 tiles unsplit ran 128 x 4096 x 4096 in 0.0264 ms against
  /// 0.0312, 256 x 4096 x 2048 0.0173 against 0.0277, 512 x 4096 x 2048 0.0260 against 0.0363 (64 tiles of the large
  /// one), 64 x 4096 x 2048 (32 tiles) 0.0168 against 0.0223. 2048^3 (128 large tiles) keeps the large tile.
  static constexpr double wgmma_small_below_wave = 0.9;
  /// See wgmma_small: 32 tiles of 64 x 128 (a quarter of the H200's multiprocessors) still beat the split.
  static constexpr double wgmma_small_min_wave = 0.2;
  /// See wgmma_small: at most this many waves of small tiles (one block of them fits a multiprocessor, with one
  /// consumer warpgroup, so more waves of them lose to the large tile's two; 256 tiles, 1.94 waves, measured above).
  static constexpr double wgmma_small_max_waves = 2.0;
  /// See wgmma_small: one wave of unsplit small tiles takes about 6 us per 1024 of k on an H200 (0.0247 ms at k =
  /// 4096), so deeper products with few tiles split k on the large tile instead.
  static constexpr int64_t wgmma_small_max_k = 4096;
  /// Where a product splits k (wgmma_split_min_k), split it on the smaller tile (its float-partials twin, wgmma_small)
  /// rather than the large one, when the smaller tiles fill at most half of the multiprocessors: as many slices as one
  /// wave of blocks holds, each at least wgmma_split_min_slice_k deep (see the 16-bit entry for the measurements).
  static constexpr bool wgmma_split_small = false;
  /// tgemm::gemm_grouped() runs consecutive groups that suit the sm_90a kernel (16-bit, operands as TMA reads them,
  /// neither thin nor dependent on each other) in one launch of its large tile when their tiles together fill at
  /// least this many waves of the multiprocessors (one block per multiprocessor); with fewer, each group takes its
  /// own plan (the small tile, or a split of k, serves a few tiles better than one short wave).
  static constexpr double wgmma_grouped_min_waves = 1.0;
  /// The sm_90a kernel runs one persistent block per multiprocessor (true), which overlaps each tile's epilogue
  /// with the next tile's copies, or one block per tile (false).
  static constexpr bool wgmma_persistent = true;
  /// Tile rows per group of the sm_90a kernel's tile order (kernel::wgmma_tile): blocks running together share
  /// strips of A and B in L2.
  static constexpr int wgmma_group_m = 16;
  /// The sm_90a plan's operand copies (realigned, K-major or split) start each line on a multiple of this many
  /// bytes: TMA reads 128-byte box rows, and rows that straddle two 128-byte segments of memory cost it. On an H200
  /// (tgemm_bench_tensorop --set odd), 4097^3 with lines padded to 16 bytes against 128: bf16 356.7 -> 475.5
  /// TFLOP/s, TF32 187.5 -> 257.9, 3xTF32 72.7 -> 110.2.
  static constexpr int wgmma_line_bytes = 128;
};

/// Turing (sm_75): 64 KiB of shared memory per SM and no cp.async; the second stage is filled with plain
/// loads, which still halves the barriers per k slice.
struct sm75 : simt_f32_thresholds {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 750;
  /// No older entry: the end of the chain.
  using previous = void;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 2>;
  /// Large problems, op(A) and B read along k.
  using general_tn = general;
  /// Large problems, op(A) read along k and B along n.
  using general_tt = general;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = general;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = policy<block_shape<64, 64, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 4, 2>;
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<2>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<2>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned =
      run_time_layouts<policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>, true, true>;
  /// Batches of small products: the small tile (not measured apart on this architecture; the planner then keeps to
  /// its other rules, since the products tile is no smaller than the small one).
  using products = small;
};

/// Ampere A100 (sm_80): cp.async and 164 KiB of shared memory per SM: a three-stage pipeline.
struct sm80 : simt_f32_thresholds {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 800;
  /// The next older entry of the chain.
  using previous = sm75;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3>;
  /// Large problems, op(A) and B read along k.
  using general_tn = general;
  /// Large problems, op(A) read along k and B along n.
  using general_tt = general;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = general;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = small_policy<3>;
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<3>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<3>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned =
      run_time_layouts<policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>, true, true>;
  /// Batches of small products: the small tile (not measured apart on this architecture; the planner then keeps to
  /// its other rules, since the products tile is no smaller than the small one).
  using products = small;
};

/// Ampere GA10x and Ada (sm_86, sm_89): 100 KiB of shared memory per SM; a two-stage pipeline keeps two
/// blocks resident.
struct sm86 : simt_f32_thresholds {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 860;
  /// The next older entry of the chain.
  using previous = sm80;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4.
  using general = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 2>;
  /// Large problems, op(A) and B read along k.
  using general_tn = general;
  /// Large problems, op(A) read along k and B along n.
  using general_tt = general;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = general;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = small_policy<2>;
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<2>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<2>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned =
      run_time_layouts<policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 2>, true, true>;
  /// Batches of small products: the small tile (not measured apart on this architecture; the planner then keeps to
  /// its other rules, since the products tile is no smaller than the small one).
  using products = small;
};

/// Hopper (sm_90, H100/H200): 228 KiB of shared memory per SM. Measured on an H200 (bench --set candidates, see
/// docs/performance.md): 256 x 128 tiles with 16 x 8 per thread (the shape cuBLAS's own FP32 kernel uses) beat
/// 128 x 128 ones; 8-deep slices in four stages are fastest when A streams in with cp.async, while an operand
/// staged through registers (read along k) wants 16-deep slices, and when only A is staged the 128 x 256 tile
/// keeps the staged operand the narrow one.
struct sm90 : simt_f32_thresholds {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 900;
  /// The next older entry of the chain.
  using previous = sm86;
  /// Large problems, operands aligned to 16 bytes with leading dimensions that are multiples of 4, op(A) read
  /// along m (A not transposed, in column-major terms).
  using general = policy<block_shape<256, 128, 8>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 4>;
  /// Large problems whose op(A) is read along k (A transposed in column-major terms) and whose B is read along k
  /// too: both operands are staged through registers.
  using general_tn = policy<block_shape<256, 128, 16>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 3>;
  /// Large problems whose op(A) is read along k and whose B is read along n.
  using general_tt = policy<block_shape<128, 256, 16>, warp_shape<64, 64>, thread_shape<8, 16>, 4, 3>;
  /// Problems whose large tiles would leave multiprocessors idle (split-K applies on top when needed).
  using medium = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3>;
  /// Problems too small to fill the GPU with the larger tiles: many small blocks per multiprocessor.
  using small = small_policy<3>;
  /// tiny_extent < m <= narrow_extent.
  using narrow_m = narrow_m_policy<3>;
  /// tiny_extent < n <= narrow_extent.
  using narrow_n = narrow_n_policy<3>;
  /// m <= tiny_extent.
  using tiny_m = tiny_m_policy;
  /// n <= tiny_extent.
  using tiny_n = tiny_n_policy;
  /// Scalar loads, for misaligned operands of problems too small to be worth repacking.
  using unaligned =
      run_time_layouts<policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 1, 3>, true, true>;
  /// Batches of products of at most 32 x 64 (or 64 x 32): products_policy (one warp a tile).
  using products = products_policy;
  /// The medium tile's throughput relative to the large ones on full waves, on an H200.
  static constexpr double medium_speed = 0.95;
  /// The small tile's throughput relative to the large ones on full waves, on an H200.
  static constexpr double small_speed = 0.87;
  /// Products of at most 16 medium tiles (fewer than an eighth of the multiprocessors) split k on the 64 x 64 tile, in
  /// slices as thin as one 32-deep step: more, shorter blocks, as cuBLAS runs 256^3 on 256 blocks of 32 x 32. On an
  /// H200 (tgemm_bench_sweep, bench/results/h200-split-small-tile.txt), ms against the medium tile's split: 256^3
  /// 0.0108 against 0.0165 (cuBLAS 0.0112), 384^3 0.0135 against 0.0180, 300^3 0.0129 against 0.0185, 200 x 500 x 700
  /// 0.0166 against 0.0192, 256 x 256 x 4096 0.0260 against 0.0287, 512^3 0.0187 against 0.0193; with 32 or more
  /// medium tiles it lost (768^3 0.0406 against 0.0379, 1024^3 0.0697 against 0.0645, 128 x 4096 x 4096 0.121 against
  /// 0.109).
  static constexpr double split_small_below = 0.125;
  /// See split_small_below: slices of one step beat two (256^3 0.0108 against 0.0120) and four (0.0142).
  static constexpr int64_t split_small_min_steps = 1;
  /// See split_small_below: larger products lost on the small tile, where the medium tile's split already fills the GPU
  /// (lent H100, ms, small against medium: 512 x 512 x 4096 0.0657 / 0.0625, 256 x 256 x 16384 0.0667 / 0.0634,
  /// 512 x 512 x 8192 0.119 / 0.108, 256 x 256 x 8192 TN 0.0436 / 0.0397 though NN 0.0396 / 0.0411); 2^29 keeps
  /// 256 x 256 x 4096 (0.0260 / 0.0290) and 64 x 64 x 8192 (0.0211 / 0.0227) on the small tile.
  static constexpr double split_small_max_flops = double(int64_t(1) << 29);
};

/// The newest entry of the float table: what tgemm::gemm() dispatches over for float.
using simt_f32 = sm90;

}  // namespace tgemm::tuning
