/// \file host/launch_tma_wgmma.cuh
/// \brief Running the Hopper kernels (kernel/gemm_tma_wgmma.cuh): the image check, tensor maps and launch that
/// tgemm::gemm()'s plans use on sm_90a (detail::wgmma_kernels), and tgemm::experimental::gemm_tma_wgmma<Policy>(),
/// one fixed policy with gemm()'s arguments (any storage order and op pair for 16-bit policies, the pairs with
/// op(B) = B in column-major form for TF32 ones; any size; A and B as TMA reads them).
/// Arguments are checked as gemm() checks them, and a GPU or a build that cannot run the kernel gets a named status.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../kernel/gemm_tma_wgmma.cuh"
#include "../kernel/prepare_device_groups.cuh"
#include "../kernel/split_tf32.cuh"
#include "../status.cuh"
#include "../tuning/simt_f32.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "cuda_status.cuh"
#include "device_scope.cuh"
#include "launcher.cuh"

namespace tgemm {
namespace detail {

/// Whether `device` (current) runs the image of this program that holds the wgmma kernels' code (sm_90a): read
/// from the image probe's static shared memory, with no stream work (safe inside a stream capture).
inline status read_wgmma_image(int device, bool& present) {
  present = false;
  cudaFuncAttributes attributes{};
  if (const cudaError_t error = cudaFuncGetAttributes(&attributes, kernel::wgmma_image_probe<0>); error != cudaSuccess) {
    return fail_cuda(error, device, "reading which image of the Hopper kernels the device runs");
  }
  present = attributes.sharedSizeBytes >= size_t(kernel::wgmma_image_marker_bytes);
  return status::success;
}

/// Whether the image `device` runs holds the sm_90a code of the Hopper kernels, as a status naming what is missing.
inline status check_tma_wgmma_image(int device) {
  int arch = 0;
  if (const cudaError_t error = read_compute_capability(device, arch); error != cudaSuccess) {
    return fail_cuda(error, device, "reading the compute capability");
  }
  if (arch != 900) {  // wgmma exists on sm_90 only (read_compute_capability gives 100 x major + 10 x minor)
    return fail(status::unsupported_device, cudaSuccess,
                "the Hopper kernel needs an sm_90 GPU (wgmma); device %d is sm_%d", device, arch / 10);
  }
  bool present = false;
  if (status s = read_wgmma_image(device, present); s != status::success) return s;
  if (!present) {
    return fail(status::arch_not_compiled, cudaSuccess,
                "device %d runs an image without the Hopper kernel's code: build for sm_90a "
                "(-gencode arch=compute_90a,code=sm_90a), not only sm_90 or older",
                device);
  }
  return status::success;
}

/// The Hopper kernels of one policy, one per op pair of the column-major call that it reads (TF32: op(B) = B;
/// 3xTF32: its K-major split copies, op(A) = A^T too): made ready and launched for a block of C. The operands'
/// layouts decide the tensor maps (kernel/gemm_tma_wgmma.cuh).
template <class Policy>
struct wgmma_kernels {
  using A = typename Policy::element_a;
  using B = typename Policy::element_b;
  using C = typename Policy::element_c;

  /// Whether the unsplit kernel's epilogue leaves C (m rows, column-major) to TMA stores (kernel/gemm_tma_wgmma.cuh):
  /// a 16-bit C, beta = 0 (C not read), C as TMA can describe it (kernel::tma_can_store_c: 16-byte aligned, ldc a
  /// multiple of 16 bytes, and m a multiple of 16 bytes too: on an H200 a TMA store clipped at m = 129 still wrote
  /// rows 129 to 135 (up to the next 16 bytes; measured by the padding checks of test/gpu/wgmma_test.cu), which may
  /// lie past C's allocation). Elsewhere the kernel writes C itself.
  static bool stores_through_tma(const C* c, int64_t m, int64_t ldc, float beta) {
    return Policy::epilogue_store_columns > 0 && beta == 0.0f && kernel::tma_can_store_c(c, m, ldc);
  }

  /// Makes the unsplit kernel for (op_a, op_b) ready on `device`.
  /// Fused: the kernel with a fused epilogue (device::epilogue_terms; User: with a caller's operation) instead.
  template <bool Fused = false, class User = device::no_user_op>
  static status prepare(op op_a, op op_b, int device) {
    return with_ops(op_a, op_b, [&](auto a, auto b) {
      return prepare_one<decltype(a)::value, decltype(b)::value, false, Fused, User>(device);
    });
  }

