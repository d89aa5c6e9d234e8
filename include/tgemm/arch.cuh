/// \file arch.cuh
/// \brief Which architectures this build compiled, and which one the current device runs (cached per device).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <string>

#include "status.cuh"

namespace tgemm {

namespace kernel {
/// An empty kernel: its attributes tell the host which PTX version of this build the current device runs.
template <int Unused = 0>
__global__ void arch_probe() {}
}  // namespace kernel

/// The architectures this translation unit generated device code for, as "sm_80, sm_90" (nvcc's
/// `__CUDA_ARCH_LIST__`), or "none" when it generated none.
inline std::string compiled_architectures() {
#if defined(__CUDA_ARCH_LIST__)
  constexpr int list[] = {__CUDA_ARCH_LIST__};
  std::string names;
  for (int arch : list) {
    if (!names.empty()) names += ", ";
    names += "sm_" + std::to_string(arch / 10);
  }
  return names;
#else
  return "none";
#endif
}

namespace detail {

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

/// The current device, or no_cuda_device / cuda_error with a message.
inline status current_device(int& device) {
  const cudaError_t error = cudaGetDevice(&device);
  if (error == cudaSuccess) return status::success;
  (void)cudaGetLastError();  // reported here; do not leave it for the caller's next check
  if (means_no_device(error)) {
    return fail(status::no_cuda_device, error, "no usable CUDA device: cudaGetDevice failed with %s (%s)",
                cudaGetErrorName(error), cudaGetErrorString(error));
  }
  return fail(status::cuda_error, error, "cudaGetDevice failed with %s (%s)", cudaGetErrorName(error),
              cudaGetErrorString(error));
}

/// "sm_89" for the given device, or "sm_?" when it cannot be read.
inline std::string device_sm_name(int device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return "sm_?";
  }
  return "sm_" + std::to_string(major * 10 + minor);
}

/// Builds the arch_not_compiled failure, naming the device and what was compiled.
inline status fail_not_compiled(int device, cudaError_t error) {
  return fail(status::arch_not_compiled, error,
              "tgemm was built for %s; this GPU (device %d) is %s: add its architecture to "
              "CMAKE_CUDA_ARCHITECTURES (or nvcc -gencode) and rebuild",
              compiled_architectures().c_str(), device, device_sm_name(device).c_str());
}

/// Devices whose answers are cached; further devices are asked on every call.
inline constexpr int cached_devices = 64;

/// The current device and the architecture of the device code it runs from this build (`__CUDA_ARCH__` of the
/// chosen image, e.g. 800 for sm_80 code running on an sm_86 GPU). Read once per device, then cached;
/// safe to call from many threads at once (the value is the same whoever computes it).
inline status current_arch(int& device, int& arch) {
  if (status s = current_device(device); s != status::success) return s;
  static std::atomic<int> cache[cached_devices];  // 0: not known yet
  if (device >= 0 && device < cached_devices) {
    arch = cache[device].load(std::memory_order_relaxed);
    if (arch > 0) return status::success;
  }
  cudaFuncAttributes attributes{};
  const cudaError_t error = cudaFuncGetAttributes(&attributes, kernel::arch_probe<0>);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    if (means_no_image(error)) return fail_not_compiled(device, error);
    if (means_no_device(error)) {
      return fail(status::no_cuda_device, error, "no usable CUDA device: %s (%s)", cudaGetErrorName(error),
                  cudaGetErrorString(error));
    }
    return fail(status::cuda_error, error, "reading kernel attributes failed with %s (%s)", cudaGetErrorName(error),
                cudaGetErrorString(error));
  }
  arch = attributes.ptxVersion * 10;
  if (device >= 0 && device < cached_devices) cache[device].store(arch, std::memory_order_relaxed);
  return status::success;
}

/// The device's number of multiprocessors (cached per device): what split-K sizes its grids against.
inline status multiprocessor_count(int device, int& count) {
  static std::atomic<int> cache[cached_devices];  // 0: not known yet
  if (device >= 0 && device < cached_devices) {
    count = cache[device].load(std::memory_order_relaxed);
    if (count > 0) return status::success;
  }
  const cudaError_t error = cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return fail(status::cuda_error, error, "reading the multiprocessor count of device %d failed with %s", device,
                cudaGetErrorName(error));
  }
  if (device >= 0 && device < cached_devices) cache[device].store(count, std::memory_order_relaxed);
  return status::success;
}

}  // namespace detail
}  // namespace tgemm
