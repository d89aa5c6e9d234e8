/// \file kernel/reduce_split_k.cuh
/// \brief Summing split-K partial products into C (also the copy of a product staged for a misaligned C).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../device/epilogue_terms.cuh"
#include "../numeric.cuh"

namespace tgemm::kernel {

/// Partial products one thread of reduce_split_k loads before it adds them: independent loads in flight.
inline constexpr int reduce_batch = 8;
/// Threads per block of reduce_split_k.
inline constexpr int reduce_threads = 256;

namespace detail {

/// `sum` plus `Slices` partials `slice_stride` apart, all loaded before the first add, added in slice order.
template <int Slices, class Scalar, class Partial>
__device__ __forceinline__ Scalar add_slices(Scalar sum, const Partial* __restrict__ p, int64_t slice_stride) {
  Scalar loaded[Slices];
#pragma unroll
  for (int s = 0; s < Slices; ++s) loaded[s] = convert<Scalar>(p[s * slice_stride]);
#pragma unroll
  for (int s = 0; s < Slices; ++s) sum += loaded[s];
  return sum;
}

/// The sum of any number of partials, in slice order: reduce_batch loads at a time, then one by one. The sum is in
/// alpha's precision: a 16-bit C is rounded once, at the end.
template <class Scalar, class Partial>
__device__ __forceinline__ Scalar sum_slices(const Partial* __restrict__ p, int64_t slice_stride, int slices) {
  Scalar sum = Scalar(0);
  int s = 0;
  for (; s + reduce_batch <= slices; s += reduce_batch) sum = add_slices<reduce_batch>(sum, p + s * slice_stride, slice_stride);
  for (; s < slices; ++s) sum += convert<Scalar>(p[s * slice_stride]);
  return sum;
}

/// Calls `element(row, col)` for each element of the m x n C this thread owns: one thread per element, counted down
/// the columns as one flat range (a grid over columns would idle most threads when m is small: 16 rows used 16 of
/// 256 threads), strided by the grid. The flat index is turned into (row, col) by one division per thread, then
/// stepped. (Dividing for every element measured the same on an H200, within 0.4 us.)
template <class Element>
__device__ __forceinline__ void for_each_element(int64_t m, int64_t n, Element&& element) {
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t col_step = stride / m, row_step = stride - col_step * m;
  int64_t col = first / m, row = first - col * m;
  for (; col < n; row += row_step, col += col_step) {
    if (row >= m) row -= m, ++col;  // row_step < m, so one wrap at most
    if (col >= n) break;
    element(row, col);
  }
}

}  // namespace detail

/// C = alpha * (sum of the split-K partial products) + beta * C. Partials are summed in slice order, so the
/// result is the same bit for bit on every run. beta == 0 never reads C. With one slice it is the copy of a product
/// staged in an aligned buffer to a misaligned C. Partials are C's type, or float (the sm_90a kernel's split-K
/// partials of a 16-bit C). A call with a fused epilogue uses reduce_split_k_fused instead: with both in one
/// kernel, the compiler's layout of the whole body cost this one up to 0.8 us of 4.6 (bench/reduce_probe.cu).
template <class Partial, class Element, class Scalar>
__global__ void __launch_bounds__(reduce_threads)
    reduce_split_k(const Partial* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                   int64_t m, int64_t n, Scalar alpha, Scalar beta, Element* __restrict__ c, int64_t ldc) {
  const auto sum_into_c = [&](auto sum_of) {
    detail::for_each_element(m, n, [&](int64_t row, int64_t col) {
      const Scalar sum = sum_of(partials + row + col * ld_partials);
      Element* x = c + row + col * ldc;
      *x = beta == Scalar(0) ? convert<Element>(alpha * sum) : convert<Element>(alpha * sum + beta * convert<Scalar>(*x));
    });
  };
  // The usual counts (plans split k 2 to 8 ways; 1 is a staged product's copy) get an element loop each, with
  // every load issued before the first add: one runtime loop for all counts gave up 1 us of 10.9 at 1024^3.
  const auto fixed = [&](auto count) {
    sum_into_c([&](const Partial* p) {
      return detail::add_slices<decltype(count)::value>(Scalar(0), p, slice_stride);
    });
  };
  switch (slices) {
    case 1: return fixed(std::integral_constant<int, 1>{});
    case 2: return fixed(std::integral_constant<int, 2>{});
    case 3: return fixed(std::integral_constant<int, 3>{});
    case 4: return fixed(std::integral_constant<int, 4>{});
    case 5: return fixed(std::integral_constant<int, 5>{});
    case 6: return fixed(std::integral_constant<int, 6>{});
    case 7: return fixed(std::integral_constant<int, 7>{});
    case 8: return fixed(std::integral_constant<int, 8>{});
    default: sum_into_c([&](const Partial* p) { return detail::sum_slices<Scalar>(p, slice_stride, slices); });
  }
}

/// reduce_split_k for a call with a fused epilogue (tgemm::epilogue): each element's sum goes through
/// device::finish() with `terms`, which reads C (or the separate source) only when beta != 0.
template <class Partial, class Element, class Scalar, class User = device::no_user_op>
__global__ void __launch_bounds__(reduce_threads)
    reduce_split_k_fused(const Partial* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                         int64_t m, int64_t n, Scalar alpha, Scalar beta, Element* __restrict__ c, int64_t ldc,
                         const device::epilogue_terms_t<Element, Scalar, User> terms) {
  detail::for_each_element(m, n, [&](int64_t row, int64_t col) {
    const Scalar sum = detail::sum_slices<Scalar>(partials + row + col * ld_partials, slice_stride, slices);
    const bool read_c = beta != Scalar(0);
    const Element old = read_c ? *device::source_of(terms, c, ldc, row, col) : zero<Element>();
    c[row + col * ldc] = device::finish(terms, sum, alpha, beta, old, read_c, row, col);
  });
}

}  // namespace tgemm::kernel