  /// Makes the split-K kernel for (op_a, op_b) ready on `device` (float C policies other than 3xTF32's: the
  /// partials' policy, wgmma_partials_t of a table's). Its own function, so that only the plans that split k
  /// instantiate it (a run-time flag compiled the split-K kernel of every float C policy, the small tile's too).
  static status prepare_sliced(op op_a, op op_b, int device) {
    static_assert(std::is_same<C, float>::value && !Policy::split,
                  "split-K partials are float and 3xTF32 plans do not split k: use the float C policy");
    return with_ops(op_a, op_b, [&](auto a, auto b) {
      return prepare_one<decltype(a)::value, decltype(b)::value, true>(device);
    });
  }

  /// C (m x n, ldc) = alpha op(A) op(B) + beta C for operands TMA can read (16-byte aligned, leading dimensions
  /// multiples of 16 bytes), extents below 2^31 - 256 and fewer than 2^31 tiles (tiles_fit); k = 0 computes
  /// C = beta C without reading A or B (their maps stay empty). `blocks` caps the grid (0: one block per tile;
  /// the multiprocessor count: persistent blocks), `group_m` is the tile order's group height (kernel::wgmma_tile).
  /// prepare() must have succeeded. A 3xTF32 policy (Policy::split) reads split copies (kernel::split_tf32_k_major):
  /// `a` holds m lines of big parts then m lines of small parts, `b` likewise with n.
  /// With `batch` (more than one product): every product of a strided batch in the one grid, the blocks walking
  /// (product, tile) work items; the strides keep every product's A and B as TMA needs them (multiples of 16 bytes,
  /// or 0 for one A or B). C leaves through TMA stores as a single product's does where its stride allows them too
  /// (a multiple of 16 bytes, products apart); otherwise the kernel writes it itself. Fewer than 2^31 work items.
  /// Fused: the kernel with a fused epilogue, `terms` relative to this C (prepare<true, User>() made it ready).
  template <bool Fused = false, class User = device::no_user_op>
  static status launch(op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const A* a, int64_t lda,
                       const B* b, int64_t ldb, float beta, C* c, int64_t ldc, int64_t blocks, int group_m,
                       cudaStream_t stream, int device, const batch_shape& batch = batch_shape{},
                       const device::epilogue_terms_t<C, float, User>& terms = {}) {
    return run<false, Fused, User>(op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 0, 0, blocks,
                                   group_m, stream, device, batch, terms);
  }

  /// Split-K: the product of each of `slices` slices of k (k_per_slice deep, a multiple of block_k; the last may be
  /// shorter) written to its own m x n partial at partials + slice x slice_stride (leading dimension ld_partials),
  /// unscaled; a reduction adds them into C. Float C policies only (Policy is the partials' policy,
  /// wgmma_partials_t of the table's); prepare_sliced(op_a, op_b, device) must have succeeded.
  static status launch_sliced(op op_a, op op_b, int64_t m, int64_t n, int64_t k, const A* a, int64_t lda,
                              const B* b, int64_t ldb, C* partials, int64_t ld_partials, int64_t slices,
                              int64_t k_per_slice, int64_t slice_stride, int64_t blocks, int group_m,
                              cudaStream_t stream, int device) {
    return run<true>(op_a, op_b, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, partials, ld_partials, slices, k_per_slice,
                     slice_stride, blocks, group_m, stream, device);
  }

 private:
  /// Encodes the map through which the kernel reads op(A) (mn = m rows, k deep, leading dimension ld; block_mn =
  /// block_m) or op(B) (mn = n columns; block_n): an operand read along k (`k_major`: op(A) = A^T, op(B) = B) as k
  /// contiguous, Policy::operand_parts lines per row (3xTF32's split copies) in boxes of block_mn lines; one read along
  /// mn as mn contiguous, one line per k, in boxes of block_k lines. `batches` and `stride` as
  /// arch::encode_sw128_map takes them (one matrix by default).
  template <class T>
  static bool encode_operand(CUtensorMap& map, bool k_major, const T* base, int64_t mn, int64_t k, int64_t ld,
                             int block_mn, int64_t batches = 1, int64_t stride = 0) {
    return k_major ? arch::encode_sw128_map(map, base, k, Policy::operand_parts * mn, ld, block_mn, batches, stride)
                   : arch::encode_sw128_map(map, base, mn, k, ld, Policy::block_k, batches, stride);
  }

  /// encode_operand() as an address map (arch::encode_sw128_address_map): every matrix of that shape in memory.
  template <class T>
  static bool encode_address_operand(CUtensorMap& map, bool k_major, int64_t mn, int64_t k, int64_t ld, int block_mn) {
    return k_major ? arch::encode_sw128_address_map<T>(map, k, Policy::operand_parts * mn, ld, block_mn)
                   : arch::encode_sw128_address_map<T>(map, mn, k, ld, Policy::block_k);
  }

