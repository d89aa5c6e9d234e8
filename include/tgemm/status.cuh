/// \file status.cuh
/// \brief Error reporting: the status enumeration, its names, and the detailed last error of a thread.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdarg>
#include <cstdio>
#include <string>

namespace tgemm {

/// What a tgemm host call returns. Every failure has its own value; details are in last_error().
enum class status : int {
  success = 0,                 ///< The work was enqueued (or there was nothing to do).
  invalid_layout,              ///< The storage order is not a value of tgemm::layout.
  invalid_op,                  ///< An operand operation is not a value of tgemm::op.
  invalid_dimension,           ///< m, n or k is negative, or the problem needs more thread blocks than a grid holds.
  invalid_leading_dimension,   ///< A leading dimension is smaller than the rows (or columns) it must span.
  size_overflow,               ///< An operand's extent in bytes does not fit in 64 bits.
  null_pointer,                ///< A matrix that the call must read or write is a null pointer.
  misaligned_operand,          ///< A pointer or leading dimension does not meet the policy's vector alignment.
  invalid_extents,             ///< mdspan views whose extents do not agree (m, n, k).
  unsupported_layout,          ///< An mdspan view with no unit stride in either dimension, or an op pair that a
                               ///< fixed kernel cannot read.
  no_cuda_device,              ///< No usable CUDA device (none present, or the driver is missing or too old).
  arch_not_compiled,           ///< The device's architecture has no tgemm kernel image in this build.
  cuda_error,                  ///< A CUDA runtime call failed; last_error().cuda holds its cudaError_t.
  out_of_memory,               ///< The device had no memory for the call's workspace (or for loading its kernels).
  workspace_too_small,         ///< The caller's workspace is smaller than the call needs (see gemm_workspace_size()).
  unsupported_device,          ///< The device lacks instructions the call needs (e.g. bf16 tensor cores before sm_80).
  invalid_option,              ///< A member of tgemm::options holds a value its enumeration does not name.
  invalid_batch_stride,        ///< A batch stride is negative, or C's makes two batches' C overlap.
  invalid_epilogue,            ///< A member of tgemm::epilogue is invalid (an activation its enumeration does not
                               ///< name, clamp bounds that are NaN or out of order, a negative vector stride).
};

/// The name of a status, such as "invalid_leading_dimension".
constexpr const char* to_string(status s) noexcept {
  switch (s) {
    case status::success: return "success";
    case status::invalid_layout: return "invalid_layout";
    case status::invalid_op: return "invalid_op";
    case status::invalid_dimension: return "invalid_dimension";
    case status::invalid_leading_dimension: return "invalid_leading_dimension";
    case status::size_overflow: return "size_overflow";
    case status::null_pointer: return "null_pointer";
    case status::misaligned_operand: return "misaligned_operand";
    case status::invalid_extents: return "invalid_extents";
    case status::unsupported_layout: return "unsupported_layout";
    case status::no_cuda_device: return "no_cuda_device";
    case status::arch_not_compiled: return "arch_not_compiled";
    case status::cuda_error: return "cuda_error";
    case status::out_of_memory: return "out_of_memory";
    case status::workspace_too_small: return "workspace_too_small";
    case status::unsupported_device: return "unsupported_device";
    case status::invalid_option: return "invalid_option";
    case status::invalid_batch_stride: return "invalid_batch_stride";
    case status::invalid_epilogue: return "invalid_epilogue";
  }
  return "unknown status";
}

/// The full account of the last call that failed on this thread.
struct error_info {
  status code = status::success;   ///< The status that call returned.
  cudaError_t cuda = cudaSuccess;  ///< The CUDA error behind status::cuda_error (and device failures).
  std::string message;             ///< A sentence for the user: which argument, what it was, what was needed.
};

namespace detail {
inline error_info& last_error_slot() {
  static thread_local error_info slot;
  return slot;
}

/// Records a failure for last_error() and returns its status, so a check reads `return fail(...)`.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
inline status fail(status code, cudaError_t cuda, const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  error_info& slot = last_error_slot();
  slot.code = code;
  slot.cuda = cuda;
  slot.message = buffer;
  return code;
}
}  // namespace detail

/// The details of the most recent failed tgemm call on the calling thread.
///
/// Like errno, it is only meaningful right after a call returned something other than status::success;
/// a successful call does not clear it.
inline const error_info& last_error() noexcept { return detail::last_error_slot(); }

}  // namespace tgemm
