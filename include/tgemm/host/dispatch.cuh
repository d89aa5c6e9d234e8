/// \file host/dispatch.cuh
/// \brief tgemm::gemm(): the BLAS-style call that picks the policy for the device, the shape and the operands'
/// alignment, repacks misaligned operands and splits k for skinny problems.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "../arch.cuh"
#include "../kernel/gemm_kernel.cuh"
#include "../kernel/pack_kernel.cuh"
#include "../status.cuh"
#include "../tuning.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "launch.cuh"

namespace tgemm {

namespace detail {

/// Problems of at least this many flops repack misaligned A and B rather than use scalar loads: the copy costs
/// one pass over A and B, which large products repay many times over.
inline constexpr double pack_threshold_flops = 1 << 27;
/// Split-K workspace is bounded; beyond it the split shrinks.
inline constexpr int64_t max_partials_bytes = int64_t(512) << 20;
/// Products of at least this many elements whose C the epilogue could only write float by float (a misaligned
/// pointer or ldc) are computed into an aligned buffer and copied to C (launch_picked()). On an H200 (gemm(),
/// beta = 0.5, ldc = m or m + 1): 4095^3 2.92 -> 2.83 ms, 2047^3 0.411 -> 0.393, 8192 x 8192 x 256 with ldc
/// 8193 1.21 -> 1.15; at 1536 x 1400 x 512 (2.2 M elements) the copy did not pay: 0.075 -> 0.077 ms.
inline constexpr int64_t staged_c_min_elements = int64_t(3) << 20;

/// tgemm's own stream-ordered memory pool on `device`, created on first use and kept for the process. Its
/// release threshold is unlimited, so memory freed at the end of one call is reused by the next instead of
/// going back to the driver at every synchronisation (which costs tens of microseconds per call). It holds at
/// most the largest scratch one call has needed. nullptr when the device has no pools: then the device's
/// default pool is used.
inline cudaMemPool_t workspace_pool(int device) {
  static std::mutex mutex;
  static cudaMemPool_t pools[cached_devices] = {};
  static bool failed[cached_devices] = {};
  if (device < 0 || device >= cached_devices) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (pools[device] == nullptr && !failed[device]) {
    cudaMemPoolProps properties{};
    properties.allocType = cudaMemAllocationTypePinned;
    properties.location.type = cudaMemLocationTypeDevice;
    properties.location.id = device;
    if (cudaMemPoolCreate(&pools[device], &properties) != cudaSuccess) {
      (void)cudaGetLastError();
      pools[device] = nullptr;
      failed[device] = true;
    } else {
      uint64_t keep_everything = UINT64_MAX;
      (void)cudaMemPoolSetAttribute(pools[device], cudaMemPoolAttrReleaseThreshold, &keep_everything);
    }
  }
  return pools[device];
}

/// Stream-ordered scratch memory: no synchronisation to get it, freed after the work that uses it, in stream
/// order. A failed allocation is not an error: callers take a path that needs none.
class stream_workspace {
 public:
  stream_workspace(int device, cudaStream_t stream) : pool_(workspace_pool(device)), stream_(stream) {}
  stream_workspace(const stream_workspace&) = delete;
  stream_workspace& operator=(const stream_workspace&) = delete;
  ~stream_workspace() {
    for (void* p : data_) {
      if (p != nullptr) (void)cudaFreeAsync(p, stream_);
    }
  }
  /// `bytes` of scratch (at most `slots` allocations per workspace: packed operands, and split-K partials or a
  /// staged product for up to three parts of a peeled problem), or nullptr, leaving no error behind, when none
  /// can be had.
  float* allocate(int64_t bytes) {
    void** slot = nullptr;
    for (void*& p : data_) {
      if (p == nullptr) {
        slot = &p;
        break;
      }
    }
    if (slot == nullptr) return nullptr;
    void* p = nullptr;
    const cudaError_t error = pool_ != nullptr ? cudaMallocFromPoolAsync(&p, size_t(bytes), pool_, stream_)
                                               : cudaMallocAsync(&p, size_t(bytes), stream_);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      return nullptr;
    }
    *slot = p;
    return static_cast<float*>(p);
  }

