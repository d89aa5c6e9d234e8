/// \file kernel/prepare_device_groups.cuh
/// \brief The first of the two launches that run tgemm::gemm_grouped_device() on the Hopper kernel (sm_90a): it reads
/// every group's description from device memory, checks it as the indirect kernel does (each status to the caller's
/// array), and writes what the grouped kernel reads: each group's sizes, scalars and C, its tensor maps (A's and B's,
/// and C's where the epilogue stores through TMA) made on the GPU from the host's templates (tensormap.replace of the
/// address, the extents and the strides: the host never sees the groups), the first work item of each and the work
/// items in all. A group whose A or B TMA cannot read is marked `direct` (the consumers compute it with a loop).
/// Groups are numbered by an exclusive scan of their tile counts, one thread's loop over shared memory, a pass of 1024
/// groups at a time (CUB's block scan did the same job, but its header cost every header-only translation unit
/// seconds of compile time). tgemm::gemm_batched()'s pointer arrays, products of one size, need none of this: the
/// Hopper kernel reads them through address maps (arch/tma.cuh).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "../arch/wgmma.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "gemm_indirect_kernel.cuh"
#include "tma_wgmma_arguments.cuh"

namespace tgemm::kernel {

/// Threads of the one block of prepare_device_groups for groups (it walks the groups this many at a time).
inline constexpr int prepare_groups_threads = 1024;

/// Points the rank-2 tensor map at `map` (global memory) at a matrix of `lines` lines of `contiguous` elements,
/// `ld_bytes` apart, starting at `base`: its address, extents and line stride replaced in place, the rest (element
/// type, box, swizzle) as the host encoded it. C's map (the epilogue's TMA stores) is one.
__device__ __forceinline__ void point_tensor_map_2d(CUtensorMap* map, const void* base, int contiguous, int lines,
                                                    int64_t ld_bytes) {
#if TGEMM_HAS_WGMMA
  const uint64_t address = __cvta_generic_to_global(map);
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(address),
               "l"(reinterpret_cast<uint64_t>(base))
               : "memory");
  asm volatile("tensormap.replace.tile.global_dim.global.b1024.b32 [%0], 0, %1;" ::"l"(address), "r"(contiguous)
               : "memory");
  asm volatile("tensormap.replace.tile.global_dim.global.b1024.b32 [%0], 1, %1;" ::"l"(address), "r"(lines)
               : "memory");
  asm volatile("tensormap.replace.tile.global_stride.global.b1024.b64 [%0], 0, %1;" ::"l"(address), "l"(ld_bytes)
               : "memory");
#else
  (void)map, (void)base, (void)contiguous, (void)lines, (void)ld_bytes;
#endif
}

/// point_tensor_map_2d() for the operands' rank-3 maps (the kernel's loads are 3-D) holding one matrix: its matrix
/// stride spans the lines.
__device__ __forceinline__ void point_tensor_map(CUtensorMap* map, const void* base, int contiguous, int lines,
                                                 int64_t ld_bytes) {
  point_tensor_map_2d(map, base, contiguous, lines, ld_bytes);
#if TGEMM_HAS_WGMMA
  const int64_t matrix_bytes = (ld_bytes * lines + 15) / 16 * 16;
  asm volatile("tensormap.replace.tile.global_stride.global.b1024.b64 [%0], 1, %1;" ::"l"(
                   __cvta_generic_to_global(map)),
               "l"(matrix_bytes)
               : "memory");
#endif
}

