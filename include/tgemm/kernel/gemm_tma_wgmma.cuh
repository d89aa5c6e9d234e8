/// \file kernel/gemm_tma_wgmma.cuh
/// \brief The Hopper kernel (sm_90a): C = alpha op(A) op(B) + beta C for K-major 16-bit operands, with TMA copies,
/// a full/empty mbarrier ring and warp-specialised warpgroups.
///
/// Warpgroup 0 is the producer: it gives up most of its registers (setmaxnreg) and its first thread walks k,
/// waiting for a stage to be released, announcing its bytes and starting the two TMA copies. Warpgroups 1..
/// consumers each own a 64-row strip of the block's tile: they wait for a stage's bytes, issue block_k / 16 wgmmas
/// from its swizzled slices, wait for them, release the stage and move on; their float accumulators stay in
/// registers and go to C at the end (alpha, beta; C is not read when beta is 0). Tile edges need no special case:
/// TMA fills what lies outside the operands with zeros, and the epilogue writes only inside C.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../arch/mbarrier.cuh"
#include "../arch/tma.cuh"
#include "../arch/wgmma.cuh"
#include "../numeric.cuh"

namespace tgemm::kernel {

/// 1 in the sm_90a image of a program, 0 in its other images: the host reads it (cudaMemcpyFromSymbol, from the
/// image the device loaded) to know whether the wgmma kernels it would launch hold code.
template <int Unused = 0>
__device__ int tma_wgmma_image = TGEMM_HAS_WGMMA;

/// What one call of the Hopper kernel needs besides the two tensor maps.
template <class ElementC>
struct tma_wgmma_output {
  ElementC* c;   ///< C, column-major.
  int64_t ldc;   ///< C's leading dimension.
  int m;         ///< Rows of C.
  int n;         ///< Columns of C.
  int k;         ///< The depth of the product.
  float alpha;   ///< Scales op(A) op(B).
  float beta;    ///< Scales C (C is not read when 0).
};

/// One block per block_m x block_n tile of C (blockIdx.x along m, blockIdx.y along n). map_a describes op(A)
/// (m lines of k), map_b op(B) (n lines of k), both K-major, boxes of 64 x block_m and 64 x block_n.
template <class Policy>
__global__ void __launch_bounds__(Policy::threads, 1)
    gemm_tma_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const tma_wgmma_output<typename Policy::element_c> out) {
#if TGEMM_HAS_WGMMA
  using element = typename Policy::element_a;
  constexpr int stages = Policy::stages, bk = Policy::block_k, bn = Policy::block_n;
  constexpr int a_bytes = Policy::block_m * bk * element_bytes<element>;
  extern __shared__ uint8_t shared_raw[];
  // The 128-byte swizzle repeats every 1024 bytes and wgmma reads it from 1024-byte aligned tiles.
  uint8_t* shared = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(shared_raw) + 1023) & ~uintptr_t(1023));
  uint64_t* full = reinterpret_cast<uint64_t*>(shared + stages * Policy::stage_bytes);  // a stage's bytes landed
  uint64_t* empty = full + stages;                                                      // a stage was read
  const int warpgroup = threadIdx.x / 128;
  const int k_tiles = (out.k + bk - 1) / bk;

  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      arch::mbarrier_init(&full[s], 1);                    // the producer's expect_bytes
      arch::mbarrier_init(&empty[s], Policy::consumers);  // one arrival per consumer warpgroup
    }
    arch::mbarrier_init_fence();
  }
  __syncthreads();

  if (warpgroup == 0) {
    arch::set_max_registers<40, false>();
    if (threadIdx.x == 0) {
      for (int t = 0; t < k_tiles; ++t) {
        const int s = t % stages;
        // The stage's previous use (t - stages) must have been released: that completed phase t / stages - 1.
        if (t >= stages) arch::mbarrier_wait(&empty[s], ((t / stages) & 1) ^ 1);
        uint8_t* a = shared + s * Policy::stage_bytes;
        arch::mbarrier_arrive_expect_bytes(&full[s], Policy::stage_bytes);
        arch::tma_load_2d(a, &map_a, t * bk, int(blockIdx.x) * Policy::block_m, &full[s]);
        arch::tma_load_2d(a + a_bytes, &map_b, t * bk, int(blockIdx.y) * bn, &full[s]);
      }
    }
  } else {
    arch::set_max_registers<232, true>();
    const int consumer = warpgroup - 1;
    float acc[bn / 2];
#pragma unroll
    for (int i = 0; i < bn / 2; ++i) acc[i] = 0.0f;
    for (int t = 0; t < k_tiles; ++t) {
      const int s = t % stages;
      arch::mbarrier_wait(&full[s], (t / stages) & 1);
      const uint32_t a = arch::shared_address(shared + s * Policy::stage_bytes) + consumer * 64 * 128;
      const uint32_t b = arch::shared_address(shared + s * Policy::stage_bytes + a_bytes);
      arch::wgmma_fence_registers(acc);
      arch::wgmma_fence();
#pragma unroll
      for (int step = 0; step < bk / 16; ++step) {  // 16 elements of k are 32 bytes along the swizzled rows
        arch::wgmma_m64k16<element, bn>(acc, arch::wgmma_descriptor_k_major_sw128(a + step * 32),
                                        arch::wgmma_descriptor_k_major_sw128(b + step * 32), 1);
      }
      arch::wgmma_commit();
      arch::wgmma_wait<0>();
      arch::wgmma_fence_registers(acc);
      if (threadIdx.x % 128 == 0) arch::mbarrier_arrive(&empty[s]);
    }
    // wgmma's accumulator layout (arch/wgmma.cuh): warp w's rows 16w + g and 16w + g + 8 of the strip.
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    const int64_t row0 = int64_t(blockIdx.x) * Policy::block_m + consumer * 64 + warp * 16 + lane / 4;
    const int64_t col0 = int64_t(blockIdx.y) * bn + 2 * (lane % 4);
    const bool read_c = out.beta != 0.0f;
#pragma unroll
    for (int j = 0; j < bn / 8; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int64_t row = row0 + 8 * h, col = col0 + 8 * j + e;
          if (row < out.m && col < out.n) {
            typename Policy::element_c* c = out.c + row + col * out.ldc;
            const float scaled = out.alpha * acc[4 * j + 2 * h + e];
            *c = convert<typename Policy::element_c>(read_c ? scaled + out.beta * convert<float>(*c) : scaled);
          }
        }
      }
    }
  }
#else
  (void)map_a, (void)map_b, (void)out;  // other images: the host never launches this (see tma_wgmma_image)
#endif
}

}  // namespace tgemm::kernel