 private:
  cudaMemPool_t pool_;
  cudaStream_t stream_;
  static constexpr int slots = 4;
  void* data_[slots] = {};
};

inline int64_t round_up(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }

/// Blocks of Kernel (Threads threads, SharedBytes of dynamic shared memory) that one multiprocessor of `device`
/// holds at once, from the occupancy calculator; cached per kernel and device. Call after prepare_kernel().
template <auto Kernel, int Threads, int SharedBytes>
int resident_blocks(int device) {
  static std::atomic<int> cache[cached_devices] = {};
  const bool cacheable = device >= 0 && device < cached_devices;
  if (cacheable) {
    if (const int known = cache[device].load(std::memory_order_relaxed); known > 0) return known;
  }
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, Threads, size_t(SharedBytes)) != cudaSuccess) {
    (void)cudaGetLastError();
    blocks = 0;
  }
  blocks = blocks > 0 ? blocks : 1;
  if (cacheable) cache[device].store(blocks, std::memory_order_relaxed);
  return blocks;
}

/// How one policy would run a problem: its tiles, the blocks the GPU holds at once, and how well they fit.
struct tile_plan {
  int64_t tiles = 0;  ///< Block tiles of C.
  int64_t slots = 0;  ///< Blocks resident at once: multiprocessors x blocks per multiprocessor.
  double score = 0;   ///< Useful fraction of the tiles x fraction of the last wave's slots used x policy speed.
};

/// Plans Policy for the call: prepares its kernel (so its occupancy is known) and scores it without split-K.
template <class Policy, auto Kernel>
status plan_tiles(const canonical_call& call, int device, int multiprocessors, double speed, tile_plan& plan) {
  if (status s = prepare_kernel<Kernel>(device, Policy::shared_bytes, &Policy::name); s != status::success) return s;
  const device::problem& p = call.problem;
  const int64_t tiles_m = (p.m + Policy::block_m - 1) / Policy::block_m;
  const int64_t tiles_n = (p.n + Policy::block_n - 1) / Policy::block_n;
  plan.tiles = tiles_m * tiles_n;
  plan.slots = int64_t(multiprocessors) * resident_blocks<Kernel, Policy::threads, Policy::shared_bytes>(device);
  const int64_t waves = (plan.tiles + plan.slots - 1) / plan.slots;
  const double used = double(p.m) * double(p.n) / (double(tiles_m * Policy::block_m) * double(tiles_n * Policy::block_n));
  plan.score = used * double(plan.tiles) / double(waves * plan.slots) * speed;
  return status::success;
}

/// How many k slices a problem should be cut into so that a grid of `tiles` blocks fills `slots` resident
/// blocks: none when the tiles already fill half of them; otherwise as many as fit in one wave, each slice at
/// least four k steps deep. Returns the slices and sets k_per_slice (a multiple of block_k).
template <class Policy>
int64_t choose_split(const canonical_call& call, int64_t tiles, int64_t slots, int64_t& k_per_slice) {
  const device::problem& p = call.problem;
  const int64_t min_slice = 4 * Policy::block_k;
  k_per_slice = p.k;
  if (2 * tiles > slots || p.k < 2 * min_slice) return 1;
  int64_t slices = slots / tiles;
  slices = slices < p.k / min_slice ? slices : p.k / min_slice;
  const int64_t partial_bytes = round_up(p.m, 4) * p.n * int64_t(sizeof(float));
  while (slices > 1 && slices * partial_bytes > max_partials_bytes) slices /= 2;
  if (slices <= 1) return 1;
  k_per_slice = round_up((p.k + slices - 1) / slices, Policy::block_k);
  return (p.k + k_per_slice - 1) / k_per_slice;
}

/// The dispatch kernel of one pick of the chain entry Tuning, for the operations OpA, OpB.
template <class Chain, class Pick, op OpA, op OpB>
inline constexpr auto dispatch_kernel = &kernel::dispatch_gemm<Chain, Pick, OpA, OpB>;

