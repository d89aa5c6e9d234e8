/// \file arch/tma.cuh
/// \brief TMA, the copy engine of sm_90: a tensor map describes a 2-D operand in global memory, and one thread
/// copies a whole box of it into shared memory (swizzled), completing on an mbarrier. Out-of-range parts of a
/// box arrive as zeros, which covers ragged tile edges.
///
/// Device: wrappers over the 2-D (and, for strided batches, 3-D) `cp.async.bulk.tensor` copies, global to shared
/// memory completing on an mbarrier (one of them multicast to the blocks of a cluster) and shared to global memory in
/// bulk async-groups, with their commit, waits and proxy fence (minimum architecture sm_90). Host: encode_sw128_map(),
/// through the driver's cuTensorMapEncodeTiled found with cudaGetDriverEntryPointByVersion, so that programs need no
/// -lcuda.
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

/// Copies the box at (`inner`, `outer`) of matrix `batch` (a strided batch's product: the third dimension of a
/// rank-3 map) of the operand that `map` describes into shared memory at `destination`, as tma_load_2d().
__device__ __forceinline__ void tma_load_3d(void* destination, const CUtensorMap* map, int inner, int outer, int batch,
                                            uint64_t* barrier) {
#if TGEMM_HAS_TMA
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(
          shared_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(inner), "r"(outer), "r"(batch), "r"(shared_address(barrier))
      : "memory");
#else
  (void)destination, (void)map, (void)inner, (void)outer, (void)batch, (void)barrier;
#endif
}

/// tma_load_3d() into every block of the cluster that `blocks` names (bit r: the block of rank r, this one included):
/// the box lands at `destination`'s offset in each of their shared memories, and its bytes count towards the barrier
/// at `barrier`'s offset in each (arch/cluster.cuh). Minimum architecture sm_90 (the PTX guide: made fast for sm_90a).
__device__ __forceinline__ void tma_load_3d_multicast(void* destination, const CUtensorMap* map, int inner, int outer,
                                                      int batch, uint64_t* barrier, uint16_t blocks) {
#if TGEMM_HAS_TMA
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, "
      "%3, %4}], [%5], %6;" ::"r"(shared_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(inner), "r"(outer), "r"(batch), "r"(shared_address(barrier)),
      "h"(blocks)
      : "memory");
#else
  (void)destination, (void)map, (void)inner, (void)outer, (void)batch, (void)barrier, (void)blocks;
#endif
}

/// An address map (encode_sw128_address_map) describes every matrix of one shape in the address space at once: its
/// dimensions after the first two are 16-byte units (coordinate `unit`) and 2^35-byte spans (`span`), whose values
/// for a matrix at `matrix` (16-byte aligned) address_coordinates() gives. Kernels then read and write matrices whose
/// pointers only the GPU sees (tgemm::gemm_batched()'s pointer arrays) through one map from the host, with no map
/// made per matrix.
struct address_coordinates {
  int unit;  ///< Bits 4 to 34 of the address.
  int span;  ///< Bits 35 and up.
};

/// The coordinates of the matrix at `matrix` in an address map (its low four bits are dropped: TMA needs them 0).
__host__ __device__ __forceinline__ address_coordinates coordinates_of(const void* matrix) {
  const uint64_t address = reinterpret_cast<uint64_t>(matrix);
  return {int((address >> 4) & 0x7fffffffu), int(address >> 35)};
}

/// tma_load_2d() through an address map: the box at (`inner`, `outer`) of the matrix at coordinates `at`.
__device__ __forceinline__ void tma_load_4d(void* destination, const CUtensorMap* map, int inner, int outer,
                                            address_coordinates at, uint64_t* barrier) {
#if TGEMM_HAS_TMA
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];" ::"r"(shared_address(destination)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(inner), "r"(outer), "r"(at.unit), "r"(at.span),
      "r"(shared_address(barrier))
      : "memory");
#else
  (void)destination, (void)map, (void)inner, (void)outer, (void)at, (void)barrier;
#endif
}

