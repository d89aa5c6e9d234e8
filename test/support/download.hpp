// Device elements copied to the host as doubles: what the benchmarks compare tgemm's C with cuBLAS's on.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "check_cuda.hpp"
#include "element_values.hpp"

namespace tgemm::test {

/// The `count` elements at device address `x`, each as a double (exact for every element type).
template <class T>
std::vector<double> download_as_double(const T* x, size_t count) {
  std::vector<T> host(count);
  TGEMM_CHECK_CUDA(cudaMemcpy(host.data(), x, count * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = to_double(host[i]);
  return out;
}

}  // namespace tgemm::test
