/// \file device/thread_tile.cuh
/// \brief Where a thread's register tile sits in the block tile, and the FMAs over one shared-memory stage.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "vector_access.cuh"

namespace tgemm::device::detail {

/// Maps a thread to its rows and columns of the block tile.
///
/// Warps tile the block (warps_m x warps_n, m fastest); lanes tile the warp (warp_threads_m x warp_threads_n,
/// m fastest, so a warp's stores run down columns of C). A thread's thread_m rows come in fragments of
/// fragment_m contiguous rows spaced one warp-slab apart: at every k a quarter-warp reads distinct 16-byte
/// vectors of the stage and threads sharing a row index share the read (broadcast), so no bank conflicts.
template <class Policy>
struct thread_tile {
  static constexpr int slab_m = Policy::warp_threads_m * Policy::fragment_m;
  static constexpr int slab_n = Policy::warp_threads_n * Policy::fragment_n;

  int row0;  ///< Block-tile row of this thread's first accumulator row.
  int col0;  ///< Block-tile column of this thread's first accumulator column.

  __device__ __forceinline__ explicit thread_tile(int thread) {
    const int warp = thread / 32;
    const int lane = thread % 32;
    row0 = (warp % Policy::warps_m) * Policy::warp_m + (lane % Policy::warp_threads_m) * Policy::fragment_m;
    col0 = (warp / Policy::warps_m) * Policy::warp_n + (lane / Policy::warp_threads_m) * Policy::fragment_n;
  }

  /// Block-tile row of accumulator row i (0 <= i < thread_m).
  __device__ __forceinline__ int row(int i) const {
    return row0 + (i / Policy::fragment_m) * slab_m + i % Policy::fragment_m;
  }
  /// Block-tile column of accumulator column j (0 <= j < thread_n).
  __device__ __forceinline__ int col(int j) const {
    return col0 + (j / Policy::fragment_n) * slab_n + j % Policy::fragment_n;
  }
};

/// acc += a * b with one rounding (fma); a wider accumulator sums the exact products of narrower elements.
template <class Element, class Accumulator>
__device__ __forceinline__ Accumulator multiply_add(Element a, Element b, Accumulator acc) {
  if constexpr (std::is_same<Accumulator, double>::value) {
    return fma(double(a), double(b), acc);
  } else {
    return fmaf(a, b, acc);
  }
}

/// The register-tile product over one stage: for every k of the slice, an outer product of the thread's
/// A fragment (thread_m values) and B fragment (thread_n values) into thread_m x thread_n accumulators.
template <class Policy, class Element, class Accumulator>
__device__ __forceinline__ void multiply_stage(const Element* stage_a, const Element* stage_b,
                                               const thread_tile<Policy>& tile,
                                               Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
  constexpr int stride_a = Policy::block_m + Policy::shared_padding;
  constexpr int stride_b = Policy::block_n + Policy::shared_padding;
#pragma unroll Policy::unroll
  for (int kk = 0; kk < Policy::block_k; ++kk) {
    Element a[Policy::thread_m];
    Element b[Policy::thread_n];
#pragma unroll
    for (int f = 0; f < Policy::thread_m / Policy::fragment_m; ++f) {
      load_vector<Policy::fragment_m>(a + f * Policy::fragment_m, stage_a + kk * stride_a + tile.row0 + f * tile.slab_m);
    }
#pragma unroll
    for (int f = 0; f < Policy::thread_n / Policy::fragment_n; ++f) {
      load_vector<Policy::fragment_n>(b + f * Policy::fragment_n, stage_b + kk * stride_b + tile.col0 + f * tile.slab_n);
    }
#pragma unroll
    for (int i = 0; i < Policy::thread_m; ++i) {
#pragma unroll
      for (int jj = 0; jj < Policy::thread_n; ++jj) {
        const int j = (i % 2 == 0) ? jj : Policy::thread_n - 1 - jj;  // serpentine: b[j] reused across rows
        acc[i][j] = multiply_add(a[i], b[j], acc[i][j]);
      }
    }
  }
}

}  // namespace tgemm::device::detail
