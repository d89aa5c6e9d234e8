// The one CUDA-check helper of tgemm's tests and benchmark (Catch2-free; cuda_check.hpp builds the Catch2 form on it).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tgemm::test {

/// "call -> cudaErrorX: text": what every failed CUDA call in a test or benchmark reports.
inline std::string describe_cuda_error(cudaError_t error, const char* call) {
  return std::string(call) + " -> " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error);
}

/// Exits with status 2, saying where and why, unless `error` is cudaSuccess (for programs without a test framework).
inline void check_cuda(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s\n", file, line, describe_cuda_error(error, call).c_str());
  std::exit(2);
}

/// The current device's properties (exits as check_cuda does when they cannot be read): what the benchmarks name in
/// their first line and size their operand sets by.
inline cudaDeviceProp current_device_properties() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice(&device)", __FILE__, __LINE__);
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties(&prop, device)", __FILE__, __LINE__);
  return prop;
}

}  // namespace tgemm::test

/// Checks a CUDA call in a program without a test framework: on failure, prints the call and its error and exits.
#define TGEMM_CHECK_CUDA(call) ::tgemm::test::check_cuda((call), #call, __FILE__, __LINE__)
