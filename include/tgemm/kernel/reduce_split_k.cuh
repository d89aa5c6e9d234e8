/// \file kernel/reduce_split_k.cuh
/// \brief Summing split-K partial products into C (also the copy of a product staged for a misaligned C).
#pragma once

#include <cstdint>

#include "../device/epilogue_terms.cuh"
#include "../numeric.cuh"

namespace tgemm::kernel {

/// Partial products one thread of reduce_split_k loads before it adds them: independent loads in flight.
inline constexpr int reduce_batch = 8;
/// Threads per block of reduce_split_k.
inline constexpr int reduce_threads = 256;

/// C = alpha * (sum of the split-K partial products) + beta * C. Partials are summed in slice order, so the
/// result is the same bit for bit on every run. beta == 0 never reads C. One thread per element of C, counted
/// down the columns as one flat range (a grid over columns would idle most threads when m is small: 16 rows
/// used 16 of 256 threads), loading reduce_batch slices at a time. With one slice it is the copy of a product
/// staged in an aligned buffer to a misaligned C. Partials are C's type, or float (the sm_90a kernel's split-K
/// partials of a 16-bit C). Fused: each element goes through device::finish() with `terms` (tgemm::epilogue) instead.
template <class Partial, class Element, class Scalar, class User = device::no_user_op>
__global__ void __launch_bounds__(reduce_threads)
    reduce_split_k(const Partial* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                   int64_t m, int64_t n, Scalar alpha, Scalar beta, Element* __restrict__ c, int64_t ldc, bool fused,
                   const device::epilogue_terms_t<Element, Scalar, User> terms) {
  // The flat index is turned into (row, col) by one division per thread, then stepped. (Dividing for every
  // element measured the same on an H200, within 0.4 us: memory bounds the kernel at split-K sizes.)
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t col_step = stride / m, row_step = stride - col_step * m;
  int64_t col = first / m, row = first - col * m;
  for (; col < n; row += row_step, col += col_step) {
    if (row >= m) row -= m, ++col;  // row_step < m, so one wrap at most
    if (col >= n) break;
    const Partial* p = partials + row + col * ld_partials;
    Scalar sum = Scalar(0);  // in alpha's precision: a 16-bit C is rounded once, at the end
    int s = 0;
    for (; s + reduce_batch <= slices; s += reduce_batch) {
      Scalar batch[reduce_batch];
#pragma unroll
      for (int j = 0; j < reduce_batch; ++j) batch[j] = convert<Scalar>(p[(s + j) * slice_stride]);
#pragma unroll
      for (int j = 0; j < reduce_batch; ++j) sum += batch[j];
    }
    for (; s < slices; ++s) sum += convert<Scalar>(p[s * slice_stride]);
    Element* x = c + row + col * ldc;
    if (fused) {
      const bool read_c = beta != Scalar(0);
      const Element old = read_c ? *device::source_of(terms, c, ldc, row, col) : zero<Element>();
      *x = device::finish(terms, sum, alpha, beta, old, read_c, row, col);
      continue;
    }
    *x = beta == Scalar(0) ? convert<Element>(alpha * sum) : convert<Element>(alpha * sum + beta * convert<Scalar>(*x));
  }
}

}  // namespace tgemm::kernel
