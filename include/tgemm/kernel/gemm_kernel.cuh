/// \file kernel/gemm_kernel.cuh
/// \brief The `__global__` kernels: grid-to-tile mapping around device::gemm, the naive kernel, and C = beta C.
#pragma once

#include <cstdint>

#include "../device/gemm.cuh"
#include "../device/naive.cuh"
#include "pack_kernel.cuh"
#include "../tuning.cuh"

/// The `__global__` kernels the host calls launch: thin wrappers that map blocks to tiles around device::gemm().
namespace tgemm::kernel {

/// The block tiles of a problem: how many along m and along n.
struct tile_grid {
  int64_t tiles_m = 0;  ///< ceil(m / block_m).
  int64_t tiles_n = 0;  ///< ceil(n / block_n).
};

/// Split-K: k is cut into `slices` ranges of k_per_slice (blockIdx.z picks one); each block writes its partial
/// product to its slice of `partials` (column-major, ld_partials, slices n * ld_partials apart) and a
/// reduction kernel combines them. slices == 1: no split, the block applies the epilogue to C itself.
struct split_k {
  int64_t slices = 1;            ///< Number of k ranges (gridDim.z).
  int64_t k_per_slice = 0;       ///< Length of each range, a multiple of the policy's block_k.
  float* partials = nullptr;     ///< slices x (ld_partials x n) floats of workspace.
  int64_t ld_partials = 0;       ///< Leading dimension of each partial product.
};

/// The rows of op(A) and columns of op(B) a padded kernel may read (dispatch_gemm_padded): at least m and n.
/// Repacked copies are zero-padded past m (n), so the blocks on the bottom and right edges can load whole tiles.
struct readable_extent {
  int64_t m = 0;  ///< Rows of op(A) that may be read.
  int64_t n = 0;  ///< Columns of op(B) that may be read.
};

namespace detail {

/// Dynamic shared memory, declared once so every kernel agrees on its type.
__device__ __forceinline__ void* dynamic_shared_memory() {
  extern __shared__ float4 tgemm_dynamic_shared[];
  return tgemm_dynamic_shared;
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

/// One block of a tiled kernel. Padded: the loads read up to `readable` (dispatch_gemm_padded); otherwise up to
/// m and n, through device::gemm() itself.
template <class Policy, op OpA, op OpB, bool Padded = false>
__device__ __forceinline__ void run_tiled(const device::problem& p, const device::linear_combination& e,
                                          const tile_grid& grid, const split_k& split,
                                          const readable_extent& readable = {}) {
  int64_t tile_row, tile_col;
  if (!tile_of_block<Policy::raster_group>(grid, tile_row, tile_col)) return;
  auto& smem = *static_cast<device::shared_storage<Policy>*>(dynamic_shared_memory());
  device::problem operands = p;
  device::linear_combination output = e;
  if (split.slices > 1) {
    // This block's k range: the same problem with A and B advanced to its first k; the product goes to this
    // slice's partials, unscaled, and the reduction applies alpha and beta.
    const int64_t k_begin = int64_t(blockIdx.z) * split.k_per_slice;
    operands.k = p.k - k_begin < split.k_per_slice ? p.k - k_begin : split.k_per_slice;
    operands.a = OpA == op::none ? p.a + k_begin * p.lda : p.a + k_begin;
    operands.b = OpB == op::none ? p.b + k_begin : p.b + k_begin * p.ldb;
    output = device::linear_combination{1.0f, 0.0f, split.partials + int64_t(blockIdx.z) * split.ld_partials * p.n,
                                        split.ld_partials};
  }
  if constexpr (Padded) {
    device::detail::gemm_tile<Policy, OpA, OpB>(operands, readable.m, readable.n, tile_row, tile_col, smem, output);
  } else {
    device::gemm<Policy, OpA, OpB>(operands, tile_row, tile_col, smem, output);
  }
}

}  // namespace detail

/// The kernel behind tgemm::launch<Policy>() for a tiled policy.
template <class Policy, op OpA, op OpB>
__global__ void __launch_bounds__(Policy::threads)
    tiled_gemm(const device::problem p, const device::linear_combination e, const tile_grid grid,
               const split_k split) {
  detail::run_tiled<Policy, OpA, OpB>(p, e, grid, split);
}

/// The kernel behind tgemm::gemm(): one symbol, and each architecture's device code uses that architecture's
/// policy from the tuning chain (CUB-style). The host launches it with the grid of the same policy, chosen from
/// the PTX version the device runs (see arch.cuh).
template <class Chain, class Pick, op OpA, op OpB>
__global__ void __launch_bounds__(Pick::template policy<tuning::select_t<Chain, TGEMM_DEVICE_ARCH>>::threads)
    dispatch_gemm(const device::problem p, const device::linear_combination e, const tile_grid grid,
                  const split_k split) {
  using policy = typename Pick::template policy<tuning::select_t<Chain, TGEMM_DEVICE_ARCH>>;
  detail::run_tiled<policy, OpA, OpB>(p, e, grid, split);
}

/// dispatch_gemm for a problem whose operands are repacked copies, zero-padded past m (n): the blocks on the
/// bottom and right edges load whole tiles up to `readable`. A kernel of its own so that dispatch_gemm's code is
/// untouched: when it took its loads' extent from a second value, ptxas scheduled the main loop differently, and
/// its 4096^3 kernel measured 2.69 ms on an H200 against 2.64 before (Nsight Compute, two different days).
template <class Chain, class Pick, op OpA, op OpB>
__global__ void __launch_bounds__(Pick::template policy<tuning::select_t<Chain, TGEMM_DEVICE_ARCH>>::threads)
    dispatch_gemm_padded(const device::problem p, const device::linear_combination e, const tile_grid grid,
                         const split_k split, const readable_extent readable) {
  using policy = typename Pick::template policy<tuning::select_t<Chain, TGEMM_DEVICE_ARCH>>;
  detail::run_tiled<policy, OpA, OpB, true>(p, e, grid, split, readable);
}

/// One thread per element of C (tgemm::naive_policy); threadIdx.x runs down a column so C stores coalesce.
template <op OpA, op OpB>
__global__ void __launch_bounds__(naive_policy::threads)
    naive_gemm(const device::problem p, const device::linear_combination e) {
  const int64_t row = int64_t(blockIdx.x) * naive_policy::block_m + threadIdx.x;
  const int64_t col = int64_t(blockIdx.y) * naive_policy::block_n + threadIdx.y;
  if (row < p.m && col < p.n) device::naive_element<OpA, OpB>(p, e, row, col);
}

/// C = beta * C over an m x n column-major C (the k = 0 and alpha = 0 cases); beta == 0 writes zeros
/// without reading C. Grid-stride in both dimensions, so any size fits any grid.
template <int Unused = 0>
__global__ void __launch_bounds__(256) scale_c(float* c, int64_t ldc, int64_t m, int64_t n, float beta) {
  for (int64_t col = blockIdx.y; col < n; col += gridDim.y) {
    for (int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; row < m; row += int64_t(gridDim.x) * blockDim.x) {
      float* x = c + row + col * ldc;
      *x = beta == 0.0f ? 0.0f : beta * *x;
    }
  }
}

}  // namespace tgemm::kernel
