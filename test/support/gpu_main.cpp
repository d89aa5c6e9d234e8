// The Catch2 entry point of the GPU tests: without a usable GPU it fails at once, loudly, so a GPU test can
// never pass by not running.
#if TGEMM_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cuda_runtime_api.h>

#include <cstdio>

#include "require_gpu.hpp"

int main(int argc, char* argv[]) {
  if (!tgemm::test::usable_gpu_or_explain()) return 1;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) {
    std::printf("GPU: %s (sm_%d%d, %d SMs)\n", properties.name, properties.major, properties.minor,
                properties.multiProcessorCount);
  }
  return Catch::Session().run(argc, argv);
}
