/// \file arch/probe.cuh
/// \brief Which architectures a build compiled, and the probe that tells which one a device runs.
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace tgemm {

namespace kernel {
/// An empty kernel: its attributes tell the host which PTX version of the translation unit that instantiates it
/// the current device runs (tgemm::gemm()'s dispatcher instantiates it beside its own kernels).
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

}  // namespace tgemm
