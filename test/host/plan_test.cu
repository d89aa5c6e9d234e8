// The dispatcher's plans, without a GPU: shape -> plan tables for each architecture's device facts, and the
// properties every plan must have (steps cover C exactly once, workspace regions do not overlap, grids fit).
#include "catch.hpp"
#include "pinned_facts.hpp"

#include <tgemm/gemm.cuh>
#include <tgemm/host/grouped_plan.cuh>

#include <cuda_bf16.h>  // the 16-bit types are complete where the tests do pointer arithmetic on them
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::detail::device_facts;
using namespace tgemm::test::pinned;
using tgemm::detail::plan;
using tgemm::detail::plan_step;
using tgemm::detail::step_kind;
using tgemm::tuning::slot;

/// A call as a user makes it; pointers are fake (plans never dereference them), 256-byte aligned plus an offset.
struct call_spec {
  layout order = layout::col_major;
  op op_a = op::none, op_b = op::none;
  int64_t m = 1, n = 1, k = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;  // 0: the tight leading dimension
  int64_t offset_a = 0, offset_b = 0, offset_c = 0;  // in floats
  float alpha = 1.0f, beta = 0.0f;
  tgemm::detail::batch_shape batch;  // a strided batch (strides in elements)
};

int64_t tight_ld(layout order, op operation, int64_t rows, int64_t cols) {
  const int64_t x_rows = operation == op::none ? rows : cols, x_cols = operation == op::none ? cols : rows;
  return std::max<int64_t>(1, order == layout::col_major ? x_rows : x_cols);
}

const float* fake(int64_t offset) { return reinterpret_cast<const float*>(uintptr_t(1) << 40) + offset; }

/// The plan tgemm::gemm() makes for a float call on a device with these facts, from the tuning entry `values` (the
/// strict FP32 table's unless given).
plan plan_for(const call_spec& c, const device_facts& f, const tgemm::tuning::tuning_values* given = nullptr) {
  tgemm::detail::canonical_call<tgemm::detail::gemm_types<float>> call;
  const int64_t lda = c.lda ? c.lda : tight_ld(c.order, c.op_a, c.m, c.k);
  const int64_t ldb = c.ldb ? c.ldb : tight_ld(c.order, c.op_b, c.k, c.n);
  const int64_t ldc = c.ldc ? c.ldc : tight_ld(c.order, op::none, c.m, c.n);
  REQUIRE(tgemm::detail::check_arguments(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, fake(c.offset_a), lda,
                                         fake(c.offset_b), ldb, c.beta, const_cast<float*>(fake(c.offset_c)), ldc,
                                         call, c.batch) == status::success);
  const tgemm::tuning::tuning_values values =
      given != nullptr ? *given : tgemm::tuning::values_for<tgemm::tuning::default_chain>(f.arch);
  plan p;
  REQUIRE(tgemm::detail::make_plan(call, f, values, p) == status::success);
  INFO(tgemm::detail::describe(p, &values, "float", call.problem.m, call.problem.n, call.problem.k));
  return p;
}

/// The gemm steps' slots, in order, as "general, tiny_m".
std::string slots_of(const plan& p) {
  std::string text;
  for (int i = 0; i < p.step_count; ++i) {
    if (p.steps[i].kind != step_kind::gemm) continue;
    if (!text.empty()) text += ", ";
    text += p.steps[i].wgmma ? "wgmma" : p.steps[i].gemv ? "gemv" : tgemm::tuning::to_string(p.steps[i].slot);
    if (p.steps[i].padded) text += " (padded)";
    if (p.steps[i].slices > 1) text += " x" + std::to_string(p.steps[i].slices);
  }
  return text;
}

/// The step kinds in order, as "pack_b gemm reduce".
std::string kinds_of(const plan& p) {
  static const char* names[] = {"pack_a", "pack_b", "gemm", "reduce", "scale"};
  std::string text;
  for (int i = 0; i < p.step_count; ++i) text += std::string(i ? " " : "") + names[int(p.steps[i].kind)];
  return text;
}

/// One row of a shape -> plan table.
struct expected_plan {
  call_spec call;
  const char* kinds;   ///< kinds_of()
  const char* slots;   ///< slots_of()
  bool repacked_a, repacked_b, peeled, staged_c, split_k, unaligned;
};

void check_table(const device_facts& f, const std::vector<expected_plan>& table) {
  for (const expected_plan& e : table) {
    const call_spec& c = e.call;
    CAPTURE(f.arch, c.m, c.n, c.k, tgemm::to_string(c.order), tgemm::to_string(c.op_a), tgemm::to_string(c.op_b),
            c.lda, c.ldb, c.ldc, c.offset_a, c.offset_b, c.offset_c);
    const plan p = plan_for(c, f);
    CHECK(kinds_of(p) == e.kinds);
    CHECK(slots_of(p) == e.slots);
    CHECK(p.repacked_a == e.repacked_a);
    CHECK(p.repacked_b == e.repacked_b);
    CHECK(p.peeled == e.peeled);
    CHECK(p.staged_c == e.staged_c);
    CHECK(p.split_k == e.split_k);
    CHECK(p.unaligned == e.unaligned);
  }
}

call_spec shape(int64_t m, int64_t n, int64_t k, op op_a = op::none, op op_b = op::none) {
  call_spec c;
  c.m = m, c.n = n, c.k = k, c.op_a = op_a, c.op_b = op_b;
  return c;
}

call_spec with(call_spec c, int64_t offset_a, int64_t offset_b, int64_t offset_c) {
  c.offset_a = offset_a, c.offset_b = offset_b, c.offset_c = offset_c;
  return c;
}

call_spec with_ldc(call_spec c, int64_t ldc) {
  c.ldc = ldc;
  return c;
}

}  // namespace

TEST_CASE("H200 plans: tiles, repacking, peeling, staging and split-K by shape", "[plan]") {
  const op N = op::none, T = op::transpose;
  check_table(h200(), {
      // Large aligned products (2mnk >= 2^34): the operands read along k are repacked so both tiles stream in with
      // cp.async; the large tile then runs in one launch.
      {shape(4096, 4096, 4096), "pack_b gemm", "general", false, true, false, false, false, false},
      {shape(8192, 8192, 8192), "pack_b gemm", "general", false, true, false, false, false, false},
      {shape(4096, 4096, 4096, N, T), "gemm", "general", false, false, false, false, false, false},
      {shape(4096, 4096, 4096, T, N), "pack_a pack_b gemm", "general", true, true, false, false, false, false},
      {shape(4096, 4096, 4096, T, T), "pack_a gemm", "general", true, false, false, false, false, false},
      {shape(2048, 2048, 2048), "pack_b gemm", "general", false, true, false, false, false, false},  // 2mnk = 2^34
      // Ragged: misaligned operands are copied, padded to whole 256 tiles, and the large tile loads through the
      // padding; a C whose ldc is odd is computed into aligned workspace and copied by a one-slice reduce.
      {shape(4095, 4095, 4095), "pack_a pack_b gemm reduce", "general", true, true, false, true, false, false},
      {with_ldc(shape(4095, 4095, 4095), 4096), "pack_a pack_b gemm", "general (padded)", true, true, false, false,
       false, false},
      // 4097^3: the whole tiles run the large tile (staged: ldc = 4097), the 1-wide strips the tiny ones, split.
      {shape(4097, 4097, 4097), "pack_a pack_b gemm reduce gemm reduce gemm reduce",
       "general, tiny_m x15, tiny_n x15", true, true, true, true, true, false},
      {shape(2080, 4100, 16), "gemm gemm gemm", "general, narrow_m, tiny_n", false, false, true, false, false, false},
      // Below 2^34 flops nothing aligned is repacked: the large tile for the layout.
      {shape(2000, 2000, 2000), "gemm", "general", false, false, false, false, false, false},
      {shape(2000, 2000, 2000, T, N), "gemm", "general_tn", false, false, false, false, false, false},
      {shape(2000, 2000, 2000, T, T), "gemm", "general_tt", false, false, false, false, false, false},
      {shape(4096, 4096, 128), "gemm", "general", false, false, false, false, false, false},
      // Few tiles: split-K on the medium tile; where it makes at most 16 tiles (an eighth of the 132 SMs or fewer:
      // split_small_below) and 2mnk is at most 2^29 (split_small_max_flops), on the small tile, in slices as thin as
      // one 32-deep step (256 x 192 x 128: 12 tiles x 4).
      {shape(256, 192, 128), "gemm reduce", "small x4", false, false, false, false, true, false},
      {shape(256, 256, 256), "gemm reduce", "small x8", false, false, false, false, true, false},
      {shape(512, 512, 512), "gemm reduce", "small x8", false, false, false, false, true, false},
      {shape(256, 256, 4096), "gemm reduce", "small x32", false, false, false, false, true, false},
      {shape(256, 256, 4100), "gemm reduce", "medium x52", false, false, false, false, true, false},
      {shape(256, 256, 16384), "gemm reduce", "medium x64", false, false, false, false, true, false},
      {shape(64, 64, 8192), "gemm reduce", "small x256", false, false, false, false, true, false},
      {shape(512, 512, 4096), "gemm reduce", "medium x16", false, false, false, false, true, false},
      {shape(256, 256, 32), "gemm", "small", false, false, false, false, false, false},  // too shallow to split
      {shape(640, 512, 512), "gemm reduce", "medium x8", false, false, false, false, true, false},  // 20 tiles
      {shape(128, 4096, 4096), "gemm reduce", "medium x8", false, false, false, false, true, false},
      {shape(1024, 1024, 1024), "gemm reduce", "medium x4", false, false, false, false, true, false},
      // Thin problems: 16- and 32-wide tiles, split when they leave SMs idle.
      {shape(16, 8192, 8192), "gemm reduce", "tiny_m x8", false, false, false, false, true, false},
      {shape(8192, 16, 8192), "gemm reduce", "tiny_n x8", false, false, false, false, true, false},
      {shape(24, 520, 3000), "gemm reduce", "narrow_m x38", false, false, false, false, true, false},
      {shape(700, 20, 2500), "gemm reduce", "narrow_n x32", false, false, false, false, true, false},
      {shape(4, 300, 76), "gemm", "tiny_m", false, false, false, false, false, false},
      // One row or column, with 16-byte lines in the other operand: the GEMV kernels, k split when their blocks
      // leave the GPU idle (1 x 4100 x 16400: 257 blocks of 16 columns, 2 slices of 8200).
      {shape(1, 300, 76), "gemm", "gemv", false, false, false, false, false, false},
      {shape(1, 4100, 16400), "gemm reduce", "gemv x2", false, false, false, false, true, false},
      // Misaligned: scalar loads below 2^27 flops (ldb = k = 130 here), a copy of only the misaligned operand
      // above (lda = m = 1; B three floats off).
      {shape(256, 192, 130), "gemm reduce", "unaligned x2", false, false, false, false, true, true},
      {with(shape(129, 257, 64), 1, 0, 0), "gemm", "unaligned", false, false, false, false, false, true},
      {with(shape(16, 4100, 16400), 1, 0, 0), "pack_a gemm reduce", "tiny_m x16", true, false, false, false, true,
       false},
      {with(shape(4100, 16, 16400, N, T), 0, 3, 0), "pack_b gemm reduce", "tiny_n x16", false, true, false, false,
       true, false},
      // Nothing to compute: C = beta C, or nothing at all.
      {[] { call_spec c = shape(33, 17, 0); c.beta = 0.5f; return c; }(), "scale", "", false, false, false, false,
       false, false},
      {[] { call_spec c = shape(33, 17, 9); c.alpha = 0.0f; c.beta = 1.0f; return c; }(), "", "", false, false, false,
       false, false, false},
  });
}

