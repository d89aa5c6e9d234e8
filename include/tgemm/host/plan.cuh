/// \file host/plan.cuh
/// \brief The plan of a call: a pure function from (arguments, device facts, tuning) to the kernels to launch, their
/// grids, the operand copies, split-K and staging, and the workspace they need. It launches and allocates nothing.
///
/// tgemm::gemm() plans, then executes (host/execute.cuh); tgemm::launch<Policy>() makes a one-step plan with
/// plan_fixed(). Host tests build plans from hand-written device facts, without a GPU (test/host/plan_test.cu).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <climits>

#include "../kernel/gemv.cuh"
#include "../kernel/pack_operand.cuh"
#include "../kernel/reduce_split_k.cuh"
#include "../kernel/scale_c.cuh"
#include "../kernel/tile_scheduler.cuh"
#include "../status.cuh"
#include "../tuning/selector.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "device_facts.cuh"

namespace tgemm::detail {

/// What a plan step does.
enum class step_kind : uint8_t {
  pack_a,  ///< Copy op(A) into an aligned, zero-padded workspace region (kernel::pack_operand).
  pack_b,  ///< Copy op(B) likewise.
  gemm,    ///< The GEMM kernel on a block of C (to C, or to workspace: split-K partials or a staged product).
  reduce,  ///< Sum a gemm step's partials (or copy its staged product) into C with alpha and beta.
  scale,   ///< C = beta C (k == 0 or alpha == 0).
};

/// Where the gemm steps read an operand: the caller's matrix, or its repacked copy in the workspace.
struct operand_source {
  bool packed = false;   ///< Read from the workspace copy made by a pack step.
  size_t offset = 0;     ///< Byte offset of the copy in the workspace.
  int64_t ld = 0;        ///< Leading dimension (the copy's, or the caller's).
  op operation = op::none;  ///< How the gemm kernels read it (a packed copy is op::none for A, transpose for B;
                            ///< a K-major copy the reverse; a realigned one keeps the caller's).
  int64_t readable = 0;  ///< Rows of op(A) (columns of op(B)) the loads may read: the copy's padded extent, or 0.
};

/// One step of a plan. Fields that do not apply to a step's kind are zero.
struct plan_step {
  step_kind kind = step_kind::gemm;  ///< What the step does.
  // The block of C (and of op(A)'s rows, op(B)'s columns) a gemm, reduce or scale step covers.
  int64_t row = 0;   ///< First row.
  int64_t col = 0;   ///< First column.
  int64_t rows = 0;  ///< Rows computed (a staged gemm may compute its padded tiles past the rows of C).
  int64_t cols = 0;  ///< Columns computed.
  // gemm
  tuning::slot slot = tuning::slot::general;  ///< The tuning slot of the kernel (unused by fixed plans).
  bool wgmma = false;       ///< The kernel is the entry's sm_90a one (TMA + wgmma) instead of the slot's.
  bool wgmma_small = false;  ///< sm_90a: the entry's smaller tile (tuning: wgmma_small) instead of its large one.
  bool wgmma_batch = false;  ///< sm_90a, a batch in one grid: the entry's batch tile (tuning: wgmma_batch).
  /// sm_90a, a fused call's unsplit large-tile step: the entry's ping-pong policy (tuning: wgmma_fused) runs it, else
  /// the cooperative wgmma policy's fused kernel (set by the dispatcher: see fused_large_steps).
  bool wgmma_pingpong = false;
  bool gemv = false;        ///< The kernel is a GEMV one (kernel/gemv.cuh): tiles_m blocks of its columns.
  bool gemv_few_rows = false;  ///< GEMV: C has the few rows (op(A) are the vectors, op(B) the matrix), else the few
                               ///< columns (op(B)^T the vectors, op(A)^T the matrix).
  bool gemv_along_k = false;   ///< GEMV: the matrix's lines are contiguous along k (kernel::gemv_along_k), else
                               ///< along its columns (kernel::gemv_along_n).
  bool gemv_cluster = false;   ///< GEMV along n, split: launched in clusters of its slices, which sum their compact
                               ///< partials (slice_stride = rows x cols) into C inside the launch (no reduce step).
  int tile_group = 0;       ///< sm_90a: tile rows per group of its tile order (grid_x: its persistent blocks).
  bool padded = false;      ///< The kernel's loads may read up to readable_m x readable_n (padded copies).
  int64_t readable_m = 0;   ///< Rows of op(A) the padded kernel may read.
  int64_t readable_n = 0;   ///< Columns of op(B) the padded kernel may read.
  int threads = 0;          ///< Threads per block.
  int shared_bytes = 0;     ///< Dynamic shared memory per block.
  int64_t tiles_m = 0;      ///< Block tiles along m.
  int64_t tiles_n = 0;      ///< Block tiles along n.
  int64_t slices = 1;       ///< Split-K slices (gridDim.z); also the slices a reduce step sums.
  int64_t k_per_slice = 0;  ///< k per slice when slices > 1.
  bool to_workspace = false;  ///< The gemm writes alpha = 1, beta = 0 products to the workspace at `offset`.
  int64_t ld_out = 0;       ///< Leading dimension of the workspace product (and of the partials a reduce reads).
  int64_t slice_stride = 0; ///< Elements between consecutive slices' partials.
  bool float_partials = false;  ///< The partials are float, whatever C's type (a 16-bit C's split steps: the
                                ///< sm_90a kernel's, or the float-C twin of the slot's kernel).
  size_t offset = 0;        ///< Byte offset in the workspace: a pack's copy, a gemm's output, a reduce's input.
  // pack
  int64_t extent_mn = 0;    ///< Rows of op(A) (columns of op(B)) to copy.
  int64_t extent_k = 0;     ///< k to copy.
  int64_t ld_packed = 0;    ///< Leading dimension of the copy (its padded extent along mn).
  bool contiguous_k = false;  ///< The source is contiguous along k (it is transposed on the way).
  bool keep_layout = false;   ///< Realign only (kernel::realign_operand): extent_mn elements of each of extent_k
                              ///< lines, in the source's layout (extent_mn is then the contiguous extent).
  bool to_k_major = false;    ///< Transpose a source stored along mn into a copy contiguous along k (ld_packed is
                              ///< then its padded k), for kernels that read K-major tiles only (TF32 on sm_90a).
  bool split_tf32 = false;    ///< 3xTF32 on sm_90a: write big then small TF32 parts, K-major (extent_mn lines each,
                              ///< ld_packed its padded k; contiguous_k: the source's layout).
  // launch geometry of the pack, reduce and scale kernels
  int64_t grid_x = 0;  ///< Blocks along x.
  int64_t grid_y = 1;  ///< Blocks along y.
};

/// A plan: the steps of one call, in launch order, and the workspace they share.
struct plan {
  /// The most steps a plan has: two packs, and three gemm steps each followed by a reduce.
  static constexpr int max_steps = 8;

  int arch = 0;              ///< The tuning entry's arch (0 for fixed plans).
  int multiprocessors = 0;   ///< From the device facts.
  op op_a = op::none;        ///< How the gemm kernels read A (after repacking).
  op op_b = op::none;        ///< How the gemm kernels read B (after repacking).
  operand_source a;          ///< Where the gemm steps read A.
  operand_source b;          ///< Where the gemm steps read B.
  size_t workspace_bytes = 0;  ///< Bytes of workspace the steps need, all regions together.
  int step_count = 0;        ///< Steps used.
  plan_step steps[max_steps];  ///< The steps, in launch order.

