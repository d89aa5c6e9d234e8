/// \file device/epilogue.cuh
/// \brief Writes a thread's accumulators to C: the BLAS linear combination, or a user's element-wise functor.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../numeric.cuh"
#include "epilogue_terms.cuh"
#include "problem.cuh"
#include "vector_access.cuh"

namespace tgemm::device::detail {

/// alpha * acc + beta * c, in the accumulator's precision, rounded once to C's element type.
template <class ElementC, class Accumulator, class Scalar>
__device__ __forceinline__ ElementC combine(Accumulator acc, Scalar alpha, Scalar beta, ElementC c, bool read_c) {
  const Accumulator scaled = Accumulator(alpha) * acc;
  return convert<ElementC>(read_c ? scaled + Accumulator(beta) * convert<Accumulator>(c) : scaled);
}

/// C = alpha * acc + beta * C for the in-bounds part of a thread's tile (Layout maps accumulator (i, j) to its
/// block-tile row and column: thread_tile). Runs of rows are written as vectors of Policy::store_width elements
/// where the whole run is inside C and C is aligned for them.
template <class Policy, class Layout, class ElementC, class Scalar, class Accumulator>
__device__ __forceinline__ void store_linear_combination(const basic_linear_combination<ElementC, Scalar>& e,
                                                         int64_t m, int64_t n, int64_t row_begin, int64_t col_begin,
                                                         const Layout& tile,
                                                         const Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
  constexpr int width = Policy::store_width;
  const bool read_c = e.beta != Scalar(0);  // beta == 0: C is write-only (BLAS semantics)
  // C's alignment is checked here, once per tile, rather than demanded of the caller: a misaligned C costs
  // only narrower stores.
  const bool vectors_fit =
      width == 1 || (reinterpret_cast<uintptr_t>(e.c) % (sizeof(ElementC) * width) == 0 && e.ldc % width == 0);
#pragma unroll
  for (int j = 0; j < Policy::thread_n; ++j) {
    const int64_t col = col_begin + tile.col(j);
    if (col >= n) continue;
    ElementC* column = e.c + col * e.ldc;
#pragma unroll
    for (int i = 0; i < Policy::thread_m; i += width) {
      const int64_t row = row_begin + tile.row(i);
      ElementC old[width] = {};
      ElementC out[width];
      if (vectors_fit && row + width <= m) {
        if (read_c) load_vector<width>(old, column + row);
#pragma unroll
        for (int w = 0; w < width; ++w) out[w] = combine(acc[i + w][j], e.alpha, e.beta, old[w], read_c);
        store_vector<width>(column + row, out);
      } else {
#pragma unroll
        for (int w = 0; w < width; ++w) {
          if (row + w < m) {
            column[row + w] =
                combine(acc[i + w][j], e.alpha, e.beta, read_c ? column[row + w] : zero<ElementC>(), read_c);
          }
        }
      }
    }
  }
}

/// The fused epilogue (basic_fused_combination) for the in-bounds part of a thread's tile, in three passes: each
/// element's value before the activation (device::fused_value; the old C read from terms.source when the result
/// goes elsewhere), the activation over all of them at once (one call: device::activate_values), then clamp, round
/// and store. Vector stores (and loads of C) where both D and the C read are aligned for them.
template <class Policy, class Layout, class ElementC, class Scalar, class Accumulator>
__device__ __forceinline__ void store_fused_combination(const basic_fused_combination<ElementC, Scalar>& e,
                                                        int64_t m, int64_t n, int64_t row_begin, int64_t col_begin,
                                                        const Layout& tile,
                                                        const Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
  constexpr int width = Policy::store_width;
  const epilogue_terms<ElementC, Scalar> t = e.product >= 0 ? e.terms.product(e.product) : epilogue_terms<ElementC, Scalar>{};
  const bool read_c = e.beta != Scalar(0);
  const bool vectors_fit =
      width == 1 ||
      (reinterpret_cast<uintptr_t>(e.c) % (sizeof(ElementC) * width) == 0 && e.ldc % width == 0 &&
       (t.source == nullptr ||
        (reinterpret_cast<uintptr_t>(t.source) % (sizeof(ElementC) * width) == 0 && t.ld_source % width == 0)));
  Accumulator v[Policy::thread_n][Policy::thread_m];
#pragma unroll
  for (int j = 0; j < Policy::thread_n; ++j) {
    const int64_t col = col_begin + tile.col(j);
#pragma unroll
    for (int i = 0; i < Policy::thread_m; i += width) {
      const int64_t row = row_begin + tile.row(i);
      ElementC old[width] = {};
      const bool whole = vectors_fit && col < n && row + width <= m;
      if (read_c && whole) load_vector<width>(old, source_of(t, e.c, e.ldc, row, col));
#pragma unroll
      for (int w = 0; w < width; ++w) {
        const bool inside = col < n && row + w < m;
        if (read_c && !whole && inside) old[w] = *source_of(t, e.c, e.ldc, row + w, col);
        v[j][i + w] = inside ? fused_value(t, acc[i + w][j], e.alpha, e.beta, old[w], read_c, row + w, col)
                             : Accumulator(0);
      }
    }
  }
  if (t.act != activation::none) activate_values<ElementC>(t.act, &v[0][0], Policy::thread_m * Policy::thread_n);
#pragma unroll
  for (int j = 0; j < Policy::thread_n; ++j) {
    const int64_t col = col_begin + tile.col(j);
    if (col >= n) continue;
    ElementC* column = e.c + col * e.ldc;
#pragma unroll
    for (int i = 0; i < Policy::thread_m; i += width) {
      const int64_t row = row_begin + tile.row(i);
      ElementC out[width];
#pragma unroll
      for (int w = 0; w < width; ++w) out[w] = fused_output(t, v[j][i + w]);
      if (vectors_fit && row + width <= m) {
        store_vector<width>(column + row, out);
      } else {
#pragma unroll
        for (int w = 0; w < width; ++w) {
          if (row + w < m) column[row + w] = out[w];
        }
      }
    }
  }
}

/// Hands every in-bounds accumulator to a user functor as epilogue(row, col, value).
template <class Policy, class Layout, class Accumulator, class Epilogue>
__device__ __forceinline__ void apply_elementwise(const Epilogue& epilogue, int64_t m, int64_t n, int64_t row_begin,
                                                  int64_t col_begin, const Layout& tile,
                                                  const Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
#pragma unroll
  for (int j = 0; j < Policy::thread_n; ++j) {
    const int64_t col = col_begin + tile.col(j);
#pragma unroll
    for (int i = 0; i < Policy::thread_m; ++i) {
      const int64_t row = row_begin + tile.row(i);
      if (row < m && col < n) epilogue(row, col, acc[i][j]);
    }
  }
}

/// True for the BLAS epilogue types (whatever their element types).
template <class Epilogue>
struct is_linear_combination : std::false_type {};
/// See is_linear_combination.
template <class ElementC, class Scalar>
struct is_linear_combination<basic_linear_combination<ElementC, Scalar>> : std::true_type {};

/// True for the fused epilogue types.
template <class Epilogue>
struct is_fused_combination : std::false_type {};
/// See is_fused_combination.
template <class ElementC, class Scalar>
struct is_fused_combination<basic_fused_combination<ElementC, Scalar>> : std::true_type {};

/// Writes a thread's tile: the BLAS update for a linear combination (with its terms for a fused one), the user's
/// functor for anything else.
template <class Policy, class Layout, class Accumulator, class Epilogue>
__device__ __forceinline__ void write_tile(const Epilogue& epilogue, int64_t m, int64_t n, int64_t row_begin,
                                           int64_t col_begin, const Layout& tile,
                                           const Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
  if constexpr (is_linear_combination<Epilogue>::value) {
    store_linear_combination<Policy>(epilogue, m, n, row_begin, col_begin, tile, acc);
  } else if constexpr (is_fused_combination<Epilogue>::value) {
    store_fused_combination<Policy>(epilogue, m, n, row_begin, col_begin, tile, acc);
  } else {
    apply_elementwise<Policy>(epilogue, m, n, row_begin, col_begin, tile, acc);
  }
}

}  // namespace tgemm::device::detail
