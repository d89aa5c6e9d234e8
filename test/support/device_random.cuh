// Random inputs generated on the device, for problems too large to fill from the host (the benchmark): values
// uniform in [-1, 1), different per buffer and per run, from the seed of random.hpp.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "check_cuda.hpp"
#include "splitmix.hpp"

namespace tgemm::test {

/// x[i] = hashed_unit(seed, i): splitmix64 of (seed, i) mapped to [-1, 1) with 24 significant bits.
__global__ void fill_uniform_kernel(float* x, size_t count, uint64_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    x[i] = hashed_unit(seed, i);
  }
}

/// Fills `count` floats at `x` (device memory) with fill_uniform_kernel, on the default stream.
inline void fill_uniform(float* x, size_t count, uint64_t seed) {
  fill_uniform_kernel<<<1024, 256>>>(x, count, seed);
  TGEMM_CHECK_CUDA(cudaGetLastError());
}

}  // namespace tgemm::test
