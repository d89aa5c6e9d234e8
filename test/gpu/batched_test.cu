// tgemm::gemm_strided_batched(): every element type and math mode, both orders, all op pairs, products run together
// in one grid and one after another, strides of 0 (one A or B for every product), overlapping read-only operands,
// strides that break the operands' alignment, gaps between the products' C that must come back untouched, more
// products than one grid holds, k = 0 and alpha = 0, the caller's workspace, and bad strides leaving C untouched.
// Each product is checked against a long-double host loop on the same (rounded) inputs, with the error bounds of
// the tensor-core tests (test/support/error_bounds.hpp).
#include <tgemm/gemm.cuh>

#include "batch_check.hpp"
#include "catch.hpp"
#include "cuda_check.hpp"
#include "element_values.hpp"
#include "error_bounds.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;

/// Calls f(c) for `base` in both storage orders and with every op pair.
template <class F>
void for_each_layout(const batch_case& base, F&& f) {
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      batch_case c = base;
      c.order = order, c.op_a = ops.first, c.op_b = ops.second;
      f(c);
    }
  }
}

/// The shapes every element type runs: products together in one grid (many small ones, a few medium ones), one
/// after another (deep k with few tiles: each splits k), strides of 0 and overlapping operands, misaligned strides.
template <class AB, class C>
void run_type_suite(tgemm::math_mode math) {
  batch_case base;
  base.math = math;
  batch_case every = base;  // aligned for every type's vectors
  every.count = 7, every.m = 40, every.n = 24, every.k = 48, every.gap = 8, every.beta = 0.5f;
  for_each_layout(every, [](const batch_case& c) { CHECK(run_batch<AB, C>(c).batch_in_grid); });
  batch_case many = base;  // many tiny products, together
  many.count = 300, many.m = 8, many.n = 8, many.k = 8;
  CHECK(run_batch<AB, C>(many).batch_in_grid);
  batch_case squares = base;  // 32^3 products, the small tile
  squares.count = 40, squares.m = squares.n = squares.k = 32, squares.alpha = -1.5f, squares.beta = 2;
  CHECK(run_batch<AB, C>(squares).batch_in_grid);
  batch_case tall = base;  // few thin tiles, deep k: each product splits k in turn (with the caller's workspace too)
  tall.count = 3, tall.m = 200, tall.n = 24, tall.k = 4000, tall.op_a = op::transpose;
  tgemm::detail::plan p = run_batch<AB, C>(tall);
  CHECK(!p.batch_in_grid);
  CHECK(p.split_k);
  CHECK(!run_batch<AB, C>(tall, true).batch_in_grid);
  batch_case broadcast = base;  // one B for every product; A's products overlap (each starts one column later)
  broadcast.count = 9, broadcast.m = 40, broadcast.n = 24, broadcast.k = 36, broadcast.stride_b = 0;
  broadcast.stride_a = broadcast.lda();
  broadcast.beta = 1;
  run_batch<AB, C>(broadcast);
  batch_case ragged = base;  // odd extents and leading dimensions (scalar loads or realigned copies)
  ragged.count = 5, ragged.m = 33, ragged.n = 17, ragged.k = 41, ragged.gap = 3, ragged.op_b = op::transpose;
  run_batch<AB, C>(ragged);
  batch_case odd = base;  // strides that break 16-byte alignment from the second product on
  odd.count = 6, odd.m = 40, odd.n = 24, odd.k = 36, odd.stride_a = odd.span_a() + 1, odd.stride_b = odd.span_b() + 3;
  odd.stride_c = odd.span_c() + 1;
  run_batch<AB, C>(odd);
  batch_case padded = base;  // C with padding rows and gaps, larger products
  padded.count = 4, padded.m = 300, padded.n = 260, padded.k = 130, padded.pad_c = 5, padded.gap = 77;
  run_batch<AB, C>(padded);
}

}  // namespace

