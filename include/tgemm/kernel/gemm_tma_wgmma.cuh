/// \file kernel/gemm_tma_wgmma.cuh
/// \brief The Hopper kernel (sm_90a): C = alpha op(A) op(B) + beta C for 16-bit operands in any layout, or float
/// operands as TF32 or 3xTF32 read along k, with TMA copies, a full/empty mbarrier ring and warp-specialised
/// warpgroups.
///
/// Warpgroup 0 is the producer: it gives up most of its registers (setmaxnreg) and its first thread walks k,
/// waiting for a stage to be released, announcing its bytes and starting the two TMA copies. Warpgroups 1..
/// consumers each own a 64-row strip of the block's tile: they wait for a stage's bytes, issue four wgmmas (32 bytes
/// of k each) from its swizzled slices, wait for them (a lone consumer only for the previous stage's), release the
/// stage and move on; their float accumulators stay in registers and go to C at the end (alpha, beta; C is not read
/// when beta is 0): 16-bit C with beta = 0 through a
/// staging tile per consumer in shared memory (stmatrix) that TMA stores while the consumers start the next tile;
/// other 16-bit C through a staging buffer per warp, as 16-byte pieces of its columns; float C straight from the
/// registers (a float staging tile would not fit beside the stages). Tile edges need no special case: TMA
/// fills what lies outside the operands with zeros, and the epilogue writes only inside C.
///
/// Layouts (C column-major; a row-major call reaches here transposed): an operand read along k (op(A) = A^T,
/// op(B) = B) is K-major, copied as one box of block_k (128 bytes) by the tile's lines; one read along m or n
/// (op(A) = A, op(B) = B^T) is MN-major, copied as 64 x 64 boxes, 64 elements of m (n) by 64 k, one per 64-wide
/// chunk of the tile; wgmma reads either through its descriptor and transpose flag, so no 16-bit layout costs a
/// copy. TF32 has no transpose flag: B must be K-major (the planner copies a B stored along n first), and an A
/// stored along m goes to wgmma through registers, loaded from its swizzled boxes. 3xTF32
/// reads split copies (kernel/split_tf32.cuh): each map covers the big parts' lines, then the small parts' from
/// out.small_line_a (_b) on; a stage holds both; each k step adds small x big and big x small into one set of
/// accumulators and big x big into another, which starts afresh each stage and is added to the tile's sum in FP32.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../arch/cluster.cuh"
#include "../arch/mbarrier.cuh"
#include "../arch/named_barrier.cuh"
#include "../arch/stmatrix.cuh"
#include "../arch/tma.cuh"
#include "../arch/wgmma.cuh"
#include "../device/epilogue_terms.cuh"
#include "../numeric.cuh"
#include "../types.cuh"
#include "tma_wgmma_arguments.cuh"
#include "tma_wgmma_epilogue.cuh"

namespace tgemm::kernel {

/// A kernel with 128 bytes of static shared memory in the sm_90a image of a program and none in its other images:
/// the host reads that size (cudaFuncGetAttributes: no stream work, so safe inside a stream capture) to know
/// whether the device runs the image that holds the wgmma kernels' code.
template <int Unused = 0>
__global__ void wgmma_image_probe() {
#if TGEMM_HAS_WGMMA
  __shared__ volatile uint32_t marker[32];
  marker[threadIdx.x % 32] = 0;
#endif
}

/// Bytes of static shared memory wgmma_image_probe has in the sm_90a image.
inline constexpr int wgmma_image_marker_bytes = 128;

/// Makes the tensor-map proxy see a map that generic writes made in global memory (kernel::prepare_device_groups),
/// before this thread's first TMA copy through it.
__device__ __forceinline__ void acquire_tensor_map(const CUtensorMap* map) {
#if TGEMM_HAS_TMA
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(reinterpret_cast<uint64_t>(map))
               : "memory");
#else
  (void)map;
#endif
}

/// The tile (tile_m, tile_n) that the `index`-th tile of the order is: groups of `group_m` tile rows, each walked
/// down its rows column by column, so that the blocks running at once share a few strips of A and B in L2 (a
/// plain column walk of 8192^2 would stream all of A once per two columns of tiles).
__device__ __forceinline__ void wgmma_tile(int index, int tiles_m, int tiles_n, int group_m, int& tile_m,
                                           int& tile_n) {
  const int per_group = group_m * tiles_n;
  const int group = index / per_group, first = group * group_m;
  const int rows = tiles_m - first < group_m ? tiles_m - first : group_m;
  const int local = index - group * per_group;
  tile_m = first + local % rows;
  tile_n = local / rows;
}

/// Split-K work item `item` (kernel gemm_tma_wgmma<..., true>): its tile and its slice's k steps [t_begin, t_end);
/// returns the slice.
__device__ __forceinline__ int slice_of(int item, int tiles, int k_tiles, int slice_steps, int& tile, int& t_begin,
                                        int& t_end) {
  const int slice = item / tiles;
  tile = item - slice * tiles;
  t_begin = slice * slice_steps;
  t_end = k_tiles - t_begin < slice_steps ? k_tiles : t_begin + slice_steps;
  return slice;
}


/// How many of `count` boxes of `box` elements, from `first` on, start inside an extent of `extent` elements.
__device__ __forceinline__ int boxes_inside(int first, int extent, int box, int count) {
  const int inside = (extent - first + box - 1) / box;
  return inside < count ? inside : count;
}

/// A stage's box of an operand: through a rank-3 map (`batch`, a strided batch's product), or through an address map
/// (`at`: pointer arrays).
template <bool AddressMap>
__device__ __forceinline__ void load_box(void* destination, const CUtensorMap* map, int inner, int outer, int batch,
                                         arch::address_coordinates at, uint64_t* barrier) {
  if constexpr (AddressMap) {
    arch::tma_load_4d(destination, map, inner, outer, at, barrier);
  } else {
    arch::tma_load_3d(destination, map, inner, outer, batch, barrier);
  }
}

