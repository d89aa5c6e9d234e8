/// \file arch/mma_sync.cuh
/// \brief mma.sync (sm_80 and newer): one warp multiplies a 16 x k tile of A by a k x 8 tile of B on the tensor
/// cores and adds the 16 x 8 product to float accumulators; and the conversion of float to TF32.
///
/// Thin wrappers over `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`,
/// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` and `cvt.rna.tf32.f32`. With g = lane / 4 and t = lane % 4,
/// lane L holds, for m16n8k16 (two 16-bit elements per register):
/// - A (16 x 16, row-major): a[0] = A(g, 2t..2t+1), a[1] = A(g + 8, 2t..), a[2] = A(g, 2t + 8..), a[3] = A(g + 8, 2t + 8..);
/// - B (16 x 8, column-major): b[0] = B(2t..2t+1, g), b[1] = B(2t + 8.., g);
/// - C and D (16 x 8 floats): c[0], c[1] = C(g, 2t..2t+1), c[2], c[3] = C(g + 8, 2t..2t+1).
/// and for m16n8k8 with TF32 (one element per register): a[0] = A(g, t), a[1] = A(g + 8, t), a[2] = A(g, t + 4),
/// a[3] = A(g + 8, t + 4); b[0] = B(t, g), b[1] = B(t + 4, g); C as above.
/// Minimum architecture: sm_80 (bf16 and tf32 need it; f16 also exists on sm_75 as m16n8k8, which tgemm does not use).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../numeric.cuh"

namespace tgemm::arch {

/// 1 in a device pass whose architecture has mma.sync m16n8k16 for f16 and bf16 (sm_80 and newer), else 0.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TGEMM_HAS_MMA_SYNC 1
#else
#define TGEMM_HAS_MMA_SYNC 0
#endif

/// d = a * b + d for one m16n8k16 tile (see the file comment for the fragment layouts). Element is __half or
/// __nv_bfloat16.
template <class Element>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  static_assert(std::is_same<Element, __half>::value || std::is_same<Element, __nv_bfloat16>::value,
                "mma m16n8k16 multiplies __half or __nv_bfloat16 elements");
#if TGEMM_HAS_MMA_SYNC
  if constexpr (std::is_same<Element, __half>::value) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#else
  (void)d, (void)a, (void)b;
  __trap();  // unreachable: the host never launches a tensor-core kernel on a GPU without the instruction
#endif
}

/// d = a * b + d for one m16n8k8 tile of TF32 operands (each register a float whose low 13 mantissa bits the
/// tensor core ignores: round with to_tf32 first).
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
#if TGEMM_HAS_MMA_SYNC
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  (void)d, (void)a, (void)b;
  __trap();  // unreachable: the host never launches a tensor-core kernel on a GPU without the instruction
#endif
}

/// x rounded to the nearest TF32 value (10 mantissa bits, ties away from zero), as a float's bits.
__device__ __forceinline__ uint32_t to_tf32(float x) {
#if TGEMM_HAS_MMA_SYNC
  uint32_t out;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(x));
  return out;
#else
  return __float_as_uint(x);
#endif
}

}  // namespace tgemm::arch
