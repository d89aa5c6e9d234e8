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

/// For terms with a user's operation: a column of a thread's values activated, clamped and then through the operation,
/// in place (rows at or past m skip the operation: they are not stored, and it may read vectors of C's extent). One
/// out-of-line call per column, as the built-in terms' activate_values, so that a kernel holds one copy of the
/// operation's code rather than one for each of a thread's 64 to 128 values, and calls no more functions than the
/// built-in epilogue does.
template <class ElementC, class Layout, int Rows, class Terms, class T>
__device__ __noinline__ void finish_user_values(const Terms& t, clamp_bounds<T> bounds, T* values, int64_t row_begin,
                                                Layout tile, int64_t col, int64_t m) {
  if (t.act != activation::none) activate_values<ElementC>(t.act, values, Rows);
#pragma unroll
  for (int i = 0; i < Rows; ++i) values[i] = bounds.apply(values[i]);
  if (!t.active) return;
#pragma unroll
  for (int i = 0; i < Rows; ++i) {
    const int64_t row = row_begin + tile.row(i);
    if (row < m) values[i] = t.call_user(values[i], row, col);
  }
}

/// The fused epilogue (basic_fused_combination) for the in-bounds part of a thread's tile, a column of it at a time in
/// three passes: each element's value before the activation (alpha and the scales as one factor, the biases and beta
/// C as one addend: one fma), the activation of the column (one call: device::activate_values), then clamp, round and
/// store. Vector stores (and loads of C) where both D and the C read are aligned for them. Given no terms, it stores
/// what the plain kernels' store_linear_combination does, up to rounding (one fma).
/// The thread's rows' and columns' factors and biases are read once each, before the elements (thread_m + thread_n
/// reads of each vector, not one per element): a read of each term for each of a thread's 64 to 128 results, with
/// its bounds check, made the fused kernels twice the plain ones' code and their compile as slow. The sm_90a
/// kernel's stores do the same (kernel::store_fused_tile).
template <class Policy, class Layout, class ElementC, class Scalar, class User, class Accumulator>
__device__ __forceinline__ void store_fused_combination(const basic_fused_combination<ElementC, Scalar, User>& e,
                                                        int64_t m, int64_t n, int64_t row_begin, int64_t col_begin,
                                                        const Layout& tile,
                                                        const Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
  using T = Accumulator;
  constexpr int width = Policy::store_width;
  using terms_type = epilogue_terms_t<ElementC, Scalar, User>;
  const terms_type t = e.product >= 0 ? e.terms.product(e.product) : terms_type{};
  const bool read_c = e.beta != Scalar(0);
  const bool vectors_fit =
      width == 1 ||
      (reinterpret_cast<uintptr_t>(e.c) % (sizeof(ElementC) * width) == 0 && e.ldc % width == 0 &&
       (t.source == nullptr ||
        (reinterpret_cast<uintptr_t>(t.source) % (sizeof(ElementC) * width) == 0 && t.ld_source % width == 0)));
  // Row r's factor (alpha folded in) and bias, and column j's; outside C (or without the vector) a factor 1 and a
  // bias -0, which change no value, not even a zero's sign.
  T row_factor[Policy::thread_m], row_bias[Policy::thread_m];
#pragma unroll
  for (int r = 0; r < Policy::thread_m; ++r) {
    const int64_t row = row_begin + tile.row(r);
    const bool inside = row < m;
    row_factor[r] = T(e.alpha) * (t.row_scale && inside ? T(t.row_scale[row]) : T(1));
    row_bias[r] = t.row_bias && inside ? convert<T>(t.row_bias[row]) : T(-0.0);
  }
  T column_factor[Policy::thread_n], column_bias[Policy::thread_n];
#pragma unroll
  for (int j = 0; j < Policy::thread_n; ++j) {
    const int64_t col = col_begin + tile.col(j);
    const bool inside = col < n;
    column_factor[j] = t.column_scale && inside ? T(t.column_scale[col]) : T(1);
    column_bias[j] = t.column_bias && inside ? convert<T>(t.column_bias[col]) : T(-0.0);
  }
  const clamp_bounds<T> bounds(t);
  // One column of the thread's tile at a time: its values (one fma each), the activation, then clamp, round and
  // store. The activation runs out of line (activate_values) on a copy of the column in local memory, so that the
  // values themselves are never addressed and stay in registers: with the whole tile handed to it, every tile went
  // through local memory, activation or not, and the large tile's kernels stored 128 values there per thread.
#pragma unroll
  for (int j = 0; j < Policy::thread_n; ++j) {
    const int64_t col = col_begin + tile.col(j);
    if (col >= n) continue;
    T v[Policy::thread_m];
#pragma unroll
    for (int i = 0; i < Policy::thread_m; i += width) {
      const int64_t row = row_begin + tile.row(i);
      ElementC old[width] = {};
      if (read_c) {
        if (vectors_fit && row + width <= m) {
          load_vector<width>(old, source_of(t, e.c, e.ldc, row, col));
        } else {
#pragma unroll
          for (int w = 0; w < width; ++w) {
            if (row + w < m) old[w] = *source_of(t, e.c, e.ldc, row + w, col);
          }
        }
      }
#pragma unroll
      for (int w = 0; w < width; ++w) {
        T addend = row_bias[i + w] + column_bias[j];
        if (read_c) addend = fused_fma(T(e.beta), convert<T>(old[w]), addend);
        v[i + w] = fused_fma(acc[i + w][j], row_factor[i + w] * column_factor[j], addend);
      }
    }
    if constexpr (!terms_type::has_user_op) {
      if (t.act != activation::none) {
        T copy[Policy::thread_m];
#pragma unroll
        for (int i = 0; i < Policy::thread_m; ++i) copy[i] = v[i];
        activate_values<ElementC>(t.act, copy, Policy::thread_m);
#pragma unroll
        for (int i = 0; i < Policy::thread_m; ++i) v[i] = copy[i];
      }
    } else {
      // The activation, the clamp and the user's operation last, in one call (finish_user_values).
      T copy[Policy::thread_m];
#pragma unroll
      for (int i = 0; i < Policy::thread_m; ++i) copy[i] = v[i];
      finish_user_values<ElementC, Layout, Policy::thread_m>(t, bounds, copy, row_begin, tile, col, m);
#pragma unroll
      for (int i = 0; i < Policy::thread_m; ++i) v[i] = copy[i];
    }
    ElementC* column = e.c + col * e.ldc;
#pragma unroll
    for (int i = 0; i < Policy::thread_m; i += width) {
      const int64_t row = row_begin + tile.row(i);
      ElementC out[width];
#pragma unroll
      for (int w = 0; w < width; ++w) {
        if constexpr (!terms_type::has_user_op) {
          out[w] = convert<ElementC>(bounds.apply(v[i + w]));
        } else {
          out[w] = convert<ElementC>(v[i + w]);  // finished by finish_user_values
        }
      }
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
template <class ElementC, class Scalar, class User>
struct is_fused_combination<basic_fused_combination<ElementC, Scalar, User>> : std::true_type {};

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