  // What the plan does, for tests and for TGEMM_PRINT_PLAN.
  bool repacked_a = false;   ///< A is copied (misaligned, or read along k in a large problem).
  bool repacked_b = false;   ///< B is copied.
  bool peeled = false;       ///< Ragged edges of a large problem run as strips of their own.
  bool staged_c = false;     ///< A product is computed in aligned workspace and copied to a misaligned C.
  bool split_k = false;      ///< Some gemm step splits k.
  bool unaligned = false;    ///< Misaligned operands are read with scalar loads (small problems).
  bool wgmma = false;        ///< The product runs on the sm_90a kernel (TMA + wgmma).
  bool gemv = false;         ///< The product runs on a GEMV kernel (at most gemv_max_extent rows or columns).
  bool fused = false;        ///< The call has a fused epilogue (tgemm::epilogue): its steps run the fused kernels.
  int64_t batches = 1;       ///< Products of a strided batch (tgemm::gemm_strided_batched()); 1 for one GEMM.
  bool batch_in_grid = false;  ///< The gemm and scale steps cover every product in one launch (gridDim.z, no
                               ///< split, no staging, no copies); false with batches > 1: the steps run once per
                               ///< product, in turn (products that fill the GPU alone).
};

/// Bytes every workspace region is aligned to.
inline constexpr size_t workspace_alignment = 256;

inline int64_t round_up(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }
inline size_t round_up_bytes(size_t x) { return (x + workspace_alignment - 1) / workspace_alignment * workspace_alignment; }

/// Fails with invalid_dimension: a grid of tiles_m x tiles_n blocks does not fit in one launch.
inline status fail_too_many_tiles(int64_t tiles_m, int64_t tiles_n) {
  if (tiles_m > 0 && tiles_n > INT64_MAX / tiles_m) {
    return fail(status::invalid_dimension, cudaSuccess,
                "the problem needs %lld x %lld thread blocks, more than one grid can hold", (long long)tiles_m,
                (long long)tiles_n);
  }
  return fail(status::invalid_dimension, cudaSuccess,
              "the problem needs %lld thread blocks, more than one grid can hold", (long long)(tiles_m * tiles_n));
}

/// The tiles of a policy on an extent pair, or invalid_dimension when their grid does not fit in a launch.
inline status tile_counts(const tuning::policy_numbers& policy, int64_t rows, int64_t cols, int64_t& tiles_m,
                          int64_t& tiles_n) {
  tiles_m = kernel::tiles_for(rows, policy.block_m);
  tiles_n = kernel::tiles_for(cols, policy.block_n);
  if ((tiles_m > 0 && tiles_n > INT64_MAX / tiles_m) || !kernel::grid_fits(tiles_m * tiles_n)) {
    return fail_too_many_tiles(tiles_m, tiles_n);
  }
  return status::success;
}

/// The C = beta C step (nothing at all when beta == 1, unless a fused epilogue must still be applied).
template <class Types>
void plan_scale(const canonical_call<Types>& call, plan& out) {
  // C = 1 C is nothing to do, unless a fused epilogue still applies its terms (or writes D): D = act(C + biases).
  if (call.update.beta == typename Types::scalar_type(1) && !call.fused) return;
  plan_step& s = out.steps[out.step_count++];
  s.kind = step_kind::scale;
  s.rows = call.problem.m;
  s.cols = call.problem.n;
  s.grid_x = std::min<int64_t>(kernel::tiles_for(s.rows, kernel::scale_threads), 1024);
  s.grid_y = std::min<int64_t>(s.cols, kernel::max_grid_y);
}

/// Starts every plan: the call's operands read as given, and the whole plan when there is no product to compute
/// (m or n is 0: nothing; k == 0 or alpha == 0: C = beta C). Returns true when the product still needs planning.
template <class Types>
bool start_plan(const canonical_call<Types>& call, plan& out) {
  out = plan{};
  out.op_a = out.a.operation = call.op_a;
  out.op_b = out.b.operation = call.op_b;
  out.a.ld = call.problem.lda;
  out.b.ld = call.problem.ldb;
  out.batches = call.batch.count;
  if (call.empty) return false;
  if (!call.reads_operands) {
    plan_scale(call, out);
    out.batch_in_grid = out.batches > 1;
    return false;
  }
  return true;
}

/// A one-step plan for a caller's fixed policy (tgemm::launch<Policy>()): no repacking, no split, no staging.
template <class Types>
status plan_fixed(const canonical_call<Types>& call, const tuning::policy_numbers& policy, plan& out) {
  if (!start_plan(call, out)) return status::success;
  plan_step& s = out.steps[out.step_count++];
  s.kind = step_kind::gemm;
  s.rows = call.problem.m;
  s.cols = call.problem.n;
  s.threads = policy.threads;
  s.shared_bytes = policy.shared_bytes;
  return tile_counts(policy, s.rows, s.cols, s.tiles_m, s.tiles_n);
}

/// The share of the tiles of policy `p` covering an m x n C that lies inside C.
inline double tile_use(const tuning::policy_numbers& p, int64_t m, int64_t n) {
  const int64_t tiles_m = kernel::tiles_for(m, p.block_m), tiles_n = kernel::tiles_for(n, p.block_n);
  return double(m) * double(n) / (double(tiles_m * p.block_m) * double(tiles_n * p.block_n));
}

/// How well `tiles` tiles of policy `p` over an m x n C run on `slots` resident-block slots (multiprocessors x blocks
/// each): the share of the tiles inside C (tile_use) x the share of the last wave's slots they fill x the policy's
/// measured `speed`. The planner's score of a slot, and the indirect calls' choice of tile.
inline double tile_score_of(const tuning::policy_numbers& p, int64_t m, int64_t n, int64_t tiles, int64_t slots,
                            double speed) {
  const int64_t waves = (tiles + slots - 1) / slots;
  return tile_use(p, m, n) * double(tiles) / double(waves * slots) * speed;
}

/// Whether `products` products of m x n (column-major form) run together on the entry's sm_90a kernel with tile
/// `p` (its large or its smaller one), one grid of (product, tile) work items: each tile at least
/// wgmma_batch_min_use inside C, and the work items filling at least wgmma_min_wave of the multiprocessors.
inline bool wgmma_tiles_fill(const tuning::tuning_values& t, const tuning::policy_numbers& p, int64_t m, int64_t n,
                             int64_t products, int64_t multiprocessors) {
  if (p.block_m == 0 || m <= 0 || n <= 0) return false;
  const double tiles = double(kernel::tiles_for(m, p.block_m) * kernel::tiles_for(n, p.block_n));
  return tile_use(p, m, n) >= t.wgmma_batch_min_use &&
         tiles * double(products) >= t.wgmma_min_wave * double(multiprocessors > 0 ? multiprocessors : 1);
}

/// Whether a strided batch of m x n products (or pointer arrays of them, host/indirect_dispatcher.cuh) asks the entry's
/// smaller sm_90a tile rather than the large one (it then
/// runs there when wgmma_tiles_fill() says so for that tile): the entry says so (wgmma_batch_small), one tile of its
/// small mma.sync tile does not cover a product (those keep it), and at least twice as much of the smaller tiles as
/// of the large ones is inside C (128 x 128: all of two 64 x 128 tiles, half of one 128 x 256; 64 x 512: all of four,
/// half of two; 512 x 64: half of eight, a quarter of two). Larger products fill the large tiles (1024 x 1024: all).
inline bool wgmma_batch_takes_small(const tuning::tuning_values& t, int64_t m, int64_t n) {
  const tuning::policy_numbers &p = t.wgmma, &q = t.wgmma_small, &s = t[tuning::slot::small];
  return t.wgmma_batch_small && p.block_m != 0 && q.block_m != 0 && !(m <= s.block_m && n <= s.block_n) &&
         tile_use(q, m, n) >= 2.0 * tile_use(p, m, n);
}

/// Whether a batch of `products` m x n x k products without a fused epilogue asks the entry's batch tile
/// (tuning: wgmma_batch) rather than its smaller or large one (it then runs there when wgmma_tiles_fill() says so for
/// that tile): the entry has one, one tile of the small mma.sync tile does not cover a product (those keep it), as
/// much of the batch tile as of the smaller one is inside C, and either twice as much as of the large one (128 x 128
/// products: all of one, half of a 128 x 256; 512 x 64: half of four, a quarter of two) or as much with the large
/// tiles of the whole batch under one wave of the multiprocessors and k at most wgmma_batch_tile_max_k (64 x 256^3:
/// 128 large tiles on 132 multiprocessors, k = 256).
inline bool wgmma_batch_takes_batch_tile(const tuning::tuning_values& t, int64_t m, int64_t n, int64_t k,
                                         int64_t products, int64_t multiprocessors) {
  const tuning::policy_numbers &p = t.wgmma, &q = t.wgmma_small, &b = t.wgmma_batch, &s = t[tuning::slot::small];
  if (b.block_m == 0 || p.block_m == 0 || (m <= s.block_m && n <= s.block_n)) return false;
  const double use = tile_use(b, m, n), large_use = tile_use(p, m, n);
  if (q.block_m != 0 && use < tile_use(q, m, n)) return false;
  if (use >= 2.0 * large_use) return true;
  const double large_tiles = double(kernel::tiles_for(m, p.block_m) * kernel::tiles_for(n, p.block_n));
  return use >= large_use && large_tiles * double(products) < double(multiprocessors) && k <= t.wgmma_batch_tile_max_k;
}

/// Whether `products` products of m x n x k (column-major form) run in one grid of the entry's sm_90a kernel, and on
/// which tile: the batch tile (`batch_tile`) where the call has no fused epilogue (`fused`) and
/// wgmma_batch_takes_batch_tile() says so, else the smaller one (`small`) where wgmma_batch_takes_small() says so,
/// else the large one, its work items filling the GPU (wgmma_tiles_fill()) and counted by a 32-bit index. The rule
/// of a strided batch (the planner's suits_wgmma, which also asks that the products lie apart) and of device arrays
/// of pointers (wgmma_pointer_arrays_fit).
inline bool wgmma_batch_runs(const tuning::tuning_values& t, int64_t m, int64_t n, int64_t k, int64_t products,
                             int64_t multiprocessors, bool fused, bool& small, bool& batch_tile) {
  batch_tile = !fused && wgmma_batch_takes_batch_tile(t, m, n, k, products, multiprocessors) &&
               products <= int64_t(INT32_MAX) / (kernel::tiles_for(m, t.wgmma_batch.block_m) *
                                                 kernel::tiles_for(n, t.wgmma_batch.block_n)) &&
               wgmma_tiles_fill(t, t.wgmma_batch, m, n, products, multiprocessors);
  small = !batch_tile && wgmma_batch_takes_small(t, m, n);
  if (batch_tile) return true;
  const tuning::policy_numbers& p = small ? t.wgmma_small : t.wgmma;
  if (p.block_m == 0 || m <= 0 || n <= 0) return false;
  const int64_t tiles = kernel::tiles_for(m, p.block_m) * kernel::tiles_for(n, p.block_n);
  return products <= int64_t(INT32_MAX) / tiles && wgmma_tiles_fill(t, p, m, n, products, multiprocessors);
}

/// Whether device arrays of pointers to `products` m x n x k products (tgemm::gemm_batched(),
/// host/indirect_dispatcher.cuh) run on the entry's sm_90a kernel, and on which tile (`small`, `batch_tile`): where a
/// strided batch of that shape without a fused epilogue would (wgmma_batch_runs()), when TMA can step their leading
/// dimensions (`lines`: lda and ldb multiples of 16 bytes).
inline bool wgmma_pointer_arrays_fit(const tuning::tuning_values& t, int64_t m, int64_t n, int64_t k,
                                     int64_t products, int64_t multiprocessors, bool lines, bool& small,
                                     bool& batch_tile) {
  small = batch_tile = false;
  return lines && wgmma_batch_runs(t, m, n, k, products, multiprocessors, false, small, batch_tile);
}

/// Whether a batch of m x n products runs on the entry's products tile: the entry names one smaller than its small
/// tile (a 32 x 32 product would use a quarter of the 64 x 64 one), and at most `max_tiles` of it cover a product.
/// The planner allows two tiles a strided batch's product (32 x 64 products: faster than on the small tile), the
/// pointer arrays one (host/indirect_dispatcher.cuh); 64 x 64 products keep the small tile, which was faster for them.
inline bool products_tile_takes(const tuning::tuning_values& t, int64_t m, int64_t n, int64_t max_tiles) {
  const tuning::policy_numbers& p = t[tuning::slot::products];
  return p.block_m < t[tuning::slot::small].block_m &&
         kernel::tiles_for(m, p.block_m) * kernel::tiles_for(n, p.block_n) <= max_tiles;
}

/// The dispatcher's planner for one call on one device with one tuning entry (see docs/dispatch.md).
template <class Types>
class planner {
 public:
  planner(const canonical_call<Types>& call, const device_facts& facts, const tuning::tuning_values& tuning)
      : call_(call), facts_(facts), t_(tuning) {}

