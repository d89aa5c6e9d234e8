/// \file arch/wgmma.cuh
/// \brief wgmma (sm_90a only): a warpgroup (four consecutive warps, the first a multiple of 4) multiplies a 64 x k
/// tile of A by a k x N tile of B (k = 16 for 16-bit elements, 8 for TF32: 32 bytes of a row either way), both read
/// from shared memory through matrix descriptors, and adds the 64 x N product to float accumulators in its
/// registers, asynchronously.
///
/// Thin wrappers over `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`,
/// `wgmma.mma_async.sync.aligned.m64n{128,256}k16.f32.{bf16,f16}.{bf16,f16}` (each operand K-major or MN-major: the
/// instruction's "transpose" flags) and `wgmma.mma_async.sync.aligned.m64n{128,256}k8.f32.tf32.tf32` (K-major
/// operands only: the instruction has no transpose flags for 32-bit elements; it reads the top 19 bits of each
/// float, truncating it to TF32, so tgemm's tensor maps round the floats on their way in: arch/tma.cuh).
/// Accumulator layout, with warp w of the warpgroup, g = lane / 4 and t = lane % 4: for each 8-column chunk j,
/// d[4j], d[4j + 1] = D(16w + g, 8j + 2t .. 2t + 1) and d[4j + 2], d[4j + 3] = D(16w + g + 8, 8j + 2t ..).
/// The same layout as mma.sync's C, repeated. Minimum architecture: sm_90a (the `a` target; not sm_90).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../numeric.cuh"

namespace tgemm::arch {

/// 1 in a device pass that has wgmma and setmaxnreg (sm_90a), else 0.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TGEMM_HAS_WGMMA 1
#else
#define TGEMM_HAS_WGMMA 0
#endif

/// The matrix descriptor of a K-major operand tile in shared memory with the 128-byte swizzle: rows of 128 bytes
/// (64 16-bit or 32 float elements of k), groups of eight rows 1024 bytes apart, the tile 1024-byte aligned.
/// `address` is the shared-memory address of the first row at the k step to read: one instruction's k (16
/// elements, or 8 TF32) further along k is 32 bytes further (the swizzle is applied to the address bits, so the
/// start may sit inside a row).
__device__ __forceinline__ uint64_t wgmma_descriptor_k_major_sw128(uint32_t address) {
  constexpr uint64_t leading_byte_offset = 1;                 // unused by K-major swizzled layouts; 1 by convention
  constexpr uint64_t stride_byte_offset = 1024 >> 4;          // from one group of eight rows to the next
  constexpr uint64_t swizzle_128_bytes = 1;                   // layout type (bits 62-63)
  return uint64_t((address & 0x3ffff) >> 4) | (leading_byte_offset << 16) | (stride_byte_offset << 32) |
         (swizzle_128_bytes << 62);
}

/// The matrix descriptor of an MN-major operand tile in shared memory with the 128-byte swizzle: each line holds
/// 64 16-bit elements of m (or n) for one k, eight lines (eight k) form a 1024-byte swizzle atom, and the 64-wide
/// chunks of m (n) follow each other `chunk_bytes` apart (the leading byte offset; unused when the instruction
/// reads one chunk, as A's m64 does). A step of 16 elements along k is two atoms: 2048 bytes further.
__device__ __forceinline__ uint64_t wgmma_descriptor_mn_major_sw128(uint32_t address, uint32_t chunk_bytes) {
  constexpr uint64_t stride_byte_offset = 1024 >> 4;  // from one group of eight k lines to the next
  constexpr uint64_t swizzle_128_bytes = 1;
  return uint64_t((address & 0x3ffff) >> 4) | (uint64_t((chunk_bytes >> 4) & 0x3fff) << 16) |
         (stride_byte_offset << 32) | (swizzle_128_bytes << 62);
}

/// Orders this warpgroup's register accesses before the wgmmas that follow (needed before the first wgmma and
/// whenever the accumulators were touched by other instructions).
__device__ __forceinline__ void wgmma_fence() {
#if TGEMM_HAS_WGMMA
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}

/// Closes the group of wgmmas issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
#if TGEMM_HAS_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}

/// Waits until at most `Pending` committed groups are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
#if TGEMM_HAS_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
#endif
}

