/// \file host/workspace.cuh
/// \brief The workspace of a call: the caller's buffer, or one stream-ordered allocation from tgemm's pool.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "../status.cuh"
#include "../types.cuh"
#include "cuda_status.cuh"
#include "capture.cuh"
#include "plan.cuh"

namespace tgemm::detail {

/// Devices whose per-device state (pool, facts) is kept; further devices are served without it.
inline constexpr int cached_devices = 64;

/// tgemm's own stream-ordered memory pool on `device`, created on first use and kept for the process. Its
/// release threshold is unlimited, so memory freed at the end of one call is reused by the next instead of
/// going back to the driver at every synchronisation (which costs tens of microseconds per call). It holds at
/// most the largest workspace one call has needed. nullptr when the device has no pools (or its creation
/// failed): then the device's default pool is used. Created in relaxed capture mode: pool creation would
/// otherwise invalidate a capture that the process's first tgemm call may be part of.
inline cudaMemPool_t workspace_pool(int device) {
  static std::mutex mutex;
  static cudaMemPool_t pools[cached_devices] = {};
  static bool tried[cached_devices] = {};
  if (device < 0 || device >= cached_devices) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (!tried[device]) {
    relaxed_capture_scope relaxed;
    cudaMemPoolProps properties{};
    properties.allocType = cudaMemAllocationTypePinned;
    properties.location.type = cudaMemLocationTypeDevice;
    properties.location.id = device;
    if (cudaMemPoolCreate(&pools[device], &properties) != cudaSuccess) {
      (void)cudaGetLastError();
      pools[device] = nullptr;
      return nullptr;  // retried next time: creation fails only under memory pressure
    }
    uint64_t keep_everything = UINT64_MAX;
    (void)cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep_everything);
    (void)cudaGetLastError();
    tried[device] = true;
  }
  return pools[device];
}

/// The workspace of one call: the caller's buffer, or `bytes` from tgemm's pool in stream order (no
/// synchronisation to get it; freed after the call's work, in stream order).
class call_workspace {
 public:
  call_workspace() = default;
  call_workspace(const call_workspace&) = delete;
  call_workspace& operator=(const call_workspace&) = delete;
  ~call_workspace() {
    if (owned_) (void)cudaFreeAsync(data_, stream_);
  }

  /// Uses the caller's buffer, or fails with workspace_too_small naming what the call needs.
  status use(const workspace& given, size_t bytes) {
    if (given.bytes < bytes || (bytes > 0 && given.data == nullptr)) {
      return fail(status::workspace_too_small, cudaSuccess,
                  "this call needs %zu bytes of workspace and was given %zu%s (ask gemm_workspace_size())", bytes,
                  given.data == nullptr ? size_t(0) : given.bytes, given.data == nullptr ? " (a null pointer)" : "");
    }
    if (reinterpret_cast<uintptr_t>(given.data) % workspace_alignment != 0) {
      return fail(status::misaligned_operand, cudaSuccess, "the workspace (at %p) must be aligned to %zu bytes",
                  given.data, workspace_alignment);
    }
    data_ = static_cast<std::byte*>(given.data);
    return status::success;
  }

  /// Allocates `bytes` on `stream` from the pool of `device`, or fails with out_of_memory.
  status allocate(size_t bytes, int device, cudaStream_t stream) {
    if (bytes == 0) return status::success;
    void* p = nullptr;
    const cudaMemPool_t pool = workspace_pool(device);
    const cudaError_t error = pool != nullptr ? cudaMallocFromPoolAsync(&p, bytes, pool, stream)
                                              : cudaMallocAsync(&p, bytes, stream);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      if (error == cudaErrorMemoryAllocation) {
        return fail(status::out_of_memory, error,
                    "this call needs %zu bytes of workspace (repacked operands, split-K partials or a staged C) and "
                    "device %d could not allocate them; free memory, or pass a workspace (gemm_workspace_size())",
                    bytes, device);
      }
      return fail_cuda(error, device, "allocating the call's workspace");
    }
    data_ = static_cast<std::byte*>(p);
    stream_ = stream;
    owned_ = true;
    return status::success;
  }

  /// The workspace's first byte (null when the call needs none).
  std::byte* data() const { return data_; }

 private:
  std::byte* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool owned_ = false;
};

}  // namespace tgemm::detail
