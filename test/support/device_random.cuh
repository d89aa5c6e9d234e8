// Random inputs generated on the device, for problems too large to fill from the host (the benchmark): values
// uniform in [-1, 1), different per buffer and per run, from the seed of random.hpp.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "check_cuda.hpp"

namespace tgemm::test {

/// x[i] = a counter hash (splitmix64) of (seed, i) mapped to [-1, 1) with 24 significant bits.
__global__ void fill_uniform_kernel(float* x, size_t count, uint64_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    x[i] = float(int64_t(z >> 40) - (int64_t(1) << 23)) * (1.0f / float(1 << 23));
  }
}

/// Fills `count` floats at `x` (device memory) with fill_uniform_kernel, on the default stream.
inline void fill_uniform(float* x, size_t count, uint64_t seed) {
  fill_uniform_kernel<<<1024, 256>>>(x, count, seed);
  TGEMM_CHECK_CUDA(cudaGetLastError());
}

}  // namespace tgemm::test
