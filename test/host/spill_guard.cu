// Compiled by ctest with ptxas told to fail on any local-memory use (the flags the reliability paths library builds
// every shipped policy with). Case 1 must fail: its 16 x 16 thread tile needs more than 255 registers. Case 0 must
// pass: sm_90's large policy, the one closest to the register limit, for A and B both read along k; so must case 2,
// the large tensor-core tile.
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>  // case 2 instantiates a bfloat16 kernel: the type must be complete

#if TGEMM_SPILL_CASE == 1
using spill_policy = tgemm::policy<tgemm::block_shape<256, 256, 8>, tgemm::warp_shape<128, 64>,
                                   tgemm::thread_shape<16, 16>, 4, 2>;
#elif TGEMM_SPILL_CASE == 2
// The 16-bit tensor-core table's large tile (255 registers for its 64 x 64 warp tiles).
using spill_policy = tgemm::tuning::tensorop_f16_sm90<__nv_bfloat16, __nv_bfloat16>::general;
#else
using spill_policy = tgemm::tuning::sm90::general;
#endif

template __global__ void tgemm::kernel::gemm_kernel<tgemm::kernel::fixed_policy<spill_policy>, tgemm::op::none,
                                                    tgemm::op::none, false>(
    const tgemm::device::problem_of<spill_policy>, const tgemm::device::linear_combination_of<spill_policy>,
    const tgemm::kernel::tile_grid, const tgemm::kernel::split_k<spill_policy::element_c>,
    const tgemm::kernel::readable_extent);
