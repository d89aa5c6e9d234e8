/// \file host/device_scope.cuh
/// \brief Working on the stream's device: finding it, making it current for the call, restoring the caller's.
#pragma once

#include <cuda_runtime.h>

#include "../status.cuh"
#include "cuda_status.cuh"

namespace tgemm::detail {

/// The current device, or no_cuda_device / cuda_error with a message.
inline status current_device(int& device) {
  const cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess) return status::success;
  return fail_cuda(error, 0, "cudaGetDevice");
}

/// The device a stream belongs to: the current device for the default streams and for a stream being captured,
/// cudaStreamGetDevice otherwise. (On a capturing stream cudaStreamGetDevice fails and invalidates the capture, in
/// every capture mode, relaxed included: measured on an H200 with CUDA 13.0. A capture therefore runs on the
/// current device, which must be the stream's.)
inline status stream_device(cudaStream_t stream, int current, int& device) {
  device = current;
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return status::success;
#if CUDART_VERSION >= 12080
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t error = cudaStreamIsCapturing(stream, &capture);
  if (error != cudaSuccess) return fail_cuda(error, current, "cudaStreamIsCapturing (is the stream valid?)");
  if (capture != cudaStreamCaptureStatusNone) return status::success;
  error = cudaStreamGetDevice(stream, &device);
  if (error != cudaSuccess) return fail_cuda(error, current, "cudaStreamGetDevice (is the stream valid?)");
#endif
  return status::success;
}

/// Makes the stream's device current for the scope's lifetime (tgemm's pool, kernel attributes and occupancy
/// are per device, and launches must come from the stream's device), then restores the caller's device.
class device_scope {
 public:
  /// Finds the stream's device and switches to it; check status() before using the scope.
  explicit device_scope(cudaStream_t stream) {
    status_ = current_device(previous_);
    if (status_ != status::success) return;
    status_ = stream_device(stream, previous_, device_);
    if (status_ != status::success || device_ == previous_) return;
    const cudaError_t error = cudaSetDevice(device_);
    if (error != cudaSuccess) {
      status_ = fail_cuda(error, device_, "switching to the stream's device (cudaSetDevice)");
      return;
    }
    switched_ = true;
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;
  ~device_scope() {
    if (switched_) (void)cudaSetDevice(previous_);
  }
  /// success, or why the stream's device could not be used.
  status state() const { return status_; }
  /// The stream's device, now current.
  int device() const { return device_; }

 private:
  int previous_ = 0;
  int device_ = 0;
  bool switched_ = false;
  status status_ = status::success;
};

}  // namespace tgemm::detail
