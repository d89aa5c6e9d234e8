// The GEMV kernels (kernel/gemv.cuh) through tgemm::gemm_strided_batched() (a batch of one is tgemm::gemm()): C of
// one row or one column, every element type and math mode, both orders, all op pairs (so both kernels, along k and
// along n, in both roles), k with a partial last vector, columns past the last block's, split k, batches in one grid and
// product by product, shared operands (stride 0), beta = 0 over a NaN C, and the misaligned matrices the kernels
// leave to the tiles. Each product is checked against a long-double host loop (test/support/batch_check.hpp), and
// each case checks that its plan is the GEMV one.
#include <tgemm/gemm.cuh>

#include "batch_check.hpp"
#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace {

using tgemm::layout;
using tgemm::op;
using namespace tgemm::test;

/// Pads the leading dimensions of A and B to a multiple of 8 elements (16 bytes of the 16-bit types): the GEMV
/// kernels read the matrix in 16-byte vectors.
batch_case aligned(batch_case c) {
  c.pad_a = c.pad_b = 0;
  c.pad_a = (8 - c.lda() % 8) % 8;
  c.pad_b = (8 - c.ldb() % 8) % 8;
  return c;
}

/// Runs c and checks that the GEMV kernels ran it (split or not, as `split`); a split along n on an sm_90 GPU (the
/// tests' sm_90a image) sums its slices inside the launch (clusters, tuning/gemv.cuh's bounds), any other split
/// in a reduction.
template <class AB, class C>
void run_gemv(const batch_case& c, bool split = false) {
  const tgemm::detail::plan p = run_batch<AB, C>(c);
  CHECK(p.gemv);
  CHECK(p.split_k == split);
  if (split && p.step_count > 0) {
    const tgemm::detail::plan_step& g = p.steps[0];
    CHECK(g.gemv_cluster == (!g.gemv_along_k && runs_sm90a_kernels() && tgemm::tuning::gemv_cluster_slices > 1));
    if (g.gemv_cluster) {
      CHECK(g.slices <= std::max(tgemm::tuning::gemv_cluster_slices, tgemm::tuning::gemv_wide_cluster_slices));
    }
  }
}

template <class AB, class C>
void run_type_suite(tgemm::math_mode math) {
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      batch_case c;
      c.math = math, c.order = order, c.op_a = ops.first, c.op_b = ops.second;
      c.alpha = 1.5f;
      // One row and one column; k with a partial last vector; columns past the last block's.
      for (const auto& shape : {std::pair<int64_t, int64_t>{1, 300}, {300, 1}, {1, 5000}, {5000, 1}}) {
        c.m = shape.first, c.n = shape.second, c.k = 1001;
        c.beta = 0;
        run_gemv<AB, C>(aligned(c));
        c.beta = 0.5f;
        run_gemv<AB, C>(aligned(c));
      }
      // A dot product (m = n = 1: one block, so k splits) and a shallow k.
      c.m = 1, c.n = 1, c.k = 4096;
      run_gemv<AB, C>(aligned(c), true);
      c.m = 700, c.n = 1, c.k = 3;
      run_gemv<AB, C>(aligned(c));
      // Two rows are the thin tiles' (simt_f32_thresholds::gemv).
      c.m = 2, c.n = 300, c.k = 64;
      CHECK(!run_batch<AB, C>(aligned(c)).gemv);
    }
  }
}

}  // namespace

TEST_CASE("GEMV: float, TF32 and 3xTF32 (computed in float), double", "[gemv]") {
  run_type_suite<float, float>(tgemm::math_mode::strict);
  run_type_suite<float, float>(tgemm::math_mode::tf32);
  run_type_suite<float, float>(tgemm::math_mode::tf32x3);
  run_type_suite<double, double>(tgemm::math_mode::strict);
}

TEST_CASE("GEMV: half and bfloat16, 16-bit and float C", "[gemv]") {
  run_type_suite<__half, __half>(tgemm::math_mode::strict);
  run_type_suite<__half, float>(tgemm::math_mode::strict);
  run_type_suite<__nv_bfloat16, __nv_bfloat16>(tgemm::math_mode::strict);
  run_type_suite<__nv_bfloat16, float>(tgemm::math_mode::strict);
}