/// Picks whose kernel also comes as kernel::dispatch_gemm_padded: the large tile with op(A) read along m, which
/// is what large repacked problems (the only padded ones) run. Other picks ignore the padding.
template <class Pick, op OpA>
inline constexpr bool has_padded_kernel = std::is_same<Pick, tuning::pick_general>::value && OpA == op::none;

/// plan_tiles() for the policy and dispatch kernel of one pick of the chain entry Tuning.
template <class Chain, class Tuning, class Pick, op OpA, op OpB>
status plan_pick(const canonical_call& call, int device, int multiprocessors, double speed, tile_plan& plan) {
  return plan_tiles<typename Pick::template policy<Tuning>, dispatch_kernel<Chain, Pick, OpA, OpB>>(
      call, device, multiprocessors, speed, plan);
}

/// C = alpha * (the sum of `slices` partial products, slice_stride apart) + beta * C: kernel::reduce_split_k over
/// one full wave of 256-thread blocks at most (it strides through C).
inline status launch_reduce(const canonical_call& call, int multiprocessors, const float* partials, int64_t ld_partials,
                            int64_t slice_stride, int slices, int device, cudaStream_t stream) {
  constexpr int threads = 256;
  const int64_t blocks = (call.problem.m * call.problem.n + threads - 1) / threads;
  const int64_t resident = int64_t(multiprocessors) * (2048 / threads);
  return launch_kernel(kernel::reduce_split_k<0>, dim3(unsigned(blocks < resident ? blocks : resident)),
                       dim3(threads), 0, stream, device, partials, ld_partials, slice_stride, slices, call.problem.m,
                       call.problem.n, call.update.alpha, call.update.beta, call.update.c, call.update.ldc);
}

/// Launches the dispatch kernel of one pick of the chain entry Tuning, splitting k when the grid would leave
/// most resident-block slots idle (and workspace can be had).
template <class Chain, class Tuning, class Pick, op OpA, op OpB>
status launch_picked(const canonical_call& call, int device, int multiprocessors, stream_workspace& scratch,
                     cudaStream_t stream) {
  using policy = typename Pick::template policy<Tuning>;
  constexpr auto kernel = dispatch_kernel<Chain, Pick, OpA, OpB>;
  if (status s = check_grid<policy>(call); s != status::success) return s;
  // Planned again even when dispatch_aligned() scored this pick: the occupancy and readiness it needs are cached,
  // and the narrow and tiny paths come here without one.
  tile_plan plan;
  if (status s = plan_pick<Chain, Tuning, Pick, OpA, OpB>(call, device, multiprocessors, 1.0, plan);
      s != status::success) {
    return s;
  }
  kernel::split_k split;
  split.slices = choose_split<policy>(call, plan.tiles, plan.slots, split.k_per_slice);
  if (split.slices > 1) {
    split.ld_partials = round_up(call.problem.m, 4);
    split.partials = scratch.allocate(split.slices * split.ld_partials * call.problem.n * int64_t(sizeof(float)));
    if (split.partials == nullptr) split = kernel::split_k{};
  }
  // A C the epilogue cannot write as vectors: the product goes to an aligned buffer, and the split-K reduction
  // with one slice copies it to C, applying alpha and beta; both passes are coalesced. Rows (columns) of padded
  // operand copies up to the policy's whole tiles are computed too, so no block loads a ragged edge.
  constexpr int store_width = policy::vector_width < policy::fragment_m ? policy::vector_width : policy::fragment_m;
  if (store_width > 1 && split.slices == 1 && call.problem.m * call.problem.n >= staged_c_min_elements &&
      !vectors_fit(call.update.c, call.update.ldc, store_width)) {
    canonical_call product = call;
    product.problem.m = std::max(call.problem.m, std::min(call.readable_m, round_up(call.problem.m, policy::block_m)));
    product.problem.n = std::max(call.problem.n, std::min(call.readable_n, round_up(call.problem.n, policy::block_n)));
    product.readable_m = product.readable_n = 0;
    const int64_t ld = round_up(product.problem.m, 4);
    float* buffer = scratch.allocate(ld * product.problem.n * int64_t(sizeof(float)));
    if (buffer != nullptr) {
      product.update = device::linear_combination{1.0f, 0.0f, buffer, ld};
      if (status s = launch_tiled<policy, kernel>(product, device, stream); s != status::success) return s;
      return launch_reduce(call, multiprocessors, buffer, ld, 0, 1, device, stream);
    }
  }
  status launched;
  if constexpr (has_padded_kernel<Pick, OpA>) {
    if (call.readable_m > call.problem.m || call.readable_n > call.problem.n) {
      const kernel::readable_extent readable{call.readable_m > call.problem.m ? call.readable_m : call.problem.m,
                                             call.readable_n > call.problem.n ? call.readable_n : call.problem.n};
      launched = launch_tiled<policy, kernel::dispatch_gemm_padded<Chain, Pick, OpA, OpB>>(call, device, stream,
                                                                                          split, readable);
    } else {
      launched = launch_tiled<policy, kernel>(call, device, stream, split);
    }
  } else {
    launched = launch_tiled<policy, kernel>(call, device, stream, split);  // the padding is just not read
  }
  if (launched != status::success || split.slices == 1) return launched;
  return launch_reduce(call, multiprocessors, split.partials, split.ld_partials, split.ld_partials * call.problem.n,
                       int(split.slices), device, stream);
}