/// A tile of a product TMA cannot read (device-side groups and pointer arrays: only the GPU sees their pointers):
/// each thread of a consumer warpgroup computes elements of its 64-row strip (rows from `strip`, the tile's columns
/// from col0) with a loop over k from a, lda, b and ldb, without the stages, and writes alpha sum + beta C (C not read
/// when beta is 0). Correct for any alignment, several times slower than the tiled path.
template <class Policy, op OpA, op OpB>
__device__ __forceinline__ void direct_strip(const typename Policy::element_a* a, int64_t lda,
                                             const typename Policy::element_a* b, int64_t ldb, int64_t k,
                                             typename Policy::element_c* c, int64_t ldc, int64_t m, int64_t n,
                                             float alpha, float beta, int64_t strip, int64_t col0) {
  using element_c = typename Policy::element_c;
  for (int e = threadIdx.x % 128; e < 64 * Policy::block_n; e += 128) {
    const int64_t row = strip + e % 64, col = col0 + e / 64;
    if (row >= m || col >= n) continue;
    float sum = 0.0f;
    for (int64_t l = 0; l < k; ++l) {
      const float x = convert<float>(OpA == op::none ? a[row + l * lda] : a[l + row * lda]);
      const float y = convert<float>(OpB == op::none ? b[l + col * ldb] : b[col + l * ldb]);
      sum = fmaf(x, y, sum);
    }
    element_c* to = c + row + col * ldc;
    const float scaled = alpha * sum;
    *to = convert<element_c>(beta != 0.0f ? scaled + beta * convert<float>(*to) : scaled);
  }
}

/// The walk of work items: block w of the grid (cluster w, with clusters of Cluster blocks) takes items w,
/// w + walk_step(), ... (Read where used: kept in a variable from the kernel's start, blockIdx.x moved the unclustered
/// kernels' register allocation.)
template <int Cluster>
__device__ __forceinline__ int walk_first() {
  return Cluster > 1 ? int(blockIdx.x) / Cluster : int(blockIdx.x);
}
/// See walk_first().
template <int Cluster>
__device__ __forceinline__ int walk_step() {
  return Cluster > 1 ? int(gridDim.x) / Cluster : int(gridDim.x);
}

/// A consumer warpgroup's release of stage barrier `empty` (one thread arrives): in this block, or with clusters
/// (Cluster blocks) in every block of the cluster, since each block's copies fill the stage in all of them.
template <int Cluster>
__device__ __forceinline__ void release_stage(uint64_t* empty) {
  if constexpr (Cluster > 1) {
#pragma unroll
    for (int rank = 0; rank < Cluster; ++rank) arch::mbarrier_arrive_in_block(empty, rank);
  } else {
    arch::mbarrier_arrive(empty);
  }
}

/// Persistent: block b computes tiles b, b + gridDim.x, ... of the order wgmma_tile() gives (a grid of one block per
/// tile computes each once; a grid of one block per multiprocessor overlaps a tile's epilogue with the copies of
/// the next: the producer runs ahead through the same stage ring, whose phases count on across tiles).
/// OpA and OpB are the column-major call's ops: map_a describes A as stored (op::transpose: m lines of k, boxes of
/// block_k x block_m; op::none: k lines of m, boxes of 64 x 64), map_b likewise (op::none: n lines of k, boxes of
/// block_k x block_n; op::transpose: k lines of n, boxes of 64 x 64).
/// SlicedK: the blocks walk (slice, tile) work items instead of tiles, each the product of one slice of k written to
/// its own partial C (out.c + slice x out.slice_stride; the planner passes alpha = 1, beta = 0 and a float C, and a
/// reduction adds the slices). A separate instantiation, so that the unsplit kernel's code stays as it was.
/// Fused (unsplit only): the tile's stores apply a fused epilogue (out.terms, tgemm::epilogue) through
/// store_fused_tile; another instantiation, for the same reason (the plain kernel's staged 16-bit path is not used by
/// it).
/// Groups (grouped launches): tma_wgmma_groups (tgemm::gemm_grouped(): the descriptions are the parameter) or
/// tma_wgmma_device_groups (tgemm::gemm_grouped_device(): in global memory), each product with its own maps, sizes,
/// scalars and C; the blocks walk their tiles one product after another (map_a, map_b, map_c and out's sizes, scalars
/// and C unused). Or tma_wgmma_pointer_arrays (tgemm::gemm_batched()'s device arrays of pointers): products of one
/// size walked as a strided batch's, each read and written through the address maps map_a, map_b and map_c at the
/// coordinates of its pointers. The other instantiations take an empty `groups`.
template <class Policy, op OpA, op OpB, bool SlicedK = false, bool Fused = false, class Groups = tma_wgmma_no_groups,
          class User = device::no_user_op>
