/// \file arch/cp_async.cuh
/// \brief cp.async (sm_80 and newer): global-to-shared copies that bypass registers, with zero fill.
///
/// A thin wrapper over three PTX instructions (cp.async.{ca,cg}.shared.global, cp.async.commit_group,
/// cp.async.wait_group). Minimum architecture: sm_80; on older GPUs copy_vector() falls back to a load and a
/// store, and commit/wait do nothing, so callers need no branch of their own.
#pragma once

#include <cuda_runtime.h>

#include "../device/vector_access.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/// 1 in a device pass whose architecture has cp.async (sm_80 and newer), else 0.
#define TGEMM_HAS_CP_ASYNC 1
#else
#define TGEMM_HAS_CP_ASYNC 0
#endif

namespace tgemm::arch {

/// Copies N elements (N * sizeof(T) = 4, 8 or 16 bytes) from global to shared memory; only the first `valid`
/// are read and the rest are zero-filled, so partial tiles at the matrix edge need no special case in the math.
/// With Async on sm_80+ this is cp.async (it completes at the next wait); elsewhere a load and a store.
template <int N, bool Async, class T>
__device__ __forceinline__ void copy_vector(T* shared, const T* __restrict__ global, int valid) {
  constexpr int bytes = N * int(sizeof(T));
  static_assert(bytes == 4 || bytes == 8 || bytes == 16, "cp.async moves 4, 8 or 16 bytes at a time");
#if TGEMM_HAS_CP_ASYNC
  if constexpr (Async) {
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    const int source_bytes = valid * int(sizeof(T));
    if (valid != 0 && valid != N) {
      // A vector cut by the matrix edge: copy its valid elements one by one and zero the rest, so no byte past
      // the edge is even addressed (compute-sanitizer's initcheck counts a partial wide copy as a full read).
#pragma unroll
      for (int i = 0; i < N; ++i) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(address + int(sizeof(T)) * i),
                     "l"(global + (i < valid ? i : 0)), "n"(int(sizeof(T))), "r"(i < valid ? int(sizeof(T)) : 0));
      }
      return;
    }
    if constexpr (bytes == 16) {
      // .cg: 16-byte copies may skip L1; operand tiles are reused through shared memory, not L1.
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(source_bytes));
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(address), "l"(global), "n"(bytes),
                   "r"(source_bytes));
    }
    return;
  }
#endif
  if (valid == N) {
    T values[N];
    device::detail::load_vector<N>(values, global);
    device::detail::store_vector<N>(shared, values);
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) shared[i] = i < valid ? global[i] : T(0);
  }
}

/// Copies 16 aligned bytes from global to shared memory: cp.async.cg on sm_80 and newer (it completes at the next
/// wait), a load and a store elsewhere.
__device__ __forceinline__ void copy_16_bytes(void* shared, const void* __restrict__ global) {
#if TGEMM_HAS_CP_ASYNC
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
#else
  *static_cast<uint4*>(shared) = *static_cast<const uint4*>(global);
#endif
}

/// Closes the group of copies issued since the last commit.
__device__ __forceinline__ void copy_commit() {
#if TGEMM_HAS_CP_ASYNC
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most `Pending` committed groups are still in flight (this thread's copies only: a barrier
/// must follow before other threads read the data).
template <int Pending>
__device__ __forceinline__ void copy_wait() {
#if TGEMM_HAS_CP_ASYNC
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

}  // namespace tgemm::arch
