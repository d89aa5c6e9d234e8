/// \file cublas_check.cuh
/// \brief The tutorial's cuBLAS status check, for the steps that time cuBLAS beside their kernels (8, 12, 13).
#pragma once

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

namespace tutorial {

/// Stops the program with the call's name and cuBLAS's message when a cuBLAS call fails.
inline void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "%s failed: %s\n", call, cublasGetStatusString(status));
  std::exit(EXIT_FAILURE);
}

}  // namespace tutorial