TEST_CASE("plans for other GPUs follow their own tuning entry and size", "[plan]") {
  // The same 4096^3 problem on each GPU: one large-tile launch after B's copy, with that entry's tile.
  for (const device_facts& f : {a100(), rtx3090(), t4()}) {
    CAPTURE(f.arch);
    const plan p = plan_for(shape(4096, 4096, 4096), f);
    REQUIRE(kinds_of(p) == "pack_b gemm");
    REQUIRE(p.steps[1].threads == 256);
    REQUIRE(p.steps[1].tiles_m == 32);  // 128 x 128 tiles before sm_90
    REQUIRE(p.steps[1].tiles_n == 32);
    REQUIRE(p.arch == f.arch);
  }
  // sm_90's 256 x 128 tile.
  const plan hopper = plan_for(shape(4096, 4096, 4096), h200());
  REQUIRE(hopper.steps[1].tiles_m == 16);
  REQUIRE(hopper.steps[1].tiles_n == 32);
  // A split sized to the GPU: slices fill one wave of its resident blocks (a T4's 40 SMs hold 40 of them already).
  check_table(a100(), {{shape(16, 8192, 8192), "gemm reduce", "tiny_m x6", false, false, false, false, true, false}});
  check_table(rtx3090(), {{shape(16, 8192, 8192), "gemm reduce", "tiny_m x2", false, false, false, false, true, false}});
  check_table(t4(), {{shape(16, 8192, 8192), "gemm", "tiny_m", false, false, false, false, false, false}});
  // Waves decide between the tiles: on an A100 and a T4, 2000^3 runs more evenly on the small tile.
  check_table(a100(), {{shape(2000, 2000, 2000, op::transpose, op::none), "gemm", "small", false, false, false, false,
                        false, false}});
  check_table(rtx3090(), {{shape(2000, 2000, 2000, op::transpose, op::none), "gemm", "general_tn", false, false, false,
                           false, false, false}});
  check_table(t4(), {{shape(2000, 2000, 2000, op::transpose, op::none), "gemm", "small", false, false, false, false,
                      false, false}});
}

namespace {

/// The properties every plan has, checked on one call.
void check_plan_properties(const call_spec& c, const device_facts& f) {
  CAPTURE(f.arch, c.m, c.n, c.k, tgemm::to_string(c.order), tgemm::to_string(c.op_a), tgemm::to_string(c.op_b),
          c.offset_a, c.offset_b, c.offset_c, c.ldc);
  const plan p = plan_for(c, f);
  REQUIRE(p.step_count <= plan::max_steps);
  const int64_t m = c.order == layout::col_major ? c.m : c.n, n = c.order == layout::col_major ? c.n : c.m;
  // Every element of C is written exactly once (by a gemm step to C, or by the reduce after a gemm to workspace).
  std::vector<int> writes(size_t(m * n), 0);
  size_t packed_end = 0;
  for (int i = 0; i < p.step_count; ++i) {
    const plan_step& s = p.steps[i];
    if (s.kind == step_kind::pack_a || s.kind == step_kind::pack_b) {
      REQUIRE(s.offset % tgemm::detail::workspace_alignment == 0);
      REQUIRE(s.offset >= packed_end);  // the copies follow one another
      packed_end = s.offset + size_t(s.ld_packed * s.extent_k) * sizeof(float);
      REQUIRE(s.ld_packed >= s.extent_mn);
      REQUIRE(s.ld_packed % 4 == 0);
      continue;
    }
    if (s.kind == step_kind::gemm) {
      REQUIRE(s.tiles_m * s.tiles_n >= 1);
      REQUIRE(tgemm::kernel::grid_fits(s.tiles_m * s.tiles_n));
      REQUIRE(s.slices >= 1);
      REQUIRE(s.slices <= tgemm::kernel::max_grid_y);
      if (s.slices > 1) REQUIRE(s.slices * s.k_per_slice >= c.k);
      if (s.slices > 1) REQUIRE((s.slices - 1) * s.k_per_slice < c.k);  // no empty slice
      if (s.to_workspace && s.gemv_cluster) {  // compact partials in the workspace, then C inside the launch
        REQUIRE(s.offset >= packed_end);
        REQUIRE(s.offset % tgemm::detail::workspace_alignment == 0);
        REQUIRE(s.slice_stride >= s.rows * s.cols);
        REQUIRE(s.offset + size_t(s.slices * s.slice_stride) * sizeof(float) <= p.workspace_bytes);
      } else if (s.to_workspace) {
        REQUIRE(s.offset >= packed_end);  // scratch never overlaps the copies
        REQUIRE(s.offset % tgemm::detail::workspace_alignment == 0);
        REQUIRE(s.ld_out >= s.rows);
        const size_t bytes = size_t(s.slices * s.ld_out * s.cols) * sizeof(float);
        REQUIRE(s.offset + bytes <= p.workspace_bytes);
        REQUIRE(i + 1 < p.step_count);
        REQUIRE(p.steps[i + 1].kind == step_kind::reduce);
        continue;  // its reduce writes C
      }
    }
    if (s.kind == step_kind::gemm || s.kind == step_kind::reduce || s.kind == step_kind::scale) {
      REQUIRE(s.row >= 0);
      REQUIRE(s.col >= 0);
      REQUIRE(s.row + s.rows <= m);
      REQUIRE(s.col + s.cols <= n);
      for (int64_t j = s.col; j < s.col + s.cols; ++j) {
        for (int64_t r = s.row; r < s.row + s.rows; ++r) ++writes[size_t(r + j * m)];
      }
    }
  }
  if (c.alpha == 1.0f || c.beta != 1.0f) {  // (alpha = 0 with beta = 1 writes nothing)
    REQUIRE(std::count(writes.begin(), writes.end(), 1) == int64_t(writes.size()));
  }
  REQUIRE(packed_end <= p.workspace_bytes);
}

}  // namespace

TEST_CASE("every plan writes each element of C once and keeps its workspace regions apart", "[plan]") {
  std::mt19937_64 random(20261130);
  auto extent = [&](int64_t cap) {
    const int64_t choices[] = {1, 2, 15, 16, 17, 31, 32, 33, 127, 128, 129, 255, 256, 257, 511, 1000, 2049};
    return std::uniform_int_distribution<int>(0, 3)(random) == 0
               ? std::uniform_int_distribution<int64_t>(1, cap)(random)
               : choices[std::uniform_int_distribution<int>(0, 16)(random)];
  };
  int checked = 0;
  for (const device_facts& f : {h200(), a100(), rtx3090(), t4()}) {
    for (int i = 0; i < 150; ++i) {
      call_spec c;
      c.order = random() % 2 ? layout::col_major : layout::row_major;
      c.op_a = random() % 2 ? op::none : op::transpose;
      c.op_b = random() % 2 ? op::none : op::transpose;
      c.m = extent(2100), c.n = extent(2100), c.k = extent(5000);
      c.offset_a = random() % 3 == 0 ? int64_t(random() % 4) : 0;
      c.offset_b = random() % 3 == 0 ? int64_t(random() % 4) : 0;
      c.offset_c = random() % 3 == 0 ? int64_t(random() % 4) : 0;
      if (random() % 4 == 0) c.ldc = tight_ld(c.order, op::none, c.m, c.n) + int64_t(random() % 5);
      c.beta = random() % 2 ? 0.0f : 0.5f;
      check_plan_properties(c, f);
      ++checked;
    }
  }
  // Large shapes, where repacking, padding, peeling and staging happen.
  const int64_t large[][3] = {{4095, 4095, 4095}, {4097, 4097, 4097}, {4097, 2049, 24}, {2080, 4100, 16},
                              {1030, 4128, 20},   {2300, 2172, 2051}, {4000, 3900, 600}, {2100, 2050, 24}};
  for (const device_facts& f : {h200(), a100()}) {
    for (const auto& s : large) {
      for (int variant = 0; variant < 8; ++variant) {
        call_spec c = shape(s[0], s[1], s[2], variant & 1 ? op::transpose : op::none,
                            variant & 2 ? op::transpose : op::none);
        if (variant & 4) c.offset_a = 1, c.offset_c = 3;
        check_plan_properties(c, f);
        ++checked;
      }
    }
  }
  SUCCEED(checked << " plans checked");
}

TEST_CASE("a benchmark's tuning hook: plans are made with the values it leaves; without one, nothing is copied",
          "[plan]") {
  const device_facts f = h200();
  const tgemm::tuning::tuning_values table = tgemm::tuning::values_for<tgemm::tuning::default_chain>(f.arch);
  std::optional<tgemm::tuning::tuning_values> adjusted;
  REQUIRE(&tgemm::detail::hooked_values(table, "float", "float", adjusted) == &table);
  REQUIRE_FALSE(adjusted.has_value());
  REQUIRE(plan_for(shape(1, 3000, 700), f).gemv);
  tgemm::detail::tuning_hook() = [](tgemm::tuning::tuning_values& v, const char* a, const char* c) {
    if (std::string(a) == "float" && std::string(c) == "float") v.gemv = false;
  };
  const tgemm::tuning::tuning_values& hooked = tgemm::detail::hooked_values(table, "float", "float", adjusted);
  tgemm::detail::tuning_hook() = nullptr;
  REQUIRE(&hooked == &*adjusted);
  REQUIRE(table.gemv);
  REQUIRE_FALSE(hooked.gemv);
  const plan without_gemv = plan_for(shape(1, 3000, 700), f, &hooked);
  INFO(slots_of(without_gemv));
  REQUIRE_FALSE(without_gemv.gemv);
  // A's leading dimension of 1 is misaligned for the thin tiles' vector loads: the scalar-load tile, split over k.
  REQUIRE(slots_of(without_gemv) == "unaligned x5");
}

TEST_CASE("the workspace is sized for the regions the steps use", "[plan]") {
  // B's copy: n x k floats.
  REQUIRE(plan_for(shape(4096, 4096, 4096), h200()).workspace_bytes == size_t(4096) * 4096 * 4);
  // Split-K: slices x ld x n floats of partials.
  const plan split = plan_for(shape(256, 192, 130), h200());
  REQUIRE(split.workspace_bytes == size_t(2) * 256 * 192 * 4);
  // Nothing to copy, split or stage: no workspace.
  REQUIRE(plan_for(shape(2000, 2000, 2000), h200()).workspace_bytes == 0);
  // Peeled strips reuse one scratch region: the largest of them, not their sum.
  const plan peeled = plan_for(shape(4097, 4097, 4097), h200());
  size_t largest = 0;
  for (int i = 0; i < peeled.step_count; ++i) {
    const plan_step& s = peeled.steps[i];
    if (s.kind == step_kind::gemm && s.to_workspace) {
      largest = std::max(largest, size_t(s.slices * s.ld_out * s.cols) * sizeof(float));
    }
  }
  const size_t copies = size_t(4352) * 4097 * 4 * 2;  // A and B padded to 17 x 256 rows
  REQUIRE(peeled.workspace_bytes >= copies + largest);
  REQUIRE(peeled.workspace_bytes < copies + largest + 3 * tgemm::detail::workspace_alignment);
}

TEST_CASE("a plan too large for one grid is refused before any launch", "[plan]") {
  tgemm::detail::canonical_call<tgemm::detail::gemm_types<float>> call;
  // 16 rows: the 16 x 128 tile; n = 2^56 columns need 2^49 blocks, more than (2^31 - 1) x 65535.
  const int64_t m = 16, n = int64_t(1) << 56;
  REQUIRE(tgemm::detail::check_arguments(layout::col_major, op::none, op::transpose, m, n, 4, 1.0f, fake(0), m,
                                         fake(0), n, 0.0f, const_cast<float*>(fake(0)), m, call) == status::success);
  plan p;
  const device_facts f = h200();
  REQUIRE(tgemm::detail::make_plan(call, f, tgemm::tuning::values_for<tgemm::tuning::default_chain>(f.arch), p) ==
          status::invalid_dimension);
  REQUIRE(tgemm::last_error().message.find("thread blocks") != std::string::npos);
}

TEST_CASE("a fixed policy's plan is one launch of its tiles", "[plan]") {
  using policy = tgemm::seed::vectorized;
  tgemm::detail::canonical_call<tgemm::detail::gemm_types<float>> call;
  REQUIRE(tgemm::detail::check_arguments(layout::row_major, op::none, op::transpose, 300, 200, 100, 1.0f, fake(0), 100,
                                         fake(0), 100, 0.5f, const_cast<float*>(fake(0)), 200, call) ==
          status::success);
  plan p;
  REQUIRE(tgemm::detail::plan_fixed(call, tgemm::tuning::numbers_of<policy>(), p) == status::success);
  REQUIRE(kinds_of(p) == "gemm");
  REQUIRE(p.steps[0].tiles_m == 2);  // m = 200 after the row-major swap, 128-row tiles
  REQUIRE(p.steps[0].tiles_n == 3);  // n = 300
  REQUIRE(p.steps[0].threads == policy::threads);
  REQUIRE(p.steps[0].shared_bytes == policy::shared_bytes);
  REQUIRE(p.workspace_bytes == 0);
}

