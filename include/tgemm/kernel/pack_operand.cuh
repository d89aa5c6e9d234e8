/// \file kernel/pack_operand.cuh
/// \brief Repacking an operand into an aligned, zero-padded copy that the vector loads can read.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../numeric.cuh"

namespace tgemm::kernel {

/// Side of the square tile a packing block transposes through shared memory.
inline constexpr int pack_tile = 32;
/// Rows of threads of a packing block (its shape is pack_tile x pack_rows).
inline constexpr int pack_rows = 8;

/// Copies op(X) (extent_mn x extent_k in the canonical addressing of device::problem) into `dst`, contiguous
/// along mn with leading dimension ld_dst, so that a misaligned operand becomes one the vector loads can read.
/// The padding rows [extent_mn, ld_dst) are written with zeros, so kernels may read them (kernel::readable_extent).
/// A k-contiguous source is transposed through a padded shared-memory tile, so both sides stay coalesced.
/// The grid must cover ld_dst along mn.
template <class Element, bool ContiguousK>
__global__ void __launch_bounds__(pack_tile * pack_rows)
    pack_operand(const Element* __restrict__ src, int64_t ld, int64_t extent_mn, int64_t extent_k,
                 Element* __restrict__ dst, int64_t ld_dst) {
  __shared__ Element tile[pack_tile][pack_tile + 1];  // +1: the transposed read hits 32 different banks
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
          dst[mn + k * ld_dst] = zero<Element>();
        }
      }
      __syncthreads();
    } else {
      for (int r = threadIdx.y; r < pack_tile; r += blockDim.y) {
        const int64_t mn = mn0 + threadIdx.x, k = k0 + r;
        if (mn < ld_dst && k < extent_k) dst[mn + k * ld_dst] = mn < extent_mn ? src[mn + k * ld] : zero<Element>();
      }
    }
  }
}

/// Threads per block of realign_operand.
inline constexpr int realign_threads = 256;

/// Copies `lines` lines of `extent` contiguous elements (leading dimension ld) into dst with leading dimension
/// ld_dst (a multiple of Vector), zero-filling [extent, ld_dst) of each line: the operand's layout is kept and only
/// its alignment changes, so no transposition is needed and each thread writes one 16-byte vector (Vector
/// elements). The tensor-core kernels read any layout, so this is their repack. blockIdx.x * blockDim.x + threadIdx.x
/// counts vectors of a line; lines are walked grid-stride over y.
template <class Element, int Vector>
__global__ void __launch_bounds__(realign_threads)
    realign_operand(const Element* __restrict__ src, int64_t ld, int64_t extent, int64_t lines,
                    Element* __restrict__ dst, int64_t ld_dst) {
  static_assert(Vector * sizeof(Element) == 16, "a vector is 16 bytes");
  const int64_t first = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * Vector;
  if (first >= ld_dst) return;
  for (int64_t line = blockIdx.y; line < lines; line += gridDim.y) {
    const Element* from = src + line * ld + first;
    alignas(16) Element values[Vector];
#pragma unroll
    for (int e = 0; e < Vector; ++e) values[e] = first + e < extent ? from[e] : zero<Element>();
    *reinterpret_cast<uint4*>(dst + line * ld_dst + first) = *reinterpret_cast<const uint4*>(values);
  }
}

}  // namespace tgemm::kernel