/// Keeps the compiler from moving accesses of the accumulators across a wgmma boundary (the asynchronous
/// instructions write them behind its back).
template <int Count>
__device__ __forceinline__ void wgmma_fence_registers(float (&d)[Count]) {
#pragma unroll
  for (int i = 0; i < Count; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/// The same for A's registers of wgmmas that read A from registers (they must hold until a wgmma_wait covers them).
template <int Count>
__device__ __forceinline__ void wgmma_fence_registers(uint32_t (&a)[Count]) {
#pragma unroll
  for (int i = 0; i < Count; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

// The inline assembly of the wgmma forms, written out once: the accumulators' text and operands for 64 and 128
// registers (%0 onwards), and one statement around them. The operands after the accumulators: the A descriptor (or
// A's four registers), B's descriptor, the accumulate flag (0: D = A B, 1: D += A B) and, for 16-bit elements, the
// transpose flags of A and B (immediates: 1 = MN-major). All these macros are undefined after their users.
/// The text of 64 accumulator operands, "%0, ..., %63".
#define TGEMM_WGMMA_D64_TEXT                                                                                  \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                    \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                          \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                          \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
/// The text of 128 accumulator operands, "%0, ..., %127".
#define TGEMM_WGMMA_D128_TEXT                                                                                 \
  TGEMM_WGMMA_D64_TEXT ", "                                                                                   \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                          \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                          \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "              \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
/// The output operands of 64 accumulators d[0] .. d[63], read and written.
#define TGEMM_WGMMA_D64_OPERANDS                                                                              \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),             \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),       \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),     \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),     \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),     \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),     \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),     \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
/// The output operands of 128 accumulators d[0] .. d[127], read and written.
#define TGEMM_WGMMA_D128_OPERANDS                                                                             \
  TGEMM_WGMMA_D64_OPERANDS,                                                                                   \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),     \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),     \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),     \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),     \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),\
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),\
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
/// One wgmma statement: REGS accumulators, SETP the accumulate flag's operand, BODY the instruction with its operands.
#define TGEMM_WGMMA_ASM(REGS, SETP, BODY, ...)                                                                \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SETP ", 0;\n" BODY ";\n}\n"                              \
               : TGEMM_WGMMA_D##REGS##_OPERANDS                                                               \
               : __VA_ARGS__)

