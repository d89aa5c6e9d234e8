// Compiled by ctest with the macros PyTorch's C++/CUDA extensions define by default
// (-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__
// -D__CUDA_NO_HALF2_OPERATORS__), which remove __half's and __nv_bfloat16's operators and conversion constructors.
// tgemm's 16-bit kernels must build without them: it converts through tgemm::convert and tgemm::zero. This file
// instantiates one kernel of each kind that handles 16-bit elements (a tensor-core GEMM with a 16-bit C, the
// realigning and packing copies, C = beta C, the split-K reduction).
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

using half_policy = tgemm::tuning::tensorop_f16_sm90<__half, __half>::small;

template __global__ void tgemm::kernel::gemm_kernel<tgemm::kernel::fixed_policy<half_policy>, tgemm::op::none,
                                                    tgemm::op::transpose, false>(
    const tgemm::device::problem_of<half_policy>, const tgemm::device::linear_combination_of<half_policy>,
    const tgemm::kernel::tile_grid, const tgemm::kernel::split_k<half_policy::element_c>,
    const tgemm::kernel::readable_extent, const tgemm::kernel::call_ops);

void* instantiate_helpers() {
  void* kernels[] = {
      reinterpret_cast<void*>(&tgemm::kernel::realign_operand<__half, 8>),
      reinterpret_cast<void*>(&tgemm::kernel::pack_operand<__nv_bfloat16, true>),
      reinterpret_cast<void*>(&tgemm::kernel::pack_operand<__nv_bfloat16, false>),
      reinterpret_cast<void*>(&tgemm::kernel::scale_c<__nv_bfloat16, float>),
      reinterpret_cast<void*>(&tgemm::kernel::reduce_split_k<float, __half, float>),
      reinterpret_cast<void*>(&tgemm::kernel::reduce_split_k_fused<float, __half, float>),
  };
  return kernels[0] == kernels[1] ? nullptr : kernels[2];
}