__global__ void __launch_bounds__(Policy::threads, 1)
    gemm_tma_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const __grid_constant__ CUtensorMap map_c,
                   const tma_wgmma_output<typename Policy::element_c, User> out,
                   const __grid_constant__ Groups groups) {
#if TGEMM_HAS_WGMMA
  // Pointer arrays walk (product, tile) work items as a strided batch does, reading each product's pointers.
  constexpr bool pointer_arrays = is_pointer_arrays<Groups>::value;
  constexpr bool Grouped = !std::is_same<Groups, tma_wgmma_no_groups>::value && !pointer_arrays;
  constexpr bool device_groups = [] {
    if constexpr (Grouped) {
      return Groups::in_device_memory;
    } else {
      return false;
    }
  }();
  static_assert(!(SlicedK && Fused), "split-K partials are unscaled: the reduction applies a fused epilogue");
  static_assert(!(Grouped || pointer_arrays) || (!SlicedK && !Fused),
                "a grouped or pointer-array launch neither splits k nor fuses an epilogue");
  using element = typename Policy::element_a;
  constexpr int stages = Policy::stages, bk = Policy::block_k, bn = Policy::block_n;
  constexpr int a_bytes = Policy::block_m * bk * element_bytes<element>;  // one part of a stage's A slice
  constexpr int b_bytes = bn * bk * element_bytes<element>;
  constexpr int b_offset = Policy::operand_parts * a_bytes;  // a stage: A (big, small), then B (big, small)
  constexpr bool mn_major_a = OpA == op::none, mn_major_b = OpB == op::transpose;
  // An MN-major operand arrives in boxes of mn_chunk elements of m (n), one 128-byte swizzle row, by bk lines of k.
  constexpr int mn_chunk = 128 / element_bytes<element>, chunk_bytes = bk * 128;
  constexpr int strip_bytes = 64 * 128;  // a consumer's 64 rows of A: K-major, or 64 / mn_chunk MN-major boxes
  // TF32 wgmma has no transpose flag: an A stored along m goes to it through registers (wgmma's other A source).
  constexpr bool a_in_registers = Policy::tf32 && mn_major_a;
  // A lone consumer warpgroup (64-row tiles) keeps one stage's wgmmas in flight while it issues the next's: waiting
  // for its own would leave the tensor cores idle through every wait, release and refill, a gap that a second
  // consumer fills in the larger tiles. On an H200 bf16 256 x 4096 x 4096 (128 tiles of 64 x 128) ran 1.20x faster;
  // the same for two consumers moved 4096^3 by nothing and 8192^3 by -3 % (a stage held longer). Not where A's
  // registers or 3xTF32's per-stage sums must be read between stages.
  // Ping-pong consumers are each alone on their tiles.
  constexpr bool overlap_stages = (Policy::consumers == 1 || Policy::pingpong) && !Policy::split && !a_in_registers;
  // Ping-pong: consumer c computes the block's items c, c + 2, ...: the pipeline's stages, filled item after item,
  // hand the tensor cores to the consumers in turn. Each stage is read by one consumer.
  constexpr bool pingpong = Policy::pingpong;
  static_assert(!pingpong || (!SlicedK && !Grouped && !pointer_arrays),
                "ping-pong consumers take whole tiles of one depth: no split k, groups or pointer arrays");
  // Clusters (Policy::cluster_m = 2): the two blocks of a cluster compute neighbouring tile rows of one tile column
  // and walk the same work items (an item is the cluster's pair of tiles), so their stages hold the same B slices:
  // each block's producer copies its half of every B slice into both blocks (TMA multicast) and its A slice into its
  // own, and a stage is refilled only when the consumers of both blocks have released it (each consumer arrives on
  // both blocks' empty barrier). Where the tile rows are odd in number, the last pair's second row lies past C: its
  // block computes zeros (TMA fills A's box with them) and stores nothing, but copies its half of B all the same.
  constexpr int cluster = Policy::cluster_m;
  static_assert(cluster == 1 || (!Grouped && !pointer_arrays),
                "grouped and pointer-array launches do not run in clusters (their blocks walk different products)");
  int rank = 0;  // the block's rank in its cluster
  if constexpr (cluster > 1) rank = arch::cluster_rank();
  static_assert(bk * element_bytes<element> == 128, "a stage slice spans one 128-byte swizzle row along k");
  static_assert((!mn_major_a || Policy::reads_mn_major_a) && (!mn_major_b || Policy::reads_mn_major_b),
                "this policy's kernel cannot read that op pair (TF32: op(B) = B; 3xTF32: op(A) = A^T and op(B) = B)");
  extern __shared__ uint8_t shared_raw[];
  // The 128-byte swizzle repeats every 1024 bytes and wgmma reads it from 1024-byte aligned tiles.
  uint8_t* shared = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(shared_raw) + 1023) & ~uintptr_t(1023));
  static_assert(Policy::stage_bytes % 1024 == 0, "the epilogue's staging tiles after the stages are 1024-byte aligned");
  uint8_t* const epilogue_shared = shared + stages * Policy::stage_bytes;  // the epilogue's staging buffers
  uint64_t* full = reinterpret_cast<uint64_t*>(epilogue_shared + Policy::epilogue_bytes);  // a stage's bytes landed
  uint64_t* empty = full + stages;                                                          // a stage was read
  // Ping-pong: turn[c] completes a phase when the other consumer has waited for its item's last stage, so that consumer
  // c waits on its own item's stages at most one phase ahead of their barriers (parity waits cannot tell further).
  [[maybe_unused]] uint64_t* turn = empty + stages;
  const int warpgroup = threadIdx.x / 128;
  const int k_tiles = (out.k + bk - 1) / bk;
  const int tiles_m = (out.m + Policy::block_m - 1) / Policy::block_m, tiles_n = (out.n + bn - 1) / bn;
  // The tile rows the walk counts: clusters walk pairs of rows (the block's row is pair x cluster + rank).
  const int rows_walked = cluster > 1 ? (tiles_m + cluster - 1) / cluster : tiles_m;
  const int tiles = rows_walked * tiles_n;  // the host keeps it below 2^31
  int items = tiles * (SlicedK ? out.slices : out.batches);  // so is this
  if constexpr (Grouped) items = groups.total_items();
  static_assert(!SlicedK || std::is_same<typename Policy::element_c, float>::value,
                "split-K partial products are float");

  // Device-side groups: their summaries in shared memory (see tma_wgmma_device_groups::fill).
  using group_summary = typename std::conditional_t<device_groups, Groups, tma_wgmma_device_groups<float>>::summary;
  [[maybe_unused]] group_summary* group_table = nullptr;
  if constexpr (device_groups) {
    static_assert(Policy::shared_bytes + Groups::table_bytes <= 227 * 1024,
                  "the device-side groups' table does not fit beside the policy's shared memory");
    __shared__ group_summary table[Groups::table_capacity];
    group_table = table;
    groups.fill(table);
  }

  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      arch::mbarrier_init(&full[s], 1);                    // the producer's expect_bytes
      // One arrival per consumer reading it (in every block of the cluster).
      arch::mbarrier_init(&empty[s], (pingpong ? 1 : Policy::consumers) * cluster);
    }
    if constexpr (pingpong) arch::mbarrier_init(&turn[0], 1), arch::mbarrier_init(&turn[1], 1);
    arch::mbarrier_init_fence();
  }
  if constexpr (cluster > 1) {
    arch::cluster_sync();  // the other block's barriers are ready before a copy or an arrival reaches them
  } else {
    __syncthreads();
  }

  if (warpgroup == 0) {
    arch::set_max_registers<40, false>();
    if (threadIdx.x == 0) {
      int use = 0;  // stage uses so far, across tiles: stage use % stages, phase (use / stages) & 1
      // Device-side groups: the group whose maps this thread acquired last. A map is acquired once per thread (as
      // CUTLASS's grouped kernels do on a change of problem), not before every tile: it does not change in the launch.
      [[maybe_unused]] int acquired = -1;
      for (int item = walk_first<cluster>(); item < items; item += walk_step<cluster>()) {
        int tile = item, t_begin = 0, t_end = k_tiles, product = 0;
        int item_tiles_m = rows_walked, item_tiles_n = tiles_n;
        const CUtensorMap* item_map_a = &map_a;
        const CUtensorMap* item_map_b = &map_b;
        [[maybe_unused]] arch::address_coordinates at_a{}, at_b{};  // pointer arrays: the product's A and B
        if constexpr (SlicedK) {
          slice_of(item, tiles, k_tiles, out.slice_steps, tile, t_begin, t_end);
        } else if constexpr (device_groups) {
          const int index = groups.index_of(item, group_table);
          const group_summary g = groups.summary_of(index, group_table);
          // Direct: the consumers compute it without the stages. m = 0 (an empty group, or one that failed its checks:
          // the scan gives it no items, so never met), skipped by the consumers too.
          if (g.direct || g.m == 0) continue;
          item_map_a = &groups.group[index].map_a, item_map_b = &groups.group[index].map_b;
          if (index != acquired) {
            acquire_tensor_map(item_map_a);
            acquire_tensor_map(item_map_b);
            acquired = index;
          }
          tile = item - g.first_item;
          item_tiles_m = (g.m + Policy::block_m - 1) / Policy::block_m, item_tiles_n = (g.n + bn - 1) / bn;
          t_end = (g.k + bk - 1) / bk;
        } else if constexpr (Grouped) {
          const tma_wgmma_group<typename Policy::element_c>& g = groups.of(item);
          tile = item - g.first_item;
          item_tiles_m = (g.m + Policy::block_m - 1) / Policy::block_m, item_tiles_n = (g.n + bn - 1) / bn;
          t_end = (g.k + bk - 1) / bk;
          item_map_a = &g.map_a, item_map_b = &g.map_b;
        } else {
          product = item / tiles, tile = item - product * tiles;
          if constexpr (pointer_arrays) {
            const auto p = groups.product(product, out.k);
            if (p.skipped || p.direct) continue;  // the consumers skip it, or compute it without the stages
            at_a = arch::coordinates_of(p.a), at_b = arch::coordinates_of(p.b);
          }
        }
        int tile_m, tile_n;
        wgmma_tile(tile, item_tiles_m, item_tiles_n, out.group_m, tile_m, tile_n);
        if constexpr (cluster > 1) tile_m = tile_m * cluster + rank;
        const int m0 = tile_m * Policy::block_m, n0 = tile_n * bn;
        const int pa = product * out.batch_a, pb = product * out.batch_b;  // the third coordinate of each map
        for (int t = t_begin; t < t_end; ++t, ++use) {
          const int s = use % stages;
          // The stage's previous use (use - stages) must have been released: that completed its phase.
          if (use >= stages) arch::mbarrier_wait(&empty[s], ((use / stages) & 1) ^ 1);
          uint8_t* a = shared + s * Policy::stage_bytes;
          // Pointer arrays: a box wholly past the product's rows (columns) faults through an address map, where a map of
          // the product alone fills it with zeros (an H200: bench/results/h200-pointer-arrays-address-maps.txt), so
          // those boxes of an MN-major operand are not loaded. The stage keeps older data there, which reaches only
          // rows (columns) of C past the product's, never stored.
          constexpr int chunks_a = Policy::block_m / mn_chunk, chunks_b = bn / mn_chunk;
          [[maybe_unused]] const int boxes_a =
              pointer_arrays && mn_major_a ? boxes_inside(m0, out.m, mn_chunk, chunks_a) : chunks_a;
          [[maybe_unused]] const int boxes_b =
              pointer_arrays && mn_major_b ? boxes_inside(n0, out.n, mn_chunk, chunks_b) : chunks_b;
          if constexpr (pointer_arrays) {
            const int missing = (mn_major_a ? chunks_a - boxes_a : 0) + (mn_major_b ? chunks_b - boxes_b : 0);
            arch::mbarrier_arrive_expect_bytes(&full[s], Policy::stage_bytes - missing * chunk_bytes);
          } else {
            arch::mbarrier_arrive_expect_bytes(&full[s], Policy::stage_bytes);
          }
          if constexpr (mn_major_a) {
#pragma unroll
            for (int c = 0; c < chunks_a; ++c) {
              if (pointer_arrays && c >= boxes_a) break;
              load_box<pointer_arrays>(a + c * chunk_bytes, item_map_a, m0 + mn_chunk * c, t * bk, pa, at_a, &full[s]);
            }
          } else {
            load_box<pointer_arrays>(a, item_map_a, t * bk, m0, pa, at_a, &full[s]);
          }
          if constexpr (cluster > 1) {
            // This block's share of the B slice, into the same place in both blocks (which expect all of it).
            constexpr uint16_t both = (1u << cluster) - 1;
            if constexpr (mn_major_b) {
              static_assert(chunks_b % cluster == 0, "a cluster's blocks copy equal shares of B's boxes");
#pragma unroll
              for (int c = 0; c < chunks_b / cluster; ++c) {
                const int chunk = rank * (chunks_b / cluster) + c;
                arch::tma_load_3d_multicast(a + b_offset + chunk * chunk_bytes, item_map_b, n0 + mn_chunk * chunk,
                                            t * bk, pb, &full[s], both);
              }
            } else {  // map_b's boxes are bn / cluster lines of 128 bytes (the host encodes it so)
              constexpr int share = bn / cluster;
              arch::tma_load_3d_multicast(a + b_offset + rank * share * 128, item_map_b, t * bk, n0 + rank * share, pb,
                                          &full[s], both);
            }
          } else if constexpr (mn_major_b) {
#pragma unroll
            for (int c = 0; c < chunks_b; ++c) {
              if (pointer_arrays && c >= boxes_b) break;
              load_box<pointer_arrays>(a + b_offset + c * chunk_bytes, item_map_b, n0 + mn_chunk * c, t * bk, pb, at_b,
                                       &full[s]);
            }
          } else {
            load_box<pointer_arrays>(a + b_offset, item_map_b, t * bk, n0, pb, at_b, &full[s]);
          }
          if constexpr (Policy::split) {  // the small parts: the same tiles, further down the split copies
            arch::tma_load_3d(a + a_bytes, item_map_a, t * bk, m0 + out.small_line_a, pa, &full[s]);
            arch::tma_load_3d(a + b_offset + b_bytes, item_map_b, t * bk, n0 + out.small_line_b, pb, &full[s]);
          }
        }
      }
    }
  } else {
    arch::set_max_registers<232, true>();
    const int consumer = warpgroup - 1;
    const int strip = pingpong ? 0 : consumer;  // the consumer's 64 rows of the tile
    const int warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    const bool read_c = out.beta != 0.0f;
    // 16-bit C goes out through a staging buffer per warp (Policy::epilogue_bytes), as 16-byte pieces of its columns,
    // where C's pointer and leading dimension allow 16-byte stores: lanes writing 2-byte elements straight from the
    // accumulators would fill half of each 32-byte sector. Float C is written straight (8 rows of 4 bytes: whole
    // sectors already; staging it measured slower).
    using element_c = typename Policy::element_c;
    constexpr bool staged_epilogue = Policy::epilogue_bytes > 0;
    constexpr int columns = Policy::epilogue_columns, column_stride = Policy::epilogue_column_stride;
    static_assert(!staged_epilogue || (sizeof(element_c) == 2 && !Policy::split && bn % columns == 0 &&
                                       columns % 16 == 0),
                  "the staged epilogue writes 16-bit C in chunks of 16-column passes");
    float* staging = reinterpret_cast<float*>(epilogue_shared) + ((threadIdx.x - 128) / 32) * columns * column_stride;
    // With beta = 0 (out.tma_store), 16-bit C leaves through TMA stores instead: the warpgroup writes its 64 rows by
    // store_columns columns into its staging tile (column-major, 128-byte swizzled, as map_c's boxes lie), one thread
    // starts the copy, and the consumers go on to the next tile while the copy engine writes C. Before a tile is
    // written again, its last copy must have read it.
    constexpr int store_columns = Policy::epilogue_store_columns;
    constexpr bool tma_epilogue = store_columns > 0 && !SlicedK;
    uint8_t* const store_tile = epilogue_shared + consumer * Policy::epilogue_store_tile_bytes;
    const bool store_issuer = threadIdx.x % 128 == 0;
    const bool vector_c = reinterpret_cast<uintptr_t>(out.c) % 16 == 0 && (out.ldc * sizeof(element_c)) % 16 == 0 &&
                          (out.batch_stride_c * sizeof(element_c)) % 16 == 0;
    // A through registers (TF32, A stored along m): this thread's fragment elements (arch/wgmma.cuh) are rows
    // g and g + 8 of its warp's 16, columns t and t + 4 of each 8-deep k step. In the swizzled boxes, element (row,
    // k) sits at box row / 32, line k, 16-byte unit (row % 32) / 4 XOR k % 8, word row % 4; a k step is 8 lines
    // (1024 bytes) on, with the same XOR, so four offsets serve every step of every stage.
    [[maybe_unused]] uint32_t fragment_offset[4] = {};
    if constexpr (a_in_registers) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int row = strip * 64 + warp * 16 + lane / 4 + 8 * (r & 1), k = lane % 4 + 4 * (r >> 1);
        fragment_offset[r] = (row / 32) * chunk_bytes + k * 128 + ((((row % 32) / 4) ^ k) << 4) + (row % 4) * 4;
      }
    }
    int use = 0;  // as the producer counts
    [[maybe_unused]] int acquired_c = -1;  // device-side groups: the group whose C map the store issuer acquired last
    for (int item = walk_first<cluster>() + (pingpong ? consumer * walk_step<cluster>() : 0); item < items;
         item += (pingpong ? 2 : 1) * walk_step<cluster>()) {
      if constexpr (pingpong) {
        const int j = (item - walk_first<cluster>()) / walk_step<cluster>();  // the block's j-th item
        use = j * k_tiles;                                        // the stages of the items before it
        if (j > 0) arch::mbarrier_wait(&turn[consumer], ((j - 1) / 2) & 1);  // item j - 1 has its stages
      }
      int tile = item, t_begin = 0, t_end = k_tiles, slice = 0, product = 0;
      int item_tiles_m = rows_walked, item_tiles_n = tiles_n;
      [[maybe_unused]] const tma_wgmma_group<element_c>* item_group = nullptr;  // a grouped launch: the item's group
      [[maybe_unused]] bool group_vector_c = false;
      [[maybe_unused]] bool group_direct = false;  // device-side groups: see tma_wgmma_group::direct
      [[maybe_unused]] int group_m = 0, group_n = 0;  // device-side groups: the item's group's m and n (its summary)
      [[maybe_unused]] bool group_tma_store = false;  // device-side groups: C leaves through TMA stores (its summary)
      // Pointer arrays: the product's pointers, whether TMA stores its C, whether it runs the direct loop.
      [[maybe_unused]] tma_wgmma_pointer_product<element, element_c> pointers{};
      [[maybe_unused]] bool pointer_tma_store = false;
      if constexpr (SlicedK) {
        slice = slice_of(item, tiles, k_tiles, out.slice_steps, tile, t_begin, t_end);
      } else if constexpr (device_groups) {
        const int index = groups.index_of(item, group_table);
        const group_summary g = groups.summary_of(index, group_table);
        if (g.m == 0) continue;  // as the producer skips it
        item_group = groups.group + index;
        tile = item - g.first_item;
        group_m = g.m, group_n = g.n, group_direct = g.direct != 0, group_tma_store = g.tma_store != 0;
        // C's map, made on the GPU too (kernel::prepare_device_groups), acquired before the main loop, where the
        // fence's wait hides, and once per group.
        if (store_issuer && group_tma_store && index != acquired_c) {
          acquire_tensor_map(&item_group->map_c);
          acquired_c = index;
        }
        item_tiles_m = (g.m + Policy::block_m - 1) / Policy::block_m;
        item_tiles_n = (g.n + bn - 1) / bn;
        t_end = (g.k + bk - 1) / bk;
        group_vector_c =
            reinterpret_cast<uintptr_t>(item_group->c) % 16 == 0 && (item_group->ldc * sizeof(element_c)) % 16 == 0;
      } else if constexpr (Grouped) {
        item_group = &groups.of(item);
        tile = item - item_group->first_item;
        item_tiles_m = (item_group->m + Policy::block_m - 1) / Policy::block_m;
        item_tiles_n = (item_group->n + bn - 1) / bn;
        t_end = (item_group->k + bk - 1) / bk;
        group_vector_c =
            reinterpret_cast<uintptr_t>(item_group->c) % 16 == 0 && (item_group->ldc * sizeof(element_c)) % 16 == 0;
      } else {
        product = item / tiles, tile = item - product * tiles;
        if constexpr (pointer_arrays) {
          pointers = groups.product(product, out.k);
          if (pointers.skipped) continue;  // as the producer skips it
          const bool aligned_c = reinterpret_cast<uintptr_t>(pointers.c) % 16 == 0;
          group_vector_c = vector_c && aligned_c;
          pointer_tma_store = out.tma_store && aligned_c;
        }
      }
      // What the epilogue reads of the product: a field of out, or in a grouped launch of the item's group. Read where
      // used, as out's fields were before there were groups: the other instantiations' SASS stayed the same that way
      // (local copies or lambdas made ptxas schedule their epilogues differently).
#define TGEMM_PRODUCT(field) (Grouped ? item_group->field : out.field)
      // C's extents: device-side groups have them from the summary (no global-memory read at the tile's end).
#define TGEMM_PRODUCT_EXTENT(field) (device_groups ? group_##field : TGEMM_PRODUCT(field))
      // The slice's partial (SlicedK), or the product's C.
      element_c* const c_out =
          pointer_arrays ? pointers.c
                         : TGEMM_PRODUCT(c) + int64_t(slice) * out.slice_stride + int64_t(product) * out.batch_stride_c;

      int tile_m, tile_n;
      wgmma_tile(tile, item_tiles_m, item_tiles_n, out.group_m, tile_m, tile_n);
      if constexpr (cluster > 1) tile_m = tile_m * cluster + rank;
      // The tile's sums: wgmma's accumulators, except for 3xTF32, whose error would be the tensor cores' additions
      // (on an H200 at k = 1024: 12x strict FP32's error with every product in one accumulator, 4x with the cross
      // products apart). There each stage's big products start afresh in `part` and are added to acc in FP32, and
      // the cross products (2^-11 of them) sum in acc_small; the sums meet in the epilogue.
      // The warp's first row and the tile's first column.
      const int64_t row0 = int64_t(tile_m) * Policy::block_m + strip * 64 + warp * 16;
      const int64_t col0 = int64_t(tile_n) * bn;
      // A product TMA cannot read (only the GPU saw its pointers): the direct loop, without the stages.
      if constexpr (device_groups) {
        if (group_direct) {
          direct_strip<Policy, OpA, OpB>(static_cast<const element*>(item_group->a), item_group->lda,
                                         static_cast<const element*>(item_group->b), item_group->ldb, item_group->k,
                                         item_group->c, item_group->ldc, group_m, group_n, item_group->alpha,
                                         item_group->beta, int64_t(tile_m) * Policy::block_m + strip * 64, col0);
          continue;
        }
      } else if constexpr (pointer_arrays) {
        if (pointers.direct) {
          direct_strip<Policy, OpA, OpB>(pointers.a, groups.lda, pointers.b, groups.ldb, out.k, c_out, out.ldc, out.m,
                                         out.n, out.alpha, out.beta, int64_t(tile_m) * Policy::block_m + strip * 64,
                                         col0);
          continue;
        }
      }
      // A fused epilogue: the factors (alpha folded in) and biases of this thread's rows of the tile (rows g and g + 8
      // of the warp's 16: arch/wgmma.cuh's accumulator layout), read before the main loop so that their latency
      // hides behind it (four registers; the terms' pointers are read again after it).
      [[maybe_unused]] device::preloaded_terms<float> fused_rows[2];
      if constexpr (Fused) {
        const device::epilogue_terms_t<element_c, float, User> terms = out.terms.product(product);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          fused_rows[h] = device::row_terms<float>(terms, row0 + lane / 4 + 8 * h, out.m);
          fused_rows[h].scale *= out.alpha;
        }
      }
      constexpr int split_count = Policy::split ? bn / 2 : 1;
      float acc[bn / 2], part[split_count], acc_small[split_count];
