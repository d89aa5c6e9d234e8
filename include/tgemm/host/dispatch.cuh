/// \file host/dispatch.cuh
/// \brief tgemm::gemm(): the BLAS-style call that picks the policy for the device and the operands' alignment.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../arch.cuh"
#include "../kernel/gemm_kernel.cuh"
#include "../status.cuh"
#include "../tuning.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "launch.cuh"

namespace tgemm {

namespace detail {

/// Launches the dispatch kernel for one pick (general or unaligned) of the chain entry Tuning.
template <class Chain, class Tuning, class Pick>
status launch_dispatched(const canonical_call& call, int device, cudaStream_t stream) {
  using policy = typename Pick::template policy<Tuning>;
  if (status s = check_grid<policy>(call); s != status::success) return s;
  return with_ops(call.op_a, call.op_b, [&](auto a, auto b) {
    return launch_tiled<policy, kernel::dispatch_gemm<Chain, Pick, decltype(a)::value, decltype(b)::value>>(
        call, device, stream);
  });
}

}  // namespace detail

/// C = alpha op(A) op(B) + beta C, as cblas_sgemm defines it, on device pointers, enqueued on `stream`.
///
/// op(A) is m x k, op(B) is k x n, C is m x n, all stored in `order` with leading dimensions lda, ldb, ldc.
/// The call never synchronises. It picks the policy tuned for the device's architecture, with vector loads
/// when every pointer and leading dimension allows them and scalar loads otherwise, so any alignment works.
///
/// - m == 0 or n == 0: success, nothing touched.
/// - k == 0 or alpha == 0: C = beta C; A and B are not read (and may be null).
/// - beta == 0: C is not read, so NaN or Inf already in C cannot reach the result.
///
/// \return status::success once the work is enqueued. Bad arguments return their status before any device
/// work and leave C untouched; last_error() says which argument and why. Errors of the kernel itself
/// surface, as with any CUDA work, at the next synchronisation.
inline status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                   int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                   cudaStream_t stream = nullptr) {
  detail::canonical_call call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (status s = detail::check_alignment(call, 1, "tgemm::gemm"); s != status::success) return s;
  if (call.empty) return status::success;
  int device = 0, arch = 0;
  if (status s = detail::current_arch(device, arch); s != status::success) return s;
  if (!call.reads_operands) return detail::launch_scale(call, device, stream);

  using chain = tuning::default_chain;
  return tuning::with_tuning<chain>(arch, [&](auto entry) {
    using entry_type = decltype(entry);
    if (detail::is_aligned(call, entry_type::general::vector_width)) {
      return detail::launch_dispatched<chain, entry_type, tuning::pick_general>(call, device, stream);
    }
    return detail::launch_dispatched<chain, entry_type, tuning::pick_unaligned>(call, device, stream);
  });
}

}  // namespace tgemm
