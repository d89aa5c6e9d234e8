/// \file tuning/tensorop_f64.cuh
/// \brief The tuning table for double on the tensor cores (DMMA through mma.sync, sm_80 and newer): one entry per
/// architecture, every number the dispatcher uses for double.
#pragma once

#include <cstdint>

#include "../policy/tensorop_policy.cuh"
#include "tensorop_f16.cuh"

namespace tgemm::tuning {

/// The dispatcher's thresholds for double: the 16-bit table's (misaligned operands realigned in their layout, no
/// layout repacking, no peeling, C never staged, no padded twins), with split-K on (partials are double, like C).
struct tensorop_f64_thresholds : tensorop_f16_thresholds<double> {
  /// Split-K partial products are bounded by this many bytes; beyond it the split shrinks.
  static constexpr int64_t max_partials_bytes = int64_t(512) << 20;
};

/// A double tile of 16-deep slices (128-byte rows: the swizzle that keeps the 64-bit fragment loads
/// conflict-free needs at least that) with DMMA steps of InstructionK.
template <int BlockM, int BlockN, int WarpM, int WarpN, int InstructionK, int Stages>
using tensorop_f64_policy = tensorop_policy<block_shape<BlockM, BlockN, 16>, warp_shape<WarpM, WarpN>,
                                            mma_shape<16, 8, InstructionK>, Stages, double, double>;

/// Ampere A100 (sm_80): m8n8k4 is the only DMMA shape (each 16 x 8 x k step is k / 2 of them). Measured on an H200
/// (tgemm_tensorop_candidates --type f64, 4096^3 / 8192^3, against cublasDgemm's 60.0 / 63.3 TFLOP/s): 128 x 128
/// tiles of eight 32 x 64 warps in three stages 57.9 / 57.0; 64 x 32 warps 58.2 / 56.6; 128 x 64 tiles of 32 x 32
/// warps 53.9 / 54.7 with 16 x 8 x 4 steps and 55.9 / 56.2 with 16 x 8 x 8; 64 x 64 tiles 54.3 / 54.6. Every one
/// runs one block (eight or four warps) per multiprocessor, held there by 189-245 registers a thread; ncu puts the
/// FP64 tensor pipe at 89 % busy for the 128 x 128 tile. 64 x 64 tiles held to three blocks a multiprocessor
/// (min_blocks_per_sm, 156-168 registers) ran 57.3-57.4 at 4096^3 against this tile's 58.0-58.1 in the same run.
struct tensorop_f64_sm80 : tensorop_f64_thresholds {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 800;
  /// No older entry: the end of the chain (older GPUs lack the instruction; the host refuses them).
  using previous = void;
  /// Large problems: 128 x 128 x 16, eight warps of 32 x 64, three stages (96 KiB).
  using general = tensorop_f64_policy<128, 128, 32, 64, 4, 3>;
  using general_tn = general;  ///< Every op pair loads alike: the same tile.
  using general_tt = general;  ///< Every op pair loads alike: the same tile.
  /// Problems whose large tiles would leave multiprocessors idle: 128 x 64, eight warps of 32 x 32, 16 x 8 x 8 steps.
  using medium = tensorop_f64_policy<128, 64, 32, 32, 8, 4>;
  /// Problems too small to fill the GPU with the larger tiles: 64 x 64, four warps of 32 x 32.
  using small = tensorop_f64_policy<64, 64, 32, 32, 4, 4>;
  using narrow_m = small;   ///< Thin problems use the small tile too.
  using narrow_n = small;   ///< Thin problems use the small tile too.
  using tiny_m = small;     ///< Thin problems use the small tile too.
  using tiny_n = small;     ///< Thin problems use the small tile too.
  using unaligned = small;  ///< Never chosen (misaligned operands are repacked); the same kernel, so none extra.
  using products = small;   ///< Batches of small products: the small tile (not measured apart; no kernel extra).
};

/// Hopper (sm_90): the same tiles, with sm_90's own 16 x 8 DMMA shapes.
struct tensorop_f64_sm90 : tensorop_f64_sm80 {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 900;
  /// The next older entry of the chain.
  using previous = tensorop_f64_sm80;
};

/// The newest entry of the double table.
using tensorop_f64 = tensorop_f64_sm90;

}  // namespace tgemm::tuning