  status run(plan& out) {
    const bool product = start_plan(call_, out);
    out.arch = t_.arch;
    out.multiprocessors = facts_.multiprocessors;
    if (!product) return status::success;
    const int64_t m = call_.problem.m, n = call_.problem.n, k = call_.problem.k;
    const double flops = 2.0 * double(m) * double(n) * double(k);
    // A strided batch: products that fill the GPU alone (the sm_90a kernel's, or large enough to repack) run this
    // plan once per product; the others run together, the batch a grid dimension, unless their tiles would still
    // leave most of the GPU idle and k is deep enough to split (then each product splits, in turn).
    const bool batched = call_.batch.count > 1;
    if (suits_gemv()) return plan_gemv(out);
    int64_t wgmma_slices = 1, wgmma_slice_steps = 0;
    bool wgmma_small = false, wgmma_batch = false;
    if (batched && suits_wgmma(call_.batch.count, wgmma_slices, wgmma_slice_steps, wgmma_small, &wgmma_batch)) {
      // The whole batch in one grid of the sm_90a kernel, unless an operand needs a copy first.
      plan in_grid = out;
      const status s = plan_wgmma(in_grid, 1, 0, wgmma_small, call_.batch.count, wgmma_batch);
      if (s != status::success) return s;
      if (!in_grid.repacked_a && !in_grid.repacked_b) {
        out = in_grid;
        out.batch_in_grid = true;
        return status::success;
      }
      packed_bytes_ = scratch_bytes_ = scratch_offset_ = 0;
    }
    if (suits_wgmma(1, wgmma_slices, wgmma_slice_steps, wgmma_small)) {
      return plan_wgmma(out, wgmma_slices, wgmma_slice_steps, wgmma_small);
    }

    // Which operands to rewrite as op(A) column-major m x k and op(B) as B^T stored n-contiguous (op_a = none,
    // op_b = transpose), the layout whose tiles load with plain vector copies. Only a misaligned operand needs
    // the copy (an aligned B of a 1 x 8192 x 8192 product is 256 MiB), and large problems also copy the operands
    // read along k. (Every product of a batch must be aligned: its stride too.)
    const int width = t_[tuning::slot::general].vector_width;
    bool pack_a = !fits_a(width);
    bool pack_b = !fits_b(width);
    const bool aligned = !pack_a && !pack_b;
    if (flops >= t_.layout_pack_flops) {
      pack_a = pack_a || (call_.op_a == op::transpose && n >= t_.layout_pack_min_extent);
      pack_b = pack_b || (call_.op_b == op::none && m >= t_.layout_pack_min_extent);
    }
    const bool repack = (pack_a || pack_b) && (aligned || flops >= t_.pack_min_flops);
    const region whole{0, 0, m, n, 0, 0};
    status in_grid_status = status::success;
    if (!repack && !aligned) {  // small, misaligned: scalar loads
      out.unaligned = true;
      const auto scalar_loads = [&](plan& p) { return add_gemm(p, tuning::slot::unaligned, whole); };
      if (batched && plan_in_grid(out, scalar_loads, in_grid_status)) return in_grid_status;
      const status s = scalar_loads(out);
      out.workspace_bytes = scratch_bytes_;
      return s;
    }
    if (batched && !repack &&
        plan_in_grid(out, [&](plan& p) { return plan_aligned(p, whole); }, in_grid_status)) {
      return in_grid_status;
    }
    if (repack) {
      // Large copies are padded to whole pack_padding tiles, zero-filled, and declared readable: then no block of
      // the large tile sits on a ragged edge for its loads (the padded kernel).
      if (pack_a) {
        if (status s = add_pack(out, step_kind::pack_a, m, call_.op_a == op::transpose, a_bytes, out.a);
            s != status::success) {
          return s;
        }
      }
      if (pack_b) {
        if (status s = add_pack(out, step_kind::pack_b, n, call_.op_b == op::none, b_bytes, out.b);
            s != status::success) {
          return s;
        }
      }
      if (!t_.pack_keeps_layout) {
        out.a.operation = out.op_a = pack_a ? op::none : call_.op_a;
        out.b.operation = out.op_b = pack_b ? op::transpose : call_.op_b;
      }
    }
    scratch_offset_ = packed_bytes_;
    status s = plan_aligned(out, region{0, 0, m, n, out.a.readable, out.b.readable});
    out.workspace_bytes = packed_bytes_ + scratch_bytes_;
    return s;
  }