#pragma unroll
      for (int i = 0; i < bn / 2; ++i) acc[i] = 0.0f;
#pragma unroll
      for (int i = 0; i < split_count; ++i) acc_small[i] = 0.0f;
      for (int t = t_begin; t < t_end; ++t, ++use) {
        const int s = use % stages;
        arch::mbarrier_wait(&full[s], (use / stages) & 1);
        const uint32_t a = arch::shared_address(shared + s * Policy::stage_bytes) + strip * strip_bytes;
        const uint32_t b = arch::shared_address(shared + s * Policy::stage_bytes + b_offset);
        if constexpr (Policy::split) {
          arch::wgmma_fence_registers(part);
          arch::wgmma_fence_registers(acc_small);
        } else {
          arch::wgmma_fence_registers(acc);
        }
        [[maybe_unused]] uint32_t fragment[4][4];  // A's registers for the stage's four k steps (a_in_registers)
        if constexpr (a_in_registers) {
          const uint8_t* stage_a = shared + s * Policy::stage_bytes;
#pragma unroll
          for (int step = 0; step < 4; ++step) {
#pragma unroll
            for (int r = 0; r < 4; ++r) {
              fragment[step][r] = *reinterpret_cast<const uint32_t*>(stage_a + fragment_offset[r] + step * 1024);
            }
          }
        }
        arch::wgmma_fence();  // after this stage's writes of the accumulators and of A's registers
#pragma unroll
        for (int step = 0; step < 4; ++step) {
          // One instruction's k (16 elements, 8 TF32): 32 bytes along a K-major tile's swizzled rows, 16 lines (2048
          // bytes) of an MN-major one.
          const uint64_t desc_a = mn_major_a ? arch::wgmma_descriptor_mn_major_sw128(a + step * 2048, chunk_bytes)
                                             : arch::wgmma_descriptor_k_major_sw128(a + step * 32);
          const uint64_t desc_b = mn_major_b ? arch::wgmma_descriptor_mn_major_sw128(b + step * 2048, chunk_bytes)
                                             : arch::wgmma_descriptor_k_major_sw128(b + step * 32);
          if constexpr (Policy::split) {  // 3xTF32: the two cross products of big and small parts, then big x big
            arch::wgmma_m64_step<element, bn>(acc_small,
                                              arch::wgmma_descriptor_k_major_sw128(a + a_bytes + step * 32), desc_b, 1);
            arch::wgmma_m64_step<element, bn>(acc_small, desc_a,
                                              arch::wgmma_descriptor_k_major_sw128(b + b_bytes + step * 32), 1);
            arch::wgmma_m64_step<element, bn>(part, desc_a, desc_b, step > 0);
          } else if constexpr (a_in_registers) {
            arch::wgmma_m64k8_tf32_registers<bn>(acc, fragment[step], desc_b, 1);
          } else {
            arch::wgmma_m64_step<element, bn, mn_major_a, mn_major_b>(acc, desc_a, desc_b, 1);
          }
        }
        arch::wgmma_commit();
        if constexpr (overlap_stages) {
          // This stage's wgmmas stay in flight while the next stage's are issued: wait only for the previous
          // stage's, and release that one.
          arch::wgmma_wait<1>();
          arch::wgmma_fence_registers(acc);
          if (t > t_begin && threadIdx.x % 128 == 0) release_stage<cluster>(&empty[(use + stages - 1) % stages]);
          continue;
        }
        arch::wgmma_wait<0>();
        if constexpr (a_in_registers) {  // the wgmmas read A's registers until now: keep them alive that long
#pragma unroll
          for (int step = 0; step < 4; ++step) arch::wgmma_fence_registers(fragment[step]);
        }
        if constexpr (Policy::split) {
          arch::wgmma_fence_registers(part);
          arch::wgmma_fence_registers(acc_small);
#pragma unroll
          for (int i = 0; i < split_count; ++i) acc[i] += part[i];
        } else {
          arch::wgmma_fence_registers(acc);
        }
        if (threadIdx.x % 128 == 0) release_stage<cluster>(&empty[s]);
      }
      if constexpr (pingpong) {  // every stage of this item has landed: the other consumer's turn
        if (threadIdx.x % 128 == 0) arch::mbarrier_arrive(&turn[1 - consumer]);
      }
      if constexpr (overlap_stages) {  // the tile's last stage: its wgmmas done, its slot released
        arch::wgmma_wait<0>();
        arch::wgmma_fence_registers(acc);
        if (t_end > t_begin && threadIdx.x % 128 == 0) release_stage<cluster>(&empty[(use + stages - 1) % stages]);
      }
      if constexpr (cluster > 1) {
        if (tile_m >= tiles_m) continue;  // the pair's second row past C (see above): nothing to store
      }
      // The producer meanwhile fills the stages with the next tile's slices.
      if constexpr (Fused) {
        // A fused epilogue: its terms for this product (read after the main loop, so that their pointers are not held
        // in registers through it), and the tile's stores (store_fused_tile).
        const device::epilogue_terms_t<element_c, float, User> terms = out.terms.product(product);
        store_fused_tile<Policy, tma_epilogue>(out, terms, fused_rows, acc, acc_small, c_out, row0, col0, tile_m,
                                               product, consumer, warp, lane, read_c, store_tile, store_issuer, map_c);
        continue;
      }
      if constexpr (tma_epilogue) {
        // Device-side groups: the flag from the summary in shared memory and the launch's alpha, so that the tile's
        // end waits on no global-memory read.
        if (pointer_arrays ? pointer_tma_store : device_groups ? group_tma_store : bool(TGEMM_PRODUCT(tma_store))) {
          const float alpha = device_groups ? out.alpha : TGEMM_PRODUCT(alpha);
#pragma unroll
          for (int pass = 0; pass < bn / store_columns; ++pass) {
            if (store_issuer) arch::tma_store_wait_read<0>();
            arch::named_barrier_sync(1 + consumer, 128);  // the tile's last copy has read it
#pragma unroll
            for (int group = 0; group < store_columns / 16; ++group) {
              // Four 8 x 8 matrices: rows 8h .. 8h + 7 of the warp's 16 by 8-column chunks j and j + 1 (accumulators
              // 4j + 2h, 4j + 2h + 1: arch/wgmma.cuh). Lane L stores column 16 group + 8 ((L / 8) / 2) + L % 8 of the
              // pass, rows 16 warp + 8 ((L / 8) % 2) ..: its 16-byte unit 2 warp + (L / 8) % 2 of the column's 128
              // bytes, XOR the column % 8 (the 128-byte swizzle).
              const int j = pass * (store_columns / 8) + 2 * group;
              uint32_t packed[4];
#pragma unroll
              for (int i = 0; i < 4; ++i) {
                const int index = 4 * (j + i / 2) + 2 * (i % 2);
                packed[i] = pack_pair<element_c>(alpha * acc[index], alpha * acc[index + 1]);
              }
              const int matrix = lane / 8, column = 16 * group + 8 * (matrix / 2) + lane % 8;
              const int unit = (2 * warp + matrix % 2) ^ (column % 8);
              arch::stmatrix_x4_transposed(store_tile + column * 128 + unit * 16, packed);
            }
            arch::fence_proxy_async_shared();
            arch::named_barrier_sync(1 + consumer, 128);  // the whole staging tile is written
            if (store_issuer) {
              // A grouped launch's maps are each product's own, rank 2; pointer arrays' is an address map; the others'
              // are rank 3 (the batch).
              const int store_row = int(tile_m) * Policy::block_m + strip * 64;
              const int store_col = int(col0) + pass * store_columns;
              if constexpr (Grouped) {
                arch::tma_store_2d(&item_group->map_c, store_tile, store_row, store_col);
              } else if constexpr (pointer_arrays) {
                // Not a box wholly past C's rows or columns (see the producer's loads).
                if (store_row < out.m && store_col < out.n) {
                  arch::tma_store_4d(&map_c, store_tile, store_row, store_col, arch::coordinates_of(c_out));
                }
              } else {
                arch::tma_store_3d(&map_c, store_tile, store_row, store_col, product);
              }
              arch::tma_store_commit();
            }
          }
          continue;
        }
      }
      if (staged_epilogue && !Fused && (Grouped || pointer_arrays ? group_vector_c : vector_c) &&
          row0 + 16 <= TGEMM_PRODUCT_EXTENT(m)) {
        // 32 columns at a time: the warp writes its accumulators (wgmma's layout, arch/wgmma.cuh: rows g and g + 8
        // of its 16, columns 2t and 2t + 1 of each 8) into its staging buffer as floats, then each lane reads back
        // 8 rows of a column and writes them as 16 contiguous bytes of C (C column-major), reading C there first
        // when beta is not 0.
#pragma unroll
        for (int chunk = 0; chunk < bn / columns; ++chunk) {
#pragma unroll
          for (int j = 0; j < columns / 8; ++j) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
#pragma unroll
              for (int e = 0; e < 2; ++e) {
                staging[(8 * j + 2 * (lane % 4) + e) * column_stride + lane / 4 + 8 * h] =
                    acc[4 * (chunk * columns / 8 + j) + 2 * h + e];
              }
            }
          }
          __syncwarp();