  template <op OpA, op OpB, bool Sliced, bool Fused = false, class User = device::no_user_op>
  static status prepare_one(int device) {
    static_assert(!Sliced || std::is_same<C, float>::value, "split-K partials are float: use the float C policy");
    constexpr auto function =
        &kernel::gemm_tma_wgmma<Policy, OpA, OpB, Sliced, Fused, kernel::tma_wgmma_no_groups, User>;
    return prepare_kernel_once<function>(device, Policy::shared_bytes, [] {
      return std::string(Sliced ? "the split-K Hopper kernel" : Fused ? "the fused Hopper kernel" : "the Hopper kernel") +
             " of policy " + Policy::name();
    });
  }

  template <bool Sliced, bool Fused = false, class User = device::no_user_op>
  static status run(op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const A* a, int64_t lda,
                    const B* b, int64_t ldb, float beta, C* c, int64_t ldc, int64_t slices, int64_t k_per_slice,
                    int64_t slice_stride, int64_t blocks, int group_m, cudaStream_t stream, int device,
                    const batch_shape& batch = batch_shape{},
                    const device::epilogue_terms_t<C, float, User>& terms = {}) {
    CUtensorMap map_a{}, map_b{};
    const bool k_major_a = op_a == op::transpose, k_major_b = op_b == op::none;
    // Clusters: each block of a pair copies half of each B slice, so a K-major B's boxes are half as tall.
    constexpr int cluster = Policy::cluster_m;
    // Rank-3 maps: the third dimension walks a strided batch's products (one matrix for a single GEMM, or for an
    // operand every product shares).
    const int64_t products = batch.count > 1 ? batch.count : 1;
    const int64_t batches_a = products > 1 && batch.stride_a != 0 ? products : 1;
    const int64_t batches_b = products > 1 && batch.stride_b != 0 ? products : 1;
    const bool encoded =
        k == 0 ||
        (encode_operand(map_a, k_major_a, a, m, k, lda, Policy::block_m, batches_a, batch.stride_a) &&
         encode_operand(map_b, k_major_b, b, n, k, ldb, Policy::block_n / cluster, batches_b, batch.stride_b));
    if (!encoded) {
      return fail(status::cuda_error, cudaSuccess,
                  "the driver refused a tensor map (cuTensorMapEncodeTiled) for %lld x %lld x %lld, lda %lld, ldb %lld",
                  (long long)m, (long long)n, (long long)k, (long long)lda, (long long)ldb);
    }
    // 16-bit C with beta = 0 leaves through TMA stores where TMA can describe C (see the kernel); elsewhere, or where
    // the driver refuses the map, the kernel writes C itself. The map is rank 3, a batch's products its third
    // dimension: their C must lie apart (the stride at least ldc x n, the driver's layout of a tensor) and start on
    // 16-byte boundaries. On an H200 (tgemm::gemm_strided_batched() before and after in one device call, queued
    // launches, medians of 30; bench/results/h200-strided-batched-tma-store.txt) bf16 96 x (512, 512, 64) went from
    // 0.0365 to 0.0219 ms (k = 64: the epilogue is most of the time), 16 x 1024^3 0.0643 -> 0.0540, 256 x 128^3
    // 0.0181 -> 0.0150.
    CUtensorMap map_c{};
    bool tma_store = false;
    if constexpr (Policy::epilogue_store_columns > 0 && !Sliced) {
      const bool c_apart =
          products == 1 || (batch.stride_c >= ldc * n && (batch.stride_c * int64_t(sizeof(C))) % 16 == 0);
      tma_store = c_apart && stores_through_tma(c, m, ldc, beta) && m > 0 && n > 0 &&
                  arch::encode_sw128_map(map_c, c, m, n, ldc, Policy::epilogue_store_columns, products,
                                         products > 1 ? batch.stride_c : 0);
    }
    kernel::tma_wgmma_output<C, User> out{c,
                                          ldc,
                                          int(m),
                                          int(n),
                                          int(k),
                                          alpha,
                                          beta,
                                          group_m > 0 ? (group_m + cluster - 1) / cluster : 1,  // pairs of rows
                                          Policy::split ? int(m) : 0,
                                          Policy::split ? int(n) : 0,
                                          int(slices),
                                          int(Sliced ? k_per_slice / Policy::block_k : 0),
                                          slice_stride,
                                          tma_store ? 1 : 0,
                                          int(products),
                                          batches_a > 1 ? 1 : 0,
                                          batches_b > 1 ? 1 : 0,
                                          products > 1 ? batch.stride_c : 0,
                                          {}};
    if constexpr (Fused) out.terms = terms;
    // Ping-pong blocks compute two work items at a time, one per consumer. Clusters walk pairs of tile rows.
    const int64_t items = walked_rows(m) * tiles_n(n) * slices * products;
    const int64_t block_items = Policy::pingpong ? (items + 1) / 2 : items;
    return with_ops(op_a, op_b, [&](auto oa, auto ob) {
      // Made ready here too, on the very kernel launched: a translation unit that instantiates these kernels (a
      // compiled-mode caller of the experimental entry, say) registers its own copy of them with the runtime, and
      // prepare() may have run in another unit's inline copy of this class. Once ready, one atomic load.
      constexpr op oa_value = decltype(oa)::value, ob_value = decltype(ob)::value;
      if (status s = prepare_one<oa_value, ob_value, Sliced, Fused, User>(device); s != status::success) return s;
      constexpr auto function =
          &kernel::gemm_tma_wgmma<Policy, oa_value, ob_value, Sliced, Fused, kernel::tma_wgmma_no_groups, User>;
      if constexpr (cluster > 1) {
        // `blocks` asks for a persistent grid: as many pairs as it allows and as run at once, at most one per item.
        int64_t pairs = block_items;
        if (blocks > 0) {
          int active = 0;
          const status s = active_clusters<function, cluster>(device, dim3(Policy::threads), Policy::shared_bytes,
                                                              active);
          if (s != status::success) {
            return s;
          }
          const int64_t wanted = blocks / cluster > 0 ? blocks / cluster : 1;
          pairs = std::min({pairs, wanted, int64_t(active)});
        }
        return launch_kernel_in_clusters(function, dim3(unsigned(pairs * cluster)), dim3(Policy::threads),
                                         Policy::shared_bytes, dim3(cluster, 1, 1), stream, device,
                                         "launching the Hopper kernel in clusters", map_a, map_b, map_c, out,
                                         kernel::tma_wgmma_no_groups{});
      } else {
        const dim3 grid(unsigned(blocks > 0 && blocks < block_items ? blocks : block_items));
        return launch_kernel(function, grid, dim3(Policy::threads), Policy::shared_bytes, stream, device,
                             "launching the Hopper kernel", map_a, map_b, map_c, out, kernel::tma_wgmma_no_groups{});
      }
    });
  }