/// Copies the box that `map` describes at (`inner`, `outer`) from shared memory at `source` to global memory (the
/// parts of the box outside the tensor are not written), as a bulk async-group of this thread: tma_store_commit()
/// closes the group, tma_store_wait_read() waits until groups have read their shared memory, tma_store_wait() until
/// they have written global memory. The writes of `source` by other threads must be made visible to the copy engine
/// first: each writer's fence_proxy_async_shared(), then a barrier.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* source, int inner, int outer) {
#if TGEMM_HAS_TMA
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(inner), "r"(outer), "r"(shared_address(source))
               : "memory");
#else
  (void)map, (void)source, (void)inner, (void)outer;
#endif
}

/// tma_store_2d() through a rank-3 map: the box at (`inner`, `outer`) of matrix `batch`.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* source, int inner, int outer,
                                             int batch) {
#if TGEMM_HAS_TMA
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(inner), "r"(outer), "r"(batch), "r"(shared_address(source))
               : "memory");
#else
  (void)map, (void)source, (void)inner, (void)outer, (void)batch;
#endif
}

/// tma_store_2d() through an address map: the box at (`inner`, `outer`) of the matrix at coordinates `at`.
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, const void* source, int inner, int outer,
                                             address_coordinates at) {
#if TGEMM_HAS_TMA
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(inner), "r"(outer), "r"(at.unit), "r"(at.span), "r"(shared_address(source))
               : "memory");
#else
  (void)map, (void)source, (void)inner, (void)outer, (void)at;
#endif
}

/// Closes this thread's bulk async-group of TMA stores issued since the last commit.
__device__ __forceinline__ void tma_store_commit() {
#if TGEMM_HAS_TMA
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

/// Waits until at most `Pending` of this thread's committed store groups have still to read their shared memory.
template <int Pending>
__device__ __forceinline__ void tma_store_wait_read() {
#if TGEMM_HAS_TMA
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
#endif
}

/// Waits until at most `Pending` of this thread's committed store groups are still running.
template <int Pending>
__device__ __forceinline__ void tma_store_wait() {
#if TGEMM_HAS_TMA
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(Pending) : "memory");
#endif
}

