/// \file device/async_copy.cuh
/// \brief Global-to-shared copies that bypass registers where the GPU can (cp.async, sm_80+), with zero fill.
#pragma once

#include <cuda_runtime.h>

namespace tgemm::device::detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TGEMM_HAS_CP_ASYNC 1
#else
#define TGEMM_HAS_CP_ASYNC 0
#endif

/// Copies `Floats` floats (1, 2 or 4) from global to shared memory; only the first `valid` are read and the
/// rest are zero-filled, so partial tiles at the matrix edge need no special case in the math.
/// With Async on sm_80+ this is cp.async (completes at the next wait); elsewhere it is a load and a store.
template <int Floats, bool Async>
__device__ __forceinline__ void copy_floats(float* shared, const float* __restrict__ global, int valid) {
  static_assert(Floats == 1 || Floats == 2 || Floats == 4, "copies move 1, 2 or 4 floats");
#if TGEMM_HAS_CP_ASYNC
  if constexpr (Async) {
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    const int source_bytes = valid * 4;
    if (valid != 0 && valid != Floats) {
      // A vector cut by the matrix edge: copy its valid floats one by one and zero the rest, so no byte past
      // the edge is even addressed (compute-sanitizer's initcheck counts a partial wide copy as a full read).
#pragma unroll
      for (int i = 0; i < Floats; ++i) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address + 4 * i),
                     "l"(global + (i < valid ? i : 0)), "r"(i < valid ? 4 : 0));
      }
      return;
    }
    if constexpr (Floats == 4) {
      // .cg: 16-byte copies may skip L1; operand tiles are reused through shared memory, not L1.
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(global), "r"(source_bytes));
    } else {
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(address), "l"(global), "n"(Floats * 4),
                   "r"(source_bytes));
    }
    return;
  }
#endif
  if (valid == Floats) {
    if constexpr (Floats == 4) {
      *reinterpret_cast<float4*>(shared) = *reinterpret_cast<const float4*>(global);
    } else if constexpr (Floats == 2) {
      *reinterpret_cast<float2*>(shared) = *reinterpret_cast<const float2*>(global);
    } else {
      *shared = *global;
    }
  } else {
#pragma unroll
    for (int i = 0; i < Floats; ++i) shared[i] = i < valid ? global[i] : 0.0f;
  }
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

}  // namespace tgemm::device::detail