  template <op OpA, op OpB>
  static status prepare_grouped_one(int device) {
    constexpr auto function = &kernel::gemm_tma_wgmma<Policy, OpA, OpB, false, false, kernel::tma_wgmma_groups<C>>;
    return prepare_kernel_once<function>(device, Policy::shared_bytes,
                                         [] { return "the grouped Hopper kernel of policy " + Policy::name(); });
  }

 public:
  /// Makes the 3xTF32 split kernel for a source stored along k (or mn) ready on `device` (3xTF32 policies only).
  static status prepare_split(bool contiguous_k, int device) {
    static_assert(Policy::split, "only a 3xTF32 policy reads split operands");
    constexpr auto along_k = &kernel::split_tf32_k_major<true>, along_mn = &kernel::split_tf32_k_major<false>;
    return contiguous_k ? prepare_kernel_once<along_k>(device, 0, "the 3xTF32 operand-splitting kernel")
                        : prepare_kernel_once<along_mn>(device, 0, "the 3xTF32 operand-splitting kernel");
  }

  /// Splits an extent_mn x extent_k float operand (source stored along k when `contiguous_k`, leading dimension
  /// `ld`) into the big and small TF32 parts the 3xTF32 kernel reads (kernel::split_tf32_k_major), at `to` with
  /// leading dimension ld_to, on a grid of grid_x x grid_y blocks. prepare_split() must have succeeded.
  static status launch_split(bool contiguous_k, const float* source, int64_t ld, int64_t extent_mn, int64_t extent_k,
                             float* to, int64_t ld_to, int64_t grid_x, int64_t grid_y, cudaStream_t stream,
                             int device) {
    static_assert(Policy::split, "only a 3xTF32 policy reads split operands");
    const dim3 grid{unsigned(grid_x), unsigned(grid_y)}, block{kernel::pack_tile, kernel::pack_rows};
    void (*const split)(const float*, int64_t, int64_t, int64_t, float*, int64_t) =
        contiguous_k ? &kernel::split_tf32_k_major<true> : &kernel::split_tf32_k_major<false>;
    return launch_kernel(split, grid, block, 0, stream, device, "launching the 3xTF32 operand-splitting kernel",
                         source, ld, extent_mn, extent_k, to, ld_to);
  }

