/// \file arch/named_barrier.cuh
/// \brief Named barriers (sm_70 and newer): a barrier for some warps of a block, so that one warpgroup can
/// synchronise without the others (`__syncthreads` is barrier 0, for every thread).
///
/// A thin wrapper over `bar.sync id, count`. Minimum architecture: sm_70.
#pragma once

#include <cuda_runtime.h>

namespace tgemm::arch {

/// Waits until `threads` threads (whole warps) of the block have reached barrier `id` (1 to 15: 0 is
/// __syncthreads's), and orders their shared-memory accesses around it.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
#else
  (void)id, (void)threads;
#endif
}

}  // namespace tgemm::arch