TEST_CASE("TGEMM_PRINT_PLAN's text names every step", "[plan]") {
  const plan p = plan_for(shape(4097, 4097, 4097), h200());
  const auto values = tgemm::tuning::values_for<tgemm::tuning::default_chain>(900);
  const std::string text = tgemm::detail::describe(p, &values, "float", 4097, 4097, 4097);
  INFO(text);
  REQUIRE(text.find("tgemm plan: float m=4097 n=4097 k=4097") != std::string::npos);
  REQUIRE(text.find("repack A, repack B, peeled, staged C, split-K") != std::string::npos);
  REQUIRE(text.find("1. pack A") != std::string::npos);
  REQUIRE(text.find("3. gemm general tiled_b256x128x8_w64x64_t16x8_v4_s4_u8_f32: C[0:+4096, 0:+4096]") !=
          std::string::npos);
  REQUIRE(text.find("gemm tiny_m") != std::string::npos);
  REQUIRE(text.find("reduce") != std::string::npos);
  REQUIRE(std::count(text.begin(), text.end(), '\n') == 1 + p.step_count);
  REQUIRE(text.find("fused epilogue") == std::string::npos);
  // A call with a tgemm::epilogue runs the same steps on the fused kernels, and says so on the first line.
  plan fused = p;
  fused.fused = true;
  const std::string fused_text = tgemm::detail::describe(fused, &values, "float", 4097, 4097, 4097);
  REQUIRE(fused_text.find("split-K, fused epilogue\n") != std::string::npos);
  REQUIRE(fused_text.substr(fused_text.find('\n')) == text.substr(text.find('\n')));
}

namespace {

/// The plan tgemm::gemm() makes for a 16-bit call (A, B of type T, C of type TC) on a device with these facts.
template <class T, class TC>
plan plan_16bit(const call_spec& c, const device_facts& f, const tgemm::tuning::tuning_values* given = nullptr) {
  tgemm::detail::canonical_call<tgemm::detail::gemm_types<T, T, TC, float>> call;
  const int64_t lda = c.lda ? c.lda : tight_ld(c.order, c.op_a, c.m, c.k);
  const int64_t ldb = c.ldb ? c.ldb : tight_ld(c.order, c.op_b, c.k, c.n);
  const int64_t ldc = c.ldc ? c.ldc : tight_ld(c.order, op::none, c.m, c.n);
  const T* base = reinterpret_cast<const T*>(uintptr_t(1) << 40);
  REQUIRE(tgemm::detail::check_arguments(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, base + c.offset_a, lda,
                                         base + c.offset_b, ldb, c.beta,
                                         reinterpret_cast<TC*>(uintptr_t(1) << 41) + c.offset_c, ldc,
                                         call, c.batch) == status::success);
  const tgemm::tuning::tuning_values values =
      given != nullptr ? *given : tgemm::tuning::values_for<typename tgemm::tuning::default_table<T, TC>::type>(f.arch);
  plan p;
  REQUIRE(tgemm::detail::make_plan(call, f, values, p) == status::success);
  INFO(tgemm::detail::describe(p, &values, tgemm::element_traits<TC>::name, call.problem.m, call.problem.n,
                               call.problem.k));
  return p;
}

}  // namespace

TEST_CASE("16-bit plans on an H200: tiles, repacking instead of scalar loads, split-K with float partials", "[plan]") {
  const device_facts f = h200();
  call_spec big;
  big.m = big.n = big.k = 4096;
  plan p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(big, f);
  CHECK(kinds_of(p) == "gemm");
  CHECK(slots_of(p) == "general");
  CHECK(p.workspace_bytes == 0);
  // Every op pair and order loads alike: no layout repack, unlike float.
  for (const op a : {op::none, op::transpose}) {
    for (const op b : {op::none, op::transpose}) {
      call_spec c = big;
      c.op_a = a, c.op_b = b;
      CHECK(kinds_of(plan_16bit<__half, float>(c, f)) == "gemm");
    }
  }
  // Misaligned operands are repacked even when the problem is small: the tensor-core kernels copy 16 bytes at a
  // time and have no scalar-load variant.
  call_spec odd;
  odd.m = 64, odd.n = 48, odd.k = 40, odd.lda = 67;
  p = plan_16bit<__nv_bfloat16, float>(odd, f);
  CHECK(p.repacked_a);
  CHECK_FALSE(p.unaligned);
  CHECK(p.a.ld % 8 == 0);  // the copy's leading dimension is whole 16-byte vectors
  CHECK(p.steps[0].keep_layout);  // realigned, not transposed: A keeps its layout and its op
  CHECK(p.op_a == op::none);
  CHECK(p.a.ld == 64);  // m = 64 rows, already whole 16-byte vectors (lda was 67)
  odd.op_a = op::transpose, odd.lda = 41;  // A^T stored k x m: lines of k = 40 contiguous elements
  p = plan_16bit<__nv_bfloat16, float>(odd, f);
  CHECK(p.repacked_a);
  CHECK(p.op_a == op::transpose);
  CHECK(p.a.ld == 40);
  CHECK(p.steps[0].extent_mn == 40);  // the contiguous extent
  CHECK(p.steps[0].extent_k == 64);   // lines: m of them
  // A thin product splits k with any C. The partials are float either way: a 16-bit C's split step runs the
  // float-C twin of the slot's kernel, and the reduction rounds once, into C.
  call_spec skinny;
  skinny.m = 32, skinny.n = 64, skinny.k = 16384;
  const plan float_c = plan_16bit<__nv_bfloat16, float>(skinny, f);
  CHECK(kinds_of(float_c) == "gemm reduce");
  CHECK_FALSE(float_c.steps[0].float_partials);  // C's own type
  for (const plan& half_c :
       {plan_16bit<__nv_bfloat16, __nv_bfloat16>(skinny, f), plan_16bit<__half, __half>(skinny, f)}) {
    CHECK(kinds_of(half_c) == "gemm reduce");
    CHECK(half_c.steps[0].slices == float_c.steps[0].slices);
    CHECK(half_c.steps[0].float_partials);
    CHECK(half_c.steps[1].float_partials);
    CHECK(half_c.workspace_bytes == float_c.workspace_bytes);  // slices x 32 x 64 floats
  }
  CHECK(float_c.workspace_bytes == size_t(float_c.steps[0].slices) * 32 * 64 * sizeof(float));
  // The medium tile splits k for a float C only (float_partials_thin_only: 1024^3 split four ways lost 20 %).
  skinny.m = 64;
  CHECK(plan_16bit<__nv_bfloat16, float>(skinny, f).split_k);
  CHECK_FALSE(plan_16bit<__nv_bfloat16, __nv_bfloat16>(skinny, f).split_k);
  CHECK_FALSE(plan_16bit<__half, __half>(skinny, f).split_k);
  // The thin bf16 product of the issue's skinny set: 16 rows take the 16 x 128 thin tile's 64 tiles, split eight
  // ways to fill the pinned facts' 132 x 4 resident blocks (the real H200 holds two of these blocks per
  // multiprocessor, 108 KiB of shared memory each: four slices), with the float-C kernel's launch numbers.
  call_spec thin;
  thin.m = 16, thin.n = 8192, thin.k = 8192;
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(thin, f);
  CHECK(kinds_of(p) == "gemm reduce");
  CHECK(slots_of(p) == "tiny_m x8");
  CHECK(p.steps[0].tiles_m == 1);
  CHECK(p.steps[0].tiles_n == 64);
  CHECK(p.steps[0].slices == 8);
  CHECK(p.steps[0].k_per_slice == 1024);
  CHECK(p.steps[0].float_partials);
  const auto values = tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(900);
  REQUIRE(values.float_partials);
  CHECK(p.steps[0].threads == values.partials_slots[int(tgemm::tuning::slot::tiny_m)].threads);
  CHECK(p.steps[0].shared_bytes == values.partials_slots[int(tgemm::tuning::slot::tiny_m)].shared_bytes);
  const std::string text = tgemm::detail::describe(p, &values, "bfloat16", 16, 8192, 8192);
  CHECK(text.find("gemm tiny_m tensorop_bf16_b16x128x128_w16x32_i16x8x16_s3_c_f32") != std::string::npos);
  CHECK(text.find("(partials)") != std::string::npos);
  // One row (the GEMV shape): the GEMV kernels, which read A's one row (lda = 1) in place.
  thin.m = 1;
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(thin, f);
  CHECK(p.gemv);
  CHECK(!p.repacked_a);
  // Odd sizes: both operands repacked (odd leading dimensions), no peeling: the large tile covers the ragged edge.
  call_spec odd_big;
  odd_big.m = odd_big.n = odd_big.k = 4097;
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(odd_big, f);
  CHECK(kinds_of(p) == "pack_a pack_b gemm");
  CHECK(slots_of(p) == "general");  // the realigned copies are not padded along m or n: no padded reads
  CHECK(p.a.ld == 4104);           // 4097 rounded up to whole 16-byte vectors
  CHECK_FALSE(p.peeled);
}

