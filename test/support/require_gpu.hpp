// The first check of every GPU test's main: without a usable CUDA device the test says why on stderr and fails,
// so a GPU test can never pass by not running.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>

namespace tgemm::test {

/// True when a CUDA device can be used; otherwise prints why this GPU test fails and returns false.
inline bool usable_gpu_or_explain() {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error == cudaSuccess && devices > 0) return true;
  std::fprintf(stderr,
               "FAILED: this is a GPU test (ctest label 'gpu') and no usable CUDA device was found (%s: %s).\n"
               "Run it on a machine with an NVIDIA GPU, or run only the host tests: ctest -L host\n",
               cudaGetErrorName(error), error == cudaSuccess ? "0 devices" : cudaGetErrorString(error));
  return false;
}

}  // namespace tgemm::test
