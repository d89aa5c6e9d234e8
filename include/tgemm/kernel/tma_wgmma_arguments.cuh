/// \file kernel/tma_wgmma_arguments.cuh
/// \brief What the host hands the Hopper kernel (kernel/gemm_tma_wgmma.cuh) besides its tensor maps: the output and
/// its scalars, and the descriptions of grouped launches (from the host or in device memory) and of pointer arrays.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../arch/tma.cuh"
#include "../device/epilogue_terms.cuh"
#include "../types.cuh"

namespace tgemm::kernel {

/// What one call of the Hopper kernel needs besides the two tensor maps.
template <class ElementC, class User = device::no_user_op>
struct tma_wgmma_output {
  ElementC* c;   ///< C, column-major.
  int64_t ldc;   ///< C's leading dimension.
  int m;         ///< Rows of C.
  int n;         ///< Columns of C.
  int k;         ///< The depth of the product.
  float alpha;   ///< Scales op(A) op(B).
  float beta;    ///< Scales C (C is not read when 0).
  int group_m;   ///< Tiles along m per group of the tile order (see wgmma_tile).
  int small_line_a;  ///< 3xTF32: the line of map_a where A's small parts start (its big parts start at 0).
  int small_line_b;  ///< 3xTF32: the line of map_b where B's small parts start.
  // Split-K (the kernel's SlicedK instantiation only): work item i is slice i / tiles of tile i % tiles.
  int slices;            ///< Slices of k (1: not split).
  int slice_steps;       ///< block_k steps per slice (the last slice may have fewer).
  int64_t slice_stride;  ///< Elements of C from one slice's partial product to the next.
  /// 16-bit C with beta = 0, C 16-byte aligned with ldc (and a batch's C stride) a multiple of 8: the epilogue stores
  /// through map_c (TMA; rank 3, its third coordinate the product).
  int tma_store;
  // A strided batch (the unsplit kernel only): work item i is tile i % tiles of product i / tiles.
  int batches;             ///< Products (1: one GEMM).
  int batch_a;             ///< 1 when A moves with the product (the third coordinate of map_a), 0 for one A.
  int batch_b;             ///< Likewise for B.
  int64_t batch_stride_c;  ///< Elements from one product's C to the next.
  /// A fused epilogue's terms (the Fused instantiation only; their batch strides walk the products too), with the
  /// caller's operation where User is one.
  device::epilogue_terms_t<ElementC, float, User> terms;
};

/// One product of a grouped launch of the Hopper kernel (tgemm::gemm_grouped(), tgemm::gemm_grouped_device(): each
/// product its own sizes, operands, scalars and C, all with the launch's op pair): its tensor maps, as the host encodes
/// them for a single product (map_c only where tma_store is set), and what the epilogue needs. 128-byte aligned, so
/// that the maps of an array of them in global memory are too.
template <class ElementC>
struct alignas(128) tma_wgmma_group {
  CUtensorMap map_a;  ///< A as stored (see gemm_tma_wgmma).
  CUtensorMap map_b;  ///< B as stored.
  CUtensorMap map_c;  ///< C in 64-row boxes, where tma_store is set.
  ElementC* c;        ///< C, column-major.
  int64_t ldc;        ///< C's leading dimension.
  int m;              ///< Rows of C.
  int n;              ///< Columns of C.
  int k;              ///< The depth of the product (at least 1).
  float alpha;        ///< Scales op(A) op(B).
  float beta;         ///< Scales C (C is not read when 0).
  int tma_store;      ///< 1: the epilogue stores through map_c (16-bit C, beta = 0, C as TMA can describe it).
  int first_item;     ///< The group's first work item: the items of the groups before it come first.
  /// Device-side groups only: 1 when TMA cannot read A or B (not 16-byte aligned, or a leading dimension not a
  /// multiple of 16 bytes: only the GPU sees them); the consumers then compute the group's tiles with a direct loop
  /// over k from a, lda, b and ldb, several times slower, and the producer skips them.
  int direct;
  const void* a;  ///< A (direct groups).
  const void* b;  ///< B (direct groups).
  int64_t lda;    ///< A's leading dimension (direct groups).
  int64_t ldb;    ///< B's leading dimension (direct groups).
};

/// Whether the epilogue's TMA stores can write an m-row column-major C at `c` with leading dimension `ldc` (host and
/// device: the host asks it of a single product's C, kernel::prepare_device_groups of each device-side group's): C
/// 16-byte aligned, ldc and m multiples of 16 bytes (a store clipped at m still writes up to the next 16 bytes).
template <class ElementC>
__host__ __device__ __forceinline__ bool tma_can_store_c(const ElementC* c, int64_t m, int64_t ldc) {
  return reinterpret_cast<uintptr_t>(c) % 16 == 0 && (ldc * int64_t(sizeof(ElementC))) % 16 == 0 &&
         (m * int64_t(sizeof(ElementC))) % 16 == 0;
}

/// How many products one grouped launch from the host takes: their descriptions are a kernel parameter (512 bytes
/// each; CUDA 12.1 and newer take 32 KiB of parameters), so that the host passes them with the launch, without a copy
/// to the device.
inline constexpr int tma_wgmma_group_capacity = 16;

/// The products of a grouped launch from the host (tgemm::gemm_grouped()): the kernel's parameter.
template <class ElementC>
struct tma_wgmma_groups {
  static constexpr bool in_device_memory = false;  ///< The descriptions are the kernel's parameter.
  tma_wgmma_group<ElementC> group[tma_wgmma_group_capacity];  ///< The first `count` are used.
  int count;  ///< Products in the launch.
  int items;  ///< Their tiles together: the work items.
  /// The work items of the launch.
  __device__ __forceinline__ int total_items() const { return items; }
  /// The group that work item `item` belongs to: the last whose first_item is at most `item` (a few: a scan).
  __device__ __forceinline__ const tma_wgmma_group<ElementC>& of(int item) const {
    int g = 0;
    while (g + 1 < count && group[g + 1].first_item <= item) ++g;
    return group[g];
  }
};

/// The products of a grouped launch described in device memory (tgemm::gemm_grouped_device()):
/// kernel::prepare_device_groups wrote `count` descriptions (their maps made on the GPU
/// from templates) and the work items they have together, in the same stream before this launch. alpha and beta are
/// the call's, in the launch's tma_wgmma_output as well as in each description.
template <class ElementC>
struct tma_wgmma_device_groups {
  static constexpr bool in_device_memory = true;  ///< The descriptions are in global memory.
  const tma_wgmma_group<ElementC>* group;  ///< `count` descriptions in global memory.
  const int* items;                        ///< Their tiles together (groups skipped or empty have none).
  int count;                               ///< Groups.
  /// The work items of the launch (groups: read from global memory, only the GPU knows them).
  __device__ __forceinline__ int total_items() const { return *items; }

