/// \file arch/cluster.cuh
/// \brief Thread-block clusters (sm_90): the blocks of a cluster run at once on neighbouring multiprocessors and can
/// reach each other's shared memory, so that one TMA copy can fill the same stage in every block of the cluster
/// (multicast: arch/tma.cuh) and a block can release a stage in another block's barrier.
///
/// Thin wrappers over `%cluster_ctarank`, `barrier.cluster.{arrive.release,wait.acquire}` and the remote form of
/// `mbarrier.arrive` (`mapa` to the other block's address of the same barrier). Minimum architecture: sm_90.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "mbarrier.cuh"

namespace tgemm::arch {

/// This block's rank in its cluster (0 in a launch without clusters).
__device__ __forceinline__ int cluster_rank() {
#if TGEMM_HAS_TMA
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return int(rank);
#else
  return 0;
#endif
}

/// Every thread of every block of the cluster waits here for all the others; shared-memory writes before it
/// (barriers initialised, for one) are seen by the whole cluster after it. Not the `.aligned` form: the threads of
/// a warp may reach it apart (a producer thread from its loop, its warp's others at once).
__device__ __forceinline__ void cluster_sync() {
#if TGEMM_HAS_TMA
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#endif
}

/// Arrives once on the barrier at `barrier`'s offset in the shared memory of the cluster's block `rank` (this block's
/// own when rank is its rank), with the default (CTA-scope) release: what it releases is a stage that wgmma has
/// finished reading, and the other block only refills it through TMA. (The `.release.cluster` form compiled to a
/// GPU-wide fence, MEMBAR.ALL.GPU, before every arrival, and cost the Hopper kernel a third of its speed on an H200:
/// docs/performance.md.)
__device__ __forceinline__ void mbarrier_arrive_in_block(uint64_t* barrier, int rank) {
#if TGEMM_HAS_TMA
  asm volatile(
      "{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(shared_address(barrier)),
      "r"(rank)
      : "memory");
#else
  (void)barrier, (void)rank;
#endif
}

}  // namespace tgemm::arch
