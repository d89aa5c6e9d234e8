// The entry point of the GPU tests (Catch2's session: catch_session.cpp): without a usable GPU it fails at once,
// loudly, so a GPU test can never pass by not running.
#include <cuda_runtime_api.h>

#include <cstdio>

#include "catch_session.hpp"
#include "require_gpu.hpp"

int main(int argc, char* argv[]) {
  if (!tgemm::test::usable_gpu_or_explain()) return 1;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) {
    std::printf("GPU: %s (sm_%d%d, %d SMs)\n", properties.name, properties.major, properties.minor,
                properties.multiProcessorCount);
  }
  return tgemm::test::run_catch_session(argc, argv);
}