TEST_CASE("strided batches of float, strict FP32", "[batched]") { run_type_suite<float, float>(tgemm::math_mode::strict); }
TEST_CASE("strided batches of float, TF32", "[batched]") { run_type_suite<float, float>(tgemm::math_mode::tf32); }
TEST_CASE("strided batches of float, 3xTF32", "[batched]") { run_type_suite<float, float>(tgemm::math_mode::tf32x3); }
TEST_CASE("strided batches of __half to __half and to float", "[batched]") {
  run_type_suite<__half, __half>(tgemm::math_mode::strict);
  run_type_suite<__half, float>(tgemm::math_mode::strict);
}
TEST_CASE("strided batches of __nv_bfloat16 to __nv_bfloat16 and to float", "[batched]") {
  run_type_suite<__nv_bfloat16, __nv_bfloat16>(tgemm::math_mode::strict);
  run_type_suite<__nv_bfloat16, float>(tgemm::math_mode::strict);
}
TEST_CASE("strided batches of double", "[batched]") { run_type_suite<double, double>(tgemm::math_mode::strict); }

namespace {

/// Batches of products of at most 32 x 32 (aligned for every type's vectors), each product one block of the products
/// tile: every order and op pair, a ragged n and k, tiny k, many 16^3 products, a misaligned C from the second product
/// on (the epilogue's narrower stores), a fused bias + GELU into a separate D. On an sm_90a build on an H200 (the
/// sm_90 entries) the float and 16-bit tables name a 32 x 32 one-warp tile for them, and the plan says it ran.
template <class AB, class C>
void run_products_suite(tgemm::math_mode math, bool own_tile) {
  const auto check = [&](const tgemm::detail::plan& p) {
    CHECK(p.batch_in_grid);
    REQUIRE(p.step_count == 1);
    if (runs_sm90a_kernels()) {
      if (own_tile) {
        CHECK(p.steps[0].slot == tgemm::tuning::slot::products);
        CHECK(p.steps[0].tiles_m * p.steps[0].tiles_n == 1);
      } else {
        CHECK(p.steps[0].slot != tgemm::tuning::slot::products);
      }
    }
  };
  batch_case base;
  base.math = math;
  batch_case every = base;
  every.count = 37, every.m = 32, every.n = 24, every.k = 40, every.gap = 8, every.beta = 0.5f;
  for_each_layout(every, [&](const batch_case& c) { check(run_batch<AB, C>(c)); });
  batch_case shallow = base;  // k = 8: one partial slice
  shallow.count = 50, shallow.m = 16, shallow.n = 32, shallow.k = 8, shallow.alpha = -1.5f, shallow.beta = 2;
  check(run_batch<AB, C>(shallow));
  batch_case many = base;  // many 16^3 products
  many.count = 3000, many.m = many.n = many.k = 16;
  check(run_batch<AB, C>(many));
  batch_case odd_c = base;  // C 3 elements apart: from the second product on, C is misaligned for vector stores
  odd_c.count = 9, odd_c.m = 32, odd_c.n = 32, odd_c.k = 32, odd_c.stride_c = odd_c.span_c() + 3, odd_c.beta = 1;
  check(run_batch<AB, C>(odd_c));
  batch_case fused = base;  // bias + GELU per product, into D
  fused.count = 21, fused.m = 24, fused.n = 32, fused.k = 64, fused.op_b = op::transpose, fused.beta = 0.25f;
  fused.ep.on = true, fused.ep.act = tgemm::activation::gelu_tanh, fused.ep.column_bias = true;
  fused.ep.row_scale = true, fused.ep.separate_d = true, fused.ep.pad_d = 8;
  const tgemm::detail::plan p = run_batch<AB, C>(fused);
  check(p);
  CHECK(p.fused);
}

}  // namespace