 private:
  using slot = tuning::slot;

  /// A block of C (and the matching rows of op(A), columns of op(B)), with the extents its loads may read.
  struct region {
    int64_t row, col, rows, cols;
    int64_t readable_m, readable_n;  // 0: no padding
    region sub(int64_t r, int64_t c, int64_t nr, int64_t nc) const {
      return region{row + r, col + c, nr, nc, readable_m > r ? readable_m - r : 0, readable_n > c ? readable_n - c : 0};
    }
  };

  /// How one policy would run a region: its tiles, the blocks the GPU holds at once, and how well they fit.
  struct tile_score {
    int64_t tiles = 0;  ///< Block tiles of C.
    int64_t slots = 0;  ///< Blocks resident at once: multiprocessors x blocks per multiprocessor.
    double score = 0;   ///< Useful fraction of the tiles x fraction of the last wave's slots used x policy speed.
  };

  tile_score score(slot s, const region& r, double speed, op op_a, op op_b) const {
    const tuning::policy_numbers& p = t_[s];
    const int64_t tiles_m = kernel::tiles_for(r.rows, p.block_m), tiles_n = kernel::tiles_for(r.cols, p.block_n);
    tile_score plan;
    plan.tiles = tiles_m * tiles_n * (in_grid_ ? call_.batch.count : 1);
    plan.slots = facts_.multiprocessor_count() * facts_.resident(op_a, op_b, s);
    plan.score = tile_score_of(p, r.rows, r.cols, plan.tiles, plan.slots, speed);
    return plan;
  }

  /// The slot for a region with at most narrow_extent rows or columns, or none (returns false).
  bool thin_slot(const region& r, slot& s) const {
    const int64_t m = r.rows, n = r.cols;
    if (m <= t_.tiny_extent && n > m) return s = slot::tiny_m, true;
    if (n <= t_.tiny_extent) return s = slot::tiny_n, true;
    if (m <= t_.narrow_extent && n > m) return s = slot::narrow_m, true;
    if (n <= t_.narrow_extent) return s = slot::narrow_n, true;
    return false;
  }

  /// The large-tile slot for the (effective) operations: which operands are staged through registers decides it.
  static slot large_slot(op op_a, op op_b) {
    if (op_a == op::none) return slot::general;
    return op_b == op::none ? slot::general_tn : slot::general_tt;
  }

  /// Picks a tile size for an aligned region. Thin regions take the 16- or 32-wide tiles. Otherwise the large,
  /// medium and small tiles are scored by how much of their tiles is inside C, how evenly their blocks fill the
  /// resident-block slots, and their measured speed, and so is the large tile on the region with ragged edges of
  /// at most narrow_extent peeled off. The best runs unsplit when its tiles fill at least half the slots, else
  /// the medium tile runs with split-K (the small one where the medium tiles are very few: split_small_below).
  status plan_aligned(plan& out, const region& r) {
    // A batch in one grid of products that one or two products tiles cover.
    if (in_grid_ && products_tile_takes(t_, r.rows, r.cols, 2)) return add_gemm(out, slot::products, r);
    slot thin;
    // The thin tiles stream one long operand; a batch of products small in every extent (32 x 32 x 32) is better
    // served by the small tile's square blocks.
    const bool all_small = in_grid_ && std::max(r.rows, r.cols) <= t_[slot::small].block_m;
    if (!all_small && thin_slot(r, thin)) return add_gemm(out, thin, r);
    const op op_a = out.op_a, op_b = out.op_b;
    const slot large = large_slot(op_a, op_b);
    const tuning::policy_numbers& lp = t_[large];
    const int64_t ragged_m = r.rows % lp.block_m, ragged_n = r.cols % lp.block_n;
    const bool peel_m = ragged_m != 0 && ragged_m <= t_.narrow_extent && r.rows > lp.block_m;
    const bool peel_n = ragged_n != 0 && ragged_n <= t_.narrow_extent && r.cols > lp.block_n;
    const int64_t main_m = peel_m ? r.rows - ragged_m : r.rows, main_n = peel_n ? r.cols - ragged_n : r.cols;
    const tile_score plans[3] = {score(large, r, 1.0, op_a, op_b), score(slot::medium, r, t_.medium_speed, op_a, op_b),
                                 score(slot::small, r, t_.small_speed, op_a, op_b)};
    tile_score peeled;
    if (peel_m || peel_n) peeled = score(large, r.sub(0, 0, main_m, main_n), t_.peel_speed, op_a, op_b);
    int best = 0;
    for (int i = 1; i < 3; ++i) best = plans[i].score > plans[best].score ? i : best;
    if (peeled.score > plans[best].score && 2 * peeled.tiles > peeled.slots) {
      // The whole tiles with the large policy, then the ragged bottom strip (all columns) and the ragged right
      // strip (the other rows) as thin problems of their own. 4097^3 on an H200: 561 large tiles, 4.25 waves of
      // work in 5 waves, become 512 tiles in 4 waves plus two strips that each read one operand once.
      out.peeled = true;
      if (status s = add_gemm(out, large, r.sub(0, 0, main_m, main_n)); s != status::success) return s;
      const region strips[2] = {r.sub(main_m, 0, r.rows - main_m, r.cols), r.sub(0, main_n, main_m, r.cols - main_n)};
      for (int i = 0; i < 2; ++i) {
        if (strips[i].rows == 0 || strips[i].cols == 0) continue;
        slot strip_slot;
        if (!thin_slot(strips[i], strip_slot)) strip_slot = slot::medium;  // unreachable: a strip is thin
        if (status s = add_gemm(out, strip_slot, strips[i]); s != status::success) return s;
      }
      return status::success;
    }
    if (best == 0 && 2 * plans[0].tiles > plans[0].slots) return add_gemm(out, large, r);
    if (best == 2 && 2 * plans[2].tiles > plans[2].slots) return add_gemm(out, slot::small, r);
    // Too few tiles of every size: split k, on the small tile where the medium one makes very few tiles and the
    // product is small (a large one fills the GPU with the medium tile's slices).
    const double multiprocessors = double(facts_.multiprocessor_count());
    const double flops = 2.0 * double(r.rows) * double(r.cols) * double(call_.problem.k);
    if (double(plans[1].tiles) < t_.split_small_below * multiprocessors && flops <= t_.split_small_max_flops) {
      return add_gemm(out, slot::small, r);
    }
    return add_gemm(out, slot::medium, r);
  }

