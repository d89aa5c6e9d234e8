// Compiled by ctest with ptxas told to fail on any local-memory use (the flags the reliability paths library builds
// every shipped policy with). Case 1 must fail: its 16 x 16 thread tile needs more than 255 registers. Case 0 must
// pass: sm_90's large policy, the one closest to the register limit, for A and B both read along k; so must case 2,
// the large tensor-core tile, and case 3, the Hopper kernel of the 16-bit table in all four op pairs, of the TF32
// table in its two (A from shared memory or from registers) and of the 3xTF32 table in its one, the 16-bit table's
// small tile (16-bit and float C), its ping-pong tile (fused), the split-K kernels of the 16-bit and TF32 tables,
// tiles in clusters of two (wgmma_policy's ClusterM), and the grouped kernels of tgemm::gemm_grouped() (bf16 and
// fp16) and tgemm::gemm_grouped_device() (with -Werror, ptxas's C7510 warning, wgmma serialised for want of
// registers or across a call, fails the build too). Case 4, compiled for sm_80, is that architecture's large SIMT
// and 16-bit tensor-core tiles.
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>  // cases 2 and 3 instantiate bfloat16 kernels: the type must be complete
#include <cuda_fp16.h>  // case 3 instantiates a half kernel too

#if TGEMM_SPILL_CASE == 1
using spill_policy = tgemm::policy<tgemm::block_shape<256, 256, 8>, tgemm::warp_shape<128, 64>,
                                   tgemm::thread_shape<16, 16>, 4, 2>;
#elif TGEMM_SPILL_CASE == 2
// The 16-bit tensor-core table's large tile (255 registers for its 64 x 64 warp tiles).
using spill_policy = tgemm::tuning::tensorop_f16_sm90<__nv_bfloat16, __nv_bfloat16>::general;
#elif TGEMM_SPILL_CASE == 4
using spill_policy = tgemm::tuning::sm80::general;
using spill_policy_sm80_tensorop = tgemm::tuning::tensorop_f16_sm80<__nv_bfloat16, __nv_bfloat16>::general;
template __global__ void tgemm::kernel::gemm_kernel<tgemm::kernel::fixed_policy<spill_policy_sm80_tensorop>,
                                                    tgemm::op::transpose, tgemm::op::none, false>(
    const tgemm::device::problem_of<spill_policy_sm80_tensorop>,
    const tgemm::device::linear_combination_of<spill_policy_sm80_tensorop>, const tgemm::kernel::tile_grid,
    const tgemm::kernel::split_k<spill_policy_sm80_tensorop::element_c>, const tgemm::kernel::readable_extent, const tgemm::kernel::call_ops);
#else
using spill_policy = tgemm::tuning::sm90::general;
#endif

#if TGEMM_SPILL_CASE == 3
#include <tgemm/host/launch_tma_wgmma.cuh>

// One explicit instantiation of the Hopper kernel: C's element type, the type of its groups parameter, then the
// kernel's template arguments.
#define TGEMM_HOPPER_KERNEL_WITH(ELEMENT_C, GROUPS, ...)                                                          \
  template __global__ void tgemm::kernel::gemm_tma_wgmma<__VA_ARGS__>(                                          \
      const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, \
      const tgemm::kernel::tma_wgmma_output<ELEMENT_C>, const __grid_constant__ GROUPS);
#define TGEMM_HOPPER_KERNEL(ELEMENT_C, ...) \
  TGEMM_HOPPER_KERNEL_WITH(ELEMENT_C, tgemm::kernel::tma_wgmma_no_groups, __VA_ARGS__)
constexpr tgemm::op N = tgemm::op::none, T = tgemm::op::transpose;
using bf16 = __nv_bfloat16;