TEST_CASE("16-bit plans on an H200 running the sm_90a image: the Hopper kernel where it fills the GPU", "[plan]") {
  device_facts f = h200();
  f.wgmma_image = true;
  call_spec big;
  big.m = big.n = big.k = 4096;
  plan p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(big, f);
  CHECK(kinds_of(p) == "gemm");
  CHECK(slots_of(p) == "wgmma");
  CHECK(p.wgmma);
  CHECK(p.steps[0].tiles_m == 32);  // 128 x 256 tiles
  CHECK(p.steps[0].tiles_n == 16);
  CHECK(p.steps[0].threads == 384);  // a producer and two consumer warpgroups
  CHECK(p.steps[0].grid_x == 132);   // persistent: one block per multiprocessor
  CHECK(p.steps[0].tile_group == 16);
  CHECK(p.workspace_bytes == 0);
  // Every op pair, both orders, both C types: wgmma reads K-major and MN-major tiles alike, nothing is copied.
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const op a : {op::none, op::transpose}) {
      for (const op b : {op::none, op::transpose}) {
        call_spec c = big;
        c.order = order, c.op_a = a, c.op_b = b;
        CHECK(kinds_of(plan_16bit<__half, float>(c, f)) == "gemm");
        CHECK(slots_of(plan_16bit<__nv_bfloat16, __nv_bfloat16>(c, f)) == "wgmma");
      }
    }
  }
  // Odd leading dimensions: both operands realigned in their own layout (TMA needs 16-byte rows; 128-byte ones read
  // faster), then wgmma.
  call_spec odd = big;
  odd.m = odd.n = odd.k = 4097;
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(odd, f);
  CHECK(kinds_of(p) == "pack_a pack_b gemm");
  CHECK(slots_of(p) == "wgmma");
  CHECK(p.steps[0].keep_layout);
  CHECK(p.a.ld == 4160);  // 4097 rounded up to whole 128-byte lines (wgmma_line_bytes)
  CHECK(p.op_a == op::none);
  // A misaligned base pointer alone: only that operand is realigned.
  p = plan_16bit<__half, __half>(with(big, 0, 3, 0), f);
  CHECK(kinds_of(p) == "pack_b gemm");
  CHECK(slots_of(p) == "wgmma");
  // Shapes that suit it: 2048^3 (128 tiles), a shallow k; shapes that do not: thin m or n.
  CHECK(slots_of(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(2048, 2048, 2048), f)) == "wgmma");
  CHECK(slots_of(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(4096, 4096, 128), f)) == "wgmma");
  CHECK_FALSE(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(16, 8192, 8192), f).wgmma);
  CHECK_FALSE(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(8192, 32, 8192), f).wgmma);
  const tgemm::tuning::tuning_values values =
      tgemm::tuning::values_for<tgemm::tuning::default_table<__nv_bfloat16, __nv_bfloat16>::type>(f.arch);
  // Grids under 0.9 of the multiprocessors with k up to 4096 (2048 for a float C) take the smaller 64 x 128 tile,
  // unsplit, where its tiles fill a fifth of the GPU to two waves: 128 x 4096 x 4096 is 16 large tiles, 64 small
  // ones on 64 blocks of one consumer warpgroup; TGEMM_PRINT_PLAN names that policy. With a float C it splits k on
  // the large tile (below); 128 x 4096 x 2048 takes the small tile for both.
  for (const int64_t k : {int64_t(4096), int64_t(2048)}) {
    for (const bool float_c : {false, true}) {
      if (float_c && k > 2048) continue;
      p = float_c ? plan_16bit<__nv_bfloat16, float>(shape(128, 4096, k), f)
                  : plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(128, 4096, k), f);
      CHECK(kinds_of(p) == "gemm");
      CHECK(p.wgmma);
      CHECK(p.steps[0].wgmma_small);
      CHECK_FALSE(p.split_k);
      CHECK(p.steps[0].tiles_m == 2);
      CHECK(p.steps[0].tiles_n == 32);
      CHECK(p.steps[0].grid_x == 64);
      CHECK(p.steps[0].threads == 256);
      CHECK(p.workspace_bytes == 0);
      if (!float_c) {
        const std::string text = tgemm::detail::describe(p, &values, "bfloat16", 128, 4096, k);
        INFO(text);
        CHECK(text.find("wgmma_bf16_b64x128x64_s8_c_bf16") != std::string::npos);
      }
    }
  }
  // With a float C, k = 4096 is past the unsplit small tile's depth: k splits, on the small tile (its 64 tiles fill
  // under half of the GPU: 2 slices of 2048, 128 work items).
  p = plan_16bit<__nv_bfloat16, float>(shape(128, 4096, 4096), f);
  CHECK(p.wgmma);
  CHECK(p.steps[0].wgmma_small);
  CHECK(p.split_k);
  CHECK(p.steps[0].slices == 2);
  CHECK(p.steps[0].k_per_slice == 2048);
  CHECK(p.steps[0].threads == 256);
  // Where the small tile applies and where it does not: 2048^3 fills 128 large tiles (kept); 512 x 4096 x 2048 has 64
  // large tiles and 256 small ones (two waves: small); 768 x 4096 x 2048 would have 384 small ones (too many: the
  // large tiles, 96 of them, unsplit); 64 x 4096 x 2048 has 32 small ones (small); 1024^3 with k below 2048, 128 small
  // ones (small, where the large tile could not split); a batch that does not run in one grid keeps the large tile.
  CHECK_FALSE(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(2048, 2048, 2048), f).steps[0].wgmma_small);
  CHECK(plan_16bit<__half, __half>(shape(512, 4096, 2048), f).steps[0].wgmma_small);
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(768, 4096, 2048), f);
  CHECK(p.wgmma);
  CHECK_FALSE(p.steps[0].wgmma_small);
  CHECK_FALSE(p.split_k);
  {
    const plan thin64 = plan_16bit<__nv_bfloat16, float>(shape(64, 4096, 2048), f);
    INFO(tgemm::detail::describe(thin64, &values, "float", 64, 4096, 2048));
    CHECK(thin64.steps[0].wgmma_small);
  }
  for (const int64_t k : {int64_t(256), int64_t(1024), int64_t(2047)}) {
    p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(1024, 1024, k), f);
    INFO(tgemm::detail::describe(p, &values, "bfloat16", 1024, 1024, k));
    CHECK(p.wgmma);
    CHECK(p.steps[p.step_count - 1].wgmma_small);  // after B's copy for k = 2047 (ldb not a multiple of 8)
    CHECK_FALSE(p.split_k);
  }
  call_spec pair = shape(128, 4096, 4096);
  pair.batch = {2, 128 * 4096, 4096 * 4096, 128 * 4096};
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(pair, f);
  CHECK(p.wgmma);
  CHECK_FALSE(p.steps[0].wgmma_small);
  // Deeper k: k splits, on the small tile where its tiles fill at most half of the GPU, else on the large one.
  // 128 x 4096 x 8192 is 16 large tiles and 64 small ones: k (128 steps of 64) becomes 2 slices of 4096 on the small
  // tile, 128 work items on 128 persistent blocks; the slices' float partials follow the (empty) copies in the
  // workspace, and the reduction adds them into C with alpha and beta. 512 x 4096 x 8192 is 64 large tiles (under
  // half the GPU) and 256 small ones: 2 slices on the large tile.
  for (const bool float_c : {false, true}) {
    const auto plan_bf16 = [&](int64_t m, int64_t n, int64_t k) {
      return float_c ? plan_16bit<__nv_bfloat16, float>(shape(m, n, k), f)
                     : plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(m, n, k), f);
    };
    p = plan_bf16(128, 4096, 8192);
    CHECK(kinds_of(p) == "gemm reduce");
    CHECK(p.wgmma);
    CHECK(p.steps[0].wgmma_small);
    CHECK(p.split_k);
    CHECK(p.steps[0].slices == 2);
    CHECK(p.steps[0].k_per_slice == 4096);
    CHECK(p.steps[0].grid_x == 128);
    CHECK(p.steps[0].float_partials);
    CHECK(p.steps[0].threads == 256);
    CHECK(p.steps[1].float_partials);
    CHECK(p.steps[1].slices == 2);
    CHECK(p.workspace_bytes == size_t(2) * 128 * 4096 * 4);
    // TGEMM_PRINT_PLAN names the kernel that runs: the float-partials twin of the entry's small policy.
    CHECK(tgemm::detail::describe(p, &values, "bfloat16", 128, 4096, 8192).find("wgmma_bf16_b64x128x64_s8_c_f32") !=
          std::string::npos);
    p = plan_bf16(512, 4096, 8192);
    CHECK(kinds_of(p) == "gemm reduce");
    CHECK_FALSE(p.steps[0].wgmma_small);
    CHECK(p.steps[0].slices == 2);
    CHECK(p.steps[0].grid_x == 128);
    CHECK(p.steps[0].threads == 384);
    CHECK(p.workspace_bytes == size_t(2) * 512 * 4096 * 4);
    CHECK(tgemm::detail::describe(p, &values, "bfloat16", 512, 4096, 8192).find("wgmma_bf16_b128x256x64_s4_c_f32") !=
          std::string::npos);
    // 544 x 1024 x 4160 (the GPU test's): 20 large tiles, 72 small ones (more than half of the GPU): the large tile.
    p = plan_bf16(544, 1024, 4160);
    CHECK(p.split_k);
    CHECK_FALSE(p.steps[0].wgmma_small);
  }

  // 768 x 768 is 6 x 3 large tiles: 7 slices fill the GPU; k = 4200 is 66 steps of 64, so 7 slices of 10 steps, the
  // last one shorter (6 steps, its last one ragged).
  p = plan_16bit<__half, __half>(shape(768, 768, 4200), f);
  CHECK(kinds_of(p) == "gemm reduce");
  CHECK(p.wgmma);
  CHECK(p.steps[0].slices == 7);
  CHECK(p.steps[0].k_per_slice == 640);
  // Slices of at least wgmma_split_min_slice_k (256: 4 steps): 128 x 256 is one large tile and 4 small ones (too few
  // to run unsplit), and k = 2048 (32 steps) takes 8 slices of the small tile, not 33.
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(128, 256, 2048), f);
  CHECK(p.wgmma);
  CHECK(p.steps[0].wgmma_small);
  CHECK(p.steps[0].slices == 8);
  // Too few small tiles and k below wgmma_split_min_k (2048): the mma.sync tiles, unsplit for a 16-bit C (1024^3 split
  // four ways measured 0.76x the mma.sync plan on the Hopper kernel and 0.80x on the medium tile), split for a
  // float C. (256 x 512: 2 large tiles, 16 small ones.)
  for (const int64_t k : {int64_t(512), int64_t(1024), int64_t(2047)}) {
    p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(256, 512, k), f);
    CHECK_FALSE(p.wgmma);
    CHECK_FALSE(p.split_k);
  }
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(256, 512, 2048), f);
  CHECK(p.wgmma);
  CHECK(p.split_k);
  // The same H200 running an image without sm_90a code (an sm_90 build) keeps the mma.sync tiles; so do the
  // tables without a Hopper kernel (float's here) and GPUs whose entry has none.
  f.wgmma_image = false;
  CHECK(slots_of(plan_16bit<__nv_bfloat16, __nv_bfloat16>(big, f)) == "general");
  f.wgmma_image = true;
  CHECK_FALSE(plan_for(shape(4096, 4096, 4096), f).wgmma);
  device_facts ampere = a100();
  ampere.wgmma_image = true;
  CHECK_FALSE(plan_16bit<__nv_bfloat16, __nv_bfloat16>(big, ampere).wgmma);
  // TGEMM_PRINT_PLAN names the kernel and its policy.
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(big, f);
  const std::string text = tgemm::detail::describe(p, &values, "bf16", 4096, 4096, 4096);
  CHECK(text.find("sm_90a kernel") != std::string::npos);
  CHECK(text.find("gemm wgmma wgmma_bf16_b128x256x64_s4_c_bf16") != std::string::npos);
  // With a fused epilogue the large tile's step runs the entry's ping-pong policy (64 x 256 tiles, the consumers
  // taking turns) up to wgmma_fused_pingpong_max_k, the cooperative tile's fused kernel past it where the build has
  // those kernels; the plan's tiles and grid stay the large tile's, and the print names what runs.
  p.fused = true;
  const int64_t max_k = values.wgmma_fused_pingpong_max_k;
  tgemm::detail::mark_fused_large_steps(p, max_k, values, true);
  CHECK(p.steps[p.step_count - 1].wgmma_pingpong);
  const std::string fused_text = tgemm::detail::describe(p, &values, "bf16", 4096, 4096, 4096);
  CHECK(fused_text.find("gemm wgmma wgmma_bf16_b64x256x64_s4_pingpong_c_bf16") != std::string::npos);
  // Past a finite threshold (the table's, or 2048 where the table keeps every fused call on the ping-pong tile).
  tgemm::tuning::tuning_values finite = values;
  if (max_k == INT64_MAX) finite.wgmma_fused_pingpong_max_k = 2048;
  tgemm::detail::mark_fused_large_steps(p, finite.wgmma_fused_pingpong_max_k + 1, finite, true);
  CHECK_FALSE(p.steps[p.step_count - 1].wgmma_pingpong);
  CHECK(tgemm::detail::describe(p, &finite, "bf16", 4096, 4096, 4096).find(
            "gemm wgmma wgmma_bf16_b128x256x64_s4_c_bf16") != std::string::npos);
  tgemm::detail::mark_fused_large_steps(p, INT64_MAX, values, false);  // a build without them: ping-pong at any k
  CHECK(p.steps[p.step_count - 1].wgmma_pingpong);
  CHECK(values.wgmma_fused.block_m == 64);
  CHECK(values.wgmma_fused.block_n == 256);
  CHECK(tgemm::tuning::values_for<tgemm::tuning::tensorop_tf32<tgemm::math_mode::tf32>>(f.arch).wgmma_fused.block_m ==
        0);  // TF32 keeps its cooperative tile
}

/// The plan tgemm::gemm() makes for a float call with a tensor-core math mode (tf32 or tf32x3).
plan plan_tf32(const call_spec& c, const device_facts& f, tgemm::math_mode math = tgemm::math_mode::tf32) {
  const tgemm::tuning::tuning_values values =
      math == tgemm::math_mode::tf32
          ? tgemm::tuning::values_for<tgemm::tuning::tensorop_tf32<tgemm::math_mode::tf32>>(f.arch)
          : tgemm::tuning::values_for<tgemm::tuning::tensorop_tf32<tgemm::math_mode::tf32x3>>(f.arch);
  return plan_for(c, f, &values);
}