  /// How many k slices a region should be cut into so that a grid of `tiles` blocks fills `slots` resident
  /// blocks: none when the tiles already fill half of them; otherwise as many as fit in one wave, each slice at
  /// least split_min_steps k steps deep; none for a slot the entry keeps unsplit (float partials on thin problems
  /// only: float_partials_thin_only). Returns the slices and sets k_per_slice (a multiple of block_k).
  int64_t choose_split(slot s, const region& r, int block_k, int64_t tiles, int64_t slots,
                       int64_t& k_per_slice) const {
    const int64_t k = call_.problem.k;
    const int64_t min_slice = (s == slot::small ? t_.split_small_min_steps : t_.split_min_steps) * block_k;
    k_per_slice = k;
    if (2 * tiles > slots || k < 2 * min_slice) return 1;
    if (t_.float_partials && t_.float_partials_thin_only && !tuning::is_thin(s)) return 1;
    int64_t slices = slots / tiles;
    slices = slices < k / min_slice ? slices : k / min_slice;
    const int64_t partial_bytes = round_up(r.rows, 4) * r.cols * partial_element_bytes();
    while (slices > 1 && slices * partial_bytes > t_.max_partials_bytes) slices /= 2;
    if (slices <= 1) return 1;
    k_per_slice = round_up((k + slices - 1) / slices, block_k);
    return (k + k_per_slice - 1) / k_per_slice;
  }

  /// Adds the gemm step of one slot on a region, splitting k when its grid would leave most resident-block
  /// slots idle, and staging the product when C is misaligned for the epilogue's vector stores; then the
  /// reduce step those need.
  status add_gemm(plan& out, slot s, const region& r) {
    const tuning::policy_numbers& p = t_[s];
    plan_step g;
    g.kind = step_kind::gemm;
    g.slot = s;
    g.row = r.row, g.col = r.col, g.rows = r.rows, g.cols = r.cols;
    g.threads = p.threads;
    g.shared_bytes = p.shared_bytes;
    if (status st = tile_counts(p, r.rows, r.cols, g.tiles_m, g.tiles_n); st != status::success) return st;
    const tile_score fit = score(s, r, 1.0, out.op_a, out.op_b);
    g.slices = choose_split(s, r, p.block_k, fit.tiles, fit.slots, g.k_per_slice);
    if (g.slices > 1) {
      out.split_k = true;
      g.to_workspace = true;
      if (t_.float_partials) {  // a 16-bit C: the float-C twin of the slot's kernel writes the partials
        g.float_partials = true;
        g.threads = t_.partials_slots[int(s)].threads;
        g.shared_bytes = t_.partials_slots[int(s)].shared_bytes;
      }
      g.ld_out = round_up(r.rows, 4);
      g.slice_stride = g.ld_out * r.cols;
      g.offset = scratch_offset_;
      use_scratch(size_t(g.slices * g.slice_stride) * size_t(partial_element_bytes()));
      out.steps[out.step_count++] = g;
      add_reduce(out, g, r);
      return status::success;
    }
    // A C the epilogue cannot write as vectors: the product goes to an aligned buffer, and the reduction with
    // one slice copies it to C, applying alpha and beta; both passes are coalesced. Rows (columns) of padded
    // operand copies up to the policy's whole tiles are computed too, so no block loads a ragged edge.
    const auto* c_block = call_.update.c + r.row + r.col * call_.update.ldc;
    if (!in_grid_ && p.store_width > 1 && r.rows * r.cols >= t_.staged_c_min_elements &&
        !vectors_fit(c_block, call_.update.ldc, p.store_width, c_bytes)) {
      out.staged_c = true;
      g.rows = std::max(r.rows, std::min(r.readable_m, round_up(r.rows, p.block_m)));
      g.cols = std::max(r.cols, std::min(r.readable_n, round_up(r.cols, p.block_n)));
      if (status st = tile_counts(p, g.rows, g.cols, g.tiles_m, g.tiles_n); st != status::success) return st;
      g.to_workspace = true;
      g.ld_out = round_up(g.rows, 4);
      g.offset = scratch_offset_;
      use_scratch(size_t(g.ld_out * g.cols) * size_t(c_bytes));
      out.steps[out.step_count++] = g;
      add_reduce(out, g, r);
      return status::success;
    }
    if (s == slot::general && (r.readable_m > r.rows || r.readable_n > r.cols)) {
      g.padded = true;
      g.readable_m = std::max(r.readable_m, r.rows);
      g.readable_n = std::max(r.readable_n, r.cols);
    }
    out.steps[out.step_count++] = g;
    return status::success;
  }

  /// The reduce step after a gemm step that wrote to the workspace: into C's block r.
  void add_reduce(plan& out, const plan_step& g, const region& r) {
    plan_step& s = out.steps[out.step_count++];
    s.kind = step_kind::reduce;
    s.row = r.row, s.col = r.col, s.rows = r.rows, s.cols = r.cols;
    s.slices = g.slices;
    s.ld_out = g.ld_out;
    s.slice_stride = g.slices > 1 ? g.slice_stride : 0;
    s.offset = g.offset;
    s.float_partials = g.float_partials;
    s.threads = kernel::reduce_threads;
    // One full wave of blocks at most: the kernel strides through C.
    const int64_t blocks = (r.rows * r.cols + kernel::reduce_threads - 1) / kernel::reduce_threads;
    const int64_t resident = facts_.multiprocessor_count() *
                             (max_threads_per_multiprocessor / kernel::reduce_threads);
    s.grid_x = blocks < resident ? blocks : resident;
  }

  /// A new pack_a or pack_b step whose copy starts at the end of the copies so far; the gemm steps read `source`
  /// from it.
  plan_step& add_copy_step(plan& out, step_kind kind, operand_source& source) {
    plan_step& s = out.steps[out.step_count++];
    s.kind = kind;
    s.offset = packed_bytes_;
    source.packed = true;
    source.offset = packed_bytes_;
    (kind == step_kind::pack_a ? out.repacked_a : out.repacked_b) = true;
    return s;
  }

  /// The realigned copy of one operand (extent_mn x k, contiguous along k when `contiguous_k`): its layout kept, each
  /// line starting on a multiple of `line_bytes` (16, or wgmma_line_bytes for the sm_90a plan) (kernel::realign_operand,
  /// a straight copy with 16-byte stores).
  status add_realign(plan& out, step_kind kind, int64_t extent_mn, bool contiguous_k, int bytes_per_element,
                     operand_source& source, int line_bytes = 16) {
    const int64_t k = call_.problem.k;
    plan_step& s = add_copy_step(out, kind, source);
    const int64_t vector = 16 / bytes_per_element;  // what one thread of kernel::realign_operand writes
    const int64_t contiguous = contiguous_k ? k : extent_mn, lines = contiguous_k ? extent_mn : k;
    const int64_t ld = round_up(contiguous, line_bytes / bytes_per_element);
    s.keep_layout = true;
    s.extent_mn = contiguous;
    s.extent_k = lines;
    s.ld_packed = ld;
    s.contiguous_k = contiguous_k;
    s.threads = kernel::realign_threads;
    s.grid_x = kernel::tiles_for(ld / vector, kernel::realign_threads);
    s.grid_y = std::min<int64_t>(lines, kernel::max_grid_y);
    source.ld = ld;
    source.readable = 0;  // no padded reads: the padding runs along the contiguous extent only
    packed_bytes_ += round_up_bytes(size_t(ld) * size_t(lines) * size_t(bytes_per_element));
    return s.grid_x <= kernel::max_grid_x ? status::success : fail_too_many_tiles(s.grid_x, 1);
  }

  /// The copy of one operand: extent_mn x k, contiguous along mn, padded (see simt_f32_thresholds::pack_padding);
  /// or, for tables that keep the layout, the operand as stored, realigned to whole 16-byte vectors.
  status add_pack(plan& out, step_kind kind, int64_t extent_mn, bool contiguous_k, int bytes_per_element,
                  operand_source& source) {
    if (t_.pack_keeps_layout) return add_realign(out, kind, extent_mn, contiguous_k, bytes_per_element, source);
    const int64_t k = call_.problem.k;
    plan_step& s = add_copy_step(out, kind, source);
    s.contiguous_k = contiguous_k;
    const int64_t ld = round_up(extent_mn, extent_mn >= 8 * t_.pack_padding ? t_.pack_padding : 4);
    return tile_copy(s, source, extent_mn, ld, k, ld, size_t(ld) * size_t(k) * size_t(bytes_per_element));
  }

