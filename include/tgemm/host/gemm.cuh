/// \file host/gemm.cuh
/// \brief tgemm::gemm(): the BLAS-style call that plans for the device and the problem, then executes; and the
/// workspace-size query. Declarations only: the definitions are in host/dispatcher.cuh (see config.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "../config.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "device_facts.cuh"

namespace tgemm {
TGEMM_BEGIN_DISPATCH_NAMESPACE

/// C = alpha op(A) op(B) + beta C, as cblas_sgemm defines it, on device pointers, enqueued on `stream`.
///
/// op(A) is m x k, op(B) is k x n, C is m x n, all stored in `order` with leading dimensions lda, ldb, ldc.
/// The call never synchronises. It works on the stream's device (the current device for the default streams),
/// plans for that device and the problem's shape (TGEMM_PRINT_PLAN=1 prints each plan), then launches; any
/// alignment works (misaligned operands of large problems are repacked into workspace memory, small ones are read
/// with scalar loads; a large product whose C is misaligned is computed into aligned workspace and then copied to
/// C), and problems too small to fill the GPU split k, with partial products summed in a fixed order so results
/// are reproducible bit for bit. The workspace is allocated once per call, in stream order, from a pool tgemm
/// keeps per device; the overload taking a tgemm::workspace uses the caller's buffer instead.
///
/// - m == 0 or n == 0: success, nothing touched.
/// - k == 0 or alpha == 0: C = beta C; A and B are not read (and may be null).
/// - beta == 0: C is not read, so NaN or Inf already in C cannot reach the result.
///
/// \return status::success once the work is enqueued. Bad arguments return their status before any device
/// work and leave C untouched; last_error() says which argument and why. Every kernel is made ready and the
/// workspace allocated before the first launch: out_of_memory, arch_not_compiled and the like also leave C
/// untouched. Errors of the kernels themselves surface, as with any CUDA work, at the next synchronisation.
TGEMM_DISPATCH_API status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                               const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                               int64_t ldc, cudaStream_t stream = nullptr);

/// tgemm::gemm() with the caller's workspace: nothing is allocated (what CUDA-graph capture without memory nodes
/// needs). `ws` must hold at least gemm_workspace_size() bytes on the stream's device, aligned to 256 bytes; a
/// smaller one returns status::workspace_too_small before any device work. The buffer must not be used by other
/// work until this call's work on `stream` is done.
TGEMM_DISPATCH_API status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                               const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                               int64_t ldc, cudaStream_t stream, workspace ws);

/// The workspace bytes tgemm::gemm() with these arguments needs on the stream's device (0 for most calls: only
/// repacking, split-K and a staged C need any). Plans the call and launches nothing.
TGEMM_DISPATCH_API status gemm_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                                              float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
                                              float beta, float* C, int64_t ldc, size_t& bytes,
                                              cudaStream_t stream = nullptr);

TGEMM_END_DISPATCH_NAMESPACE

namespace detail {
TGEMM_BEGIN_DISPATCH_NAMESPACE
/// The facts tgemm::gemm()'s float kernels plan with on `device` (made current by the caller): read on first use,
/// then cached. For tests and diagnostics.
TGEMM_DISPATCH_API status dispatcher_facts(int device, device_facts& facts);
TGEMM_END_DISPATCH_NAMESPACE
}  // namespace detail
}  // namespace tgemm
