/// \file arch/dmma.cuh
/// \brief mma.sync on doubles (DMMA, sm_80 and newer): one warp multiplies a 16 x k tile of A by a k x 8 tile of B
/// and adds the product to double accumulators.
///
/// One fragment layout serves every k (4, 8 or 16). With g = lane / 4 and t = lane % 4, lane L holds
/// - A (16 x k, row-major): a[i] = A(g + 8 (i % 2), t + 4 (i / 2)), k / 2 doubles;
/// - B (k x 8, column-major): b[j] = B(t + 4 j, g), k / 4 doubles;
/// - C and D (16 x 8): d[0], d[1] = C(g, 2t..2t+1), d[2], d[3] = C(g + 8, 2t..2t+1) (the layout of the f16 and tf32
///   m16n8 instructions, see arch/mma_sync.cuh).
/// sm_90 has `mma.sync.aligned.m16n8k{4,8,16}.row.col.f64.f64.f64.f64`; sm_80 has only m8n8k4, whose A, B and C are
/// the top (or bottom) half of the above, so there a 16 x 8 x k step is 2 k / 4 m8n8k4 instructions.
/// Minimum architecture: sm_80 (m8n8k4); the m16n8 shapes need sm_90.
#pragma once

#include <cuda_runtime.h>

namespace tgemm::arch {

/// d = a * b + d for one 16 x 8 x K tile of doubles (see the file comment for the fragment layouts).
template <int K>
__device__ __forceinline__ void dmma_m16n8(double (&d)[4], const double (&a)[K / 2], const double (&b)[K / 4]) {
  static_assert(K == 4 || K == 8 || K == 16, "DMMA tiles are 16 x 8 x 4, 8 or 16");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (K == 4) {
    asm volatile(
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  } else if constexpr (K == 8) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
        "{%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
          "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
  for (int j = 0; j < K / 4; ++j) {  // k in steps of 4: the top 8 rows, then the bottom 8
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a[2 * j]), "d"(b[j]));
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(d[2]), "+d"(d[3])
                 : "d"(a[2 * j + 1]), "d"(b[j]));
  }
#else
  (void)d, (void)a, (void)b;
  __trap();  // unreachable: the host never launches a tensor-core kernel on a GPU without the instruction
#endif
}

}  // namespace tgemm::arch