  /// Makes the grouped kernel for (op_a, op_b) ready on `device` (16-bit policies: the kernel takes every op pair).
  static status prepare_grouped(op op_a, op op_b, int device) {
    static_assert(Policy::reads_mn_major_a && Policy::reads_mn_major_b && !Policy::split,
                  "grouped launches take 16-bit policies, whose kernel reads every op pair");
    return with_ops(op_a, op_b, [&](auto a, auto b) {
      return prepare_grouped_one<decltype(a)::value, decltype(b)::value>(device);
    });
  }

  /// The products groups[0 .. count) (1 <= count <= kernel::tma_wgmma_group_capacity; each with m, n, k >= 1 below
  /// 2^31 - 256, operands as TMA reads them, fewer than 2^31 tiles together), all with the op pair (op_a, op_b), in
  /// one launch of the grouped kernel: the blocks (at most `blocks`, 0: one per tile) walk every product's tiles, in
  /// the tile order of group_m within each. Each product's maps are encoded here, as launch() encodes them, and go
  /// to the kernel as its parameter. A Group has the column-major form's m, n, k, alpha, a, lda, b, ldb, beta, c and
  /// ldc (detail::hopper_group_arguments). prepare_grouped() must have succeeded.
  template <class Group>
  static status launch_grouped(op op_a, op op_b, const Group* groups, int count, int64_t blocks, int group_m,
                               cudaStream_t stream, int device) {
    static_assert(!Policy::split, "grouped launches take 16-bit policies");
    kernel::tma_wgmma_groups<C> list{};
    list.count = count;
    int64_t items = 0;
    for (int i = 0; i < count; ++i) {
      const Group& g = groups[i];
      kernel::tma_wgmma_group<C>& to = list.group[i];
      const bool encoded =
          encode_operand(to.map_a, op_a == op::transpose, g.a, g.m, g.k, g.lda, Policy::block_m) &&
          encode_operand(to.map_b, op_b == op::none, g.b, g.n, g.k, g.ldb, Policy::block_n);
      if (!encoded) {
        return fail(status::cuda_error, cudaSuccess,
                    "the driver refused a tensor map (cuTensorMapEncodeTiled) for product %d of a grouped launch, "
                    "%lld x %lld x %lld, lda %lld, ldb %lld",
                    i, (long long)g.m, (long long)g.n, (long long)g.k, (long long)g.lda, (long long)g.ldb);
      }
      bool tma_store = false;
      if constexpr (Policy::epilogue_store_columns > 0) {
        tma_store = stores_through_tma(g.c, g.m, g.ldc, g.beta) &&
                    arch::encode_sw128_map(to.map_c, g.c, g.m, g.n, g.ldc, Policy::epilogue_store_columns);
      }
      to.c = g.c, to.ldc = g.ldc, to.m = int(g.m), to.n = int(g.n), to.k = int(g.k);
      to.alpha = g.alpha, to.beta = g.beta, to.tma_store = tma_store ? 1 : 0;
      to.first_item = int(items);
      items += tiles_m(g.m) * tiles_n(g.n);
    }
    list.items = int(items);
    // The launch-wide fields the grouped kernel reads: the tile order and one product per item (sizes, scalars and
    // C come from the groups).
    kernel::tma_wgmma_output<C> out{};
    out.group_m = group_m > 0 ? group_m : 1;
    out.slices = 1;
    out.batches = 1;
    const CUtensorMap unused{};
    const dim3 grid(unsigned(blocks > 0 && blocks < items ? blocks : items));
    return with_ops(op_a, op_b, [&](auto oa, auto ob) {
      constexpr op oa_value = decltype(oa)::value, ob_value = decltype(ob)::value;
      if (status s = prepare_grouped_one<oa_value, ob_value>(device); s != status::success) return s;
      return launch_kernel(&kernel::gemm_tma_wgmma<Policy, oa_value, ob_value, false, false, kernel::tma_wgmma_groups<C>>,
                           grid,
                           dim3(Policy::threads), Policy::shared_bytes, stream, device,
                           "launching the grouped Hopper kernel", unused, unused, unused, out, list);
    });
  }