using hopper_policy = tgemm::tuning::tensorop_f16_sm90<bf16, bf16>::wgmma;
TGEMM_HOPPER_KERNEL(bf16, hopper_policy, N, N)
TGEMM_HOPPER_KERNEL(bf16, hopper_policy, N, T)
TGEMM_HOPPER_KERNEL(bf16, hopper_policy, T, N)
TGEMM_HOPPER_KERNEL(bf16, hopper_policy, T, T)
using hopper_tf32_policy = tgemm::tuning::tensorop_tf32_sm90<tgemm::math_mode::tf32>::wgmma;
TGEMM_HOPPER_KERNEL(float, hopper_tf32_policy, T, N)
TGEMM_HOPPER_KERNEL(float, hopper_tf32_policy, N, N)
// The split-K kernels gemm()'s plans run for small grids (float partials): 16-bit and TF32 operands.
using hopper_partials_policy = tgemm::tuning::tensorop_f16_sm90<bf16, float>::wgmma;
TGEMM_HOPPER_KERNEL(float, hopper_partials_policy, N, N, true)
TGEMM_HOPPER_KERNEL(float, hopper_tf32_policy, N, N, true)
// The small tile (one consumer warpgroup, which keeps a stage of wgmmas in flight), 16-bit and float C.
using hopper_small_policy = tgemm::tuning::tensorop_f16_sm90<bf16, bf16>::wgmma_small;
TGEMM_HOPPER_KERNEL(bf16, hopper_small_policy, N, N)
TGEMM_HOPPER_KERNEL(bf16, hopper_small_policy, T, T)
using hopper_small_float_policy = tgemm::tuning::tensorop_f16_sm90<bf16, float>::wgmma_small;
TGEMM_HOPPER_KERNEL(float, hopper_small_float_policy, N, N)
// ... and its split-K kernel (the 16-bit tables split k on the small tile where its tiles fill at most half the GPU).
TGEMM_HOPPER_KERNEL(float, hopper_small_float_policy, T, N, true)
using hopper_tf32x3_policy = tgemm::tuning::tensorop_tf32_sm90<tgemm::math_mode::tf32x3>::wgmma;
TGEMM_HOPPER_KERNEL(float, hopper_tf32x3_policy, T, N)
// The ping-pong tile that runs the large tile's fused epilogues (two consumers on different tiles), 16-bit and
// float C, plain and fused.
using hopper_pingpong_policy = tgemm::tuning::tensorop_f16_sm90<bf16, bf16>::wgmma_fused;
TGEMM_HOPPER_KERNEL(bf16, hopper_pingpong_policy, N, N, false, true)
TGEMM_HOPPER_KERNEL(bf16, hopper_pingpong_policy, T, T, false, true)
TGEMM_HOPPER_KERNEL(bf16, hopper_pingpong_policy, N, T)
using hopper_pingpong_float_policy = tgemm::tuning::tensorop_f16_sm90<bf16, float>::wgmma_fused;
TGEMM_HOPPER_KERNEL(float, hopper_pingpong_float_policy, T, N, false, true)
// The same tiles in clusters of two sharing B (ClusterM = 2): the large tile, the small one's split-K kernel, the
// ping-pong tile fused.
using hopper_pair_policy =
    tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, bf16, bf16, tgemm::math_mode::strict, false, 2>;
TGEMM_HOPPER_KERNEL(bf16, hopper_pair_policy, N, N)
TGEMM_HOPPER_KERNEL(bf16, hopper_pair_policy, T, T)
using hopper_small_pair_policy =
    tgemm::wgmma_policy<tgemm::block_shape<64, 128, 64>, 8, bf16, float, tgemm::math_mode::strict, false, 2>;
TGEMM_HOPPER_KERNEL(float, hopper_small_pair_policy, T, N, true)
using hopper_pingpong_pair_policy =
    tgemm::wgmma_policy<tgemm::block_shape<64, 256, 64>, 4, bf16, bf16, tgemm::math_mode::strict, true, 2>;
TGEMM_HOPPER_KERNEL(bf16, hopper_pingpong_pair_policy, N, T, false, true)
// The grouped kernel (tgemm::gemm_grouped()), bf16 and fp16.
using hopper_half_policy = tgemm::tuning::tensorop_f16_sm90<__half, __half>::wgmma;
TGEMM_HOPPER_KERNEL_WITH(bf16, tgemm::kernel::tma_wgmma_groups<bf16>, hopper_policy, N, N, false, false,
                         tgemm::kernel::tma_wgmma_groups<bf16>)
TGEMM_HOPPER_KERNEL_WITH(__half, tgemm::kernel::tma_wgmma_groups<__half>, hopper_half_policy, T, T, false, false,
                         tgemm::kernel::tma_wgmma_groups<__half>)
// ... and of tgemm::gemm_grouped_device() (descriptions in global memory, a direct loop for groups TMA cannot read).
TGEMM_HOPPER_KERNEL_WITH(bf16, tgemm::kernel::tma_wgmma_device_groups<bf16>, hopper_policy, N, T, false, false,
                         tgemm::kernel::tma_wgmma_device_groups<bf16>)
#else

template __global__ void tgemm::kernel::gemm_kernel<tgemm::kernel::fixed_policy<spill_policy>, tgemm::op::none,
                                                    tgemm::op::none, false>(
    const tgemm::device::problem_of<spill_policy>, const tgemm::device::linear_combination_of<spill_policy>,
    const tgemm::kernel::tile_grid, const tgemm::kernel::split_k<spill_policy::element_c>,
    const tgemm::kernel::readable_extent, const tgemm::kernel::call_ops);
#endif
