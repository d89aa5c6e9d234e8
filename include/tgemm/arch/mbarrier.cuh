/// \file arch/mbarrier.cuh
/// \brief mbarrier (sm_90): a shared-memory barrier that completes a phase when its expected arrivals and bytes
/// have come in; the pipeline between the TMA producer and the wgmma consumers waits on its phases' parity.
///
/// Thin wrappers over `mbarrier.init`, `fence.mbarrier_init`, `mbarrier.arrive[.expect_tx]` and
/// `mbarrier.try_wait.parity`. Minimum architecture: sm_90 (the expect_tx form; plain mbarriers exist from sm_80).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tgemm::arch {

/// 1 in a device pass with mbarrier transaction counts and bulk tensor copies (sm_90 and newer), else 0.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TGEMM_HAS_TMA 1
#else
#define TGEMM_HAS_TMA 0
#endif

/// The shared-memory address of a generic pointer to shared memory.
__device__ __forceinline__ uint32_t shared_address(const void* pointer) {
  return uint32_t(__cvta_generic_to_shared(pointer));
}

/// Sets up a barrier whose phases complete after `arrivals` arrivals (and the bytes announced by expect_tx).
__device__ __forceinline__ void mbarrier_init(uint64_t* barrier, uint32_t arrivals) {
#if TGEMM_HAS_TMA
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals) : "memory");
#endif
}

/// Makes initialised barriers visible to the other threads and to the copy engine (then a __syncthreads()).
__device__ __forceinline__ void mbarrier_init_fence() {
#if TGEMM_HAS_TMA
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// Arrives and announces `bytes` bytes that copies will deliver to this phase.
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(uint64_t* barrier, uint32_t bytes) {
#if TGEMM_HAS_TMA
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
#endif
}

/// Arrives once.
__device__ __forceinline__ void mbarrier_arrive(uint64_t* barrier) {
#if TGEMM_HAS_TMA
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(barrier)) : "memory");
#endif
}

/// Waits until the phase of parity `parity` (0 for the first phase, then alternating) has completed.
__device__ __forceinline__ void mbarrier_wait(uint64_t* barrier, uint32_t parity) {
#if TGEMM_HAS_TMA
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
  } while (!done);
#endif
}

}  // namespace tgemm::arch