/// The large-tile pick for the operations: which operands are staged through registers decides the tile.
template <op OpA, op OpB>
using pick_large = std::conditional_t<OpA == op::none, tuning::pick_general,
                                      std::conditional_t<OpB == op::none, tuning::pick_general_tn,
                                                         tuning::pick_general_tt>>;

/// The rows [row, row + rows) and columns [col, col + cols) of a call's C, as a call of their own: the same k,
/// alpha and beta, with op(A), op(B) and C advanced to that block.
template <op OpA, op OpB>
canonical_call sub_call(const canonical_call& call, int64_t row, int64_t col, int64_t rows, int64_t cols) {
  canonical_call part = call;
  part.problem.m = rows;
  part.problem.n = cols;
  part.readable_m = call.readable_m > row ? call.readable_m - row : 0;
  part.readable_n = call.readable_n > col ? call.readable_n - col : 0;
  part.problem.a += OpA == op::none ? row : row * call.problem.lda;
  part.problem.b += OpB == op::none ? col * call.problem.ldb : col;
  part.update.c += row + col * call.update.ldc;
  return part;
}

/// A peeled large problem loses a little to the strips' extra launches: the score of the peeled plan is scaled
/// by this before it is compared.
inline constexpr double peel_speed = 0.98;

template <class Chain, class Tuning, op OpA, op OpB>
status dispatch_aligned(const canonical_call& call, int device, int multiprocessors, stream_workspace& scratch,
                        cudaStream_t stream);

/// Runs a problem whose large tiles would leave a last row (column) of tiles holding at most narrow_extent rows
/// (columns) as three parts: the whole tiles with the large policy, then the ragged bottom strip (all columns)
/// and the ragged right strip (the other rows) as narrow problems. 4097^3 on an H200: 561 large tiles, 4.25
/// waves of work in 5 waves, become 512 tiles in 4 waves plus two strips that each read one operand once.
template <class Chain, class Tuning, class Large, op OpA, op OpB>
status launch_peeled(const canonical_call& call, int64_t main_m, int64_t main_n, int device, int multiprocessors,
                     stream_workspace& scratch, cudaStream_t stream) {
  const int64_t m = call.problem.m, n = call.problem.n;
  if (status s = launch_picked<Chain, Tuning, Large, OpA, OpB>(sub_call<OpA, OpB>(call, 0, 0, main_m, main_n), device,
                                                                multiprocessors, scratch, stream);
      s != status::success) {
    return s;
  }
  if (main_m < m) {
    if (status s = dispatch_aligned<Chain, Tuning, OpA, OpB>(sub_call<OpA, OpB>(call, main_m, 0, m - main_m, n),
                                                             device, multiprocessors, scratch, stream);
        s != status::success) {
      return s;
    }
  }
  if (main_n < n) {
    return dispatch_aligned<Chain, Tuning, OpA, OpB>(sub_call<OpA, OpB>(call, 0, main_n, main_m, n - main_n), device,
                                                     multiprocessors, scratch, stream);
  }
  return status::success;
}