/// Makes this thread's generic writes to shared memory visible to the copy engine (the async proxy).
__device__ __forceinline__ void fence_proxy_async_shared() {
#if TGEMM_HAS_TMA
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
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

/// The `batches` of encode_sw128_map() that asks for an address map (encode_sw128_address_map()).
inline constexpr int64_t address_map_batches = -1;

/// encode_sw128_map() without the cache: the driver call itself.
template <class Element>
bool encode_sw128_map_uncached(CUtensorMap& map, const Element* base, int64_t contiguous, int64_t lines, int64_t ld,
                               int box_lines, int64_t batches, int64_t batch_stride) {
  constexpr bool is_float = std::is_same<Element, float>::value;
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  // Floats are described as TFLOAT32: TMA then rounds each to the nearest TF32 on its way to shared memory (on an
  // H200, 1 + 2^-11 + 2^-13 arrives as 1 + 2^-10), as cuBLAS's FAST_TF32 and tgemm's mma.sync path (cvt.rna) round;
  // described as FLOAT32, the TF32 wgmma would truncate them (it reads the top 19 bits).
  const CUtensorMapDataType type = is_float                             ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                   : std::is_same<Element, __half>::value ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                          : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const int64_t line_bytes = ld * element_bytes<Element>;
  if (batches == address_map_batches) {
    // Rank 4 at address 0: lines, then 16-byte units and 2^35-byte spans of the address (address_coordinates).
    // Coordinates are signed 32-bit: 2^31 units of 16 bytes, 2^22 spans (a 57-bit address space).
    const cuuint64_t dims[4] = {cuuint64_t(contiguous), cuuint64_t(lines), cuuint64_t(1) << 31, cuuint64_t(1) << 22};
    const cuuint64_t strides[3] = {cuuint64_t(line_bytes), 16, cuuint64_t(1) << 35};
    const cuuint32_t box[4] = {cuuint32_t(128 / element_bytes<Element>), cuuint32_t(box_lines), 1, 1};
    const cuuint32_t element_strides[4] = {1, 1, 1, 1};
    return encode(&map, type, 4, nullptr, dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
  }
  // Rank 2 (batches = 0), or rank 3: `batches` matrices `batch_stride` elements apart (one matrix: its own size, so
  // that the stride is valid).
  const int64_t matrix_bytes = batches > 1 ? batch_stride * element_bytes<Element> : (line_bytes * lines + 15) / 16 * 16;
  const cuuint64_t dims[3] = {cuuint64_t(contiguous), cuuint64_t(lines), cuuint64_t(batches > 1 ? batches : 1)};
  const cuuint64_t strides[2] = {cuuint64_t(line_bytes), cuuint64_t(matrix_bytes)};
  const cuuint32_t box[3] = {cuuint32_t(128 / element_bytes<Element>), cuuint32_t(box_lines), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode(&map, type, batches > 0 ? 3 : 2, const_cast<Element*>(base), dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/// The tensor map of an operand stored as `lines` lines of `contiguous` elements, `ld` elements apart, read in boxes
/// of 128 contiguous bytes (the swizzle span: 64 16-bit elements or 32 floats, rounded to TF32 on the way) by
/// `box_lines` lines with the 128-byte swizzle. A K-major operand has k contiguous and one line per row of op(A)
/// (column of op(B)); an MN-major one has m (n) contiguous and one line per k. TMA needs `base` 16-byte aligned and
/// `ld` a multiple of 16 bytes. With `batches` >= 1 the map has a third dimension, the matrices of a strided batch
/// `batch_stride` elements apart (a multiple of 16 bytes too; unused for one matrix): read it with tma_load_3d().
/// Returns false (and leaves `map` unspecified) where the driver refuses the geometry or lacks the function.
/// The last few maps each thread encoded are kept (a map is a function of these arguments alone), so that a
/// repeated call costs a comparison instead of a driver call: at 2048^3 the GPU would wait for the encoding.
template <class Element>
bool encode_sw128_map(CUtensorMap& map, const Element* base, int64_t contiguous, int64_t lines, int64_t ld,
                      int box_lines, int64_t batches = 0, int64_t batch_stride = 0) {
  constexpr bool is_float = std::is_same<Element, float>::value;
  static_assert(element_bytes<Element> == 2 || is_float, "encode_sw128_map describes 16-bit or float operands");
  struct cached_map {
    const Element* base = nullptr;
    int64_t contiguous = 0, lines = 0, ld = 0, batches = 0, batch_stride = 0;
    int box_lines = 0;
    CUtensorMap map;
  };
  constexpr int cache_size = 32;  // a grouped launch encodes up to three maps per product
  static thread_local cached_map cache[cache_size];
  static thread_local int next = 0;
  for (const cached_map& c : cache) {
    if (c.box_lines == box_lines && c.base == base && c.contiguous == contiguous && c.lines == lines && c.ld == ld &&
        c.batches == batches && c.batch_stride == batch_stride) {
      map = c.map;
      return true;
    }
  }
  if (!encode_sw128_map_uncached(map, base, contiguous, lines, ld, box_lines, batches, batch_stride)) return false;
  cached_map& slot = cache[next];
  next = (next + 1) % cache_size;
  slot.base = base, slot.contiguous = contiguous, slot.lines = lines, slot.ld = ld, slot.box_lines = box_lines;
  slot.batches = batches, slot.batch_stride = batch_stride;
  slot.map = map;
  return true;
}

/// The address map of matrices of `lines` lines of `contiguous` elements, `ld` apart (a multiple of 16 bytes), boxes
/// as encode_sw128_map() has them: one map for every such matrix in memory, each reached through the coordinates of
/// its address (address_coordinates; the matrix 16-byte aligned), read with tma_load_4d() and written with
/// tma_store_4d(). The driver takes it at address 0, and copies through it clip at each matrix's extents as a map of
/// that matrix alone does, but for one thing: a box that starts past the matrix's extent (wholly outside it) faults,
/// where a matrix's own map fills it with zeros, so callers must not issue those (an H200:
/// bench/results/h200-pointer-arrays-address-maps.txt; test/gpu/indirect_test.cu runs pointer arrays through them).
template <class Element>
bool encode_sw128_address_map(CUtensorMap& map, int64_t contiguous, int64_t lines, int64_t ld, int box_lines) {
  return encode_sw128_map(map, static_cast<const Element*>(nullptr), contiguous, lines, ld, box_lines,
                          address_map_batches);
}

}  // namespace tgemm::arch
