/// \file device/mainloop/naive.cuh
/// \brief mainloop::naive: one thread per element of C, operands read straight from global memory.
#pragma once

#include <cstdint>

#include "../../numeric.cuh"
#include "../../policy/mainloop_tags.cuh"
#include "../../types.cuh"
#include "../epilogue.cuh"
#include "../problem.cuh"
#include "block_mainloop.cuh"

namespace tgemm::device {

/// The tutorial's first rung as a mainloop: thread t of the block computes element (t % block_m, t / block_m)
/// of the block's tile, so consecutive threads run down a column of C and their stores coalesce. Every operand
/// value is fetched from global memory by every thread that needs it: no reuse at all.
template <class Policy>
struct block_mainloop<mainloop::naive, Policy> {
  /// No shared memory.
  struct shared_storage {};

  /// The one-element "register tile" of a thread, for the epilogue.
  struct element_layout {
    int row0;  ///< The thread's row in the block tile.
    int col0;  ///< The thread's column in the block tile.
    /// Block-tile row of accumulator row i (there is one).
    __device__ __forceinline__ int row(int) const { return row0; }
    /// Block-tile column of accumulator column j (there is one).
    __device__ __forceinline__ int col(int) const { return col0; }
  };
  /// The epilogue sees a 1 x 1 tile per thread.
  struct tile_shape {
    static constexpr int thread_m = 1;     ///< Accumulator rows per thread.
    static constexpr int thread_n = 1;     ///< Accumulator columns per thread.
    static constexpr int store_width = 1;  ///< Elements per store.
  };

  /// Element (tile_row * block_m + t % block_m, tile_col * block_n + t / block_m) of op(A) op(B) for thread t,
  /// handed to the epilogue.
  template <op OpA, op OpB, class Problem, class Epilogue>
  static __device__ __forceinline__ void run(const Problem& p, int64_t, int64_t, int64_t tile_row, int64_t tile_col,
                                             shared_storage&, const Epilogue& epilogue) {
    const element_layout at{int(threadIdx.x) % Policy::block_m, int(threadIdx.x) / Policy::block_m};
    const int64_t row = tile_row * Policy::block_m + at.row0;
    const int64_t col = tile_col * Policy::block_n + at.col0;
    typename Policy::accumulator_type acc[1][1] = {{0}};
    if (row < p.m && col < p.n) {
      for (int64_t l = 0; l < p.k; ++l) {
        const auto a = OpA == op::none ? p.a[row + l * p.lda] : p.a[l + row * p.lda];
        const auto b = OpB == op::none ? p.b[l + col * p.ldb] : p.b[col + l * p.ldb];
        acc[0][0] = fmaf(a, b, acc[0][0]);
      }
    }
    detail::write_tile<tile_shape>(epilogue, p.m, p.n, tile_row * Policy::block_m, tile_col * Policy::block_n, at, acc);
  }
};

}  // namespace tgemm::device