TEST_CASE("GEMV: k split into slices when the blocks would leave the GPU idle", "[gemv]") {
  for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                          {op::transpose, op::none}, {op::transpose, op::transpose}}) {
    batch_case c;
    c.op_a = ops.first, c.op_b = ops.second;
    c.m = 1, c.n = 96, c.k = 60001, c.beta = 0.5f;  // 1 to 3 blocks, k deep: slices and the reduction
    run_gemv<float, float>(aligned(c), true);
    run_gemv<__nv_bfloat16, __nv_bfloat16>(aligned(c), true);
    run_gemv<double, double>(aligned(c), true);
    c.m = 96, c.n = 1, c.beta = 0;
    run_gemv<__half, float>(aligned(c), true);
    run_gemv<float, float>(aligned(c), true);
  }
}

TEST_CASE("GEMV: strided batches in one grid and product by product, shared operands", "[gemv]") {
  batch_case c;
  c.count = 9, c.m = 1, c.n = 520, c.k = 300, c.gap = 8, c.beta = 0.5f;
  const tgemm::detail::plan together = run_batch<float, float>(aligned(c));
  CHECK(together.gemv);
  CHECK(together.batch_in_grid);
  run_batch<__nv_bfloat16, float>(aligned(c));
  batch_case shared = c;  // one vector for every product, then one matrix for every product
  shared.stride_a = 0;
  CHECK(run_batch<float, float>(aligned(shared)).gemv);
  shared.stride_a = -1, shared.stride_b = 0, shared.op_b = op::transpose;
  CHECK(run_batch<double, double>(aligned(shared)).gemv);
  batch_case few_columns = c;  // one column: the vector is B's
  few_columns.m = 520, few_columns.n = 1, few_columns.op_a = op::transpose;
  CHECK(run_batch<__half, __half>(aligned(few_columns)).batch_in_grid);
  batch_case deep = c;  // few blocks, deep k: each product splits k, in turn
  deep.count = 2, deep.n = 64, deep.k = 40000;
  const tgemm::detail::plan split = run_batch<float, float>(aligned(deep));
  CHECK(split.gemv);
  CHECK(split.split_k);
  CHECK(!split.batch_in_grid);
}

TEST_CASE("GEMV: a matrix whose lines are not 16-byte aligned runs on the tiles", "[gemv]") {
  batch_case c;
  c.m = 1, c.n = 300, c.k = 1001;  // ldb = 1001: B's columns start anywhere
  CHECK(!run_batch<float, float>(c).gemv);
  CHECK(!run_batch<__nv_bfloat16, __nv_bfloat16>(c).gemv);
  c.k = 1004;  // 16-byte lines for float, not for 16-bit elements
  CHECK(run_batch<float, float>(c).gemv);
  CHECK(!run_batch<__half, float>(c).gemv);
}

TEST_CASE("GEMV under compute-sanitizer: both kernels, both roles, split, batch", "[sanitize]") {
  batch_case c;
  c.m = 1, c.n = 300, c.k = 1001, c.beta = 0.5f;
  run_gemv<float, float>(aligned(c));
  c.op_b = op::transpose;
  run_gemv<__nv_bfloat16, __nv_bfloat16>(aligned(c));
  c.m = 300, c.n = 1, c.op_a = op::transpose;
  run_gemv<double, double>(aligned(c));
  c.m = 1, c.n = 96, c.k = 60001, c.op_a = op::none, c.op_b = op::none;
  run_gemv<float, float>(aligned(c), true);
  c.op_b = op::transpose;  // along n: clusters of the slices on sm_90
  run_gemv<__nv_bfloat16, __nv_bfloat16>(aligned(c), true);
  c.op_b = op::none;
  c.count = 3, c.n = 520, c.k = 300;
  run_gemv<__half, float>(aligned(c));
}
