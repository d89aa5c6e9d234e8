/// \file kernel/pack_kernel.cuh
/// \brief Helper kernels of the dispatcher: repacking misaligned operands, and the split-K reduction.
#pragma once

#include <cstdint>

namespace tgemm::kernel {

/// Side of the square tile a packing block transposes through shared memory.
inline constexpr int pack_tile = 32;

/// Copies op(X) (extent_mn x extent_k in the canonical addressing of device::problem) into `dst`, contiguous
/// along mn with leading dimension ld_dst, so that a misaligned operand becomes one the vector loads can read.
/// The padding rows [extent_mn, ld_dst) are written with zeros, so kernels may read them (kernel::readable_extent).
/// A k-contiguous source is transposed through a padded shared-memory tile, so both sides stay coalesced.
/// The grid must cover ld_dst along mn.
template <bool ContiguousK>
__global__ void __launch_bounds__(pack_tile * 8)
    pack_operand(const float* __restrict__ src, int64_t ld, int64_t extent_mn, int64_t extent_k,
                 float* __restrict__ dst, int64_t ld_dst) {
  __shared__ float tile[pack_tile][pack_tile + 1];  // +1: the transposed read hits 32 different banks
  const int64_t tiles_k = (extent_k + pack_tile - 1) / pack_tile;
  const int64_t mn0 = int64_t(blockIdx.x) * pack_tile;
  for (int64_t tk = blockIdx.y; tk < tiles_k; tk += gridDim.y) {
    const int64_t k0 = tk * pack_tile;
    if constexpr (ContiguousK) {
      for (int r = threadIdx.y; r < pack_tile; r += blockDim.y) {
        const int64_t mn = mn0 + r, k = k0 + threadIdx.x;
        if (mn < extent_mn && k < extent_k) tile[r][threadIdx.x] = src[k + mn * ld];
      }
      __syncthreads();
      for (int r = threadIdx.y; r < pack_tile; r += blockDim.y) {
        const int64_t mn = mn0 + threadIdx.x, k = k0 + r;
        if (mn < extent_mn && k < extent_k) {
          dst[mn + k * ld_dst] = tile[threadIdx.x][r];
        } else if (mn < ld_dst && k < extent_k) {
          dst[mn + k * ld_dst] = 0.0f;
        }
      }
      __syncthreads();
    } else {
      for (int r = threadIdx.y; r < pack_tile; r += blockDim.y) {
        const int64_t mn = mn0 + threadIdx.x, k = k0 + r;
        if (mn < ld_dst && k < extent_k) dst[mn + k * ld_dst] = mn < extent_mn ? src[mn + k * ld] : 0.0f;
      }
    }
  }
}

/// Partial products one thread of reduce_split_k loads before it adds them: independent loads in flight.
inline constexpr int reduce_batch = 8;

/// C = alpha * (sum of the split-K partial products) + beta * C. Partials are summed in slice order, so the
/// result is the same bit for bit on every run. beta == 0 never reads C. One thread per element of C, counted
/// down the columns as one flat range (a grid over columns would idle most threads when m is small: 16 rows
/// used 16 of 256 threads), loading reduce_batch slices at a time. With one slice it is the copy of a product
/// staged in an aligned buffer to a misaligned C (see detail::launch_picked).
template <int Unused = 0>
__global__ void __launch_bounds__(256)
    reduce_split_k(const float* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                   int64_t m, int64_t n, float alpha, float beta, float* __restrict__ c, int64_t ldc) {
  // The flat index is turned into (row, col) by one division per thread, then stepped. (Dividing for every
  // element measured the same on an H200, within 0.4 us: memory bounds the kernel at split-K sizes.)
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t col_step = stride / m, row_step = stride - col_step * m;
  int64_t col = first / m, row = first - col * m;
  for (; col < n; row += row_step, col += col_step) {
    if (row >= m) row -= m, ++col;  // row_step < m, so one wrap at most
    if (col >= n) break;
    const float* p = partials + row + col * ld_partials;
    float sum = 0.0f;
    int s = 0;
    for (; s + reduce_batch <= slices; s += reduce_batch) {
      float batch[reduce_batch];
#pragma unroll
      for (int j = 0; j < reduce_batch; ++j) batch[j] = p[(s + j) * slice_stride];
#pragma unroll
      for (int j = 0; j < reduce_batch; ++j) sum += batch[j];
    }
    for (; s < slices; ++s) sum += p[s * slice_stride];
    float* x = c + row + col * ldc;
    *x = beta == 0.0f ? alpha * sum : alpha * sum + beta * *x;
  }
}

}  // namespace tgemm::kernel
