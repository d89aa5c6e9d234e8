/// \file arch/tma.cuh
/// \brief TMA, the copy engine of sm_90: a tensor map describes a 2-D operand in global memory, and one thread
/// copies a whole box of it into shared memory (swizzled), completing on an mbarrier. Out-of-range parts of a
/// box arrive as zeros, which covers ragged tile edges.
///
/// Device: a wrapper over the 2-D `cp.async.bulk.tensor` copy from global to shared memory that completes on an
/// mbarrier (minimum architecture sm_90). Host: encode_sw128_map(), through the driver's cuTensorMapEncodeTiled
/// found with cudaGetDriverEntryPointByVersion, so that programs need no -lcuda.
#pragma once

#include <cuda.h>  // CUtensorMap and its enumerations (types only; the driver is reached through the runtime)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../numeric.cuh"
#include "mbarrier.cuh"

namespace tgemm::arch {

/// Copies the box at (`inner`, `outer`) (elements along the contiguous dimension, then lines) of the operand that
/// `map` describes into shared memory at `destination`; the bytes count towards `barrier`'s current phase.
__device__ __forceinline__ void tma_load_2d(void* destination, const CUtensorMap* map, int inner, int outer,
                                            uint64_t* barrier) {
#if TGEMM_HAS_TMA
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          shared_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(inner), "r"(outer), "r"(shared_address(barrier))
      : "memory");
#else
  (void)destination, (void)map, (void)inner, (void)outer, (void)barrier;
#endif
}

/// The driver's cuTensorMapEncodeTiled (CUDA 12.0's signature), looked up once; null where the driver lacks it.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return PFN_cuTensorMapEncodeTiled_v12000(nullptr);
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encoder;
}

/// The tensor map of an operand stored as `lines` lines of `contiguous` elements, `ld` elements apart, read in boxes
/// of 128 contiguous bytes (the swizzle span: 64 16-bit elements or 32 floats, rounded to TF32 on the way) by
/// `box_lines` lines with the 128-byte swizzle. A K-major operand has k contiguous and one line per row of op(A)
/// (column of op(B)); an MN-major one has m (n) contiguous and one line per k. TMA needs `base` 16-byte aligned and
/// `ld` a multiple of 16 bytes.
/// Returns false (and leaves `map` unspecified) where the driver refuses the geometry or lacks the function.
template <class Element>
bool encode_sw128_map(CUtensorMap& map, const Element* base, int64_t contiguous, int64_t lines, int64_t ld,
                      int box_lines) {
  constexpr bool is_float = std::is_same<Element, float>::value;
  static_assert(element_bytes<Element> == 2 || is_float, "encode_sw128_map describes 16-bit or float operands");
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  // Floats are described as TFLOAT32: TMA then rounds each to the nearest TF32 on its way to shared memory (on an
  // H200, 1 + 2^-11 + 2^-13 arrives as 1 + 2^-10), as cuBLAS's FAST_TF32 and tgemm's mma.sync path (cvt.rna) round;
  // described as FLOAT32, the TF32 wgmma would truncate them (it reads the top 19 bits).
  const CUtensorMapDataType type = is_float                             ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                   : std::is_same<Element, __half>::value ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                          : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const cuuint64_t dims[2] = {cuuint64_t(contiguous), cuuint64_t(lines)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * element_bytes<Element>};  // bytes from one line to the next
  const cuuint32_t box[2] = {cuuint32_t(128 / element_bytes<Element>), cuuint32_t(box_lines)};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(&map, type, 2, const_cast<Element*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace tgemm::arch
