/// \file host/cuda_status.cuh
/// \brief Turning a failed CUDA call into tgemm's status: one place that classifies CUDA errors.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "../arch/probe.cuh"
#include "../status.cuh"

namespace tgemm::detail {

/// True for the errors that mean "there is no GPU to use" rather than "the GPU failed".
inline bool means_no_device(cudaError_t error) {
  return error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver || error == cudaErrorStubLibrary ||
         error == cudaErrorDevicesUnavailable || error == cudaErrorCallRequiresNewerDriver;
}

/// True for the errors a launch or attribute query gives when the build has no image for the device.
inline bool means_no_image(cudaError_t error) {
  return error == cudaErrorInvalidDeviceFunction || error == cudaErrorNoKernelImageForDevice ||
         error == cudaErrorUnsupportedPtxVersion;
}

/// Reads the compute capability of `device` as `__CUDA_ARCH__` writes it (e.g. 890 for sm_89): the one place tgemm
/// asks for it.
inline cudaError_t read_compute_capability(int device, int& arch) {
  int major = 0, minor = 0;
  cudaError_t error = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (error == cudaSuccess) error = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  arch = error == cudaSuccess ? major * 100 + minor * 10 : 0;
  return error;
}

/// "sm_89" for the given device, or "sm_?" when it cannot be read.
inline std::string device_sm_name(int device) {
  int arch = 0;
  if (read_compute_capability(device, arch) != cudaSuccess) {
    (void)cudaGetLastError();
    return "sm_?";
  }
  return "sm_" + std::to_string(arch / 10);
}

/// Builds the arch_not_compiled failure, naming the device and what was compiled.
inline status fail_not_compiled(int device, cudaError_t error) {
  return fail(status::arch_not_compiled, error,
              "tgemm was built for %s; this GPU (device %d) is %s: add its architecture to "
              "CMAKE_CUDA_ARCHITECTURES (or nvcc -gencode) and rebuild",
              compiled_architectures().c_str(), device, device_sm_name(device).c_str());
}

/// Free device memory below which a failure to load or launch a kernel is reported as out_of_memory: loading a
/// kernel needs device memory for its code, and the runtime reports a load that found none as a generic error.
inline constexpr size_t low_memory_bytes = size_t(64) << 20;

/// True when the current device has less than low_memory_bytes free (or cannot say).
inline bool device_memory_low() {
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return free_bytes < low_memory_bytes;
}

/// Fails with out_of_memory when the current device has less than low_memory_bytes free: called before tgemm
/// first touches a kernel on a device. With lazy module loading (CUDA's default) that touch loads the kernel's
/// code, and a load that finds no memory leaves the kernel unusable for the rest of the process, even once memory
/// is back (measured on an H200, CUDA 13.0); refusing before the load keeps the call retryable.
inline status check_memory_for_loading(int device, const char* what) {
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    (void)cudaGetLastError();
    return status::success;  // no answer: let the load itself report
  }
  if (free_bytes >= low_memory_bytes) return status::success;
  return fail(status::out_of_memory, cudaErrorMemoryAllocation,
              "device %d has %zu bytes free, too little to load %s (tgemm wants %zu before loading a kernel); free "
              "memory and call again", device, free_bytes, what, low_memory_bytes);
}

/// Records the failure of a CUDA call `what` (a phrase such as "launching the reduce kernel") on `device` and
/// returns its status: arch_not_compiled, no_cuda_device, out_of_memory or cuda_error. The error is also
/// cleared from the runtime, so that it does not surface again in the caller's next check.
inline status fail_cuda(cudaError_t error, int device, const char* what) {
  (void)cudaGetLastError();
  if (means_no_image(error)) return fail_not_compiled(device, error);
  if (means_no_device(error)) {
    return fail(status::no_cuda_device, error, "no usable CUDA device: %s failed with %s (%s)", what,
                cudaGetErrorName(error), cudaGetErrorString(error));
  }
  if (error == cudaErrorMemoryAllocation || (error == cudaErrorUnknown && device_memory_low())) {
    return fail(status::out_of_memory, error, "%s failed on device %d with %s (%s): the device is out of memory",
                what, device, cudaGetErrorName(error), cudaGetErrorString(error));
  }
  return fail(status::cuda_error, error, "%s failed on device %d with %s (%s)", what, device, cudaGetErrorName(error),
              cudaGetErrorString(error));
}

}  // namespace tgemm::detail