  /// The K-major copy of an operand stored along m (n): extent_mn lines of k elements, each line padded with zeros
  /// to a multiple of wgmma_line_bytes (kernel::pack_operand with the roles of k and mn swapped: a transposition through
  /// shared memory).
  status add_to_k_major(plan& out, step_kind kind, int64_t extent_mn, int bytes_per_element, operand_source& source) {
    plan_step& s = add_copy_step(out, kind, source);
    s.to_k_major = true;
    const int64_t ld = round_up(call_.problem.k, t_.wgmma_line_bytes / bytes_per_element);
    const size_t bytes = size_t(ld) * size_t(extent_mn) * size_t(bytes_per_element);
    return tile_copy(s, source, extent_mn, ld, extent_mn, 0, bytes);
  }

  /// The 3xTF32 split of one float operand (extent_mn x k, contiguous along k when `contiguous_k`): extent_mn lines
  /// of big TF32 parts, then extent_mn lines of small parts, each k elements padded with zeros to a multiple of
  /// wgmma_line_bytes (kernel::split_tf32_k_major).
  status add_split(plan& out, step_kind kind, int64_t extent_mn, bool contiguous_k, operand_source& source) {
    plan_step& s = add_copy_step(out, kind, source);
    s.split_tf32 = true;
    s.contiguous_k = contiguous_k;
    const int64_t ld = round_up(call_.problem.k, t_.wgmma_line_bytes / int64_t(sizeof(float)));
    return tile_copy(s, source, extent_mn, ld, extent_mn, 0, size_t(ld) * size_t(2 * extent_mn) * sizeof(float));
  }

  /// The rest of a copy made by pack_tile x pack_tile tiles (kernel::pack_operand, kernel::split_tf32_k_major): its
  /// extents, leading dimension `ld` (the padded contiguous extent, whose padding it zeroes: the grid's x covers
  /// it), the extent its grid's y walks, what the gemm steps may read of it, and its bytes in the workspace.
  status tile_copy(plan_step& s, operand_source& source, int64_t extent_mn, int64_t ld, int64_t extent_y,
                   int64_t readable, size_t bytes) {
    s.extent_mn = extent_mn;
    s.extent_k = call_.problem.k;
    s.ld_packed = ld;
    s.threads = kernel::pack_tile * kernel::pack_rows;
    s.grid_x = kernel::tiles_for(ld, kernel::pack_tile);
    s.grid_y = std::min<int64_t>(kernel::tiles_for(extent_y, kernel::pack_tile), kernel::max_grid_y);
    source.ld = ld;
    source.readable = readable;
    packed_bytes_ += round_up_bytes(bytes);
    return s.grid_x <= kernel::max_grid_x ? status::success : fail_too_many_tiles(s.grid_x, 1);
  }

  /// What the sm_90a kernel needs done to one operand (extent_mn x k, stored along k when `k_major`) before it reads
  /// it: 3xTF32 splits it into TF32 parts, K-major (always); a kernel that reads the operand K-major only (TF32's B)
  /// gets a K-major copy of one stored along n; an operand TMA cannot describe is realigned in its own layout; else
  /// nothing.
  status wgmma_operand(plan& out, step_kind kind, int64_t extent_mn, bool k_major, const void* base, int64_t ld,
                       int64_t batch_stride, int bytes_per_element, operand_source& source) {
    const bool in_place = k_major || (kind == step_kind::pack_a ? t_.wgmma_mn_major_a : t_.wgmma_mn_major_b);
    if (t_.wgmma_split_tf32 || !in_place) {
      // The copy is K-major: the column-major form reads it as op(A) = A^T, op(B) = B.
      (kind == step_kind::pack_a ? out.op_a : out.op_b) = source.operation =
          kind == step_kind::pack_a ? op::transpose : op::none;
      return t_.wgmma_split_tf32 ? add_split(out, kind, extent_mn, k_major, source)
                                 : add_to_k_major(out, kind, extent_mn, bytes_per_element, source);
    }
    if (vectors_fit(base, ld, t_.wgmma.vector_width, bytes_per_element, call_.batch.count, batch_stride)) {
      return status::success;
    }
    return add_realign(out, kind, extent_mn, k_major, bytes_per_element, source, t_.wgmma_line_bytes);
  }

  /// Whether the product runs on the entry's sm_90a kernel: the entry has one, the device runs the sm_90a image,
  /// the extents fit its 32-bit coordinates and grid, neither is thin, and its tiles fill at least wgmma_min_wave
  /// of the multiprocessors, or else k is deep enough to split into `slices` of `slice_steps` block_k steps each
  /// (k at least wgmma_split_min_k, each slice at least wgmma_split_min_slice_k deep) that bring the work items up to
  /// about one wave (slices = 1: no split). Before splitting, a single product whose large tiles fill fewer than
  /// wgmma_small_below_wave of the multiprocessors takes the entry's smaller tile unsplit (`small`) where k is at most
  /// wgmma_small_max_k and those tiles fill between wgmma_small_min_wave and wgmma_small_max_waves. Where k is split,
  /// the entry may split it on the smaller tile instead (wgmma_split_small), when its tiles fill at most half of the
  /// multiprocessors.
  ///
  /// `products` > 1: a strided batch in one grid, its work items (product, tile) together filling wgmma_min_wave
  /// (never split), each tile at least wgmma_batch_min_use inside C; the smaller tile where wgmma_batch_takes_small
  /// says so, the batch tile (`*batch_tile`) where wgmma_batch_runs() says so.
  bool suits_wgmma(int64_t products, int64_t& slices, int64_t& slice_steps, bool& small,
                   bool* batch_tile = nullptr) const {
    slices = 1;
    small = false;
    if (batch_tile != nullptr) *batch_tile = false;
    const tuning::policy_numbers& p = t_.wgmma;
    if (p.block_m == 0 || !facts_.wgmma_image) return false;
    const int64_t m = call_.problem.m, n = call_.problem.n, k = call_.problem.k;
    constexpr int64_t limit = int64_t(INT32_MAX) - 256;  // TMA's 32-bit coordinates, with a tile to spare
    if (m > limit || n > limit || k > limit || m <= t_.narrow_extent || n <= t_.narrow_extent) return false;
    if (t_.wgmma_split_tf32 && (2 * m > limit || 2 * n > limit)) return false;  // big and small parts' lines
    const int64_t tiles_m = kernel::tiles_for(m, p.block_m), tiles_n = kernel::tiles_for(n, p.block_n);
    if (tiles_m * tiles_n > int64_t(INT32_MAX)) return false;  // its tile index is 32-bit
    const int64_t tiles = tiles_m * tiles_n, sms = facts_.multiprocessor_count();
    if (products > 1) {
      // The rank-3 tensor maps describe each product as ld x lines elements, one after another: the driver's
      // layout of a tensor (cuda.h: each dimension's stride includes the previous one's), so products that overlap
      // (A or B stride below that; a stride of 0 uses one matrix) go to the other kernels.
      const int64_t lines_a = call_.op_a == op::transpose ? m : k, lines_b = call_.op_b == op::none ? n : k;
      const bool apart = (call_.batch.stride_a == 0 || call_.batch.stride_a >= call_.problem.lda * lines_a) &&
                         (call_.batch.stride_b == 0 || call_.batch.stride_b >= call_.problem.ldb * lines_b);
      bool on_batch_tile = false;
      const bool runs = apart && wgmma_batch_runs(t_, m, n, k, products, sms, call_.fused, small, on_batch_tile);
      if (batch_tile != nullptr) *batch_tile = runs && on_batch_tile;
      return runs;
    }
    const tuning::policy_numbers& q = t_.wgmma_small;
    const int64_t small_tiles = q.block_m != 0 ? kernel::tiles_for(m, q.block_m) * kernel::tiles_for(n, q.block_n) : 0;
    // (Single products only: a batch that does not run in one grid would run its products one after another.)
    if (q.block_m != 0 && call_.batch.count == 1 && double(tiles) < t_.wgmma_small_below_wave * double(sms) &&
        k <= t_.wgmma_small_max_k) {
      if (double(small_tiles) >= t_.wgmma_small_min_wave * double(sms) &&
          double(small_tiles) <= t_.wgmma_small_max_waves * double(sms)) {
        small = true;
        return true;
      }
    }
    if (double(tiles) >= t_.wgmma_min_wave * double(sms)) return true;
    // Too few tiles: split k, when the entry has a split-K kernel and k is deep enough for two slices or more.
    if (t_.wgmma_partials.block_m == 0 || t_.wgmma_split_min_k <= 0 || k < t_.wgmma_split_min_k) return false;
    if (t_.wgmma_split_small && t_.wgmma_small_partials.block_m != 0 && call_.batch.count == 1 &&
        2 * small_tiles <= sms && split_slices(small_tiles, t_.wgmma_small_partials.block_k, slices, slice_steps)) {
      small = true;  // the smaller tile, split
      return true;
    }
    return split_slices(tiles, p.block_k, slices, slice_steps);
  }