#pragma unroll
          for (int pass = 0; pass < columns / 16; ++pass) {
            const int column = pass * 16 + lane / 2, half = lane % 2;  // two 8-row halves per column
            const int64_t col = col0 + chunk * columns + column;
            const float4 low = *reinterpret_cast<const float4*>(staging + column * column_stride + 8 * half);
            const float4 high = *reinterpret_cast<const float4*>(staging + column * column_stride + 8 * half + 4);
            const float value[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
            if (col < TGEMM_PRODUCT_EXTENT(n)) {
              element_c* c = c_out + (row0 + 8 * half) + col * TGEMM_PRODUCT(ldc);
              alignas(16) element_c piece[8];
              if ((Grouped ? item_group->beta != 0.0f : read_c)) {
                *reinterpret_cast<uint4*>(piece) = *reinterpret_cast<const uint4*>(c);
              }
#pragma unroll
              for (int q = 0; q < 8; ++q) {
                const float scaled = TGEMM_PRODUCT(alpha) * value[q];
                piece[q] = convert<element_c>((Grouped ? item_group->beta != 0.0f : read_c)
                                                  ? scaled + TGEMM_PRODUCT(beta) * convert<float>(piece[q])
                                                  : scaled);
              }
              *reinterpret_cast<uint4*>(c) = *reinterpret_cast<const uint4*>(piece);
            }
          }
          __syncwarp();  // the buffer is read before the next chunk overwrites it
        }
        continue;
      }
      // Straight from the accumulators: each lane writes rows g and g + 8, columns 2t and 2t + 1 of each 8.
