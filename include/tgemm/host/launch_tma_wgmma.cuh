/// \file host/launch_tma_wgmma.cuh
/// \brief tgemm::experimental::gemm_tma_wgmma<Policy>(): the Hopper kernel (kernel/gemm_tma_wgmma.cuh) for one
/// layout, ahead of its place in tgemm::gemm()'s plans.
///
/// The layout is the one TMA and wgmma read without a copy: A stored as a column-major k x m array and used
/// transposed, B a column-major k x n array, C column-major m x n (cuBLAS's CUBLAS_OP_T, CUBLAS_OP_N). Arguments
/// are checked as gemm() checks them, and a GPU or a build that cannot run the kernel gets a named status.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <limits>

#include "../kernel/gemm_tma_wgmma.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "cuda_status.cuh"
#include "device_scope.cuh"
#include "launcher.cuh"

namespace tgemm {
namespace detail {

/// Whether the image `device` runs holds the sm_90a code of the Hopper kernels (read once per device).
inline status check_tma_wgmma_image(int device) {
  static std::atomic<uint64_t> known{0};  // devices whose image was checked and holds the code
  const uint64_t bit = device >= 0 && device < 64 ? uint64_t(1) << device : 0;
  if (bit != 0 && (known.load(std::memory_order_acquire) & bit) != 0) return status::success;
  int arch = 0;
  if (const cudaError_t error = read_compute_capability(device, arch); error != cudaSuccess) {
    return fail_cuda(error, device, "reading the compute capability");
  }
  if (arch != 900) {  // wgmma exists on sm_90 only (read_compute_capability gives 100 x major + 10 x minor)
    return fail(status::unsupported_device, cudaSuccess,
                "the Hopper kernel needs an sm_90 GPU (wgmma); device %d is sm_%d", device, arch / 10);
  }
  int present = 0;
  if (const cudaError_t error = cudaMemcpyFromSymbol(&present, kernel::tma_wgmma_image<0>, sizeof present);
      error != cudaSuccess) {
    return fail_cuda(error, device, "reading which image of the Hopper kernel the device runs");
  }
  if (present == 0) {
    return fail(status::arch_not_compiled, cudaSuccess,
                "device %d runs an image without the Hopper kernel's code: build for sm_90a "
                "(-gencode arch=compute_90a,code=sm_90a), not only sm_90 or older",
                device);
  }
  if (bit != 0) known.fetch_or(bit, std::memory_order_release);
  return status::success;
}

}  // namespace detail

namespace experimental {

/// C = alpha A^T B + beta C on the Hopper kernel: A is a column-major k x m array (lda >= k), B a column-major
/// k x n array (ldb >= k), C column-major m x n (ldc >= m). A and B 16-byte aligned with lda and ldb multiples of
/// Policy::vector_width (8): what TMA can describe. m, n and k below 2^31. Nothing is enqueued when a check fails.
template <class Policy>
status gemm_tma_wgmma(int64_t m, int64_t n, int64_t k, float alpha, const typename Policy::element_a* A, int64_t lda,
                      const typename Policy::element_b* B, int64_t ldb, float beta, typename Policy::element_c* C,
                      int64_t ldc, cudaStream_t stream = nullptr) {
  // The checks of gemm() itself (A used transposed, column-major), then what TMA adds: 32-bit coordinates, and
  // 16-byte aligned operands with leading dimensions a multiple of 16 bytes (Policy::vector_width elements).
  detail::canonical_call<detail::types_of<Policy>> call;
  if (status s = detail::check_arguments(layout::col_major, op::transpose, op::none, m, n, k, alpha, A, lda, B, ldb,
                                         beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  constexpr int64_t limit = std::numeric_limits<int>::max();
  if (m > limit || n > limit || k > limit) {
    return detail::fail(status::invalid_dimension, cudaSuccess,
                        "m = %lld, n = %lld, k = %lld: the Hopper kernel takes extents below 2^31", (long long)m,
                        (long long)n, (long long)k);
  }
  if (call.empty) return status::success;
  if (status s = detail::check_alignment(call, Policy::vector_width, Policy::name().c_str()); s != status::success) {
    return s;
  }
  const bool reads_operands = call.reads_operands;

  detail::device_scope scope(stream);
  if (scope.state() != status::success) return scope.state();
  const int device = scope.device();
  if (status s = detail::check_tma_wgmma_image(device); s != status::success) return s;
  constexpr auto kernel = &kernel::gemm_tma_wgmma<Policy>;
  if (status s = detail::prepare_kernel_once<kernel>(device, Policy::shared_bytes,
                                                     [] { return "the Hopper kernel of policy " + Policy::name(); });
      s != status::success) {
    return s;
  }
  CUtensorMap map_a{}, map_b{};  // unused (left zero) when the call reads neither operand
  if (reads_operands && (!arch::encode_k_major_map(map_a, A, m, k, lda, Policy::block_m) ||
                         !arch::encode_k_major_map(map_b, B, n, k, ldb, Policy::block_n))) {
    return detail::fail(status::cuda_error, cudaSuccess,
                        "the driver refused a tensor map (cuTensorMapEncodeTiled) for %lld x %lld x %lld, lda %lld, "
                        "ldb %lld",
                        (long long)m, (long long)n, (long long)k, (long long)lda, (long long)ldb);
  }
  const int depth = reads_operands ? int(k) : 0;  // alpha = 0 or k = 0: C = beta C, A and B not read
  const kernel::tma_wgmma_output<typename Policy::element_c> out{C, ldc, int(m), int(n), depth, alpha, beta};
  const dim3 grid(unsigned((m + Policy::block_m - 1) / Policy::block_m),
                  unsigned((n + Policy::block_n - 1) / Policy::block_n));
  if (grid.y > 65535) {
    return detail::fail(status::invalid_dimension, cudaSuccess, "n = %lld needs more than 65535 block columns",
                        (long long)n);
  }
  return detail::launch_kernel(kernel, grid, dim3(Policy::threads), Policy::shared_bytes, stream, device,
                               "launching the Hopper kernel", map_a, map_b, out);
}

}  // namespace experimental
}  // namespace tgemm