TEST_CASE("strided batches of products of at most 32 x 32: the products tile, a block a product", "[batched]") {
  run_products_suite<float, float>(tgemm::math_mode::strict, true);
  run_products_suite<__nv_bfloat16, __nv_bfloat16>(tgemm::math_mode::strict, true);
  run_products_suite<__half, float>(tgemm::math_mode::strict, true);
  run_products_suite<float, float>(tgemm::math_mode::tf32, false);  // TF32 names the small tile: scored as before
}

TEST_CASE("strided batches whose products fill the GPU alone run one after another, on the Hopper kernel where it runs",
          "[batched]") {
  batch_case c;
  c.count = 2, c.m = 1280, c.n = 1792, c.k = 64, c.gap = 8;
  const tgemm::detail::plan p = run_batch<__nv_bfloat16, __nv_bfloat16>(c);
  if (runs_sm90a_kernels()) {  // an sm_90a image on an H100/H200: 10 x 7 tiles of 128 x 256 fill more than half of it
    CHECK(p.wgmma);
    CHECK(p.batch_in_grid);
  }
  batch_case odd = c;  // a stride TMA cannot describe: each product realigns A, then runs the Hopper kernel
  odd.stride_a = odd.span_a() + 1;
  const tgemm::detail::plan r = run_batch<__nv_bfloat16, __nv_bfloat16>(odd);
  if (runs_sm90a_kernels()) {
    CHECK(r.wgmma);
    CHECK(!r.batch_in_grid);
    CHECK(r.repacked_a);
  }
  batch_case f = c;  // float: products large enough to repack a misaligned A, each in turn
  f.m = 512, f.n = 512, f.k = 512, f.count = 3, f.gap = 0;
  f.stride_a = f.span_a() + 1;
  const tgemm::detail::plan q = run_batch<float, float>(f);
  CHECK(!q.batch_in_grid);
  CHECK(q.repacked_a);
}

TEST_CASE("more products than one grid holds run in several grids", "[batched]") {
  batch_case c;
  c.count = 70000, c.m = 3, c.n = 2, c.k = 5, c.beta = 0.25f;
  CHECK(run_batch<float, float>(c).batch_in_grid);
  c.alpha = 0;  // C = beta C for every product, in one grid each
  CHECK(run_batch<float, float>(c).batch_in_grid);
}

TEST_CASE("k = 0 or alpha = 0 scales every product's C; beta = 0 writes zeros without reading C", "[batched]") {
  batch_case c;
  c.count = 50, c.m = 20, c.n = 30, c.k = 0, c.beta = 0.5f, c.gap = 2;
  run_batch<float, float>(c);
  c.beta = 0;
  run_batch<__nv_bfloat16, __nv_bfloat16>(c);
  c.k = 10, c.alpha = 0, c.beta = -2;
  run_batch<double, double>(c);
}

TEST_CASE("an empty batch touches nothing, and bad strides return their status with C untouched", "[batched]") {
  const int64_t m = 16, n = 16, k = 16, count = 4;
  device_buffer<float> a(size_t(m * k * count)), b(size_t(k * n * count)), c(size_t(m * n * count));
  const std::vector<float> before = random_values(m * n * count);
  c.upload(before);
  REQUIRE(tgemm::gemm_strided_batched(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, m * k, b.get(),
                                      k, k * n, 0.0f, c.get(), m, m * n, int64_t(0)) == status::success);
  REQUIRE(tgemm::gemm_strided_batched(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, m * k, b.get(),
                                      k, k * n, 0.0f, c.get(), m, m * n - 1, count) == status::invalid_batch_stride);
  REQUIRE(tgemm::gemm_strided_batched(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, -1, b.get(),
                                      k, k * n, 0.0f, c.get(), m, m * n, count) == status::invalid_batch_stride);
  REQUIRE(tgemm::gemm_strided_batched(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, m * k, b.get(),
                                      k, k * n, 0.0f, c.get(), m, m * n, int64_t(-3)) == status::invalid_dimension);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<float> after = c.download();
  int64_t changed = 0;
  for (size_t i = 0; i < after.size(); ++i) changed += !same_bits(after[i], before[i]);
  CHECK(changed == 0);
}

