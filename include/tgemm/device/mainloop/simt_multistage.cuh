/// \file device/mainloop/simt_multistage.cuh
/// \brief mainloop::simt_multistage<Stages>: register-tiled SIMT multiply-adds with a shared-memory k pipeline.
#pragma once

#include <cstdint>

#include "../../arch/cp_async.cuh"
#include "../../policy/mainloop_tags.cuh"
#include "../../policy/run_time_layouts.cuh"
#include "../../types.cuh"
#include "../epilogue.cuh"
#include "../problem.cuh"
#include "../thread_tile.cuh"
#include "../tile_loader.cuh"
#include "block_mainloop.cuh"

namespace tgemm::device {

/// A block's tile on the CUDA cores: both operands' block_k slices are staged k-major in shared memory (A tile
/// rows and B tile columns contiguous, rows padded), each thread accumulates thread_m x thread_n products in
/// registers, and with Stages >= 2 the copies of later slices overlap the multiply-adds of the current one.
template <int Stages, class Policy>
struct block_mainloop<mainloop::simt_multistage<Stages>, Policy> {
  using element_a = typename Policy::element_a;            ///< A's elements.
  using element_b = typename Policy::element_b;            ///< B's elements.
  using accumulator = typename Policy::accumulator_type;  ///< The type products are summed in.
  static constexpr int stages = Stages;                    ///< Shared-memory buffers of the k pipeline.

  /// `stages` slices of A and B, k-major, rows padded.
  struct alignas(16) shared_storage {
    element_a a[Stages][Policy::block_k][Policy::block_m + Policy::shared_padding];  ///< A slices, a[stage][k][m].
    element_b b[Stages][Policy::block_k][Policy::block_n + Policy::shared_padding];  ///< B slices, b[stage][k][n].
  };