TEST_CASE("TF32 plans on an H200 running the sm_90a image: the Hopper kernel, B copied K-major where needed",
          "[plan]") {
  device_facts f = h200();
  f.wgmma_image = true;
  // Column-major op pairs: A is read in place either way (stored along k: from shared memory; along m: through
  // registers); op(B) = B is read along k in place, and a B stored along n gets a K-major copy (transposed through
  // shared memory) that the kernel reads.
  struct expected {
    op a, b;
    const char* kinds;
  };
  const expected table[] = {{op::transpose, op::none, "gemm"},
                            {op::none, op::none, "gemm"},
                            {op::transpose, op::transpose, "pack_b gemm"},
                            {op::none, op::transpose, "pack_b gemm"}};
  for (const expected& e : table) {
    INFO("ops " << to_string(e.a) << "/" << to_string(e.b));
    const plan p = plan_tf32(shape(4096, 4096, 4096, e.a, e.b), f);
    CHECK(kinds_of(p) == e.kinds);
    CHECK(slots_of(p) == "wgmma");
    CHECK(p.op_a == e.a);  // what the kernel reads: A as stored, B along k
    CHECK(p.op_b == op::none);
    CHECK(p.steps[p.step_count - 1].tiles_m == 32);  // 128 x 256 tiles
    CHECK(p.steps[p.step_count - 1].tiles_n == 16);
    CHECK(p.steps[p.step_count - 1].grid_x == 132);
    for (int i = 0; i + 1 < p.step_count; ++i) {
      CHECK(p.steps[i].to_k_major);
      CHECK(p.steps[i].ld_packed == 4096);  // k, already whole 128-byte lines
    }
    // Each copy is 4096 x 4096 floats, one after the other in the workspace.
    CHECK(p.workspace_bytes == size_t(p.step_count - 1) * 4096 * 4096 * 4);
  }
  // Row-major calls reach the kernel K-major too.
  for (const op a : {op::none, op::transpose}) {
    for (const op b : {op::none, op::transpose}) {
      call_spec c = shape(2048, 4096, 1024, a, b);
      c.order = layout::row_major;
      const plan p = plan_tf32(c, f);
      CHECK(p.wgmma);
      CHECK(p.op_a == b);  // the column-major form's A is the caller's B, with op_b
      CHECK(p.op_b == op::none);
      CHECK(p.repacked_b == (a == op::transpose));
    }
  }
  // Odd leading dimensions: operands read in place are realigned in their own layout; a B stored along n is copied
  // K-major, which pads its lines to 16 bytes at the same time.
  call_spec odd = shape(4097, 4097, 4097, op::transpose, op::none);
  plan p = plan_tf32(odd, f);
  CHECK(kinds_of(p) == "pack_a pack_b gemm");
  CHECK(p.steps[0].keep_layout);
  CHECK(p.steps[1].keep_layout);
  CHECK(p.a.ld == 4128);  // 4097 rounded up to whole 128-byte lines of floats
  odd.op_a = op::none, odd.op_b = op::transpose;
  p = plan_tf32(odd, f);
  CHECK(kinds_of(p) == "pack_a pack_b gemm");
  CHECK(p.steps[0].keep_layout);
  CHECK(p.op_a == op::none);
  CHECK(p.steps[1].to_k_major);
  CHECK(p.steps[1].ld_packed == 4128);
  CHECK(p.op_b == op::none);
  // Thin problems keep the mma.sync tiles; so does an sm_90 image. Small grids split k (float partials are C's
  // type here), after B's K-major copy where it needs one.
  CHECK_FALSE(plan_tf32(shape(16, 8192, 8192), f).wgmma);
  p = plan_tf32(shape(128, 4096, 4096), f);
  CHECK(kinds_of(p) == "gemm reduce");
  CHECK(p.steps[0].slices == 8);
  CHECK(p.steps[0].k_per_slice == 512);  // 16 steps of 32 floats
  p = plan_tf32(shape(128, 4096, 4096, op::none, op::transpose), f);
  CHECK(kinds_of(p) == "pack_b gemm reduce");
  CHECK(p.steps[1].offset == p.steps[0].offset + size_t(4096) * 4096 * 4);  // the partials after B's copy
  f.wgmma_image = false;
  CHECK_FALSE(plan_tf32(shape(4096, 4096, 4096, op::transpose), f).wgmma);
  f.wgmma_image = true;
  // TGEMM_PRINT_PLAN names the copy and the kernel.
  const auto values = tgemm::tuning::values_for<tgemm::tuning::tensorop_tf32<tgemm::math_mode::tf32>>(900);
  p = plan_tf32(shape(4096, 4096, 4096, op::none, op::transpose), f);
  const std::string text = tgemm::detail::describe(p, &values, "float", 4096, 4096, 4096);
  CHECK(text.find("(transposed to contiguous along k)") != std::string::npos);
  CHECK(text.find("gemm wgmma wgmma_tf32_b128x256x32_s4_c_f32") != std::string::npos);
}

TEST_CASE("3xTF32 plans on an H200 running the sm_90a image: both operands split, then the Hopper kernel", "[plan]") {
  device_facts f = h200();
  f.wgmma_image = true;
  const auto x3 = tgemm::math_mode::tf32x3;
  // Every op pair and order, aligned or not: two split steps (big and small TF32 parts, K-major), then wgmma.
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      for (const int64_t offset : {0, 1}) {
        call_spec c = with(shape(4096, 2048, 1000, ops.first, ops.second), offset, 0, 0);
        c.order = order;
        INFO(to_string(order) << " " << to_string(ops.first) << "/" << to_string(ops.second) << " offset " << offset);
        const plan p = plan_tf32(c, f, x3);
        CHECK(kinds_of(p) == "pack_a pack_b gemm");
        CHECK(slots_of(p) == "wgmma");
        CHECK(p.steps[0].split_tf32);
        CHECK(p.steps[1].split_tf32);
        CHECK(p.op_a == op::transpose);
        CHECK(p.op_b == op::none);
        CHECK(p.a.ld == 1024);  // k = 1000 rounded up to whole 128-byte lines
        // The column-major form's A is the row-major call's B: 2048 or 4096 lines of big parts, as many of small.
        const int64_t m = order == layout::col_major ? 4096 : 2048, n = 6144 - m;
        CHECK(p.steps[0].extent_mn == m);
        CHECK(p.steps[1].extent_mn == n);
        CHECK(p.workspace_bytes == size_t(2 * (m + n) * 1024 * 4));
        CHECK(p.steps[0].contiguous_k == (p.steps[0].extent_mn == 4096 ? ops.first == op::transpose
                                                                       : ops.second == op::transpose));
      }
    }
  }
  const plan p = plan_tf32(shape(8192, 8192, 8192), f, x3);
  CHECK(p.steps[2].tiles_m == 64);  // 128 x 128 tiles
  CHECK(p.steps[2].tiles_n == 64);
  CHECK(p.steps[2].shared_bytes == 3 * 64 * 1024 + 1024 + 48);  // three stages of big and small parts
  CHECK_FALSE(plan_tf32(shape(16, 8192, 8192), f, x3).wgmma);
  const auto values = tgemm::tuning::values_for<tgemm::tuning::tensorop_tf32<x3>>(900);
  const std::string text = tgemm::detail::describe(p, &values, "float", 8192, 8192, 8192);
  CHECK(text.find("(split into big and small TF32 parts, transposed to contiguous along k)") != std::string::npos);
  CHECK(text.find("(split into big and small TF32 parts, contiguous along k)") != std::string::npos);
  CHECK(text.find("gemm wgmma wgmma_tf32x3_b128x128x32_s3_c_f32") != std::string::npos);
}

TEST_CASE("tensor-core tables: slots that name one policy share one kernel", "[plan]") {
  using table = tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>;
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<table, slot::general_tn>() == slot::general);
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<table, slot::tiny_m>() == slot::narrow_m);
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<table, slot::tiny_n>() == slot::narrow_n);
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<table, slot::unaligned>() == slot::small);
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<table, slot::medium>() == slot::medium);
  // The products tile is the small one on sm_80 and its own on sm_90: a kernel of its own.
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<table, slot::products>() == slot::products);
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<tgemm::tuning::tensorop_f64, slot::products>() == slot::small);
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<tgemm::tuning::tensorop_tf32<tgemm::math_mode::tf32>, slot::products>() ==
                 slot::small);
  // float's table differs across architectures slot by slot: every slot keeps its own kernels.
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<tgemm::tuning::default_chain, slot::general_tn>() == slot::general_tn);
  STATIC_REQUIRE(tgemm::tuning::kernel_slot<tgemm::tuning::default_chain, slot::unaligned>() == slot::unaligned);
  STATIC_REQUIRE(tgemm::tuning::oldest_arch<table>() == 800);
}

TEST_CASE("16-bit C tables: split steps run the float-C table's kernels of the same tiles", "[plan]") {
  // The partials entry of each architecture's 16-bit-C entry is that architecture's float-C entry.
  using bf16_c = tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>;
  STATIC_REQUIRE(std::is_same<tgemm::tuning::partials_entry_t<bf16_c>,
                              tgemm::tuning::tensorop_f16<__nv_bfloat16, float>>::value);
  STATIC_REQUIRE(std::is_same<tgemm::tuning::partials_entry_t<bf16_c::previous>,
                              tgemm::tuning::tensorop_f16_sm80<__nv_bfloat16, float>>::value);
  // A float C (and every non-16-bit table) writes C-typed partials with its own kernels.
  STATIC_REQUIRE(std::is_void<tgemm::tuning::partials_entry_t<tgemm::tuning::tensorop_f16<__half, float>>>::value);
  STATIC_REQUIRE(std::is_void<tgemm::tuning::partials_entry_t<tgemm::tuning::default_chain>>::value);
  STATIC_REQUIRE(std::is_void<tgemm::tuning::partials_entry_t<tgemm::tuning::tensorop_f64>>::value);
  CHECK_FALSE(tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__half, float>>(900).float_partials);
  // The plan computes the grid from the 16-bit C entry's tiles: the float-C kernels must have the same ones.
  for (const int arch : {800, 900}) {
    for (const auto& values : {tgemm::tuning::values_for<bf16_c>(arch),
                               tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__half, __half>>(arch)}) {
      REQUIRE(values.float_partials);
      CHECK(values.float_partials_thin_only);
      for (int s = 0; s < tgemm::tuning::slot_count; ++s) {
        INFO("arch " << arch << ", slot " << tgemm::tuning::to_string(slot(s)));
        const auto& own = values.slots[s];
        const auto& partials = values.partials_slots[s];
        CHECK(partials.block_m == own.block_m);
        CHECK(partials.block_n == own.block_n);
        CHECK(partials.block_k == own.block_k);
        CHECK(partials.threads == own.threads);
        CHECK(partials.name().find("_c_f32") != std::string::npos);
      }
    }
  }
}

namespace {

/// `c` as a batch of `count` products stored one after another (tight strides), or with the strides given.
call_spec batch_of(call_spec c, int64_t count, int64_t stride_a = -1, int64_t stride_b = -1, int64_t stride_c = -1) {
  const int64_t lda = c.lda ? c.lda : tight_ld(c.order, c.op_a, c.m, c.k);
  const int64_t ldb = c.ldb ? c.ldb : tight_ld(c.order, c.op_b, c.k, c.n);
  const int64_t ldc = c.ldc ? c.ldc : tight_ld(c.order, op::none, c.m, c.n);
  c.batch.count = count;
  c.batch.stride_a = stride_a >= 0 ? stride_a : lda * (c.order == layout::col_major ? (c.op_a == op::none ? c.k : c.m) : (c.op_a == op::none ? c.m : c.k));
  c.batch.stride_b = stride_b >= 0 ? stride_b : ldb * (c.order == layout::col_major ? (c.op_b == op::none ? c.n : c.k) : (c.op_b == op::none ? c.k : c.n));
  c.batch.stride_c = stride_c >= 0 ? stride_c : ldc * (c.order == layout::col_major ? c.n : c.m);
  return c;
}

}  // namespace

TEST_CASE("strided batches on an H200: small products run together in one grid, large ones one after another",
          "[plan][batched]") {
  const device_facts f = h200();
  // The issue's small-matrix batches: one launch, the batch in gridDim.z, no workspace.
  for (const auto& b : {std::vector<int64_t>{4096, 32, 32, 32}, {1024, 64, 64, 64}, {256, 128, 128, 128},
                        {64, 256, 256, 256}, {16, 1024, 1024, 1024}, {96, 512, 512, 64},
                        {96, 512, 64, 512}}) {
    CAPTURE(b[0], b[1], b[2], b[3]);
    const plan p = plan_for(batch_of(shape(b[1], b[2], b[3]), b[0]), f);
    CHECK(p.batches == b[0]);
    CHECK(p.batch_in_grid);
    CHECK(!p.split_k);
    CHECK(!p.staged_c);
    CHECK(p.workspace_bytes == 0);
    for (int i = 0; i < p.step_count; ++i) CHECK(p.steps[i].kind == step_kind::gemm);
  }
  // The batch fills the GPU that one product alone would leave idle: 16 x 1024^3 takes the large tile unsplit,
  // where one 1024^3 product splits k (or takes smaller tiles).
  CHECK(slots_of(plan_for(batch_of(shape(1024, 1024, 1024), 16), f)) == "general");
  CHECK(plan_for(batch_of(shape(1024, 1024, 1024), 16), f).steps[0].tiles_m == 4);  // per product: 256 x 128 tiles
  // Few tiles and deep k even with the batch: each product splits k, one after another.
  plan p = plan_for(batch_of(shape(256, 256, 16384), 2), f);
  CHECK(!p.batch_in_grid);
  CHECK(p.split_k);
  CHECK(kinds_of(p) == "gemm reduce");
  // Large products repack their operands (here, as for one 2048^3 product, B into the layout read without register
  // staging): one after another, each with the one-product plan.
  p = plan_for(batch_of(shape(2048, 2048, 2048), 8), f);
  CHECK(!p.batch_in_grid);
  CHECK(kinds_of(p) == "pack_b gemm");
  p = plan_for(batch_of(shape(4096, 4096, 4096, op::transpose, op::none), 4), f);
  CHECK(!p.batch_in_grid);
  CHECK(kinds_of(p) == "pack_a pack_b gemm");
  // A stride that breaks the 16-byte alignment of later products: scalar loads for all (small problems) ...
  p = plan_for(batch_of(shape(64, 64, 64), 64, 64 * 64 + 1), f);
  CHECK(p.unaligned);
  CHECK(p.batch_in_grid);
  CHECK(slots_of(p) == "unaligned");
  // ... while the same problem with aligned strides is not.
  CHECK(!plan_for(batch_of(shape(64, 64, 64), 64, 64 * 64 + 4), f).unaligned);
  // Stride 0 (one A for every product) is aligned when A is.
  CHECK(!plan_for(batch_of(shape(64, 64, 64), 64, 0), f).unaligned);
  // alpha = 0: C = beta C for every product, in one launch.
  call_spec scale = batch_of(shape(32, 32, 32), 100);
  scale.alpha = 0.0f, scale.beta = 0.5f;
  p = plan_for(scale, f);
  CHECK(kinds_of(p) == "scale");
  CHECK(p.batch_in_grid);
  // A misaligned C is not staged in one grid (each product's C differs): the epilogue's narrower stores write it.
  call_spec odd_c = batch_of(shape(1024, 1024, 1024), 16);
  odd_c.offset_c = 1;
  p = plan_for(odd_c, f);
  CHECK(p.batch_in_grid);
  CHECK(!p.staged_c);
  // The plan's text says how the batch runs.
  const std::string text = tgemm::detail::describe(p, nullptr, "float", 1024, 1024, 1024);
  CHECK(text.find("a batch of 16 products, together") != std::string::npos);
}

