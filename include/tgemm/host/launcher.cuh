/// \file host/launcher.cuh
/// \brief Getting a kernel ready on a device and launching it (in clusters too): the only place tgemm calls
/// cudaLaunchKernelEx.
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

/// The launch configuration of launch_kernel(): with a `cluster` of more than one block, blocks in clusters of that
/// shape (each grid dimension a multiple of the cluster's), through `attribute`, which must outlive the configuration.
inline cudaLaunchConfig_t launch_config(dim3 grid, dim3 block, int shared_bytes, cudaStream_t stream, dim3 cluster,
                                        cudaLaunchAttribute& attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = size_t(shared_bytes);
  config.stream = stream;
  if (cluster.x * cluster.y * cluster.z > 1) {
    attribute = cudaLaunchAttribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = cluster.x;
    attribute.val.clusterDim.y = cluster.y;
    attribute.val.clusterDim.z = cluster.z;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  return config;
}

/// Launches and reports the launch's own error (cudaLaunchKernelEx returns it; no cudaGetLastError guessing).
template <class... Parameters, class... Arguments>
status launch_kernel(void (*kernel)(Parameters...), dim3 grid, dim3 block, int shared_bytes, cudaStream_t stream,
                     int device, const char* what, Arguments... arguments) {
  cudaLaunchAttribute unused{};
  const cudaLaunchConfig_t config = launch_config(grid, block, shared_bytes, stream, dim3(1, 1, 1), unused);
  const cudaError_t error = cudaLaunchKernelEx(&config, kernel, arguments...);
  if (error == cudaSuccess) return status::success;
  return fail_cuda(error, device, what);
}

/// launch_kernel() with the blocks in clusters of shape `cluster` (each grid dimension a multiple of the cluster's): the
/// blocks of a cluster run at once, on multiprocessors that reach each other's shared memory (arch/cluster.cuh).
template <class... Parameters, class... Arguments>
status launch_kernel_in_clusters(void (*kernel)(Parameters...), dim3 grid, dim3 block, int shared_bytes, dim3 cluster,
                                 cudaStream_t stream, int device, const char* what, Arguments... arguments) {
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config = launch_config(grid, block, shared_bytes, stream, cluster, attribute);
  const cudaError_t error = cudaLaunchKernelEx(&config, kernel, arguments...);
  if (error == cudaSuccess) return status::success;
  return fail_cuda(error, device, what);
}

/// Per kernel and cluster size: how many clusters run at once on each device (0: not read yet), for
/// active_clusters().
template <auto Kernel, int Cluster>
struct cluster_capacity {
  inline static std::atomic<int> clusters[64] = {};
};

/// How many clusters of `Cluster` blocks of Kernel (`block` threads, shared_bytes of dynamic shared memory each) run
/// at once on `device` (current; cudaOccupancyMaxActiveClusters, read once per kernel and device): a persistent grid
/// larger than that would leave its last clusters waiting for the first to finish. prepare_kernel() must have
/// raised the kernel's shared-memory limit first. No stream work: safe inside a stream capture.
template <auto Kernel, int Cluster>
status active_clusters(int device, dim3 block, int shared_bytes, int& clusters) {
  std::atomic<int>* const cached =
      device >= 0 && device < 64 ? &cluster_capacity<Kernel, Cluster>::clusters[device] : nullptr;
  if (cached != nullptr && (clusters = cached->load(std::memory_order_relaxed)) > 0) return status::success;
  relaxed_capture_scope relaxed;
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config =
      launch_config(dim3(Cluster, 1, 1), block, shared_bytes, nullptr, dim3(Cluster, 1, 1), attribute);
  clusters = 0;
  if (const cudaError_t error = cudaOccupancyMaxActiveClusters(&clusters, Kernel, &config); error != cudaSuccess) {
    return fail_cuda(error, device, "reading how many clusters of the Hopper kernel run at once");
  }
  if (clusters < 1) {
    return fail(status::unsupported_device, cudaSuccess,
                "device %d cannot run a cluster of %d blocks of %d threads with %d bytes of shared memory each", device,
                Cluster, int(block.x), shared_bytes);
  }
  if (cached != nullptr) cached->store(clusters, std::memory_order_relaxed);
  return status::success;
}

}  // namespace tgemm::detail
