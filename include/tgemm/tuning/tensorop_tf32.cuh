/// \file tuning/tensorop_tf32.cuh
/// \brief The tuning table for float on the tensor cores (math_mode::tf32 and math_mode::tf32x3, mma.sync, sm_80
/// and newer): one entry per architecture, every number the dispatcher uses for these calls.
#pragma once

#include "../policy/tensorop_policy.cuh"
#include "../policy/wgmma_policy.cuh"
#include "../types.cuh"
#include "tensorop_f16.cuh"

namespace tgemm::tuning {

/// A TF32 tile of 16-deep slices (24 KiB a stage at 128 x 256).
template <int BlockM, int BlockN, int WarpM, int WarpN, int Stages, math_mode Math>
using tensorop_tf32_policy = tensorop_policy<block_shape<BlockM, BlockN, 16>, warp_shape<WarpM, WarpN>,
                                             mma_shape<16, 8, 8>, Stages, float, float, Math>;

/// Ampere A100 (sm_80). The thresholds are the 16-bit table's with a float C (split-K allowed, C never staged).
/// TF32 warps take 64 x 32 tiles: operands stored along m or n are read 32 bits at a time (more address registers
/// than ldmatrix), and the 64 x 64 warp tile of the 16-bit table spilled. 3xTF32 keeps twice the operand registers
/// and a second set of accumulators (each slice's sum), so its warps take 32 x 32 tiles.
template <math_mode Math>
struct tensorop_tf32_sm80 : tensorop_f16_thresholds<float> {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 800;
  /// No older entry: the end of the chain (older GPUs lack the instruction; the host refuses them).
  using previous = void;
  /// Large problems: 128 x 128 x 32 in three stages (TF32) or 64 x 128 x 16 in four (3xTF32), eight warps. On an
  /// H200 at 8192^3 (tgemm_tensorop_candidates --type tf32): TF32 152.7 TFLOP/s against 134.9 for 16-deep slices in
  /// four stages and 147.6 for 64 x 64 warps; 3xTF32 38.4 for 32 x 32 warps against 36.6 for 64 x 32.
  using general =
      std::conditional_t<Math == math_mode::tf32x3, tensorop_tf32_policy<64, 128, 32, 32, 4, Math>,
                         tensorop_policy<block_shape<128, 128, 32>, warp_shape<64, 32>, mma_shape<16, 8, 8>, 3,
                                         float, float, Math>>;
  using general_tn = general;  ///< Every op pair loads alike: the same tile.
  using general_tt = general;  ///< Every op pair loads alike: the same tile.
  /// Problems whose large tiles would leave multiprocessors idle: the same tile (split-K applies on top).
  using medium = general;
  /// Problems too small to fill the GPU with the larger tiles.
  using small = tensorop_tf32_policy<64, 64, 32, 32, 4, Math>;
  using narrow_m = small;   ///< Thin problems use the small tile too.
  using narrow_n = small;   ///< Thin problems use the small tile too.
  using tiny_m = small;     ///< Thin problems use the small tile too.
  using tiny_n = small;     ///< Thin problems use the small tile too.
  using unaligned = small;  ///< Never chosen (misaligned operands are repacked); the same kernel, so none extra.
  using products = small;   ///< Batches of small products: the small tile (not measured apart; no kernel extra).
};

/// Hopper (sm_90): the same mma.sync tiles (tuning them on an H200 is open work), and on an sm_90a image the Hopper
/// kernel. TF32: 128 x 256 x 32 tiles (32 floats: one 128-byte swizzle row) in four stages, 192 KiB of shared
/// memory; it reads A and B along k only, so the plan first copies an operand stored the other way into a K-major
/// workspace copy. 3xTF32: the plan splits both operands into K-major big and small TF32 parts, the kernel's stages
/// hold both (64 KiB at 128 x 128 x 32: three stages), and its consumers keep the cross products in a second set of
/// accumulators (so 64 x 128 each: 64 x 256 would need 256 registers). On an H200 (tgemm_bench_tensorop, 8192^3):
/// 128 x 256 in two stages with one set of accumulators ran 140.8 TFLOP/s but lost accuracy (12x strict FP32's
/// error at k = 1024).
template <math_mode Math>
struct tensorop_tf32_sm90 : tensorop_tf32_sm80<Math> {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 900;
  /// The next older entry of the chain.
  using previous = tensorop_tf32_sm80<Math>;
  /// On an sm_90a image: TMA + wgmma.
  using wgmma = std::conditional_t<Math == math_mode::tf32,
                                   wgmma_policy<block_shape<128, 256, 32>, 4, float, float, math_mode::tf32>,
                                   wgmma_policy<block_shape<128, 128, 32>, 3, float, float, math_mode::tf32x3>>;
};

/// The newest entry of the float tensor-core table for a math mode.
template <math_mode Math>
using tensorop_tf32 = tensorop_tf32_sm90<Math>;

}  // namespace tgemm::tuning
