/// \file arch/dependent_launch.cuh
/// \brief Programmatic dependent launch (sm_90 and newer): a kernel launched with
/// cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it in the stream still runs,
/// and waits for it only where it reads what that kernel writes.
///
/// `griddepcontrol.launch_dependents` (the earlier kernel: its dependents may launch once every block has run it or
/// exited) and `griddepcontrol.wait` (the dependent kernel: the earlier kernels have finished and their writes are
/// visible). Both do nothing in a kernel launched without the attribute. Minimum architecture: sm_90.
#pragma once

#include <cuda_runtime.h>

namespace tgemm::arch {

/// Lets the kernel launched after this one with programmatic stream serialization start now (it waits with
/// wait_for_prerequisite_grids() before it reads this kernel's results).
__device__ __forceinline__ void launch_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Waits until the kernels this one depends on (programmatic stream serialization) have finished and their memory
/// writes are visible; returns at once for a kernel launched without the attribute.
__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace tgemm::arch