TEST_CASE("strided batches under compute-sanitizer: one grid, scalar loads, split products, 16-bit, scaling",
          "[sanitize]") {
  batch_case c;  // aligned, together
  c.count = 5, c.m = 40, c.n = 24, c.k = 48, c.gap = 8;
  run_batch<float, float>(c);
  run_batch<__nv_bfloat16, __nv_bfloat16>(c);
  batch_case products = c;  // at most 32 x 32: the products tile (a ragged n and k), plain and with a fused epilogue
  products.m = 32, products.op_b = op::transpose, products.beta = 0.5f;
  run_batch<float, float>(products);
  run_batch<__half, float>(products);
  products.ep.on = true, products.ep.act = tgemm::activation::relu, products.ep.row_bias = true;
  run_batch<__nv_bfloat16, __nv_bfloat16>(products);
  batch_case odd = c;  // misaligned strides: scalar loads (float), realigned copies product by product (bf16)
  odd.stride_a = odd.span_a() + 1, odd.beta = 0.5f;
  run_batch<float, float>(odd);
  run_batch<__nv_bfloat16, float>(odd);
  batch_case tall = c;  // each product splits k
  tall.count = 2, tall.m = 200, tall.n = 24, tall.k = 3000;
  CHECK(run_batch<float, float>(tall).split_k);
  batch_case scale = c;  // C = beta C
  scale.k = 0, scale.beta = 0.5f;
  run_batch<float, float>(scale);
  batch_case hopper = c;  // the Hopper kernel in one grid (on an H200 running sm_90a): TMA stores into a rank-3 map
  hopper.count = 70, hopper.m = 128, hopper.n = 128, hopper.k = 72;
  run_batch<__nv_bfloat16, __nv_bfloat16>(hopper);  // its batch tile (128 x 128)
  hopper.m = 64, hopper.n = 256;
  run_batch<__nv_bfloat16, __nv_bfloat16>(hopper);  // its smaller tile (64 x 128)
  hopper.m = 128;
  run_batch<__half, __half>(hopper);  // its large tile
  hopper.ep.on = true, hopper.ep.act = tgemm::activation::gelu_tanh, hopper.ep.row_bias = true;
  run_batch<__half, __half>(hopper);
}

namespace {

/// A batch the Hopper kernel walks in one grid on an H200: 40 products of 2 tiles of 128 x 256 (80 work items),
/// ragged in every extent (200 x 248 x 104: 128-row, 256-column and 64-deep tiles).
template <class AB, class C>
void run_hopper_batch(batch_case c) {
  c.count = 40, c.m = 200, c.n = 248, c.k = 104;  // every extent a multiple of 8: TMA reads the operands in place
  const tgemm::detail::plan p = run_batch<AB, C>(c);
  if (runs_sm90a_kernels()) {
    CHECK(p.wgmma);
    CHECK(p.batch_in_grid);
  }
}

}  // namespace

TEST_CASE("strided batches on the Hopper kernel in one grid: every layout, one B for all, gaps in C", "[batched]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      batch_case c;
      c.order = order, c.op_a = ops.first, c.op_b = ops.second, c.gap = 8;
      run_hopper_batch<__nv_bfloat16, __nv_bfloat16>(c);
    }
  }
  batch_case c;
  c.beta = 0.5f, c.gap = 16, c.pad_c = 8;
  run_hopper_batch<__nv_bfloat16, float>(c);
  run_hopper_batch<__half, __half>(c);
  batch_case shared_b;  // one B for every product
  shared_b.stride_b = 0;
  run_hopper_batch<__nv_bfloat16, __nv_bfloat16>(shared_b);
  batch_case tf32;  // TF32 reads B along k only: NN col-major in one grid
  tf32.math = tgemm::math_mode::tf32;
  run_hopper_batch<float, float>(tf32);
}

