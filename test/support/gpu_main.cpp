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

int main(int argc, char* argv[]) {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    std::fprintf(stderr,
                 "FAILED: this is a GPU test (ctest label 'gpu') and no usable CUDA device was found (%s: %s).\n"
                 "Run it on a machine with an NVIDIA GPU, or run only the host tests: ctest -L host\n",
                 cudaGetErrorName(error), error == cudaSuccess ? "0 devices" : cudaGetErrorString(error));
    return 1;
  }
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) {
    std::printf("GPU: %s (sm_%d%d, %d SMs)\n", properties.name, properties.major, properties.minor,
                properties.multiProcessorCount);
  }
  return Catch::Session().run(argc, argv);
}
