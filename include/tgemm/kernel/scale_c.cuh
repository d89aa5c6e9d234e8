/// \file kernel/scale_c.cuh
/// \brief C = beta C: the whole GEMM when k == 0 or alpha == 0.
#pragma once

#include <cstdint>

#include "../device/epilogue_terms.cuh"
#include "../numeric.cuh"

namespace tgemm::kernel {

/// Threads per block of scale_c.
inline constexpr int scale_threads = 256;

/// C = beta * C over an m x n column-major C (the k = 0 and alpha = 0 cases); beta == 0 writes zeros
/// without reading C. Grid-stride in both dimensions, so any size fits any grid; blockIdx.z picks the product of a
/// strided batch (C + blockIdx.z stride_c). Fused: D = act(beta C + biases), clamped (device::finish() with a zero
/// product; `terms` of tgemm::epilogue), C read from terms.source when D is separate.
template <class Element, class Scalar, class User = device::no_user_op>
__global__ void __launch_bounds__(scale_threads)
    scale_c(Element* c, int64_t ldc, int64_t m, int64_t n, Scalar beta, int64_t stride_c, bool fused,
            const device::epilogue_terms_t<Element, Scalar, User> all_terms) {
  c += int64_t(blockIdx.z) * stride_c;
  const device::epilogue_terms_t<Element, Scalar, User> terms = all_terms.product(blockIdx.z);
  for (int64_t col = blockIdx.y; col < n; col += gridDim.y) {
    for (int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; row < m; row += int64_t(gridDim.x) * blockDim.x) {
      Element* x = c + row + col * ldc;
      if (fused) {
        const bool read_c = beta != Scalar(0);
        const Element old = read_c ? *device::source_of(terms, c, ldc, row, col) : zero<Element>();
        *x = device::finish(terms, Scalar(0), Scalar(0), beta, old, read_c, row, col);
        continue;
      }
      *x = beta == Scalar(0) ? convert<Element>(Scalar(0)) : convert<Element>(beta * convert<Scalar>(*x));
    }
  }
}

}  // namespace tgemm::kernel