TEST_CASE("strided batches on the Hopper kernel in one grid: 16-bit C through TMA stores, or written by the kernel",
          "[batched]") {
  // beta = 0, C 16-byte aligned with its stride a multiple of 16 bytes: each product's tiles leave through the batch's
  // rank-3 tensor map (gaps between the products and padding rows stay untouched), plain and fused.
  batch_case padded;
  padded.gap = 24, padded.pad_c = 16;
  run_hopper_batch<__nv_bfloat16, __nv_bfloat16>(padded);
  batch_case fused;
  fused.order = layout::row_major, fused.op_a = op::transpose, fused.gap = 8;
  fused.ep.on = true, fused.ep.act = tgemm::activation::gelu_erf, fused.ep.row_bias = true;
  fused.ep.column_scale = true, fused.ep.separate_d = true, fused.ep.pad_d = 8;
  run_hopper_batch<__half, __half>(fused);
  // C's stride 4 elements (8 bytes) past its span: TMA cannot take it, the kernel writes C itself.
  batch_case odd_stride;
  odd_stride.stride_c = 200 * 248 + 4;  // run_hopper_batch's m x n, column-major, tight ldc
  run_hopper_batch<__nv_bfloat16, __nv_bfloat16>(odd_stride);
}

TEST_CASE("strided batches that fill more of a 64 x 128 or a 128 x 128 tile than of a 128 x 256 one: the smaller "
          "Hopper tiles", "[batched]") {
  // 70 products of 128 x 128 (70 work items of the 128 x 128 batch tile), k ragged, every op pair; 64 x 256 products
  // with beta != 0 (C read, written by the kernel), padded C, and 64 x 520 (ragged n) on the 64 x 128 tile (all of
  // two or 0.81 of five, against half of two batch tiles); 128 x 128 with a fused epilogue through TMA stores (the
  // 64 x 128 tile: the batch tile has no fused kernel); on the batch tile, 256 x 64 products and 512 x 64 ones with
  // beta != 0 (half of two or four batch tiles, as much as of the smaller tiles), and 100 x 120 ones (ragged m and n;
  // A's leading dimension padded to 104 so that TMA can step it, C's tight 100 rows written by the kernel).
  const auto run = [](batch_case c, int64_t m, int64_t n, bool batch_tile = false) {
    c.count = 70, c.m = m, c.n = n, c.k = 72;
    const tgemm::detail::plan p = run_batch<__nv_bfloat16, __nv_bfloat16>(c);
    if (runs_sm90a_kernels()) {
      CHECK(p.wgmma);
      CHECK(p.batch_in_grid);
      CHECK(p.steps[0].wgmma_small == !batch_tile);
      CHECK(p.steps[0].wgmma_batch == batch_tile);
    }
  };
  for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::transpose, op::none},
                          {op::none, op::transpose}, {op::transpose, op::transpose}}) {
    batch_case c;
    c.op_a = ops.first, c.op_b = ops.second, c.gap = 8;
    run(c, 128, 128, true);
  }
  batch_case read_c;
  read_c.order = layout::row_major, read_c.beta = 0.5f, read_c.pad_c = 8;
  run(read_c, 256, 64);  // the column-major form's 64 x 256
  batch_case half;
  half.op_b = op::transpose, half.gap = 8;
  run(half, 256, 64, true);
  run(half, 64, 520);
  batch_case fused;
  fused.ep.on = true, fused.ep.act = tgemm::activation::silu, fused.ep.column_bias = true, fused.gap = 16;
  run(fused, 128, 128);
  batch_case tall;
  tall.op_a = op::transpose, tall.beta = 0.5f, tall.gap = 8;
  run(tall, 512, 64, true);
  batch_case ragged;
  ragged.op_b = op::transpose, ragged.pad_a = 4;
  run(ragged, 100, 120, true);
}
