/// \file kernel/tile_scheduler.cuh
/// \brief Which tile of C each block computes, and the grid arithmetic the host and the kernels share.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../types.cuh"

namespace tgemm::kernel {

/// The block tiles of a problem: how many along m and along n; and for a strided batch run in one grid, how far
/// apart (in elements) consecutive products' A, B and C are (the product is blockIdx.z).
struct tile_grid {
  int64_t tiles_m = 0;   ///< ceil(m / block_m).
  int64_t tiles_n = 0;   ///< ceil(n / block_n).
  int64_t stride_a = 0;  ///< Elements between consecutive products' A (0: one A, or no batch).
  int64_t stride_b = 0;  ///< Elements between consecutive products' B.
  int64_t stride_c = 0;  ///< Elements between consecutive products' C.
};

/// Split-K: k is cut into `slices` ranges of k_per_slice (blockIdx.z picks one); each block writes its partial
/// product to its slice of `partials` (column-major, ld_partials, slices n * ld_partials apart) and a
/// reduction kernel combines them. slices == 1: no split, the block applies the epilogue to C itself.
template <class Element>
struct split_k {
  int64_t slices = 1;            ///< Number of k ranges (gridDim.z).
  int64_t k_per_slice = 0;       ///< Length of each range, a multiple of the policy's block_k.
  Element* partials = nullptr;   ///< slices x (ld_partials x n) elements of workspace.
  int64_t ld_partials = 0;       ///< Leading dimension of each partial product.
};

/// The rows of op(A) and columns of op(B) a padded kernel may read: at least m and n. Repacked copies are
/// zero-padded past m (n), so the blocks on the bottom and right edges can load whole tiles.
struct readable_extent {
  int64_t m = 0;  ///< Rows of op(A) that may be read.
  int64_t n = 0;  ///< Columns of op(B) that may be read.
};

/// The call's op(A) and op(B), for a kernel compiled with op::at_run_time for one of them (the kernels of a
/// run_time_layouts policy); the others ignore it.
struct call_ops {
  op a = op::none;  ///< op(A).
  op b = op::none;  ///< op(B).
};

/// Tiles of `tile` needed to cover `extent`.
__host__ __device__ constexpr int64_t tiles_for(int64_t extent, int64_t tile) { return (extent + tile - 1) / tile; }

/// The largest grid.x a launch takes.
inline constexpr int64_t max_grid_x = 2147483647;
/// The largest grid.y (and grid.z) a launch takes.
inline constexpr int64_t max_grid_y = 65535;

/// True when `blocks` blocks fit in one grid laid out as grid_for() does.
inline bool grid_fits(int64_t blocks) {
  const int64_t x = blocks < max_grid_x ? (blocks > 0 ? blocks : 1) : max_grid_x;
  return (blocks + x - 1) / x <= max_grid_y;
}

/// A grid of at least `blocks` blocks (which must fit: grid_fits()): x up to 2^31 - 1, y for the rest; kernels
/// skip the spare blocks.
inline dim3 grid_for(int64_t blocks) {
  const int64_t x = blocks < max_grid_x ? (blocks > 0 ? blocks : 1) : max_grid_x;
  const int64_t y = (blocks + x - 1) / x;
  return dim3(unsigned(x), unsigned(y > 0 ? y : 1), 1);
}

/// Turns the linear block index into a (row, col) tile. Blocks go down a group of `Group` tile rows before
/// moving one tile column right, so blocks running at the same time share B columns and A rows in L2.
/// Returns false for the spare blocks of the last grid row.
template <int Group>
__device__ __forceinline__ bool tile_of_block(const tile_grid& grid, int64_t& tile_row, int64_t& tile_col) {
  const int64_t linear = int64_t(blockIdx.y) * gridDim.x + blockIdx.x;
  if (linear >= grid.tiles_m * grid.tiles_n) return false;
  const int64_t per_group = int64_t(Group) * grid.tiles_n;
  const int64_t group = linear / per_group;
  const int64_t first_row = group * Group;
  const int64_t rows = grid.tiles_m - first_row < Group ? grid.tiles_m - first_row : Group;
  const int64_t in_group = linear - group * per_group;
  tile_row = first_row + in_group % rows;
  tile_col = in_group / rows;
  return true;
}

}  // namespace tgemm::kernel
