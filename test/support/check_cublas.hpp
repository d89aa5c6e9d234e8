// The cuBLAS helpers of tgemm's benchmarks and differential tests (the companion of check_cuda.hpp, for programs
// that call cuBLAS): the call check, the cudaDataType of each element type for cublasGemmEx, and one shared handle.
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <library_types.h>

#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace tgemm::test {

/// Exits with status 2, saying where and which call failed, unless `status` is CUBLAS_STATUS_SUCCESS.
inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n", file, line, call, int(status));
  std::exit(2);
}

/// cublasGemmEx's name for an element type (__half, __nv_bfloat16, float or double).
template <class T>
cudaDataType cuda_type() {
  if constexpr (std::is_same<T, __half>::value) return CUDA_R_16F;
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return CUDA_R_16BF;
  if constexpr (std::is_same<T, double>::value) return CUDA_R_64F;
  static_assert(std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value ||
                    std::is_same<T, float>::value || std::is_same<T, double>::value,
                "cuda_type<T>: T is __half, __nv_bfloat16, float or double");
  return CUDA_R_32F;
}

/// The process's cuBLAS handle, created on first use (on the current device) with the default math mode; never
/// destroyed: the benchmarks use it to the end.
inline cublasHandle_t cublas_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    check_cublas(cublasCreate(&h), "cublasCreate(&h)", __FILE__, __LINE__);
    return h;
  }();
  return handle;
}

}  // namespace tgemm::test

/// Checks a cuBLAS call in a program without a test framework: on failure, prints the call and exits.
#define TGEMM_CHECK_CUBLAS(call) ::tgemm::test::check_cublas((call), #call, __FILE__, __LINE__)