  /// tgemm::gemm_grouped_device() on the grouped kernel: `count` groups of `products` (device-side groups, each at
  /// most max_m x max_n x max_k in the column-major form, op pair (op_a, op_b)) in two launches on `stream`:
  /// kernel::prepare_device_groups writes their descriptions, tensor maps and work items to `descriptions` (count of
  /// them, 128-byte aligned) and `items` (one int), then the grouped kernel (at most `blocks` persistent blocks) walks
  /// them. The maps are made on the GPU from templates encoded here for the op pair (and C's, where the epilogue
  /// stores through TMA: 16-bit C, beta = 0); groups TMA cannot read run a direct loop. count x the bounds' tiles
  /// must be below 2^31, the bounds below 2^31 - 256.
  template <class Products>
  static status launch_device_groups(op op_a, op op_b, const Products& products, float alpha, float beta,
                                     int64_t max_m, int64_t max_n, int64_t max_k, int count,
                                     kernel::tma_wgmma_group<C>* descriptions, int* items, int64_t blocks,
                                     int group_m, cudaStream_t stream, int device) {
    static_assert(!Policy::split && Policy::reads_mn_major_a && Policy::reads_mn_major_b,
                  "grouped launches take 16-bit policies");
    // Templates for the op pair's boxes and swizzle; their address (the descriptions, 16-byte aligned) and extents
    // are replaced on the GPU before any copy reads through them.
    const auto at_least_one = [](int64_t x) { return x > 0 ? x : int64_t(1); };
    const auto line = [](int64_t x) { return (x + 7) / 8 * 8; };  // a leading dimension TMA takes
    const int64_t m = at_least_one(max_m), n = at_least_one(max_n), k = at_least_one(max_k);
    const A* base_a = reinterpret_cast<const A*>(descriptions);
    const B* base_b = reinterpret_cast<const B*>(descriptions);
    CUtensorMap template_a{}, template_b{};
    const bool encoded =
        encode_operand(template_a, op_a == op::transpose, base_a, m, k, op_a == op::transpose ? line(k) : line(m),
                       Policy::block_m) &&
        encode_operand(template_b, op_b == op::none, base_b, n, k, op_b == op::none ? line(k) : line(n),
                       Policy::block_n);
    // C's template, for the epilogue's TMA stores (16-bit C with beta = 0; each group's C is checked on the GPU).
    CUtensorMap template_c{};
    bool store_c = false;
    if constexpr (Policy::epilogue_store_columns > 0) {
      store_c = beta == 0.0f && arch::encode_sw128_map(template_c, reinterpret_cast<const C*>(descriptions), line(m), n,
                                                      line(m), Policy::epilogue_store_columns);
    }
    if (!encoded) {
      return fail(status::cuda_error, cudaSuccess,
                  "the driver refused a template tensor map (cuTensorMapEncodeTiled) for device-side groups of at most "
                  "%lld x %lld x %lld", (long long)max_m, (long long)max_n, (long long)max_k);
    }
    kernel::tma_wgmma_output<C> out{};
    out.group_m = group_m > 0 ? group_m : 1;
    out.slices = 1;
    out.batches = 1;
    out.alpha = alpha, out.beta = beta;  // every group's: the TMA-store epilogue reads them here, not in global memory
    const CUtensorMap unused{};
    const kernel::tma_wgmma_device_groups<C> groups{descriptions, items, count};
    const dim3 prepare_grid(1u), prepare_block(unsigned(kernel::prepare_groups_threads));
    return with_ops(op_a, op_b, [&](auto oa, auto ob) {
      constexpr op oa_value = decltype(oa)::value, ob_value = decltype(ob)::value;
      constexpr auto prepare = &kernel::prepare_device_groups<Policy, oa_value, ob_value, Products>;
      constexpr auto grouped =
          &kernel::gemm_tma_wgmma<Policy, oa_value, ob_value, false, false, kernel::tma_wgmma_device_groups<C>>;
      if (status s = prepare_kernel_once<prepare>(device, 0, "the Hopper kernel's preparation of device-side groups");
          s != status::success) {
        return s;
      }
      if (status s = prepare_kernel_once<grouped>(
              device, Policy::shared_bytes,
              [] { return "the Hopper kernel for device-side groups, policy " + Policy::name(); });
          s != status::success) {
        return s;
      }
      if (status s = launch_kernel(prepare, prepare_grid, prepare_block, 0, stream, device,
                                   "launching the preparation of device-side groups", products, alpha, beta,
                                   template_a, template_b, template_c, store_c, descriptions, items, count);
          s != status::success) {
        return s;
      }
      return launch_kernel(grouped, dim3(unsigned(blocks > 0 ? blocks : 1)), dim3(Policy::threads),
                           Policy::shared_bytes, stream, device, "launching the Hopper kernel for device-side groups",
                           unused, unused, unused, out, groups);
    });
  }

