// Compiled by ctest with ptxas told to fail on any local-memory use (the flags the reliability paths library builds
// every shipped policy with). Case 1 must fail: its 16 x 16 thread tile needs more than 255 registers. Case 0 must
// pass: sm_90's large policy, the one closest to the register limit, for A and B both read along k.
#include <tgemm/gemm.cuh>

#if TGEMM_SPILL_CASE == 1
using spill_policy = tgemm::policy<tgemm::block_shape<256, 256, 8>, tgemm::warp_shape<128, 64>,
                                   tgemm::thread_shape<16, 16>, 4, 2>;
#else
using spill_policy = tgemm::tuning::sm90::general;
#endif

template __global__ void tgemm::kernel::gemm_kernel<tgemm::kernel::fixed_policy<spill_policy>, tgemm::op::none,
                                                    tgemm::op::none, false>(
    const tgemm::device::problem, const tgemm::device::linear_combination, const tgemm::kernel::tile_grid,
    const tgemm::kernel::split_k<float>, const tgemm::kernel::readable_extent);
