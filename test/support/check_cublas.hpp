// The one cuBLAS-check helper of tgemm's benchmarks (the companion of check_cuda.hpp, for programs that call cuBLAS).
#pragma once

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

namespace tgemm::test {

/// Exits with status 2, saying where and which call failed, unless `status` is CUBLAS_STATUS_SUCCESS.
inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n", file, line, call, int(status));
  std::exit(2);
}

}  // namespace tgemm::test

/// Checks a cuBLAS call in a program without a test framework: on failure, prints the call and exits.
#define TGEMM_CHECK_CUBLAS(call) ::tgemm::test::check_cublas((call), #call, __FILE__, __LINE__)