#pragma unroll
      for (int j = 0; j < bn / 8; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int64_t row = row0 + lane / 4 + 8 * h, col = col0 + 8 * j + 2 * (lane % 4) + e;
            if (row < TGEMM_PRODUCT_EXTENT(m) && col < TGEMM_PRODUCT_EXTENT(n)) {
              element_c* c = c_out + row + col * TGEMM_PRODUCT(ldc);
              // alpha acc + beta C written out here rather than through device/epilogue.cuh's combine (the same
              // arithmetic): combine's "C or zero" argument cost 1.7-1.9 % at 4096^3 and 8192^3 (paired runs).
              const int i = 4 * j + 2 * h + e;
              float sum = acc[i];
              if constexpr (Policy::split) sum += finite_or_zero(acc_small[i]);  // numeric.cuh: why
              const float scaled = TGEMM_PRODUCT(alpha) * sum;
              *c = convert<element_c>((Grouped ? item_group->beta != 0.0f : read_c)
                                          ? scaled + TGEMM_PRODUCT(beta) * convert<float>(*c)
                                          : scaled);
            }
          }
        }
      }
    }
#undef TGEMM_PRODUCT_EXTENT
#undef TGEMM_PRODUCT
    if constexpr (tma_epilogue) {
      if (store_issuer) arch::tma_store_wait<0>();  // the staging tiles must outlive the copies reading them
    }
  }
  if constexpr (cluster > 1) {
    // No block leaves while the other may still arrive on its barriers (its consumers' last releases).
    arch::cluster_sync();
  }
#else
  // Other images: the host never launches this (see wgmma_image_probe).
  (void)map_a, (void)map_b, (void)map_c, (void)out, (void)groups;
#endif
}

}  // namespace tgemm::kernel
