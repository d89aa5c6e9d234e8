// Large operands generated on the GPU from (seed, index), so that the host can recompute any element without
// copying gigabytes: for the determinism and concurrency tests.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tgemm::reliability {

/// A value in [-1, 1), a multiple of 2^-23 (exact in float), determined by (seed, index): a 64-bit mix of both.
__host__ __device__ inline float value_at(uint64_t seed, uint64_t index) {
  uint64_t x = seed * 0xff51afd7ed558ccdull + index;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 29;
  x *= 0x9e3779b97f4a7c15ull;
  x ^= x >> 32;
  return float(int64_t(x >> 40) - (int64_t(1) << 23)) * (1.0f / float(1 << 23));
}

template <int Unused = 0>  // a template, so that several translation units may include this header
__global__ void fill_values(float* x, uint64_t count, uint64_t seed) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += uint64_t(gridDim.x) * blockDim.x) {
    x[i] = value_at(seed, i);
  }
}

/// Fills x[0, count) with value_at(seed, i) on the default stream.
inline cudaError_t fill_device(float* x, uint64_t count, uint64_t seed) {
  if (count == 0) return cudaSuccess;
  const uint64_t blocks = (count + 255) / 256;
  fill_values<0><<<unsigned(blocks < 8192 ? blocks : 8192), 256>>>(x, count, seed);
  return cudaGetLastError();
}

}  // namespace tgemm::reliability