TEST_CASE("strided batches of products of at most 32 x 64 on an H200: the products tile, a block a tile",
          "[plan][batched]") {
  device_facts f = h200();
  f.wgmma_image = true;
  for (const auto& b : {std::vector<int64_t>{4096, 32, 32, 32}, {8192, 16, 16, 16}, {16384, 32, 32, 32},
                        {100, 32, 17, 40}, {100, 1, 32, 8}, {100, 16, 31, 8}}) {
    CAPTURE(b[0], b[1], b[2], b[3]);
    const call_spec c = batch_of(shape(b[1], b[2], b[3]), b[0]);
    const plan f32 = plan_for(c, f);
    const plan bf16 = plan_16bit<__nv_bfloat16, __nv_bfloat16>(c, f);
    const plan half_float = plan_16bit<__half, float>(c, f);
    for (const plan* p : {&f32, &bf16, &half_float}) {
      if (p->gemv) continue;  // one row or column: the GEMV kernel (its own rule)
      INFO(kinds_of(*p));
      CHECK(slots_of(*p) == "products");
      CHECK(p->batch_in_grid);
      CHECK(p->steps[0].tiles_m == 1);
      CHECK(p->steps[0].tiles_n == 1);
      CHECK(p->steps[0].threads == 32);
      CHECK(p->workspace_bytes == 0);
    }
  }
  // Two tiles a product (32 x 64, 48 x 32): the products tile.
  for (const auto& b : {std::vector<int64_t>{2048, 32, 64, 48}, {4096, 48, 32, 32}, {100, 64, 8, 8}}) {
    CAPTURE(b[0], b[1], b[2], b[3]);
    const call_spec c = batch_of(shape(b[1], b[2], b[3]), b[0]);
    for (const plan& p : {plan_for(c, f), plan_16bit<__nv_bfloat16, __nv_bfloat16>(c, f)}) {
      CHECK(slots_of(p) == "products");
      CHECK(p.batch_in_grid);
      CHECK(p.steps[0].tiles_m * p.steps[0].tiles_n == 2);
    }
  }
  // Products that need more than two (64 x 64, 33 x 64) take the small tile as before.
  CHECK(slots_of(plan_for(batch_of(shape(64, 64, 64), 1024), f)) == "small");
  CHECK(slots_of(plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(64, 64, 64), 1024), f)) == "small");
  CHECK(slots_of(plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(40, 64, 32), 1024), f)) == "small");
  // The plan's text says how the batch runs.
  const std::string text =
      tgemm::detail::describe(plan_for(batch_of(shape(32, 32, 32), 4096), f), nullptr, "float", 32, 32, 32);
  CHECK(text.find("gemm products") != std::string::npos);
  CHECK(text.find("a batch of 4096 products, together") != std::string::npos);
  // One product alone is planned as before (the rule is for batches in one grid).
  CHECK(slots_of(plan_for(shape(32, 32, 32), f)) != "products");
  // Misaligned float products keep the scalar-load tile.
  CHECK(slots_of(plan_for(batch_of(shape(32, 32, 32), 64, 32 * 32 + 1), f)) == "unaligned");
  // The rule both batch forms ask (pointer arrays with one tile a product).
  const auto bf16_values = tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(900);
  using tgemm::detail::products_tile_takes;
  CHECK(products_tile_takes(bf16_values, 32, 32, 1));
  CHECK(products_tile_takes(bf16_values, 1, 7, 1));
  CHECK_FALSE(products_tile_takes(bf16_values, 32, 64, 1));
  CHECK(products_tile_takes(bf16_values, 32, 64, 2));
  CHECK_FALSE(products_tile_takes(bf16_values, 64, 64, 2));
  CHECK_FALSE(products_tile_takes(
      tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(800), 32, 32, 1));
  CHECK_FALSE(products_tile_takes(tgemm::tuning::values_for<tgemm::tuning::tensorop_f64>(900), 32, 32, 1));
  // Tables that name the small tile for products (TF32, double, and every table on sm_80) keep it.
  const device_facts a = a100();
  CHECK(slots_of(plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(32, 32, 32), 4096), a)) == "small");
  CHECK(slots_of(plan_for(batch_of(shape(32, 32, 32), 4096), a)) == "small");
}

TEST_CASE("16-bit strided batches on an H200 running the sm_90a image: the Hopper kernel walks the whole batch",
          "[plan][batched]") {
  device_facts f = h200();
  f.wgmma_image = true;
  // Products that fill the GPU alone, and products whose tiles fill it together: one grid of the Hopper kernel.
  for (const auto& b : {std::vector<int64_t>{8, 2048, 2048, 2048}, {16, 1024, 1024, 1024}, {64, 256, 256, 256},
                        {256, 128, 128, 128}, {96, 512, 512, 64}}) {
    CAPTURE(b[0], b[1], b[2], b[3]);
    const plan p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(b[1], b[2], b[3]), b[0]), f);
    CHECK(slots_of(p) == "wgmma");
    CHECK(p.batch_in_grid);
    CHECK(p.batches == b[0]);
    // Persistent blocks walking (product, tile) work items: one per multiprocessor, or per item when fewer.
    CHECK(p.steps[0].grid_x == std::min<int64_t>(132, p.steps[0].tiles_m * p.steps[0].tiles_n * b[0]));
    CHECK(p.workspace_bytes == 0);
    // 128 x 128 products fill half of a 128 x 256 tile: one whole 128 x 128 batch tile instead; 256 x 256 x 256
    // products make 128 large tiles, under a wave, with k = 256: the batch tile too.
    CHECK_FALSE(p.steps[0].wgmma_small);
    CHECK(p.steps[0].wgmma_batch == (b[1] == 128 || b[1] == 256));
  }
  // The batch tile (128 x 128): as much of it as of the smaller tile inside C, and twice as much as of the large one,
  // or as much with the large tiles of the whole batch under a wave and k at most 512; products larger than one small
  // mma.sync tile; a 16-bit C.
  {
    using tgemm::detail::wgmma_batch_takes_batch_tile;
    const auto v = tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(900);
    CHECK(v.wgmma_batch.block_m == 128);
    CHECK(v.wgmma_batch.block_n == 128);
    CHECK(wgmma_batch_takes_batch_tile(v, 128, 128, 64, 512, 132));   // all of one, half of a large tile
    CHECK(wgmma_batch_takes_batch_tile(v, 512, 64, 512, 96, 132));    // half of four, a quarter of two
    CHECK(wgmma_batch_takes_batch_tile(v, 256, 256, 256, 64, 132));   // 128 large tiles, k = 256
    CHECK_FALSE(wgmma_batch_takes_batch_tile(v, 256, 256, 256, 66, 132));  // 132 large tiles: a wave
    CHECK_FALSE(wgmma_batch_takes_batch_tile(v, 256, 256, 1024, 64, 132));  // k deeper than 512
    CHECK_FALSE(wgmma_batch_takes_batch_tile(v, 2048, 2048, 2048, 8, 132));
    CHECK_FALSE(wgmma_batch_takes_batch_tile(v, 512, 512, 64, 96, 132));   // 768 large tiles
    CHECK_FALSE(wgmma_batch_takes_batch_tile(v, 64, 256, 256, 96, 132));   // half of two, all of two smaller tiles
    CHECK_FALSE(wgmma_batch_takes_batch_tile(v, 64, 64, 64, 1024, 132));   // one small mma.sync tile
    CHECK_FALSE(wgmma_batch_takes_batch_tile(
        tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, float>>(900), 128, 128, 64, 512, 132));
    CHECK_FALSE(wgmma_batch_takes_batch_tile(
        tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(800), 128, 128, 64, 512,
        132));
    // A fused epilogue keeps the 64 x 128 tile (the batch tile has no fused kernel).
    bool small = false, batch_tile = true;
    CHECK(tgemm::detail::wgmma_batch_runs(v, 128, 128, 64, 512, 132, true, small, batch_tile));
    CHECK(small);
    CHECK_FALSE(batch_tile);
    CHECK(tgemm::detail::wgmma_batch_runs(v, 128, 128, 64, 512, 132, false, small, batch_tile));
    CHECK_FALSE(small);
    CHECK(batch_tile);
  }
  // The smaller tile for a batch: at least twice as much of it inside C as of the large one, products larger than
  // one small mma.sync tile (64 x 64).
  using tgemm::detail::wgmma_batch_takes_small;
  const auto values = tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(900);
  CHECK(wgmma_batch_takes_small(values, 128, 128));
  CHECK(wgmma_batch_takes_small(values, 64, 256));    // all of two small tiles, half of a large one
  CHECK(wgmma_batch_takes_small(values, 128, 96));    // 3/4 of two small tiles, 3/8 of a large one
  CHECK(wgmma_batch_takes_small(values, 64, 512));    // all of four, half of two
  CHECK(wgmma_batch_takes_small(values, 512, 64));    // half of eight, a quarter of two
  CHECK(wgmma_batch_takes_small(values, 64, 520));    // 0.81 of five, 0.34 of three
  CHECK_FALSE(wgmma_batch_takes_small(values, 64, 64));    // one small mma.sync tile: it keeps it
  CHECK_FALSE(wgmma_batch_takes_small(values, 128, 200));  // 200/256 of either
  CHECK_FALSE(wgmma_batch_takes_small(values, 128, 256));
  CHECK_FALSE(wgmma_batch_takes_small(values, 256, 256));
  CHECK_FALSE(wgmma_batch_takes_small(values, 192, 192));  // 3/4 against 9/16
  CHECK_FALSE(wgmma_batch_takes_small(values, 1100, 1100));
  // Measured with a 16-bit C: a float C keeps the large tile.
  CHECK_FALSE(wgmma_batch_takes_small(
      tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, float>>(900), 128, 128));
  plan p = plan_16bit<__half, __half>(batch_of(shape(64, 256, 128), 96), f);
  CHECK(p.wgmma);
  CHECK(p.steps[0].wgmma_small);
  CHECK(p.steps[0].tiles_m * p.steps[0].tiles_n == 2);
  p = plan_16bit<__nv_bfloat16, float>(batch_of(shape(128, 128, 128), 256), f);
  CHECK(p.wgmma);
  CHECK(!p.steps[0].wgmma_small);
  // 64 x 64 products (one small mma.sync tile each, an eighth of a 128 x 256 tile) run on the mma.sync tiles; 512 x 64
  // products (a quarter of two large tiles) on the batch tile (half of four), 200 x 64 ones (0.39 of two) on the
  // mma.sync tiles.
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(64, 64, 64), 1024), f);
  CHECK(!p.wgmma);
  CHECK(p.batch_in_grid);
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(512, 64, 512), 96), f);
  CHECK(p.wgmma);
  CHECK(p.steps[0].wgmma_batch);  // half of four 128 x 128 tiles, as much as of eight 64 x 128 ones
  CHECK(p.steps[0].tiles_m * p.steps[0].tiles_n == 4);
  CHECK(p.batch_in_grid);
  CHECK(!plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(200, 64, 512), 96), f).wgmma);
  // 64 x 512 products: half of two large tiles, all of four smaller ones.
  p = plan_16bit<__half, __half>(batch_of(shape(64, 512, 512), 96), f);
  CHECK(p.steps[0].wgmma_small);
  CHECK(p.steps[0].tiles_m * p.steps[0].tiles_n == 4);
  // A stride TMA cannot describe (not a multiple of 16 bytes): each product realigns its A, then the Hopper kernel.
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(2048, 2048, 2048), 4, 2048 * 2048 + 1), f);
  CHECK(p.wgmma);
  CHECK(!p.batch_in_grid);
  CHECK(kinds_of(p) == "pack_a gemm");
  // Products whose A overlap (each one column of A on from the last) are not described by one rank-3 map: the
  // mma.sync tiles take the batch in one grid.
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(1024, 1024, 1024), 16, 1024), f);
  CHECK(!p.wgmma);
  CHECK(p.batch_in_grid);
  // One B for every product (stride 0) is read in place.
  p = plan_16bit<__nv_bfloat16, float>(batch_of(shape(1024, 1024, 1024), 16, -1, 0), f);
  CHECK(p.wgmma);
  CHECK(p.batch_in_grid);
  // Smaller products run together on the mma.sync kernels.
  p = plan_16bit<__nv_bfloat16, __nv_bfloat16>(batch_of(shape(64, 64, 256), 64), f);
  CHECK(!p.wgmma);
  CHECK(p.batch_in_grid);
  CHECK(kinds_of(p) == "gemm");
  // Misaligned products of a 16-bit table (no scalar-load kernel): a stride of 8 elements keeps them aligned ...
  p = plan_16bit<__nv_bfloat16, float>(batch_of(shape(64, 64, 64), 32, 64 * 64 + 8), f);
  CHECK(p.batch_in_grid);
  CHECK(!p.repacked_a);
  // ... an odd one makes each product realign A in turn.
  p = plan_16bit<__nv_bfloat16, float>(batch_of(shape(64, 64, 64), 32, 64 * 64 + 1), f);
  CHECK(!p.batch_in_grid);
  CHECK(p.repacked_a);
}

