/// \file device/epilogue.cuh
/// \brief Writes a thread's accumulators to C: the BLAS linear combination, or a user's element-wise functor.
#pragma once

#include <cstdint>
#include <type_traits>

#include "problem.cuh"
#include "thread_tile.cuh"

namespace tgemm::device::detail {

template <int Count>
__device__ __forceinline__ void load_vector(float* out, const float* global) {
  if constexpr (Count == 4) {
    const float4 v = *reinterpret_cast<const float4*>(global);
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else if constexpr (Count == 2) {
    const float2 v = *reinterpret_cast<const float2*>(global);
    out[0] = v.x, out[1] = v.y;
  } else {
    out[0] = *global;
  }
}

template <int Count>
__device__ __forceinline__ void store_vector(float* global, const float* in) {
  if constexpr (Count == 4) {
    *reinterpret_cast<float4*>(global) = make_float4(in[0], in[1], in[2], in[3]);
  } else if constexpr (Count == 2) {
    *reinterpret_cast<float2*>(global) = make_float2(in[0], in[1]);
  } else {
    *global = in[0];
  }
}

/// alpha * acc + beta * c, in the accumulator's precision, rounded once to float.
template <class Accumulator>
__device__ __forceinline__ float combine(Accumulator acc, float alpha, float beta, float c, bool read_c) {
  const Accumulator scaled = Accumulator(alpha) * acc;
  return float(read_c ? scaled + Accumulator(beta) * Accumulator(c) : scaled);
}

/// C = alpha * acc + beta * C for the in-bounds part of a thread's tile. Runs of rows are written as
/// vectors of min(vector_width, fragment_m) floats where the whole run is inside C and C is aligned for them.
template <class Policy, class Accumulator>
__device__ __forceinline__ void store_linear_combination(const linear_combination& e, int64_t m, int64_t n,
                                                         int64_t row_begin, int64_t col_begin,
                                                         const thread_tile<Policy>& tile,
                                                         const Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
  constexpr int width = Policy::vector_width < Policy::fragment_m ? Policy::vector_width : Policy::fragment_m;
  const bool read_c = e.beta != 0.0f;  // beta == 0: C is write-only (BLAS semantics)
  // C's alignment is checked here, once per tile, rather than demanded of the caller: a misaligned C costs
  // only narrower stores.
  const bool vectors_fit =
      width == 1 || (reinterpret_cast<uintptr_t>(e.c) % (sizeof(float) * width) == 0 && e.ldc % width == 0);
#pragma unroll
  for (int j = 0; j < Policy::thread_n; ++j) {
    const int64_t col = col_begin + tile.col(j);
    if (col >= n) continue;
    float* column = e.c + col * e.ldc;
#pragma unroll
    for (int i = 0; i < Policy::thread_m; i += width) {
      const int64_t row = row_begin + tile.row(i);
      float old[width] = {};
      float out[width];
      if (vectors_fit && row + width <= m) {
        if (read_c) load_vector<width>(old, column + row);
#pragma unroll
        for (int w = 0; w < width; ++w) out[w] = combine(acc[i + w][j], e.alpha, e.beta, old[w], read_c);
        store_vector<width>(column + row, out);
      } else {
#pragma unroll
        for (int w = 0; w < width; ++w) {
          if (row + w < m) {
            column[row + w] = combine(acc[i + w][j], e.alpha, e.beta, read_c ? column[row + w] : 0.0f, read_c);
          }
        }
      }
    }
  }
}

/// Hands every in-bounds accumulator to a user functor as epilogue(row, col, value).
template <class Policy, class Accumulator, class Epilogue>
__device__ __forceinline__ void apply_elementwise(const Epilogue& epilogue, int64_t m, int64_t n, int64_t row_begin,
                                                  int64_t col_begin, const thread_tile<Policy>& tile,
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

}  // namespace tgemm::device::detail