  /// What a block needs of a group to walk its tiles.
  struct summary {
    int first_item;  ///< See tma_wgmma_group.
    int m;           ///< See tma_wgmma_group.
    int n;           ///< See tma_wgmma_group.
    int k;           ///< See tma_wgmma_group.
    int direct;      ///< See tma_wgmma_group.
    int tma_store;   ///< See tma_wgmma_group.
  };
  /// Launches of at most this many groups keep their summaries in shared memory (table_bytes), which each block fills
  /// once: looking a work item's group up there costs no global-memory round trips (a binary search in global memory
  /// cost three to five dependent loads per tile, before each tile's first wgmma). More groups: looked up in place.
  static constexpr int table_capacity = 64;
  /// Shared memory the table takes.
  static constexpr int table_bytes = table_capacity * int(sizeof(summary));
  /// Whether the table holds every group.
  __device__ __forceinline__ bool tabled() const { return count <= table_capacity; }
  /// Every thread of the block: the groups' summaries into `table` when it holds them all (a barrier must follow).
  __device__ __forceinline__ void fill(summary* table) const {
    if (!tabled()) return;
    for (int i = int(threadIdx.x); i < count; i += int(blockDim.x)) {
      const tma_wgmma_group<ElementC>& g = group[i];
      table[i] = summary{g.first_item, g.m, g.n, g.k, g.direct, g.tma_store};
    }
  }
  /// The group that work item `item` belongs to: the last whose first_item is at most `item` (a binary search: groups
  /// without tiles share the first_item of the next), in `table` when it holds every group.
  __device__ __forceinline__ int index_of(int item, const summary* table) const {
    int low = 0, high = count - 1;
    const bool in_table = tabled();
    while (low < high) {
      const int middle = (low + high + 1) / 2;
      if ((in_table ? table[middle].first_item : group[middle].first_item) <= item) {
        low = middle;
      } else {
        high = middle - 1;
      }
    }
    return low;
  }
  /// Group `index`'s summary, from `table` when it holds every group.
  __device__ __forceinline__ summary summary_of(int index, const summary* table) const {
    if (tabled()) return table[index];
    const tma_wgmma_group<ElementC>& g = group[index];
    return summary{g.first_item, g.m, g.n, g.k, g.direct, g.tma_store};
  }
};

/// One product of a pointer-array launch as the kernel reads it (tma_wgmma_pointer_arrays::product).
template <class Element, class ElementC>
struct tma_wgmma_pointer_product {
  const Element* a;  ///< A (unread when the launch's k is 0).
  const Element* b;  ///< B.
  ElementC* c;       ///< C.
  bool skipped;      ///< A null pointer it would use: its C is left as it was (cuBLAS's batched calls do the same).
  bool direct;       ///< A or B not 16-byte aligned (TMA cannot read them): the consumers' direct loop computes it.
};

/// The products of tgemm::gemm_batched()'s device arrays of pointers on the Hopper kernel: all of one size (out's m,
/// n, k, scalars and ldc), product i reading a[i] and b[i] and writing c[i] through the launch's address maps
/// (arch::encode_sw128_address_map: the coordinates after the first two come from each pointer), so that nothing is
/// prepared per product. The blocks walk (product, tile) work items as a strided batch's do.
template <class Element, class ElementC>
struct tma_wgmma_pointer_arrays {
  const Element* const* a;  ///< Product i's A is a[i].
  const Element* const* b;  ///< Product i's B is b[i].
  ElementC* const* c;       ///< Product i's C is c[i].
  int64_t lda;              ///< A's leading dimension (a multiple of 16 bytes: the host checks it).
  int64_t ldb;              ///< B's leading dimension (likewise).
  /// Product i, for a launch of depth k (0: A and B unread, their arrays perhaps null).
  __device__ __forceinline__ tma_wgmma_pointer_product<Element, ElementC> product(int i, int k) const {
    tma_wgmma_pointer_product<Element, ElementC> p{nullptr, nullptr, c[i], false, false};
    if (k > 0) p.a = a[i], p.b = b[i];
    p.skipped = p.c == nullptr || (k > 0 && (p.a == nullptr || p.b == nullptr));
    p.direct = !p.skipped && k > 0 &&
               (reinterpret_cast<uintptr_t>(p.a) % 16 != 0 || reinterpret_cast<uintptr_t>(p.b) % 16 != 0);
    return p;
  }
};

template <class Groups>
struct is_pointer_arrays : std::false_type {};
template <class Element, class ElementC>
struct is_pointer_arrays<tma_wgmma_pointer_arrays<Element, ElementC>> : std::true_type {};

/// The parameter that non-grouped instantiations of gemm_tma_wgmma take in its place (nothing).
struct tma_wgmma_no_groups {};

}  // namespace tgemm::kernel