  /// tgemm::gemm_batched()'s device arrays of pointers on this policy's kernel, in one launch: `count` products of
  /// m x n x k (column-major form, op pair (op_a, op_b); below 2^31 - 256 each, count x the tiles of one below 2^31),
  /// product i reading products.a[i] and products.b[i] and writing products.c[i], walked by at most `blocks`
  /// persistent blocks as a strided batch's products are. One address map per operand (arch::encode_sw128_address_map)
  /// reaches every product, so nothing is prepared per product: before, a preparing kernel made each product's maps
  /// on the GPU first (3.6-4.0 us in ncu for 16 to 256 products on an H200, and a launch more:
  /// bench/results/h200-pointer-arrays-hopper.txt). lda and ldb must be multiples of 16 bytes (TMA's line stride); a
  /// product whose A or B is not 16-byte aligned runs the kernel's direct loop, one with a null pointer it would use
  /// is skipped. C leaves through TMA stores where beta = 0 and ldc and m are multiples of 16 bytes, for each product
  /// whose C is 16-byte aligned. alpha = 0 reads neither A nor B. A box wholly past a product's rows or columns is
  /// never copied through these maps (the kernel skips it: kernel/gemm_tma_wgmma.cuh).
  template <class Products>
  static status launch_pointer_arrays(op op_a, op op_b, const Products& products, float alpha, float beta, int64_t m,
                                      int64_t n, int64_t k, int count, int64_t blocks, int group_m,
                                      cudaStream_t stream, int device) {
    static_assert(!Policy::split && Policy::reads_mn_major_a && Policy::reads_mn_major_b,
                  "pointer arrays take 16-bit policies, whose kernel reads every op pair");
    using pointers = kernel::tma_wgmma_pointer_arrays<A, C>;
    const int64_t depth = alpha != 0.0f ? k : 0;  // alpha = 0: C = beta C, A and B unread
    CUtensorMap map_a{}, map_b{}, map_c{};
    const bool encoded = depth == 0 || (encode_address_operand<A>(map_a, op_a == op::transpose, m, depth,
                                                                   products.lda, Policy::block_m) &&
                                        encode_address_operand<B>(map_b, op_b == op::none, n, depth, products.ldb,
                                                                  Policy::block_n));
    if (!encoded) {
      return fail(status::cuda_error, cudaSuccess,
                  "the driver refused an address map (cuTensorMapEncodeTiled) for pointer arrays of %lld x %lld x "
                  "%lld, lda %lld, ldb %lld",
                  (long long)m, (long long)n, (long long)k, (long long)products.lda, (long long)products.ldb);
    }
    bool tma_store = false;
    if constexpr (Policy::epilogue_store_columns > 0) {
      // The kernel checks each product's C for 16-byte alignment; the rest is the launch's.
      tma_store = stores_through_tma(static_cast<const C*>(nullptr), m, products.ldc, beta) && m > 0 && n > 0 &&
                  arch::encode_sw128_address_map<C>(map_c, m, n, products.ldc, Policy::epilogue_store_columns);
    }
    kernel::tma_wgmma_output<C> out{};
    out.c = nullptr;  // each product's own (products.c)
    out.ldc = products.ldc;
    out.m = int(m), out.n = int(n), out.k = int(depth);
    out.alpha = alpha, out.beta = beta;
    out.group_m = group_m > 0 ? group_m : 1;
    out.slices = 1;
    out.tma_store = tma_store ? 1 : 0;
    out.batches = count;
    const pointers arrays{products.a, products.b, products.c, products.lda, products.ldb};
    const int64_t items = tiles_m(m) * tiles_n(n) * count;
    const dim3 grid(unsigned(blocks > 0 && blocks < items ? blocks : items));
    return with_ops(op_a, op_b, [&](auto oa, auto ob) {
      constexpr op oa_value = decltype(oa)::value, ob_value = decltype(ob)::value;
      constexpr auto function = &kernel::gemm_tma_wgmma<Policy, oa_value, ob_value, false, false, pointers>;
      if (status s = prepare_kernel_once<function>(
              device, Policy::shared_bytes,
              [] { return "the Hopper kernel for device arrays of pointers, policy " + Policy::name(); });
          s != status::success) {
        return s;
      }
      return launch_kernel(function, grid, dim3(Policy::threads), Policy::shared_bytes, stream, device,
                           "launching the Hopper kernel for device arrays of pointers", map_a, map_b, map_c, out,
                           arrays);
    });
  }

  static int64_t tiles_m(int64_t m) { return (m + Policy::block_m - 1) / Policy::block_m; }
  /// The tile rows the kernel's walk counts: pairs of rows for a policy in clusters (kernel::gemm_tma_wgmma).
  static int64_t walked_rows(int64_t m) { return (tiles_m(m) + Policy::cluster_m - 1) / Policy::cluster_m; }
  static int64_t tiles_n(int64_t n) { return (n + Policy::block_n - 1) / Policy::block_n; }
  /// Whether the kernel's 32-bit tile index covers an m x n C.
  static bool tiles_fit(int64_t m, int64_t n) { return tiles_m(m) * tiles_n(n) <= int64_t(INT32_MAX); }