/// Picks a tile size for an aligned problem with these operations and launches it. Problems with at most
/// tiny_extent rows (columns) take the 16-wide tiles, those with at most narrow_extent the 32-wide ones.
/// Otherwise the large, medium and small tiles are scored by how much of their tiles is inside C, how evenly
/// their blocks fill the resident-block slots, and their measured speed, and so is the large tile on the problem
/// with ragged edges of at most narrow_extent peeled off (launch_peeled()). The best one runs unsplit when its
/// tiles fill at least half the slots, else the medium tile runs with split-K.
template <class Chain, class Tuning, op OpA, op OpB>
status dispatch_aligned(const canonical_call& call, int device, int multiprocessors, stream_workspace& scratch,
                        cudaStream_t stream) {
  const int64_t m = call.problem.m, n = call.problem.n;
  if (m <= tuning::tiny_extent && n > m) {
    return launch_picked<Chain, Tuning, tuning::pick_tiny_m, OpA, OpB>(call, device, multiprocessors, scratch, stream);
  }
  if (n <= tuning::tiny_extent) {
    return launch_picked<Chain, Tuning, tuning::pick_tiny_n, OpA, OpB>(call, device, multiprocessors, scratch, stream);
  }
  if (m <= tuning::narrow_extent && n > m) {
    return launch_picked<Chain, Tuning, tuning::pick_narrow_m, OpA, OpB>(call, device, multiprocessors, scratch,
                                                                         stream);
  }
  if (n <= tuning::narrow_extent) {
    return launch_picked<Chain, Tuning, tuning::pick_narrow_n, OpA, OpB>(call, device, multiprocessors, scratch,
                                                                         stream);
  }
  using large = pick_large<OpA, OpB>;
  using large_policy = typename large::template policy<Tuning>;
  const int64_t ragged_m = m % large_policy::block_m, ragged_n = n % large_policy::block_n;
  const bool peel_m = ragged_m != 0 && ragged_m <= tuning::narrow_extent && m > large_policy::block_m;
  const bool peel_n = ragged_n != 0 && ragged_n <= tuning::narrow_extent && n > large_policy::block_n;
  const int64_t main_m = peel_m ? m - ragged_m : m, main_n = peel_n ? n - ragged_n : n;
  tile_plan plans[3], peeled;
  status s = plan_pick<Chain, Tuning, large, OpA, OpB>(call, device, multiprocessors, 1.0, plans[0]);
  if (s == status::success) {
    s = plan_pick<Chain, Tuning, tuning::pick_medium, OpA, OpB>(call, device, multiprocessors, Tuning::medium_speed,
                                                                plans[1]);
  }
  if (s == status::success) {
    s = plan_pick<Chain, Tuning, tuning::pick_small, OpA, OpB>(call, device, multiprocessors, Tuning::small_speed,
                                                               plans[2]);
  }
  if (s == status::success && (peel_m || peel_n)) {
    s = plan_pick<Chain, Tuning, large, OpA, OpB>(sub_call<OpA, OpB>(call, 0, 0, main_m, main_n), device,
                                                  multiprocessors, peel_speed, peeled);
  }
  if (s != status::success) return s;
  int best = 0;
  for (int i = 1; i < 3; ++i) best = plans[i].score > plans[best].score ? i : best;
  if (peeled.score > plans[best].score && 2 * peeled.tiles > peeled.slots) {
    return launch_peeled<Chain, Tuning, large, OpA, OpB>(call, main_m, main_n, device, multiprocessors, scratch,
                                                         stream);
  }
  if (best == 0 && 2 * plans[0].tiles > plans[0].slots) {
    return launch_picked<Chain, Tuning, large, OpA, OpB>(call, device, multiprocessors, scratch, stream);
  }
  if (best == 2 && 2 * plans[2].tiles > plans[2].slots) {
    return launch_picked<Chain, Tuning, tuning::pick_small, OpA, OpB>(call, device, multiprocessors, scratch, stream);
  }
  return launch_picked<Chain, Tuning, tuning::pick_medium, OpA, OpB>(call, device, multiprocessors, scratch, stream);
}

