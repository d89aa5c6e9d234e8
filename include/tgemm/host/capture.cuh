/// \file host/capture.cuh
/// \brief Making tgemm's one-time setup calls safe inside a CUDA-graph stream capture.
#pragma once

#include <cuda_runtime.h>

namespace tgemm::detail {

/// Lets this thread make CUDA calls that a stream capture in global or thread-local mode forbids (creating a
/// memory pool, setting its attributes) for the scope's lifetime: tgemm's one-time setup may run inside the
/// first call of a process, and that call may be captured into a graph (cudaThreadExchangeStreamCaptureMode,
/// the documented way for a library to do so). Nothing it allows is ever enqueued on a stream.
class relaxed_capture_scope {
 public:
  relaxed_capture_scope() {
    ok_ = cudaThreadExchangeStreamCaptureMode(&mode_) == cudaSuccess;
    if (!ok_) (void)cudaGetLastError();  // this failure is tgemm's own: leave no trace of it
  }
  relaxed_capture_scope(const relaxed_capture_scope&) = delete;
  relaxed_capture_scope& operator=(const relaxed_capture_scope&) = delete;
  ~relaxed_capture_scope() {
    if (ok_) (void)cudaThreadExchangeStreamCaptureMode(&mode_);
  }

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
  bool ok_ = false;
};

}  // namespace tgemm::detail