  /// Accumulates op(A)[tile rows, :] * op(B)[:, tile cols] into `acc`. With stages >= 2 the copies for slice
  /// t + stages - 1 are in flight while slice t is multiplied (register-staged operands are written after it);
  /// a single barrier per slice both publishes slice t and frees the stage being refilled.
  template <op OpA, op OpB, class Problem>
  static __device__ __forceinline__ void accumulate(const Problem& p, int64_t readable_m, int64_t readable_n,
                                                    int64_t row_begin, int64_t col_begin, shared_storage& smem,
                                                    const detail::thread_tile<Policy>& tile,
                                                    accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
    constexpr bool overlap = stages > 1;
    const int thread = threadIdx.x;
    // op(A) is read along k when A is transposed, op(B) when B is not; op::at_run_time: the call's ops (the
    // problem is then a detail::problem_with_ops) choose.
    using detail::operand_layout;
    constexpr operand_layout layout_a = OpA == op::at_run_time ? operand_layout::at_run_time
                                        : OpA == op::transpose ? operand_layout::along_k
                                                               : operand_layout::along_mn;
    constexpr operand_layout layout_b = OpB == op::at_run_time ? operand_layout::at_run_time
                                        : OpB == op::none      ? operand_layout::along_k
                                                               : operand_layout::along_mn;
    bool a_along_k = false, b_along_k = false;
    if constexpr (layout_a == operand_layout::at_run_time) a_along_k = p.op_a == op::transpose;
    if constexpr (layout_b == operand_layout::at_run_time) b_along_k = p.op_b == op::none;
    detail::tile_loader<element_a, Policy::block_m, Policy::block_k, Policy::shared_padding, Policy::threads,
                        Policy::vector_width, layout_a, overlap>
        load_a(p.a, p.lda, row_begin, readable_m, p.k, thread, a_along_k);
    detail::tile_loader<element_b, Policy::block_n, Policy::block_k, Policy::shared_padding, Policy::threads,
                        Policy::vector_width, layout_b, overlap>
        load_b(p.b, p.ldb, col_begin, readable_n, p.k, thread, b_along_k);
    const int64_t k_tiles = (p.k + Policy::block_k - 1) / Policy::block_k;

    if constexpr (stages == 1) {
      for (int64_t t = 0; t < k_tiles; ++t) {
        load_a.fetch(&smem.a[0][0][0]);
        load_b.fetch(&smem.b[0][0][0]);
        __syncthreads();
        detail::multiply_stage<Policy>(&smem.a[0][0][0], &smem.b[0][0][0], tile, acc);
        __syncthreads();  // everyone is done reading before the next slice overwrites the stage
      }
    } else {
#pragma unroll
      for (int s = 0; s < stages - 1; ++s) {
        if (s < k_tiles) {
          load_a.fetch(&smem.a[s][0][0]);
          load_b.fetch(&smem.b[s][0][0]);
          load_a.store(&smem.a[s][0][0]);
          load_b.store(&smem.b[s][0][0]);
        }
        arch::copy_commit();  // one group per slice, even an empty one, keeps the wait counts below exact
      }
      int read_stage = 0, write_stage = stages - 1;
      int64_t t = 0;
      // Steady state of a block inside the matrix: the slice being refilled is whole, so the loop carries no
      // bounds or refill tests. On an H200 dropping their compares and branches (~80 stall cycles a slice) made
      // 256 x 128 x 8 tiles with both operands on cp.async 5.7 % faster. It is limited to what was measured to
      // gain: with B staged through registers the same tile ran 1.8 % slower, 16-deep slices moved -4.5 to +2 %,
      // and 128 x 128 x 16 (64 accumulators a thread) lost its second block per SM to 5 more registers.
      constexpr bool steady_state_loop = !decltype(load_a)::may_stage && !decltype(load_b)::may_stage &&
                                         Policy::block_k == 8 && Policy::thread_m * Policy::thread_n >= 128;
      if constexpr (steady_state_loop) {
        if (load_a.interior() && load_b.interior()) {
          const int64_t whole_refills = p.k / Policy::block_k - (stages - 1);
          for (; t < whole_refills; ++t) {
            arch::copy_wait<stages - 2>();
            __syncthreads();
            load_a.fetch_interior(&smem.a[write_stage][0][0]);
            load_b.fetch_interior(&smem.b[write_stage][0][0]);
            arch::copy_commit();
            detail::multiply_stage<Policy>(&smem.a[read_stage][0][0], &smem.b[read_stage][0][0], tile, acc);
            read_stage = read_stage + 1 == stages ? 0 : read_stage + 1;
            write_stage = write_stage + 1 == stages ? 0 : write_stage + 1;
          }
        }
      }
      for (; t < k_tiles; ++t) {      // edge blocks, and the last slices of every block
        arch::copy_wait<stages - 2>();  // this thread's copies of slice t have landed ...
        __syncthreads();                // ... and everyone's, and slice t - 1 is no longer being read
        const bool refill = t + stages - 1 < k_tiles;
        if (refill) {
          load_a.fetch(&smem.a[write_stage][0][0]);
          load_b.fetch(&smem.b[write_stage][0][0]);
        }
        arch::copy_commit();
        detail::multiply_stage<Policy>(&smem.a[read_stage][0][0], &smem.b[read_stage][0][0], tile, acc);
        if (refill) {
          // Register-staged operands land now: their loads had the whole slice of FMAs to arrive.
          load_a.store(&smem.a[write_stage][0][0]);
          load_b.store(&smem.b[write_stage][0][0]);
        }
        read_stage = read_stage + 1 == stages ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == stages ? 0 : write_stage + 1;
      }
      arch::copy_wait<0>();  // no copy may still be writing shared memory when the block moves on
    }
  }

  /// The block's tile (tile_row, tile_col) of op(A) op(B), handed to the epilogue.
  template <op OpA, op OpB, class Problem, class Epilogue>
  static __device__ __forceinline__ void run(const Problem& p, int64_t readable_m, int64_t readable_n, int64_t tile_row,
                                             int64_t tile_col, shared_storage& smem, const Epilogue& epilogue) {
    const detail::thread_tile<Policy> tile(threadIdx.x);
    const int64_t row_begin = tile_row * Policy::block_m;
    const int64_t col_begin = tile_col * Policy::block_n;

    accumulator acc[Policy::thread_m][Policy::thread_n];
#pragma unroll
    for (int i = 0; i < Policy::thread_m; ++i) {
#pragma unroll
      for (int j = 0; j < Policy::thread_n; ++j) acc[i][j] = accumulator(0);
    }

    accumulate<OpA, OpB>(p, readable_m, readable_n, row_begin, col_begin, smem, tile, acc);
    detail::write_tile<Policy>(epilogue, p.m, p.n, row_begin, col_begin, tile, acc);
  }
};

}  // namespace tgemm::device