TEST_CASE("16-bit pointer arrays on an H200: the strided batch's rule for the Hopper kernel", "[plan][batched]") {
  // tgemm::gemm_batched() asks wgmma_pointer_arrays_fit() (the planner's rule for a strided batch in one grid, and
  // leading dimensions TMA can step) whether its products go to the Hopper kernel, and on which tile: the issue's
  // batches that the strided form runs there, the GPU test's shapes, and the ones that stay on the mma.sync tiles.
  const auto values = tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(900);
  bool small = true, batch_tile = true;
  const auto fit = [&](int64_t products, int64_t m, int64_t n, int64_t multiprocessors, bool lines, int64_t k = 256) {
    return tgemm::detail::wgmma_pointer_arrays_fit(values, m, n, k, products, multiprocessors, lines, small,
                                                   batch_tile);
  };
  for (const auto& b : {std::vector<int64_t>{8, 2048, 2048}, {16, 1024, 1024}, {96, 512, 512}, {34, 136, 250},
                        {72, 200, 250}}) {
    CAPTURE(b[0], b[1], b[2]);
    CHECK(fit(b[0], b[1], b[2], 132, true));
    CHECK_FALSE(small);  // the 128 x 256 tile
    CHECK_FALSE(batch_tile);
    CHECK_FALSE(fit(b[0], b[1], b[2], 132, false));  // lda or ldb not a multiple of 16 bytes
  }
  // The batch tile (128 x 128) where twice as much of it lies inside C, or as much with the large tiles under a wave
  // and k at most 512, as for a strided batch; with deeper k those keep the large tile.
  for (const auto& b : {std::vector<int64_t>{256, 128, 128}, {96, 512, 64}, {150, 128, 128}, {64, 256, 256},
                        {40, 250, 250}}) {
    CAPTURE(b[0], b[1], b[2]);
    CHECK(fit(b[0], b[1], b[2], 132, true));
    CHECK_FALSE(small);
    CHECK(batch_tile);
  }
  CHECK(fit(64, 256, 256, 132, true, 1024));
  CHECK_FALSE(batch_tile);
  // The smaller tile (64 x 128) where twice as much of it lies inside C and more than of the batch tile.
  CHECK(fit(40, 64, 256, 132, true));
  CHECK(small);
  CHECK_FALSE(batch_tile);
  CHECK_FALSE(fit(1024, 64, 64, 132, true));   // a 64 x 64 product: one small mma.sync tile each
  CHECK_FALSE(fit(10, 200, 250, 132, true));   // 20 large tiles, 40 batch tiles: under half of the multiprocessors
  CHECK(fit(17, 200, 250, 132, true));          // 68 batch tiles: half
  CHECK(batch_tile);
  CHECK_FALSE(fit(17, 200, 250, 138, true));
  CHECK_FALSE(fit(17, 200, 250, 132, true, 1024));  // 34 large tiles, too deep for the batch tile: under half
  CHECK_FALSE(fit(32, 128, 128, 132, true));    // 32 batch tiles, 64 smaller ones: under half
  // An entry without an sm_90a policy never does.
  CHECK_FALSE(tgemm::detail::wgmma_pointer_arrays_fit(
      tgemm::tuning::values_for<tgemm::tuning::tensorop_f16<__nv_bfloat16, __nv_bfloat16>>(800), 2048, 2048, 256, 8,
      132, true, small, batch_tile));
}

TEST_CASE("every batched plan writes each product's C once, in one grid or product by product", "[plan][batched]") {
  std::mt19937_64 random(20261202);
  const int64_t choices[] = {1, 7, 16, 17, 32, 33, 64, 100, 128, 257, 600};
  auto extent = [&] { return choices[random() % 11]; };
  int checked = 0;
  for (const device_facts& f : {h200(), a100()}) {
    for (int i = 0; i < 200; ++i) {
      call_spec c;
      c.order = random() % 2 ? layout::col_major : layout::row_major;
      c.op_a = random() % 2 ? op::none : op::transpose;
      c.op_b = random() % 2 ? op::none : op::transpose;
      c.m = extent(), c.n = extent(), c.k = extent() * (random() % 3 == 0 ? 40 : 1);
      const int64_t count = 1 + int64_t(random() % 300);
      c = batch_of(c, count);
      if (random() % 3 == 0) c.batch.stride_a = random() % 2 ? 0 : c.batch.stride_a + int64_t(random() % 5);
      if (random() % 3 == 0) c.batch.stride_b = random() % 2 ? 0 : c.batch.stride_b + int64_t(random() % 5);
      if (random() % 3 == 0) c.batch.stride_c += int64_t(random() % 5);
      c.beta = random() % 2 ? 0.0f : 0.5f;
      CAPTURE(count, c.batch.stride_a, c.batch.stride_b, c.batch.stride_c);
      check_plan_properties(c, f);
      const plan p = plan_for(c, f);
      CHECK(p.batches == count);
      if (p.batch_in_grid) {  // one grid: nothing in the workspace, no product split or staged
        CHECK(p.workspace_bytes == 0);
        CHECK(!p.split_k);
        CHECK(!p.repacked_a);
        CHECK(!p.repacked_b);
        CHECK(!p.staged_c);
      }
      ++checked;
    }
  }
  SUCCEED(checked << " batched plans checked");
}

TEST_CASE("GEMV plans on sm_90 whose slices meet in C inside the launch (clusters)", "[plan][gemv]") {
  const op N = op::none, T = op::transpose;
  tgemm::tuning::tuning_values values = tgemm::tuning::values_for<tgemm::tuning::default_chain>(900);
  CHECK(values.gemv_cluster_slices == tgemm::tuning::gemv_cluster_slices);
  STATIC_REQUIRE(tgemm::tuning::gemv_cluster_slices >= 2);
  STATIC_REQUIRE(tgemm::tuning::gemv_cluster_slices <= 16);
  // Along n, 64 blocks of 128 float columns split 8 ways: one launch in clusters of 8, compact float partials.
  values.gemv_cluster_slices = 16;
  const plan p = plan_for(shape(1, 8192, 8192, N, T), h200(), &values);
  CHECK(kinds_of(p) == "gemm");
  CHECK(p.split_k);
  const plan_step& g = p.steps[0];
  CHECK(g.gemv_cluster);
  CHECK_FALSE(g.gemv_along_k);
  CHECK(g.slices == 8);
  CHECK(g.to_workspace);
  CHECK(g.slice_stride == 8192);
  CHECK(p.workspace_bytes == size_t(8) * 8192 * sizeof(float));
  CHECK(tgemm::detail::describe(p, &values, "float", 1, 8192, 8192).find("in clusters of its slices") !=
        std::string::npos);
  // One column of C (op(A)^T streamed along n) likewise.
  CHECK(plan_for(shape(8192, 1, 8192, N, N), h200(), &values).steps[0].gemv_cluster);
  // The bound caps the slices: the split rule takes 15 for bf16's 32 blocks of 256 columns (8 for float's 64).
  using bf16_table = tgemm::tuning::default_table<__nv_bfloat16, __nv_bfloat16>::type;
  tgemm::tuning::tuning_values values16 = tgemm::tuning::values_for<bf16_table>(900);
  values16.gemv_cluster_slices = 16;
  CHECK(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(1, 8192, 8192, N, T), h200(), &values16).steps[0].slices == 15);
  // A bound past the largest cluster (16 blocks, kernel::gemv_max_cluster_slices) is held to it: 16 blocks of 256
  // columns would take 29 slices of 128.
  values16.gemv_cluster_slices = 64;
  values16.gemv_min_slice_k = 128;
  const plan held = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(1, 4096, 4096, N, T), h200(), &values16);
  CHECK(held.steps[0].gemv_cluster);
  CHECK(held.steps[0].slices == tgemm::kernel::gemv_max_cluster_slices);
  values.gemv_cluster_slices = 4;
  const plan capped = plan_for(shape(1, 8192, 8192, N, T), h200(), &values);
  CHECK(kinds_of(capped) == "gemm");
  CHECK(capped.steps[0].gemv_cluster);
  CHECK(capped.steps[0].slices == 4);
  CHECK(capped.workspace_bytes == size_t(4) * 8192 * sizeof(float));
  // The tuning table's own bound.
  const plan tuned = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(1, 8192, 8192, N, T), h200());
  CHECK(kinds_of(tuned) == "gemm");
  CHECK(tuned.steps[0].slices == std::min<int64_t>(15, tgemm::tuning::gemv_cluster_slices));
  // A matrix too narrow for one block per multiprocessor in gemv_cluster_slices slices takes up to
  // gemv_wide_cluster_slices (the table's is 8, tuning/gemv.cuh says why; 16 here): float 1 x 2048 x 8192 (16 blocks of
  // 128 columns, 8 slices: 128 blocks on 132 SMs) splits 16 ways, 1 x 4096 x 4096 (32 blocks: 256 in 8) stays at 8
  // (its slices of 512: 8 at most anyway), and bf16 1 x 4096 x 4096 (16 blocks of 256 columns) in slices of 256 takes
  // 16.
  STATIC_REQUIRE(tgemm::tuning::gemv_wide_cluster_slices >= tgemm::tuning::gemv_cluster_slices);
  const auto table = tgemm::tuning::values_for<tgemm::tuning::default_chain>(900);
  CHECK(table.gemv_wide_cluster_slices == tgemm::tuning::gemv_wide_cluster_slices);
  CHECK(plan_for(shape(1, 2048, 8192, N, T), h200()).steps[0].slices ==
        std::min<int64_t>(16, std::max(table.gemv_cluster_slices, table.gemv_wide_cluster_slices)));
  tgemm::tuning::tuning_values widened = table;
  widened.gemv_wide_cluster_slices = 16;
  const plan wide = plan_for(shape(1, 2048, 8192, N, T), h200(), &widened);
  CHECK(kinds_of(wide) == "gemm");
  CHECK(wide.steps[0].gemv_cluster);
  CHECK(wide.steps[0].slices == 16);
  CHECK(plan_for(shape(1, 4096, 4096, N, T), h200(), &widened).steps[0].slices == 8);
  tgemm::tuning::tuning_values widened16 = tgemm::tuning::values_for<bf16_table>(900);
  widened16.gemv_wide_cluster_slices = 16;
  widened16.gemv_min_slice_k = 256;
  const plan wide16 = plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(1, 4096, 4096, N, T), h200(), &widened16);
  CHECK(wide16.steps[0].gemv_cluster);
  CHECK(wide16.steps[0].slices == 16);
  CHECK(wide16.steps[0].k_per_slice == 256);
  // bf16 1 x 8192 x 8192 (32 blocks: 256 in 8 slices) keeps the narrower bound.
  CHECK(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(1, 8192, 8192, N, T), h200(), &widened16).steps[0].slices == 8);
  // On a GPU of 100 multiprocessors the 128 blocks of float 1 x 2048 x 8192 in 8 slices fill it: 8 stay the bound.
  device_facts smaller = h200();
  smaller.multiprocessors = 100;
  CHECK(plan_for(shape(1, 2048, 8192, N, T), smaller, &widened).steps[0].slices == table.gemv_cluster_slices);
  // Not along k (its reduction stays a launch of its own), not with a bound of 0 or 1, not before sm_90.
  CHECK(kinds_of(plan_for(shape(1, 2048, 65536, N, N), h200(), &values)) == "gemm reduce");  // 128 blocks along k
  values.gemv_cluster_slices = 0;
  CHECK(kinds_of(plan_for(shape(1, 8192, 8192, N, T), h200(), &values)) == "gemm reduce");
  tgemm::tuning::tuning_values ampere = tgemm::tuning::values_for<tgemm::tuning::default_chain>(800);
  ampere.gemv_cluster_slices = 16;
  CHECK(kinds_of(plan_for(shape(1, 8192, 8192, N, T), a100(), &ampere)) == "gemm reduce");
}