/// Copies op(X) into `dst`, contiguous along mn with leading dimension ld_dst (see kernel::pack_operand).
inline status pack(const float* src, int64_t ld, bool contiguous_k, int64_t extent_mn, int64_t extent_k, float* dst,
                   int64_t ld_dst, int device, cudaStream_t stream) {
  const int64_t tiles_mn = (ld_dst + kernel::pack_tile - 1) / kernel::pack_tile;  // the zeroed padding too
  const int64_t tiles_k = (extent_k + kernel::pack_tile - 1) / kernel::pack_tile;
  if (tiles_mn > 2147483647) return fail_too_many_tiles(tiles_mn, 1);
  const dim3 grid(unsigned(tiles_mn), unsigned(tiles_k < 65535 ? tiles_k : 65535));
  const dim3 block(kernel::pack_tile, 8);
  return contiguous_k
             ? launch_kernel(kernel::pack_operand<true>, grid, block, 0, stream, device, src, ld, extent_mn, extent_k,
                             dst, ld_dst)
             : launch_kernel(kernel::pack_operand<false>, grid, block, 0, stream, device, src, ld, extent_mn, extent_k,
                             dst, ld_dst);
}

/// Aligned problems at least this large (2mnk) whose operands are not both read along m and n are rewritten
/// into that layout (A column-major, B transposed) when the other extent is at least layout_pack_min_extent:
/// both tiles then stream in with cp.async and the main loop needs no register staging. On an H200 that kernel
/// ran 52.1 TFLOP/s at 4096^3 against 48.9 for the register-staged one, and repacking an operand costs one
/// pass over it (56 us for B at 4095^3, about 2 % of the product).
inline constexpr double layout_pack_flops = double(int64_t(1) << 34);
/// See layout_pack_flops: the pass over B is repaid over m (over n for A).
inline constexpr int64_t layout_pack_min_extent = 2048;
/// Repacked operands are padded along m (n) to a multiple of this, the largest block tile extent, when that adds
/// at most an eighth to the copy (extents of at least 8 x pack_padding); shorter ones to a multiple of 4.
inline constexpr int64_t pack_padding = 256;

/// The leading dimension of the repacked copy of an operand whose extent along m (n) is `extent`.
inline int64_t packed_ld(int64_t extent) { return round_up(extent, extent >= 8 * pack_padding ? pack_padding : 4); }

