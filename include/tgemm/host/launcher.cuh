/// \file host/launcher.cuh
/// \brief Getting a kernel ready on a device and launching it: the only place tgemm calls cudaLaunchKernelEx.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../status.cuh"
#include "capture.cuh"
#include "cuda_status.cuh"

namespace tgemm::detail {

/// Static (default) shared memory a block may use without opting in.
inline constexpr int default_shared_limit = 48 * 1024;

/// Checks that the build has an image of `kernel` for the current device (`device`) and raises its dynamic
/// shared-memory limit when it needs more than 48 KiB. Loads the kernel (with lazy loading) as a side effect,
/// so that a launch afterwards cannot fail for lack of its code. Runs in relaxed capture mode: the first use of a
/// kernel may be inside a stream capture.
template <class... Parameters>
status prepare_kernel(void (*kernel)(Parameters...), int device, int shared_bytes, const char* what) {
  relaxed_capture_scope relaxed;
  if (status s = check_memory_for_loading(device, what); s != status::success) return s;
  cudaFuncAttributes attributes{};
  cudaError_t error = cudaFuncGetAttributes(&attributes, kernel);
  if (error != cudaSuccess) return fail_cuda(error, device, what);
  if (shared_bytes > default_shared_limit) {
    error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      int limit = 0;
      (void)cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
      (void)cudaGetLastError();
      return fail(status::cuda_error, error, "%s needs %d bytes of shared memory per block, device %d allows %d (%s)",
                  what, shared_bytes, device, limit, cudaGetErrorName(error));
    }
  }
  return status::success;
}

/// Per kernel: the devices on which prepare_kernel() succeeded (one bit per device below 64).
template <auto Kernel>
struct kernel_readiness {
  inline static std::atomic<uint64_t> devices{0};
};

/// prepare_kernel() for a kernel known at compile time, done once per kernel and device. `what` names the kernel
/// for messages: a string, or a callable returning one (called only when the kernel is prepared, not on every call).
template <auto Kernel, class What>
status prepare_kernel_once(int device, int shared_bytes, const What& what) {
  const uint64_t bit = device >= 0 && device < 64 ? uint64_t(1) << device : 0;
  if (bit != 0 && (kernel_readiness<Kernel>::devices.load(std::memory_order_acquire) & bit) != 0) {
    return status::success;
  }
  status s;
  if constexpr (std::is_invocable<const What&>::value) {
    s = prepare_kernel(Kernel, device, shared_bytes, std::string(what()).c_str());
  } else {
    s = prepare_kernel(Kernel, device, shared_bytes, what);
  }
  if (s != status::success) return s;
  if (bit != 0) kernel_readiness<Kernel>::devices.fetch_or(bit, std::memory_order_release);
  return status::success;
}

/// Launches and reports the launch's own error (cudaLaunchKernelEx returns it; no cudaGetLastError guessing).
template <class... Parameters, class... Arguments>
status launch_kernel(void (*kernel)(Parameters...), dim3 grid, dim3 block, int shared_bytes, cudaStream_t stream,
                     int device, const char* what, Arguments... arguments) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = size_t(shared_bytes);
  config.stream = stream;
  const cudaError_t error = cudaLaunchKernelEx(&config, kernel, arguments...);
  if (error == cudaSuccess) return status::success;
  return fail_cuda(error, device, what);
}

}  // namespace tgemm::detail