TEST_CASE("GEMV plans on an H200: one row or column of C streams the other operand once", "[plan][gemv]") {
  const device_facts f = h200();
  const op N = op::none, T = op::transpose;
  const auto values = tgemm::tuning::values_for<tgemm::tuning::default_chain>(900);
  // Which kernel: the matrix (op(B) for one row, op(A) for one column) contiguous along k, or along the outputs.
  struct row {
    call_spec call;
    bool few_rows, along_k;
    int64_t blocks;
  };
  for (const row& r : {row{shape(1, 8192, 8192, N, N), true, true, 512},   // 16 columns per block
                       row{shape(1, 8192, 8192, N, T), true, false, 64},   // 128 float columns per block
                       row{shape(1, 8192, 8192, T, N), true, true, 512},   // A's one row, read with any stride
                       row{shape(8192, 1, 8192, N, N), false, false, 64},
                       row{shape(8192, 1, 8192, T, N), false, true, 512},
                       row{shape(1, 2048, 65536, N, N), true, true, 128},
                       row{shape(65536, 1, 2048, N, T), false, false, 512}}) {
    const call_spec& c = r.call;
    CAPTURE(c.m, c.n, c.k, tgemm::to_string(c.op_a), tgemm::to_string(c.op_b));
    const plan p = plan_for(c, f);
    REQUIRE(p.gemv);
    CHECK(!p.repacked_a);  // A of one row has lda = 1: the kernels read it in place
    CHECK(!p.repacked_b);
    const plan_step& g = p.steps[0];
    CHECK(g.gemv);
    CHECK(g.gemv_few_rows == r.few_rows);
    CHECK(g.gemv_along_k == r.along_k);
    CHECK(g.tiles_m == r.blocks);
    CHECK(g.threads == tgemm::kernel::gemv_threads);
    // Blocks below the kernel's minimum per SM split k into slices of at least gemv_min_slice_k.
    const double per_sm = r.along_k ? values.gemv_along_k_min_blocks : values.gemv_along_n_min_blocks;
    const bool few = double(r.blocks) < per_sm * 132;
    CHECK(p.split_k == few);
    if (few) {
      CHECK(g.k_per_slice >= values.gemv_min_slice_k);
      CHECK(g.k_per_slice % 4 == 0);  // slices start on whole 16-byte vectors
      // Along n on sm_90 the slices (at most gemv_cluster_slices) meet in C inside the launch: no reduction.
      const bool clustered = !r.along_k && values.gemv_cluster_slices > 1;
      CHECK(g.gemv_cluster == clustered);
      if (clustered) {
        CHECK(g.slices <= values.gemv_cluster_slices);
      } else {
        CHECK(double(g.tiles_m * g.slices) >= per_sm * 132 * 0.8);
      }
      CHECK(kinds_of(p) == (clustered ? "gemm" : "gemm reduce"));
    } else {
      CHECK(kinds_of(p) == "gemm");
    }
  }
  // A row-major call is the column-major one transposed: one row becomes one column.
  call_spec row_major = shape(1, 8192, 8192);
  row_major.order = layout::row_major;
  CHECK(!plan_for(row_major, f).steps[0].gemv_few_rows);
  // Two rows: the thin tiles (the GEMV kernels measured slower there; simt_f32_thresholds::gemv).
  CHECK(!plan_for(shape(2, 8192, 8192), f).gemv);
  // The matrix's lines not on 16 bytes (ldb = k = 8191, or B one float off): the tiles, B realigned or not.
  CHECK(!plan_for(shape(1, 8192, 8191), f).gemv);
  CHECK(!plan_for(with(shape(1, 8192, 8192), 0, 1, 0), f).gemv);
  // The vector needs no alignment: A one float off is read in place.
  CHECK(plan_for(with(shape(1, 8192, 8192), 1, 0, 0), f).gemv);
  // 16-bit elements: lines of 8 elements; 16-byte vectors of 8 columns per thread along n.
  CHECK(plan_16bit<__nv_bfloat16, __nv_bfloat16>(shape(1, 8192, 8192, N, T), f).steps[0].tiles_m == 32);
  CHECK(!plan_16bit<__half, float>(shape(1, 8192, 8188), f).gemv);
  // The sm_90a image changes nothing: the Hopper kernel never takes thin problems.
  device_facts hopper = f;
  hopper.wgmma_image = true;
  CHECK(plan_16bit<__nv_bfloat16, float>(shape(1, 8192, 8192), hopper).gemv);
  // A batch: in one grid when its blocks fill the GPU, else product by product, each splitting k.
  plan p = plan_for(batch_of(shape(1, 4096, 4096), 16), f);
  CHECK(p.gemv);
  CHECK(p.batch_in_grid);
  CHECK(!p.split_k);
  CHECK(p.workspace_bytes == 0);
  p = plan_for(batch_of(shape(1, 256, 65536), 2), f);
  CHECK(p.gemv);
  CHECK(!p.batch_in_grid);
  CHECK(p.split_k);
  // Split partials: slices x ld_out x n floats, C's layout with ld_out = m rounded up to 4.
  p = plan_for(shape(1, 256, 65536), f);
  REQUIRE(p.split_k);
  CHECK(p.steps[0].ld_out == 4);
  CHECK(p.workspace_bytes >= size_t(p.steps[0].slices) * 4 * 256 * sizeof(float));
  // The plan's text names the kernel.
  const std::string text = tgemm::detail::describe(plan_for(shape(1, 8192, 8192), f), &values, "float", 1, 8192, 8192);
  INFO(text);
  CHECK(text.find("GEMV kernel") != std::string::npos);
  CHECK(text.find("1. gemv along k (one row of C: op(B) streamed): C[0:+1, 0:+8192], 512 blocks x 1 slices") !=
        std::string::npos);
}

TEST_CASE("a fused epilogue is applied when there is no product to compute, beta = 1 included", "[plan]") {
  // k = 0 or alpha = 0 leaves C = beta C: nothing to do when beta == 1, unless a fused epilogue still applies its
  // terms (D = act(C + biases)); the scale step then runs with them. (Found by reliability.differential_batched:
  // grouped and fused calls with beta = 1 left C as it was.)
  const device_facts f = h200();
  const tgemm::tuning::tuning_values values = tgemm::tuning::values_for<tgemm::tuning::default_chain>(f.arch);
  for (const bool fused : {false, true}) {
    for (const float beta : {1.0f, 0.5f}) {
      for (const int64_t k : {int64_t(0), int64_t(9)}) {
        call_spec c = shape(33, 17, k);
        c.alpha = k == 0 ? 1.0f : 0.0f;
        c.beta = beta;
        tgemm::detail::canonical_call<tgemm::detail::gemm_types<float>> call;
        REQUIRE(tgemm::detail::check_arguments(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, fake(0), c.m,
                                               fake(0), k > 0 ? k : 1, c.beta, const_cast<float*>(fake(0)), c.m,
                                               call, c.batch) == status::success);
        call.fused = fused;
        plan p;
        REQUIRE(tgemm::detail::make_plan(call, f, values, p) == status::success);
        INFO("fused " << fused << ", beta " << beta << ", k " << k);
        CHECK(kinds_of(p) == (fused || beta != 1.0f ? "scale" : ""));
      }
    }
  }
}

TEST_CASE("gemm_grouped on an H200 running the sm_90a image: which groups run together on the grouped Hopper kernel",
          "[plan][grouped]") {
  using bf16 = __nv_bfloat16;
  using group = tgemm::gemm_group<bf16>;
  using tgemm::detail::hopper_group_facts;
  using tgemm::detail::hopper_group_run;
  using tgemm::detail::plan_hopper_group_run;
  // Fake device pointers (plans never dereference them), 2^32 bytes apart: each group its own A, B and C.
  const auto at = [](int64_t index) {
    return reinterpret_cast<bf16*>((uintptr_t(1) << 40) + (uintptr_t(index) << 32));
  };
  const auto expert = [&](int i, int64_t m, int64_t n, int64_t k) {
    group g;
    g.m = m, g.n = n, g.k = k;
    g.a = at(3 * i), g.lda = m, g.b = at(3 * i + 1), g.ldb = k, g.c = at(3 * i + 2), g.ldc = m;
    return g;
  };
  // issue 15's experts: m = 64 .. 2048 tokens, n = 4096, k = 2048; 800 tiles of 128 x 256.
  std::vector<group> groups;
  const int64_t tokens[] = {64, 128, 256, 512, 768, 1024, 1536, 2048};
  for (int i = 0; i < 8; ++i) groups.push_back(expert(i, tokens[i], 4096, 2048));
  hopper_group_run<bf16, bf16, bf16> run;
  const auto length = [&](const std::vector<group>& g, layout order = layout::col_major,
                          const hopper_group_facts& facts = hopper_group_facts{true, 132}) {
    plan_hopper_group_run(order, g.data(), int64_t(g.size()), facts, run);
    return run.length;
  };

  SECTION("the experts run together, in the column-major form") {
    CHECK(length(groups) == 8);
    CHECK(run.tiles == 800);
    CHECK((run.op_a == op::none && run.op_b == op::none));
    CHECK((run.group[3].m == 512 && run.group[3].n == 4096 && run.group[3].k == 2048));
    CHECK((run.group[3].a == groups[3].a && run.group[3].c == groups[3].c && run.group[3].ldc == 512));
    for (group& g : groups) g.lda = g.k, g.ldb = g.n, g.ldc = g.n;  // the same groups stored row-major
    CHECK(length(groups, layout::row_major) == 8);  // C^T = B^T A^T: m and n, A and B swap
    CHECK((run.group[3].m == 4096 && run.group[3].n == 512 && run.group[3].a == groups[3].b));
    CHECK((run.group[3].lda == 4096 && run.group[3].b == groups[3].a && run.group[3].ldb == 2048));
    CHECK((run.op_a == op::none && run.op_b == op::none));
  }
  SECTION("no run off an sm_90a image, for one group, or for too few tiles") {
    CHECK(length(groups, layout::col_major, hopper_group_facts{false, 132}) == 0);
    CHECK(length({groups[7]}) == 0);
    CHECK(length({expert(0, 128, 4096, 4096), expert(1, 128, 4096, 4096)}) == 0);  // 32 tiles: their own plans
    CHECK(length({expert(0, 1024, 4096, 64), expert(1, 1024, 4096, 64)}) == 2);   // 256 tiles
  }
  SECTION("a run ends before a group that does not suit it") {
    std::vector<group> g = groups;
    tgemm::epilogue<bf16> ep;
    SECTION("a fused epilogue") { g[6].ep = &ep; }
    SECTION("another op pair") { g[6].op_b = op::transpose, g[6].ldb = g[6].n; }
    SECTION("a thin group") { g[6].m = 32, g[6].lda = 32, g[6].ldc = 32; }
    SECTION("lda not a multiple of 16 bytes") { g[6].lda = g[6].m + 1; }
    SECTION("a misaligned B") { g[6].b = g[6].b + 1; }
    SECTION("alpha = 0") { g[6].alpha = 0.0f; }
    SECTION("k = 0") { g[6].k = 0; }
    SECTION("its C is an earlier group's A") { g[6].c = const_cast<bf16*>(g[2].a); }
    SECTION("its B is an earlier group's C") { g[6].b = g[0].c; }
    SECTION("its C is an earlier group's C") { g[6].c = g[5].c + 1000; }
    CHECK(length(g) == 6);  // groups 0 .. 5: 352 tiles
    CHECK(run.tiles == 352);
  }
  SECTION("at most 16 groups a launch") {
    std::vector<group> many;
    for (int i = 0; i < 20; ++i) many.push_back(expert(i, 1024, 1024, 64));
    CHECK(length(many) == 16);
    CHECK(run.tiles == 16 * 32);
  }
}