/// One k step of 32 bytes: D (64 x N floats) += A (64 x k) B (k x N), or D = A B when `accumulate` is 0, with
/// k = 16 for __half or __nv_bfloat16 elements and k = 8 for float (TF32: the top 19 bits of each input);
/// N is 128 or 256; MnMajorA / MnMajorB say how each operand's descriptor lays it out (false: K-major,
/// wgmma_descriptor_k_major_sw128; true: MN-major, wgmma_descriptor_mn_major_sw128; 16-bit elements only).
/// Asynchronous: issue between wgmma_fence() and wgmma_commit(), read D after wgmma_wait().
template <class Element, int N, bool MnMajorA = false, bool MnMajorB = false>
__device__ __forceinline__ void wgmma_m64_step(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, int accumulate) {
  constexpr bool bf16 = std::is_same<Element, __nv_bfloat16>::value, tf32 = std::is_same<Element, float>::value;
  static_assert(bf16 || tf32 || std::is_same<Element, __half>::value,
                "wgmma_m64_step multiplies __half, __nv_bfloat16 or float (TF32) elements");
  static_assert(N == 128 || N == 256, "wgmma_m64_step is written for N = 128 and N = 256");
  static_assert(!tf32 || (!MnMajorA && !MnMajorB), "TF32 wgmma reads K-major operands only");
#if TGEMM_HAS_WGMMA
#define TGEMM_WGMMA_SS_128(SHAPE, TRANSPOSE)                                                                  \
  TGEMM_WGMMA_ASM(64, "%66", "wgmma.mma_async.sync.aligned.m64n128" SHAPE " {" TGEMM_WGMMA_D64_TEXT        \
                  "}, %64, %65, p, 1, 1" TRANSPOSE, "l"(desc_a), "l"(desc_b), "r"(accumulate),                \
                  "n"(int(MnMajorA)), "n"(int(MnMajorB)))
#define TGEMM_WGMMA_SS_256(SHAPE, TRANSPOSE)                                                                  \
  TGEMM_WGMMA_ASM(128, "%130", "wgmma.mma_async.sync.aligned.m64n256" SHAPE " {" TGEMM_WGMMA_D128_TEXT     \
                  "}, %128, %129, p, 1, 1" TRANSPOSE, "l"(desc_a), "l"(desc_b), "r"(accumulate),              \
                  "n"(int(MnMajorA)), "n"(int(MnMajorB)))
  if constexpr (N == 128 && tf32) {
    TGEMM_WGMMA_SS_128("k8.f32.tf32.tf32", "");  // no transpose flags: their two operands stay unused
  } else if constexpr (N == 128 && bf16) {
    TGEMM_WGMMA_SS_128("k16.f32.bf16.bf16", ", %67, %68");
  } else if constexpr (N == 128) {
    TGEMM_WGMMA_SS_128("k16.f32.f16.f16", ", %67, %68");
  } else if constexpr (tf32) {
    TGEMM_WGMMA_SS_256("k8.f32.tf32.tf32", "");
  } else if constexpr (bf16) {
    TGEMM_WGMMA_SS_256("k16.f32.bf16.bf16", ", %131, %132");
  } else {
    TGEMM_WGMMA_SS_256("k16.f32.f16.f16", ", %131, %132");
  }
#undef TGEMM_WGMMA_SS_128
#undef TGEMM_WGMMA_SS_256
#else
  (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
#endif
}

/// One k step of TF32 with A from registers: D (64 x N floats) += A (64 x 8) B (8 x N), or D = A B when
/// `accumulate` is 0. `a` holds this thread's A fragment, as floats' bits (TF32: their top 19 bits count): with warp
/// w of the warpgroup, g = lane / 4 and t = lane % 4, a[0] = A(16w + g, t), a[1] = A(16w + g + 8, t),
/// a[2] = A(16w + g, t + 4), a[3] = A(16w + g + 8, t + 4) (mma.sync m16n8k8's A fragment, one per warp). B is
/// K-major in shared memory (wgmma_descriptor_k_major_sw128). The registers of `a` must keep their values until a
/// wgmma_wait() covers this instruction. Lets an operand stored along m reach TF32 wgmma without a K-major copy.
template <int N>
__device__ __forceinline__ void wgmma_m64k8_tf32_registers(float (&d)[N / 2], const uint32_t (&a)[4],
                                                           uint64_t desc_b, int accumulate) {
  static_assert(N == 128 || N == 256, "wgmma_m64k8_tf32_registers is written for N = 128 and N = 256");
#if TGEMM_HAS_WGMMA
  if constexpr (N == 128) {
    TGEMM_WGMMA_ASM(64, "%69",
                    "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" TGEMM_WGMMA_D64_TEXT
                    "}, {%64, %65, %66, %67}, %68, p, 1, 1",
                    "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  } else {
    TGEMM_WGMMA_ASM(128, "%133",
                    "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" TGEMM_WGMMA_D128_TEXT
                    "}, {%128, %129, %130, %131}, %132, p, 1, 1",
                    "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  }
#else
  (void)d, (void)a, (void)desc_b, (void)accumulate;
#endif
}

#undef TGEMM_WGMMA_ASM
#undef TGEMM_WGMMA_D64_TEXT
#undef TGEMM_WGMMA_D128_TEXT
#undef TGEMM_WGMMA_D64_OPERANDS
#undef TGEMM_WGMMA_D128_OPERANDS

/// Gives this warpgroup's threads `Registers` registers each (setmaxnreg.inc) or leaves them that many
/// (setmaxnreg.dec): the producer warpgroup hands its registers to the consumers. Needs a kernel with a register
/// cap at entry (__launch_bounds__(threads, 1)).
template <int Registers, bool Increase>
__device__ __forceinline__ void set_max_registers() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256,
                "setmaxnreg takes a multiple of 8 between 24 and 256");
#if TGEMM_HAS_WGMMA
  if constexpr (Increase) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
  } else {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
  }
#endif
}

}  // namespace tgemm::arch
