/// \file kernel/split_tf32.cuh
/// \brief 3xTF32's operand split for the Hopper kernel: each float becomes a big TF32 part and a small TF32 part
/// (what is left), both written K-major, the layout TF32 wgmma reads.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../arch/mma_sync.cuh"
#include "pack_operand.cuh"

namespace tgemm::kernel {

/// Writes x's big part, x rounded to the nearest TF32, at `big`, and the rounding of what is left, x - big, at
/// `small` (as the mma.sync 3xTF32 mainloop splits its fragments: an infinite x leaves a NaN small part there too).
__device__ __forceinline__ void split_tf32(float x, float* big, float* small) {
  const float high = __uint_as_float(arch::to_tf32(x));
  *big = high;
  *small = __uint_as_float(arch::to_tf32(x - high));
}

/// Splits op(X) (extent_mn x extent_k in device::problem's canonical addressing: element (i, l) at src[l + i * ld]
/// when ContiguousK, else at src[i + l * ld]) into `dst`: extent_mn lines of big parts, then extent_mn lines of small
/// parts, each line extent_k elements along k, ld_dst apart, zero-filled up to ld_dst (a multiple of 4: 16-byte
/// lines for TMA). A source stored along mn is transposed through a padded shared-memory tile, so that reads and
/// writes both stay coalesced. The grid's x covers ld_dst in pack_tile columns; its y walks the pack_tile-line
/// groups of extent_mn grid-stride. Minimum architecture: sm_80 (cvt.rna.tf32; the host launches it on sm_90a only).
template <bool ContiguousK>
__global__ void __launch_bounds__(pack_tile * pack_rows)
    split_tf32_k_major(const float* __restrict__ src, int64_t ld, int64_t extent_mn, int64_t extent_k,
                       float* __restrict__ dst, int64_t ld_dst) {
  __shared__ float tile[pack_tile][pack_tile + 1];  // +1: the transposed read hits 32 different banks
  const int64_t groups = (extent_mn + pack_tile - 1) / pack_tile;
  const int64_t k = int64_t(blockIdx.x) * pack_tile + threadIdx.x;  // this thread's column of k when writing
  float* const small_lines = dst + extent_mn * ld_dst;
  for (int64_t g = blockIdx.y; g < groups; g += gridDim.y) {
    const int64_t mn0 = g * pack_tile;
    if constexpr (!ContiguousK) {
      const int64_t k0 = int64_t(blockIdx.x) * pack_tile;
      for (int r = threadIdx.y; r < pack_tile; r += blockDim.y) {  // coalesced along mn
        const int64_t mn = mn0 + threadIdx.x, l = k0 + r;
        if (mn < extent_mn && l < extent_k) tile[r][threadIdx.x] = src[mn + l * ld];
      }
      __syncthreads();
    }
    for (int r = threadIdx.y; r < pack_tile; r += blockDim.y) {  // coalesced along k
      const int64_t mn = mn0 + r;
      if (mn >= extent_mn || k >= ld_dst) continue;
      float x = 0.0f;
      if (k < extent_k) x = ContiguousK ? src[k + mn * ld] : tile[threadIdx.x][r];
      split_tf32(x, dst + k + mn * ld_dst, small_lines + k + mn * ld_dst);
    }
    if constexpr (!ContiguousK) __syncthreads();
  }
}

}  // namespace tgemm::kernel