 private:
  template <class F>
  static status with_ops(op op_a, op op_b, F&& f) {
    using none = std::integral_constant<op, op::none>;
    using transpose = std::integral_constant<op, op::transpose>;
    if constexpr (!Policy::reads_mn_major_a || !Policy::reads_mn_major_b) {  // TF32: only the pairs it reads
      if (op_b == op::none && op_a == op::transpose) return f(transpose{}, none{});
      if constexpr (Policy::reads_mn_major_a) {
        if (op_b == op::none) return f(none{}, none{});
      }
      return fail(status::unsupported_layout, cudaSuccess,
                  "the %s Hopper kernel (policy %s) reads %s: the column-major form needs %s (tgemm::gemm() copies "
                  "other layouts first)",
                  Policy::split ? "3xTF32" : "TF32", Policy::name().c_str(),
                  Policy::reads_mn_major_a ? "B along k only" : "A and B along k only",
                  Policy::reads_mn_major_a ? "op(B) = B" : "op(A) = A^T and op(B) = B");
    } else {
      if (op_a == op::none) return op_b == op::none ? f(none{}, none{}) : f(none{}, transpose{});
      return op_b == op::none ? f(transpose{}, none{}) : f(transpose{}, transpose{});
    }
  }
};

}  // namespace detail

namespace experimental {

/// C = alpha op(A) op(B) + beta C on the Hopper kernel of one fixed policy, with tgemm::gemm()'s arguments (either
/// storage order, any op pair; a TF32 policy only the pairs its kernel reads, op(B) = B in the column-major form,
/// else status::unsupported_layout): what tgemm::gemm() runs on sm_90a for large problems, callable for any size.
/// A and B must be what TMA can describe: 16-byte aligned with leading dimensions multiples of
/// Policy::vector_width elements (16 bytes; tgemm::gemm() realigns other operands first); m, n and k below
/// 2^31 - 256. Nothing is enqueued when a check fails.
template <class Policy>
status gemm_tma_wgmma(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const typename Policy::element_a* A, int64_t lda, const typename Policy::element_b* B,
                      int64_t ldb, float beta, typename Policy::element_c* C, int64_t ldc,
                      cudaStream_t stream = nullptr) {
  static_assert(!Policy::split, "a 3xTF32 Hopper policy reads operands that tgemm::gemm()'s plan has split into TF32 "
                                "parts: call tgemm::gemm() with options.math = tgemm::math_mode::tf32x3");
  // The checks of gemm() itself, then what TMA adds: 32-bit coordinates, and 16-byte aligned operands with leading
  // dimensions a multiple of 16 bytes (Policy::vector_width elements).
  detail::canonical_call<detail::types_of<Policy>> call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  constexpr int64_t limit = int64_t(std::numeric_limits<int>::max()) - 256;
  if (m > limit || n > limit || k > limit) {
    return detail::fail(status::invalid_dimension, cudaSuccess,
                        "m = %lld, n = %lld, k = %lld: the Hopper kernel takes extents below 2^31 - 256",
                        (long long)m, (long long)n, (long long)k);
  }
  if (call.empty) return status::success;
  if (status s = detail::check_alignment(call, Policy::vector_width, Policy::name().c_str()); s != status::success) {
    return s;
  }
  detail::device_scope scope(stream);
  if (scope.state() != status::success) return scope.state();
  const int device = scope.device();
  if (status s = detail::check_tma_wgmma_image(device); s != status::success) return s;
  using kernels = detail::wgmma_kernels<Policy>;
  if (status s = kernels::prepare(call.op_a, call.op_b, device); s != status::success) return s;
  const int64_t cm = call.problem.m, cn = call.problem.n;  // the column-major form's (a row-major call swaps)
  if (!kernels::tiles_fit(cm, cn)) {
    return detail::fail(status::invalid_dimension, cudaSuccess, "m = %lld, n = %lld need 2^31 tiles or more",
                        (long long)m, (long long)n);
  }
  int multiprocessors = 0;
  if (const cudaError_t error = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
      error != cudaSuccess) {
    return detail::fail_cuda(error, device, "reading the multiprocessor count");
  }
  // Persistent blocks and the tile order of tgemm::gemm()'s plans (tuning/simt_f32.cuh); alpha = 0 or k = 0:
  // C = beta C with A and B unread.
  using thresholds = tuning::simt_f32_thresholds;
  return kernels::launch(call.op_a, call.op_b, cm, cn, call.reads_operands ? call.problem.k : 0, alpha,
                         call.problem.a, call.problem.lda, call.problem.b, call.problem.ldb, beta, call.update.c,
                         call.update.ldc, thresholds::wgmma_persistent ? multiprocessors : 0,
                         thresholds::wgmma_group_m, stream, device);
}

}  // namespace experimental
}  // namespace tgemm