/// The dispatcher proper, for one chain entry. Misaligned operands of large problems are repacked into aligned
/// scratch (only the misaligned ones); small problems with a misaligned operand are read with scalar loads.
/// Large problems also repack the operands that are read along k (layout_pack_flops). Then dispatch_aligned()
/// picks the tile.
template <class Chain, class Tuning>
status dispatch(canonical_call call, int device, cudaStream_t stream) {
  int multiprocessors = 0;
  if (status s = multiprocessor_count(device, multiprocessors); s != status::success) return s;
  stream_workspace scratch(device, stream);
  const int64_t m = call.problem.m, n = call.problem.n, k = call.problem.k;
  const double flops = 2.0 * double(m) * double(n) * double(k);

  // Which operands to rewrite as op(A) column-major m x k and op(B) as B^T stored n-contiguous (op_a = none,
  // op_b = transpose), the layout whose tiles load with plain vector copies.
  // Only a misaligned operand needs the copy (an aligned B of a 1 x 8192 x 8192 product is 256 MiB).
  const int width = Tuning::general::vector_width;
  bool pack_a = !vectors_fit(call.problem.a, call.problem.lda, width);
  bool pack_b = !vectors_fit(call.problem.b, call.problem.ldb, width);
  const bool aligned = !pack_a && !pack_b;
  if (flops >= layout_pack_flops) {
    pack_a = pack_a || (call.op_a == op::transpose && n >= layout_pack_min_extent);
    pack_b = pack_b || (call.op_b == op::none && m >= layout_pack_min_extent);
  }
  // Large copies are padded to whole 256-row (column) tiles, zero-filled, and declared readable: then no block
  // of the large tile sits on a ragged edge for its loads (kernel::dispatch_gemm_padded).
  const int64_t ld_a = packed_ld(m), ld_b = packed_ld(n);
  float* packed = nullptr;
  if ((pack_a || pack_b) && (aligned || flops >= pack_threshold_flops)) {
    packed = scratch.allocate(((pack_a ? ld_a : 0) + (pack_b ? ld_b : 0)) * k * int64_t(sizeof(float)));
  }
  if (packed == nullptr && !aligned) {
    return with_ops(call.op_a, call.op_b, [&](auto a, auto b) {
      return launch_picked<Chain, Tuning, tuning::pick_unaligned, decltype(a)::value, decltype(b)::value>(
          call, device, multiprocessors, scratch, stream);
    });
  }
  if (packed != nullptr) {  // (an aligned problem whose scratch cannot be had runs as it is)
    if (pack_a) {
      if (status s = pack(call.problem.a, call.problem.lda, call.op_a == op::transpose, m, k, packed, ld_a, device,
                          stream);
          s != status::success) {
        return s;
      }
      call.problem.a = packed, call.problem.lda = ld_a, call.op_a = op::none, call.readable_m = ld_a;
      packed += ld_a * k;
    }
    if (pack_b) {
      if (status s = pack(call.problem.b, call.problem.ldb, call.op_b == op::none, n, k, packed, ld_b, device, stream);
          s != status::success) {
        return s;
      }
      call.problem.b = packed, call.problem.ldb = ld_b, call.op_b = op::transpose, call.readable_n = ld_b;
    }
  }
  return with_ops(call.op_a, call.op_b, [&](auto a, auto b) {
    return dispatch_aligned<Chain, Tuning, decltype(a)::value, decltype(b)::value>(call, device, multiprocessors,
                                                                                     scratch, stream);
  });
}

}  // namespace detail

/// C = alpha op(A) op(B) + beta C, as cblas_sgemm defines it, on device pointers, enqueued on `stream`.
///
/// op(A) is m x k, op(B) is k x n, C is m x n, all stored in `order` with leading dimensions lda, ldb, ldc.
/// The call never synchronises. It picks the policy tuned for the device's architecture and the problem's
/// shape; any alignment works (misaligned operands of large problems are repacked into stream-ordered scratch
/// memory, small ones are read with scalar loads; a large product whose C is misaligned is computed into aligned
/// scratch and then copied to C), and problems too small to fill the GPU split k, with partial products summed in
/// a fixed order so results are reproducible bit for bit.
///
/// - m == 0 or n == 0: success, nothing touched.
/// - k == 0 or alpha == 0: C = beta C; A and B are not read (and may be null).
/// - beta == 0: C is not read, so NaN or Inf already in C cannot reach the result.
///
/// \return status::success once the work is enqueued. Bad arguments return their status before any device
/// work and leave C untouched; last_error() says which argument and why. Errors of the kernel itself
/// surface, as with any CUDA work, at the next synchronisation.
inline status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                   int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                   cudaStream_t stream = nullptr) {
  detail::canonical_call call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (status s = detail::check_alignment(call, 1, "tgemm::gemm"); s != status::success) return s;
  if (call.empty) return status::success;
  int device = 0, arch = 0;
  if (status s = detail::current_arch(device, arch); s != status::success) return s;
  if (!call.reads_operands) return detail::launch_scale(call, device, stream);

  using chain = tuning::default_chain;
  return tuning::with_tuning<chain>(arch, [&](auto entry) {
    return detail::dispatch<chain, decltype(entry)>(call, device, stream);
  });
}

}  // namespace tgemm