  /// The split of k for `tiles` tiles of block_k deep steps: as many slices as one wave of blocks holds, each at least
  /// wgmma_split_min_slice_k deep, their float partials within wgmma_max_partials_bytes; false for fewer than two.
  bool split_slices(int64_t tiles, int block_k, int64_t& slices, int64_t& slice_steps) const {
    const int64_t m = call_.problem.m, n = call_.problem.n, k = call_.problem.k;
    const int64_t sms = facts_.multiprocessor_count();
    const int64_t min_slice_steps = std::max<int64_t>(1, (t_.wgmma_split_min_slice_k + block_k - 1) / block_k);
    const int64_t k_steps = (k + block_k - 1) / block_k;
    int64_t n_slices = std::min(sms / tiles, k_steps / min_slice_steps);
    const int64_t partial_bytes = round_up(m, 4) * n * int64_t(sizeof(float));
    while (n_slices > 1 && n_slices * partial_bytes > t_.wgmma_max_partials_bytes) n_slices /= 2;
    if (n_slices < 2) return false;
    slice_steps = (k_steps + n_slices - 1) / n_slices;
    slices = (k_steps + slice_steps - 1) / slice_steps;  // no slice left empty
    return true;
  }

  /// The sm_90a plan: operands TMA cannot describe (base not 16-byte aligned, leading dimension not a multiple of
  /// 16 bytes) are realigned in their own layout, then one kernel covers C (any op pair for 16-bit elements: wgmma
  /// reads K-major and MN-major tiles alike; TF32 reads K-major tiles only, so an operand stored along m or n is
  /// copied K-major first; 3xTF32 splits both operands into K-major TF32 parts; TMA zero-fills the ragged edges).
  status plan_wgmma(plan& out, int64_t slices, int64_t slice_steps, bool small, int64_t products = 1,
                    bool batch_tile = false) {
    const int64_t m = call_.problem.m, n = call_.problem.n;
    out.wgmma = true;
    if (status s = wgmma_operand(out, step_kind::pack_a, m, call_.op_a == op::transpose, call_.problem.a,
                                 call_.problem.lda, call_.batch.stride_a, a_bytes, out.a);
        s != status::success) {
      return s;
    }
    if (status s = wgmma_operand(out, step_kind::pack_b, n, call_.op_b == op::none, call_.problem.b,
                                 call_.problem.ldb, call_.batch.stride_b, b_bytes, out.b);
        s != status::success) {
      return s;
    }
    plan_step g;
    g.kind = step_kind::gemm;
    g.wgmma = true;
    g.wgmma_small = small;
    g.wgmma_batch = batch_tile;
    g.rows = m, g.cols = n;
    const tuning::policy_numbers& p = slices > 1  ? (small ? t_.wgmma_small_partials : t_.wgmma_partials)
                                      : batch_tile ? t_.wgmma_batch
                                      : small      ? t_.wgmma_small
                                                   : t_.wgmma;
    g.threads = p.threads;
    g.shared_bytes = p.shared_bytes;
    g.tiles_m = kernel::tiles_for(m, p.block_m);
    g.tiles_n = kernel::tiles_for(n, p.block_n);
    const int64_t items = g.tiles_m * g.tiles_n * slices * products;
    const int64_t sms = facts_.multiprocessor_count();
    g.grid_x = t_.wgmma_persistent && items > sms ? sms : items;
    g.tile_group = t_.wgmma_group_m;
    if (slices > 1) {  // float partials in the workspace after the copies, then the reduction into C
      out.split_k = true;
      g.slices = slices;
      g.k_per_slice = slice_steps * p.block_k;
      g.to_workspace = true;
      g.float_partials = true;
      g.ld_out = round_up(m, 4);
      g.slice_stride = g.ld_out * n;
      g.offset = scratch_offset_ = packed_bytes_;
      use_scratch(size_t(slices * g.slice_stride) * sizeof(float));
      out.steps[out.step_count++] = g;
      add_reduce(out, g, region{0, 0, m, n, 0, 0});
    } else {
      out.steps[out.step_count++] = g;
    }
    out.workspace_bytes = packed_bytes_ + scratch_bytes_;
    return status::success;
  }

  /// Whether the product runs on the GEMV kernels: the entry sends them one-row or one-column products (see
  /// simt_f32_thresholds::gemv), and the other operand (the matrix the kernels stream) is stored in lines they can
  /// read 16 bytes at a time (every product's, for a batch). The vector needs no alignment: the kernels stage it
  /// through shared memory.
  bool suits_gemv() const {
    const int64_t m = call_.problem.m, n = call_.problem.n;
    if (!t_.gemv || std::min(m, n) != 1) return false;
    return m <= n ? fits_b(kernel::gemv_vector<typename Types::element_b>)
                  : fits_a(kernel::gemv_vector<typename Types::element_a>);
  }

