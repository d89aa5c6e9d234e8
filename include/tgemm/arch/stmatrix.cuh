/// \file arch/stmatrix.cuh
/// \brief stmatrix (sm_90): four 8 x 8 matrices of 16-bit elements from mma.sync's (and wgmma's) fragment layout
/// into shared memory, optionally transposed on the way: the epilogue's path from the accumulators to a staging
/// tile that a TMA store then copies to C.
///
/// A thin wrapper over `stmatrix.sync.aligned.m8n8.x4.trans.shared.b16`, the mirror of ldmatrix (arch/ldmatrix.cuh).
/// Register j of every lane holds two elements of matrix j: lane L holds (L / 4, 2 (L % 4)) in its low half and
/// (L / 4, 2 (L % 4) + 1) in its high half. Lane L gives the shared-memory address of row L % 8 of matrix L / 8 as
/// stored (16 contiguous bytes); transposed, stored row r holds column r of the fragment, so an accumulator tile
/// whose lanes own rows lands column-major. Minimum architecture: sm_90.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tgemm::arch {

/// Stores four 8 x 8 b16 matrices transposed; `row_address` is this lane's stored row (see the file comment).
__device__ __forceinline__ void stmatrix_x4_transposed(void* row_address, const uint32_t (&in)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(address),
               "r"(in[0]), "r"(in[1]), "r"(in[2]), "r"(in[3])
               : "memory");
#else
  (void)row_address, (void)in;
#endif
}

}  // namespace tgemm::arch
