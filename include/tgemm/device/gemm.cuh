/// \file device/gemm.cuh
/// \brief tgemm::device::gemm<Policy>(): one thread block's tile of C, callable from any kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../policy.cuh"
#include "../types.cuh"
#include "async_copy.cuh"
#include "epilogue.cuh"
#include "problem.cuh"
#include "thread_tile.cuh"
#include "tile_loader.cuh"

namespace tgemm::device {

/// The shared memory one block of a tiled policy needs: `stages` slices of A and B, k-major, rows padded.
/// Declare it `__shared__` when it fits in 48 KiB, or carve it from dynamic shared memory.
template <class Policy>
struct alignas(16) shared_storage {
  static_assert(Policy::kind == algorithm::tiled, "shared_storage needs a tiled policy");
  float a[Policy::stages][Policy::block_k][Policy::block_m + shared_row_padding];  ///< A slices, a[stage][k][m].
  float b[Policy::stages][Policy::block_k][Policy::block_n + shared_row_padding];  ///< B slices, b[stage][k][n].
};

namespace detail {

/// The main loop: accumulates op(A)[tile rows, :] * op(B)[:, tile cols] into `acc`, staging block_k slices of
/// both operands through shared memory. With stages >= 2 the copies for slice t + stages - 1 are in flight while
/// slice t is multiplied (register-staged operands are written after it); a single barrier per slice both
/// publishes slice t and frees the stage being refilled.
/// Rows of op(A) at or past readable_m and columns of op(B) at or past readable_n read as zero (at least m and n;
/// larger when the operands are padded, so that edge blocks load whole tiles).
template <class Policy, op OpA, op OpB, class Accumulator>
__device__ __forceinline__ void accumulate(const problem& p, int64_t readable_m, int64_t readable_n,
                                           int64_t row_begin, int64_t col_begin, shared_storage<Policy>& smem,
                                           const thread_tile<Policy>& tile,
                                           Accumulator (&acc)[Policy::thread_m][Policy::thread_n]) {
  constexpr int stages = Policy::stages;
  constexpr bool overlap = stages > 1;
  const int thread = threadIdx.x;
  tile_loader<Policy::block_m, Policy::block_k, Policy::threads, Policy::vector_width, OpA == op::transpose, overlap>
      load_a(p.a, p.lda, row_begin, readable_m, p.k, thread);
  tile_loader<Policy::block_n, Policy::block_k, Policy::threads, Policy::vector_width, OpB == op::none, overlap>
      load_b(p.b, p.ldb, col_begin, readable_n, p.k, thread);
  const int64_t k_tiles = (p.k + Policy::block_k - 1) / Policy::block_k;

  if constexpr (stages == 1) {
    for (int64_t t = 0; t < k_tiles; ++t) {
      load_a.fetch(&smem.a[0][0][0]);
      load_b.fetch(&smem.b[0][0][0]);
      __syncthreads();
      multiply_stage<Policy>(&smem.a[0][0][0], &smem.b[0][0][0], tile, acc);
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
      copy_commit();  // one group per slice, even an empty one, keeps the wait counts below exact
    }
    int read_stage = 0, write_stage = stages - 1;
    int64_t t = 0;
    // Steady state of a block inside the matrix: the slice being refilled is whole, so the loop carries no
    // bounds or refill tests. On an H200 dropping their compares and branches (~80 stall cycles a slice) made
    // 256 x 128 x 8 tiles with both operands on cp.async 5.7 % faster. It is limited to what was measured to
    // gain: with B staged through registers the same tile ran 1.8 % slower, 16-deep slices moved -4.5 to +2 %,
    // and 128 x 128 x 16 (64 accumulators a thread) lost its second block per SM to 5 more registers.
    constexpr bool steady_state_loop = !decltype(load_a)::staged && !decltype(load_b)::staged &&
                                       Policy::block_k == 8 && Policy::thread_m * Policy::thread_n >= 128;
    if constexpr (steady_state_loop) {
      if (load_a.interior() && load_b.interior()) {
        const int64_t whole_refills = p.k / Policy::block_k - (stages - 1);
        for (; t < whole_refills; ++t) {
          copy_wait<stages - 2>();
          __syncthreads();
          load_a.fetch_interior(&smem.a[write_stage][0][0]);
          load_b.fetch_interior(&smem.b[write_stage][0][0]);
          copy_commit();
          multiply_stage<Policy>(&smem.a[read_stage][0][0], &smem.b[read_stage][0][0], tile, acc);
          read_stage = read_stage + 1 == stages ? 0 : read_stage + 1;
          write_stage = write_stage + 1 == stages ? 0 : write_stage + 1;
        }
      }
    }
    for (; t < k_tiles; ++t) {  // edge blocks, and the last slices of every block
      copy_wait<stages - 2>();  // this thread's copies of slice t have landed ...
      __syncthreads();          // ... and everyone's, and slice t - 1 is no longer being read
      const bool refill = t + stages - 1 < k_tiles;
      if (refill) {
        load_a.fetch(&smem.a[write_stage][0][0]);
        load_b.fetch(&smem.b[write_stage][0][0]);
      }
      copy_commit();
      multiply_stage<Policy>(&smem.a[read_stage][0][0], &smem.b[read_stage][0][0], tile, acc);
      if (refill) {
        // Register-staged operands land now: their loads had the whole slice of FMAs to arrive.
        load_a.store(&smem.a[write_stage][0][0]);
        load_b.store(&smem.b[write_stage][0][0]);
      }
      read_stage = read_stage + 1 == stages ? 0 : read_stage + 1;
      write_stage = write_stage + 1 == stages ? 0 : write_stage + 1;
    }
    copy_wait<0>();  // no copy may still be writing shared memory when the block moves on
  }
}

/// device::gemm() with the extents its loads may read (see accumulate()): the kernels behind tgemm::gemm() pass
/// the padded extents of repacked operands here.
template <class Policy, op OpA, op OpB, class Epilogue>
__device__ __forceinline__ void gemm_tile(const problem& p, int64_t readable_m, int64_t readable_n, int64_t tile_row,
                                          int64_t tile_col, shared_storage<Policy>& smem, const Epilogue& epilogue) {
  static_assert(Policy::kind == algorithm::tiled, "device::gemm needs a tiled policy (tgemm::policy<...>)");
  using accumulator = typename Policy::accumulator_type;
  const thread_tile<Policy> tile(threadIdx.x);
  const int64_t row_begin = tile_row * Policy::block_m;
  const int64_t col_begin = tile_col * Policy::block_n;

  accumulator acc[Policy::thread_m][Policy::thread_n];
#pragma unroll
  for (int i = 0; i < Policy::thread_m; ++i) {
#pragma unroll
    for (int j = 0; j < Policy::thread_n; ++j) acc[i][j] = accumulator(0);
  }

  accumulate<Policy, OpA, OpB>(p, readable_m, readable_n, row_begin, col_begin, smem, tile, acc);

  if constexpr (std::is_same<Epilogue, linear_combination>::value) {
    store_linear_combination<Policy>(epilogue, p.m, p.n, row_begin, col_begin, tile, acc);
  } else {
    apply_elementwise<Policy>(epilogue, p.m, p.n, row_begin, col_begin, tile, acc);
  }
}

}  // namespace detail

/// Computes one block_m x block_n tile of C = op(A) op(B), handing the result to `epilogue`.
///
/// Call it from a `__global__` kernel launched with `Policy::threads` threads in a one-dimensional block; every
/// thread of the block must call it (it contains barriers). Tiles may overhang the matrix: out-of-range rows and
/// columns read as zero and are never written.
///
/// Nothing is checked here. A and B (and C for linear_combination) must be aligned to `Policy::vector_width`
/// floats, with leading dimensions that are multiples of it; tgemm::can_implement<Policy>() checks a call on the
/// host.
///
/// \tparam Policy    a tiled tgemm::policy.
/// \tparam OpA, OpB  whether A and B are read transposed (see device::problem for the addressing).
/// \param p          the operands, column-major.
/// \param tile_row   which block tile along m (rows tile_row * block_m ...).
/// \param tile_col   which block tile along n.
/// \param smem       the block's shared storage (one per block, e.g. `__shared__ shared_storage<Policy> s;`).
/// \param epilogue   device::linear_combination for the BLAS update, or any functor called as
///                   `epilogue(int64_t row, int64_t col, accumulator_type value)` once per in-range element.
template <class Policy, op OpA = op::none, op OpB = op::none, class Epilogue>
__device__ void gemm(const problem& p, int64_t tile_row, int64_t tile_col, shared_storage<Policy>& smem,
                     const Epilogue& epilogue) {
  detail::gemm_tile<Policy, OpA, OpB>(p, p.m, p.n, tile_row, tile_col, smem, epilogue);
}

}  // namespace tgemm::device