/// Product i of `products` into its description `g` for the grouped Hopper kernel of Policy and the column-major op
/// pair (OpA, OpB) (see prepare_device_groups); returns its tiles (0 for a product that failed its checks, or an empty
/// one: then g.m = g.n = 0).
template <class Policy, op OpA, op OpB, class Products>
__device__ __forceinline__ int describe_product(const Products& products, int i, float alpha, float beta,
                                                const CUtensorMap& template_a, const CUtensorMap& template_b,
                                                const CUtensorMap& template_c, bool store_c,
                                                tma_wgmma_group<typename Policy::element_c>& g) {
  using element = typename Policy::element_a;
  using element_c = typename Policy::element_c;
  indirect_product<element, element, element_c> p;
  const status checked = products.read(i, alpha != 0.0f, p);
  products.report(i, checked);
  const auto& q = p.operands;
  const bool runs = checked == status::success && q.m > 0 && q.n > 0;
  const int64_t k = alpha != 0.0f ? q.k : 0;  // alpha = 0: C = beta C, A and B unread
  const bool tma_ready = reinterpret_cast<uintptr_t>(q.a) % 16 == 0 && reinterpret_cast<uintptr_t>(q.b) % 16 == 0 &&
                         (q.lda * int64_t(sizeof(element))) % 16 == 0 && (q.ldb * int64_t(sizeof(element))) % 16 == 0;
  g.c = p.c, g.ldc = p.ldc;
  g.m = runs ? int(q.m) : 0, g.n = runs ? int(q.n) : 0, g.k = runs ? int(k) : 0;
  const bool tma_store = store_c && runs && tma_can_store_c(p.c, q.m, p.ldc);
  g.alpha = alpha, g.beta = beta, g.tma_store = tma_store ? 1 : 0;
  g.direct = runs && k > 0 && !tma_ready ? 1 : 0;
  if (tma_store) {
    g.map_c = template_c;
    point_tensor_map_2d(&g.map_c, p.c, int(q.m), int(q.n), p.ldc * int64_t(sizeof(element_c)));
  }
  g.a = q.a, g.b = q.b, g.lda = q.lda, g.ldb = q.ldb;
  if (runs && k > 0 && tma_ready) {
    g.map_a = template_a, g.map_b = template_b;
    const int64_t bytes = int64_t(sizeof(element));
    if constexpr (OpA == op::transpose) {  // K-major: lines of k, one per row
      point_tensor_map(&g.map_a, q.a, int(k), int(q.m), q.lda * bytes);
    } else {  // MN-major: lines of m, one per k
      point_tensor_map(&g.map_a, q.a, int(q.m), int(k), q.lda * bytes);
    }
    if constexpr (OpB == op::none) {  // K-major: lines of k, one per column
      point_tensor_map(&g.map_b, q.b, int(k), int(q.n), q.ldb * bytes);
    } else {  // MN-major: lines of n, one per k
      point_tensor_map(&g.map_b, q.b, int(q.n), int(k), q.ldb * bytes);
    }
  }
  return runs ? int(((q.m + Policy::block_m - 1) / Policy::block_m) * ((q.n + Policy::block_n - 1) / Policy::block_n))
              : 0;
}

/// groups[0 .. count) of `products` into `out` (count descriptions, 128-byte aligned) and `items`, for the grouped
/// Hopper kernel of Policy and the column-major op pair (OpA, OpB); template_a and template_b are maps the host
/// encoded for that op pair and Policy's boxes (any address and extents: point_tensor_map replaces them). template_c
/// is C's for the epilogue's TMA stores, where `store_c` is set (the host sets it for 16-bit C with beta = 0); a group
/// whose C TMA can write (tma_can_store_c) gets its own copy and stores through it.
/// One block of prepare_groups_threads threads, which numbers the groups' tiles; groups that fail their checks, and
/// empty ones, get none.
template <class Policy, op OpA, op OpB, class Products>
__global__ void __launch_bounds__(prepare_groups_threads)
    prepare_device_groups(const Products products, const float alpha, const float beta,
                          const __grid_constant__ CUtensorMap template_a,
                          const __grid_constant__ CUtensorMap template_b,
                          const __grid_constant__ CUtensorMap template_c, const bool store_c,
                          tma_wgmma_group<typename Policy::element_c>* out, int* items, const int count) {
#if TGEMM_HAS_WGMMA
  __shared__ int pass_tiles[prepare_groups_threads];  // this pass's tile counts, then its groups' first items
  int running = 0;  // thread 0: the tiles of the groups before this pass
  for (int first = 0; first < count; first += prepare_groups_threads) {
    const int i = first + int(threadIdx.x);
    int tiles = 0;
    if (i < count) {
      tiles = describe_product<Policy, OpA, OpB>(products, i, alpha, beta, template_a, template_b, template_c,
                                                 store_c, out[i]);
    }
    pass_tiles[threadIdx.x] = tiles;
    __syncthreads();
    if (threadIdx.x == 0) {  // the exclusive scan, in place
      for (int j = 0; j < prepare_groups_threads && first + j < count; ++j) {
        const int t = pass_tiles[j];
        pass_tiles[j] = running;
        running += t;
      }
    }
    __syncthreads();
    if (i < count) out[i].first_item = pass_tiles[threadIdx.x];
    __syncthreads();  // read before the next pass writes
  }
  if (threadIdx.x == 0) *items = running;
  // The maps were written through the generic proxy; the grouped kernel reads them through the tensor-map proxy
  // (and acquires each before its first copy).
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
#else
  (void)products, (void)alpha, (void)beta, (void)template_a, (void)template_b, (void)template_c, (void)store_c, (void)out,
      (void)items, (void)count;
#endif
}

}  // namespace tgemm::kernel
