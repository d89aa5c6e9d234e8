/// \file arch/ldmatrix.cuh
/// \brief ldmatrix (sm_75 and newer): four 8 x 8 matrices of 16-bit elements from shared memory into the
/// fragment layout of mma.sync, optionally transposed on the way.
///
/// A thin wrapper over `ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16`. Lane L gives the shared-memory address
/// of row L % 8 of matrix L / 8 (each row 16 contiguous bytes); register j of every lane receives matrix j, lane
/// L holding elements (L / 4, 2 (L % 4)) and (L / 4, 2 (L % 4) + 1) of it, or of its transpose with `.trans`.
/// Minimum architecture: sm_75.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tgemm::arch {

/// Loads four 8 x 8 b16 matrices; `row_address` is this lane's row (see the file comment). Transposed: each
/// register holds the transpose of its matrix, which is how an operand stored along the other dimension is read.
template <bool Transposed>
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&out)[4], const void* row_address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
  if constexpr (Transposed) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                 : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                 : "r"(address));
  }
#else
  (void)row_address;
  out[0] = out[1] = out[2] = out[3] = 0;
#endif
}

}  // namespace tgemm::arch