  /// The GEMV plan: one kernel over the many columns (rows) of C, the batch in its grid; when its blocks would
  /// leave the GPU idle (fewer than the kernel's gemv_along_k_min_blocks or gemv_along_n_min_blocks per
  /// multiprocessor, the whole batch counted) and k is deep, k splits into slices of at least gemv_min_slice_k
  /// (unscaled partial sums, then the reduction; on sm_90 and newer, along n, at most gemv_cluster_slices slices, or
  /// gemv_wide_cluster_slices for a narrow matrix, summed inside the launch), and a batch runs product by product.
  status plan_gemv(plan& out) {
    const int64_t m = call_.problem.m, n = call_.problem.n, k = call_.problem.k;
    plan_step g;
    g.kind = step_kind::gemm;
    g.gemv = true;
    g.gemv_few_rows = m <= n;
    g.gemv_along_k = g.gemv_few_rows ? call_.op_b == op::none : call_.op_a == op::transpose;
    g.rows = m, g.cols = n;
    g.threads = kernel::gemv_threads;
    using element = typename Types::element_a;
    g.tiles_m = kernel::tiles_for(g.gemv_few_rows ? n : m, kernel::gemv_block_columns<element>(g.gemv_along_k));
    g.tiles_n = 1;
    if (!kernel::grid_fits(g.tiles_m)) return fail_too_many_tiles(g.tiles_m, 1);
    out.gemv = true;
    const int64_t products = call_.batch.count;
    const double per_sm = g.gemv_along_k ? t_.gemv_along_k_min_blocks : t_.gemv_along_n_min_blocks;
    const double wanted = per_sm * double(facts_.multiprocessor_count());
    int64_t slices = 1;
    if (double(g.tiles_m * products) < wanted && k >= 2 * t_.gemv_min_slice_k) {
      slices = std::min<int64_t>(int64_t(wanted / double(g.tiles_m)) + 1, k / t_.gemv_min_slice_k);
      const int64_t partial_bytes = round_up(m, 4) * n * partial_element_bytes();
      while (slices > 1 && slices * partial_bytes > t_.max_partials_bytes) slices /= 2;
    }
    // On sm_90 and newer the slices of the kernel along n meet in C inside its launch (clusters of the slices), at
    // most gemv_cluster_slices of them (fewer slices without the reduction launch ran faster than more with it), or
    // gemv_wide_cluster_slices where that many would leave multiprocessors without a block.
    const bool clustered = !g.gemv_along_k && facts_.arch >= 900 && t_.gemv_cluster_slices > 1;
    if (clustered) {
      int64_t bound = t_.gemv_cluster_slices;
      if (g.tiles_m * bound < int64_t(facts_.multiprocessors)) bound = std::max(bound, t_.gemv_wide_cluster_slices);
      slices = std::min<int64_t>(slices, std::min<int64_t>(bound, kernel::gemv_max_cluster_slices));
    }
    if (slices <= 1) {
      out.batch_in_grid = products > 1;
      out.steps[out.step_count++] = g;
      return status::success;
    }
    // Each slice starts on a whole 16-byte vector of the matrix's lines.
    g.k_per_slice = round_up((k + slices - 1) / slices, kernel::gemv_vector<element>);
    g.slices = (k + g.k_per_slice - 1) / g.k_per_slice;
    out.split_k = true;
    g.to_workspace = true;
    const int64_t kernel_rows = g.gemv_few_rows ? m : n;  // the vectors
    if (clustered) {
      g.gemv_cluster = true;
      g.ld_out = kernel_rows;  // compact partials: a slice's (vector r, output j) at j x vectors + r
      g.slice_stride = m * n;
      g.offset = 0;
      use_scratch(size_t(g.slices * g.slice_stride) * size_t(partial_element_bytes()));
      out.steps[out.step_count++] = g;
      out.workspace_bytes = scratch_bytes_;
      return status::success;
    }
    g.float_partials = t_.float_partials;
    g.ld_out = round_up(m, 4);
    g.slice_stride = g.ld_out * n;
    g.offset = 0;
    use_scratch(size_t(g.slices * g.slice_stride) * size_t(partial_element_bytes()));
    out.steps[out.step_count++] = g;
    add_reduce(out, g, region{0, 0, m, n, 0, 0});
    out.workspace_bytes = scratch_bytes_;
    return status::success;
  }

  /// Plans a strided batch in one grid with plan_steps(plan&), the tiles of every product counted together. Returns
  /// true when that is the plan (in `out`, with `result`) or it failed (`result`); false when it would split k, so
  /// that each product is planned alone instead (the batch's tiles leave the GPU idle and k is deep).
  template <class PlanSteps>
  bool plan_in_grid(plan& out, PlanSteps&& plan_steps, status& result) {
    plan trial = out;
    in_grid_ = true;
    result = plan_steps(trial);
    in_grid_ = false;
    if (result == status::success && trial.split_k) {
      scratch_bytes_ = 0;  // the split plan is made again, per product
      return false;
    }
    if (result == status::success) {
      out = trial;
      out.batch_in_grid = true;
      out.workspace_bytes = 0;
    }
    return true;
  }

  void use_scratch(size_t bytes) { scratch_bytes_ = std::max(scratch_bytes_, round_up_bytes(bytes)); }

  /// Whether every product's A (B) can be read `width` elements at a time.
  bool fits_a(int width) const {
    return vectors_fit(call_.problem.a, call_.problem.lda, width, a_bytes, call_.batch.count, call_.batch.stride_a);
  }
  bool fits_b(int width) const {
    return vectors_fit(call_.problem.b, call_.problem.ldb, width, b_bytes, call_.batch.count, call_.batch.stride_b);
  }

  /// Bytes of one split-K partial: float where the entry says so (a 16-bit C), else C's type.
  int partial_element_bytes() const { return t_.float_partials ? int(sizeof(float)) : c_bytes; }

  /// Threads one multiprocessor holds on every architecture tgemm tunes for (the reduction's grid is one wave).
  static constexpr int64_t max_threads_per_multiprocessor = 2048;
  static constexpr int a_bytes = element_bytes<typename Types::element_a>;
  static constexpr int b_bytes = element_bytes<typename Types::element_b>;
  static constexpr int c_bytes = element_bytes<typename Types::element_c>;

  const canonical_call<Types>& call_;
  const device_facts& facts_;
  const tuning::tuning_values& t_;
  size_t packed_bytes_ = 0;   // operand copies: they live for the whole call
  size_t scratch_offset_ = 0; // split-K partials or a staged product: one gemm step at a time, reused
  size_t scratch_bytes_ = 0;
  bool in_grid_ = false;      // planning a batch run in one grid: its tiles count once per product, C is not staged
};

/// The plans a thread's tgemm::gemm() calls executed, when a test asks for them (record_plans).
struct plan_record {
  bool enabled = false;  ///< Record the plans of this thread's calls.
  int calls = 0;         ///< Plans recorded since enabled.
  plan last;             ///< The last one.
  /// Groups of tgemm::gemm_grouped() and gemm_grouped_device() run together on the grouped Hopper kernel, and
  /// products of gemm_batched()'s pointer arrays run on the Hopper kernel.
  int grouped_hopper_groups = 0;
  /// Calls of gemm_batched() and gemm_grouped_device() run on the tile kernels (kernel::gemm_indirect_kernel).
  int indirect_calls = 0;
  /// The slot whose tile the last of those ran (medium, small or products).
  tuning::slot indirect_slot = tuning::slot::medium;
};

/// This thread's plan record (shared by every translation unit, the compiled library's included).
inline plan_record& plan_recorder() {
  static thread_local plan_record record;
  return record;
}

/// Records the plans of this thread's tgemm::gemm() calls for the scope's lifetime: what the GPU tests read to
/// assert which path a call took.
class record_plans {
 public:
  record_plans() {
    plan_recorder() = plan_record{};
    plan_recorder().enabled = true;
  }
  record_plans(const record_plans&) = delete;
  record_plans& operator=(const record_plans&) = delete;
  ~record_plans() { plan_recorder().enabled = false; }
  /// The plan of the last call (valid when calls() > 0).
  const plan& last() const { return plan_recorder().last; }
  /// Calls recorded.
  int calls() const { return plan_recorder().calls; }
  /// Groups and pointer-array products run together on the Hopper kernel (plan_record; not in calls()).
  int grouped_hopper_groups() const { return plan_recorder().grouped_hopper_groups; }
  /// Pointer-array and device-group calls run on the tile kernels (plan_record; not in calls()).
  int indirect_calls() const { return plan_recorder().indirect_calls; }
  /// The slot of the last of those (valid when indirect_calls() > 0).
  tuning::slot indirect_slot() const { return plan_recorder().indirect_slot; }
};

/// Marks which of a fused plan's unsplit large-tile steps run the table's ping-pong policy (plan_step::wgmma_pingpong):
/// all of them where the entry names one (tuning.wgmma_fused), except, where the build has the cooperative tile's
/// fused kernels (`cooperative_built`: a finite wgmma_fused_pingpong_max_k in the table), those of a product deeper
/// than tuning.wgmma_fused_pingpong_max_k (the entry's, or a benchmark's through the tuning hook). The dispatcher
/// calls it after make_plan() for a fused call; the plan's tiles and grid are the same either way.
inline void mark_fused_large_steps(plan& p, int64_t k, const tuning::tuning_values& tuning, bool cooperative_built) {
  for (int i = 0; i < p.step_count; ++i) {
    plan_step& s = p.steps[i];
    s.wgmma_pingpong = s.kind == step_kind::gemm && s.wgmma && !s.wgmma_small && s.slices == 1 &&
                       tuning.wgmma_fused.block_m != 0 && (!cooperative_built || k <= tuning.wgmma_fused_pingpong_max_k);
  }
}

/// The plan of tgemm::gemm() for a validated call (pure: no device work).
template <class Types>
status make_plan(const canonical_call<Types>& call, const device_facts& facts, const tuning::tuning_values& tuning,
                 plan& out) {
  return planner<Types>(call, facts, tuning).run(out);
}

}  // namespace tgemm::detail
