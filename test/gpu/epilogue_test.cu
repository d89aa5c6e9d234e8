// tgemm::gemm() and tgemm::gemm_strided_batched() with a fused epilogue (tgemm::epilogue): every element type and math
// mode, both orders, all op pairs, each built-in (row and column biases and scales, each activation, a clamp, a
// separate D with C only read), on every path a plan can take (the tile kernels, the sm_90a kernel with its TMA
// store and its C-reading epilogue, split k with the reduction applying the epilogue, a staged product, GEMV, k = 0),
// single calls and strided batches with per-product or shared vectors. Each element is checked against a long-double
// host loop applying the same formula (test/support/batch_check.hpp); D's padding and C (when only read) must come
// back bit for bit. Bad epilogue arguments return their status with C and D untouched.
#include <tgemm/gemm.cuh>

#include "batch_check.hpp"
#include "catch.hpp"
#include "cuda_check.hpp"
#include "element_values.hpp"
#include "random.hpp"

#include <cuda/std/mdspan>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace {

using tgemm::activation;
using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;

/// The paths the fused calls of one type took, so the suite can require that each was covered.
struct paths_seen {
  bool wgmma = false, split = false, gemv = false, tiles = false, staged = false, batch_in_grid = false;
  bool wgmma_large = false;  // the sm_90a kernel's large tile, unsplit (16-bit: the ping-pong kernel when fused)
  bool wgmma_cooperative = false;  // ... on the cooperative tile's fused kernel (a 16-bit call deeper than the table's
                                   // wgmma_fused_pingpong_max_k)
  void add(const tgemm::detail::plan& p) {
    wgmma = wgmma || p.wgmma;
    for (int i = 0; i < p.step_count; ++i) {
      const tgemm::detail::plan_step& s = p.steps[i];
      const bool large = s.wgmma && !s.wgmma_small && s.slices == 1 && !s.gemv;
      wgmma_large = wgmma_large || large;
      wgmma_cooperative = wgmma_cooperative || (large && !s.wgmma_pingpong);
    }
    split = split || p.split_k;
    gemv = gemv || p.gemv;
    tiles = tiles || (!p.wgmma && !p.gemv && p.step_count > 0);
    staged = staged || p.staged_c;
    batch_in_grid = batch_in_grid || p.batch_in_grid;
  }
};

/// Every built-in on the shapes that send a call down each path, for A, B of type AB and C of type C.
template <class AB, class C>
void run_type_suite(tgemm::math_mode math) {
  paths_seen seen;
  const auto run = [&](batch_case c, bool own_workspace = false) {
    c.math = math;
    c.ep.on = true;
    seen.add(run_batch<AB, C>(c, own_workspace));
  };
  const activation acts[] = {activation::none, activation::relu, activation::gelu_tanh, activation::gelu_erf,
                             activation::silu};
  // Tile kernels, both orders, all op pairs, each activation with both biases (rows and columns swap for row-major).
  int turn = 0;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      batch_case c;
      c.order = order, c.op_a = ops.first, c.op_b = ops.second;
      c.m = 72, c.n = 40, c.k = 56, c.alpha = 1.25f, c.beta = turn % 2 ? 0.5f : 0.0f;
      c.ep.act = acts[turn % 5];
      c.ep.row_bias = true, c.ep.column_bias = turn % 3 != 0;
      c.ep.row_scale = turn % 4 == 1, c.ep.column_scale = turn % 4 == 2;
      run(c);
      ++turn;
    }
  }
  // A separate D (C only read, or with beta = 0 not at all), padded; a clamp; scales on both sides.
  for (const float beta : {0.0f, -1.0f}) {
    batch_case d;
    d.m = 50, d.n = 33, d.k = 20, d.beta = beta, d.pad_c = 3;
    d.ep.separate_d = true, d.ep.pad_d = 5, d.ep.act = activation::gelu_erf, d.ep.row_scale = d.ep.column_scale = true;
    d.ep.clamp_min = -0.25, d.ep.clamp_max = 0.75;
    run(d);
    d.order = layout::row_major, d.ep.act = activation::relu, d.ep.column_bias = true;
    run(d);
  }
  // Large products: the sm_90a kernel on an H200 (16-bit and TF32 tables), the large tiles elsewhere; beta = 0 lets
  // a 16-bit C leave through TMA stores, beta != 0 reads C (staged 16-byte pieces).
  for (const float beta : {0.0f, 0.75f}) {
    batch_case big;
    big.m = 1024, big.n = 768, big.k = 256, big.beta = beta, big.op_b = op::transpose;
    big.ep.act = activation::gelu_tanh, big.ep.column_bias = true, big.ep.row_scale = beta != 0;
    run(big);
    big.order = layout::row_major, big.m = 640, big.n = 1000, big.ep.act = activation::silu, big.ep.row_bias = true;
    big.ep.separate_d = beta != 0;
    run(big);
  }
  // The large tile with its tiles filling an H200 (2104 x 2000: 17 x 8 tiles of 128 x 256), ragged on both sides,
  // every op pair, both orders: for 16-bit types on an H200 the ping-pong kernel (64 x 256 tiles, two consumers
  // taking turns), with TMA stores (beta = 0, 16-bit C) and with C read (beta != 0, or a float C written directly).
  if constexpr (sizeof(AB) == 2) {
    int pair = 0;
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      batch_case wide;
      wide.op_a = ops.first, wide.op_b = ops.second, wide.order = pair == 3 ? layout::row_major : layout::col_major;
      // m = 2104 keeps a 16-bit C's columns on 16 bytes (TMA stores, staged reads of C); 2100 does not.
      wide.m = pair == 3 ? 2000 : pair == 2 ? 2100 : 2104, wide.n = pair == 3 ? 2104 : 2000, wide.k = 40;
      wide.beta = pair % 2 ? 0.5f : 0.0f;
      wide.ep.act = acts[(pair + 2) % 5], wide.ep.row_bias = true, wide.ep.column_scale = pair == 2;
      run(wide);
      ++pair;
    }
  }
  // Deep products on the large tile: past the table's wgmma_fused_pingpong_max_k, where it is finite, the cooperative
  // tile's fused kernel runs them (TMA stores with beta = 0; C read, column terms and a clamp with beta != 0).
  [[maybe_unused]] bool cooperative_expected = false;
  if constexpr (sizeof(AB) == 2) {
    using table = typename tgemm::tuning::table_for<AB, C, tgemm::math_mode::strict>::type;
    if constexpr (!std::is_void<typename table::wgmma_fused>::value) {
      constexpr int64_t max_k = table::wgmma_fused_pingpong_max_k;
      if (max_k <= 4096) {
        cooperative_expected = true;
        batch_case deep_wide;
        // std::min: the branch is compiled where max_k is the largest int64_t too, and max_k + 72 would overflow.
        deep_wide.m = 2104, deep_wide.n = 2000, deep_wide.k = std::min<int64_t>(max_k, 4096) + 72;
        deep_wide.beta = 0.0f;
        deep_wide.ep.act = activation::gelu_tanh, deep_wide.ep.row_bias = true;
        run(deep_wide);
        deep_wide.beta = 0.5f, deep_wide.op_a = op::transpose, deep_wide.ep.act = activation::silu;
        deep_wide.ep.column_bias = true, deep_wide.ep.clamp_max = 3;
        run(deep_wide);
      }
    }
  }
  // Ragged edges (odd m and n: the Hopper kernel writes its edge tiles element by element).
  batch_case ragged;
  ragged.m = 1029, ragged.n = 515, ragged.k = 130, ragged.beta = 1;
  ragged.ep.act = activation::gelu_erf, ragged.ep.row_bias = ragged.ep.column_bias = true;
  run(ragged);
  // Split k: few tiles, deep k (the reduction applies the epilogue), with the caller's workspace too.
  batch_case deep;
  deep.m = 64, deep.n = 48, deep.k = 6000, deep.beta = 0.5f, deep.op_a = op::transpose;
  deep.ep.act = activation::silu, deep.ep.row_bias = deep.ep.column_scale = true;
  run(deep);
  deep.ep.separate_d = true;
  run(deep, true);
  // A misaligned C in a large product (ldc 2049): the tile kernels compute it in aligned workspace, and the copy
  // into C applies the epilogue (the sm_90a kernel writes such a C itself).
  batch_case staged;
  staged.m = 2048, staged.n = 1600, staged.k = 40, staged.pad_c = 1, staged.beta = 0.25f;  // >= 3 Mi elements
  staged.ep.act = activation::relu, staged.ep.column_bias = true, staged.ep.clamp_max = 2;
  run(staged);
  // GEMV: one row, one column (beta != 0 with C read from a separate buffer); k = 704 keeps the streamed matrix's
  // lines on 16 bytes for every type, as the GEMV kernels need.
  batch_case row;
  row.m = 1, row.n = 3000, row.k = 704, row.ep.act = activation::gelu_tanh, row.ep.column_bias = true;
  run(row);
  batch_case column = row;
  column.m = 2500, column.n = 1, column.beta = 2, column.op_a = op::transpose;
  column.ep.row_bias = true, column.ep.row_scale = true, column.ep.separate_d = true;
  run(column);
  // GEMV along n, k deep enough to split: on sm_90 the slices meet in C inside the launch (clusters), which applies
  // the epilogue there.
  batch_case deep_row = row;
  deep_row.n = 3072, deep_row.k = 8192, deep_row.op_b = op::transpose, deep_row.beta = 0.5f;
  deep_row.ep.separate_d = true;
  run(deep_row);
  // k = 0 and alpha = 0: D = act(beta C + biases).
  batch_case empty_k;
  empty_k.m = 30, empty_k.n = 20, empty_k.k = 0, empty_k.beta = 1.5f;
  empty_k.ep.act = activation::relu, empty_k.ep.row_bias = empty_k.ep.column_bias = true;
  run(empty_k);
  empty_k.k = 10, empty_k.alpha = 0, empty_k.ep.separate_d = true;
  run(empty_k);
  // Strided batches: products in one grid with per-product vectors and D, shared vectors, and products in turn.
  batch_case batch;
  batch.count = 6, batch.m = 40, batch.n = 24, batch.k = 48, batch.gap = 8, batch.beta = 0.5f;
  batch.ep.act = activation::gelu_tanh, batch.ep.row_bias = batch.ep.column_bias = batch.ep.column_scale = true;
  run(batch);
  batch.order = layout::row_major, batch.ep.shared = true, batch.ep.separate_d = true;
  run(batch);
  batch_case large_batch;
  large_batch.count = 2, large_batch.m = 1280, large_batch.n = 1792, large_batch.k = 64, large_batch.gap = 8;
  large_batch.ep.act = activation::silu, large_batch.ep.row_bias = true;
  run(large_batch);
  batch_case split_batch = deep;
  split_batch.count = 3, split_batch.gap = 5, split_batch.ep.separate_d = false;
  run(split_batch);

  CHECK(seen.tiles);
  CHECK(seen.split);
  CHECK(seen.gemv);
  // Staging a misaligned C is the SIMT tiles' answer (strict float; on an H200 the 16-bit and TF32 tables run the
  // sm_90a kernel, which writes such a C itself, and double's DMMA tiles were seen not to stage it).
  if (std::is_same<AB, float>::value && math == tgemm::math_mode::strict) CHECK(seen.staged);
  CHECK(seen.batch_in_grid);
  if (runs_sm90a_kernels() && !std::is_same<AB, double>::value && math != tgemm::math_mode::strict) CHECK(seen.wgmma);
  if (runs_sm90a_kernels() && sizeof(AB) == 2) CHECK(seen.wgmma);
  if (runs_sm90a_kernels() && sizeof(AB) == 2) CHECK(seen.wgmma_large);
  if (runs_sm90a_kernels() && cooperative_expected) CHECK(seen.wgmma_cooperative);
}

}  // namespace

TEST_CASE("fused epilogue: float, strict FP32", "[epilogue]") { run_type_suite<float, float>(tgemm::math_mode::strict); }
TEST_CASE("fused epilogue: float, TF32", "[epilogue]") { run_type_suite<float, float>(tgemm::math_mode::tf32); }
TEST_CASE("fused epilogue: float, 3xTF32", "[epilogue]") { run_type_suite<float, float>(tgemm::math_mode::tf32x3); }
TEST_CASE("fused epilogue: __half to __half and to float", "[epilogue]") {
  run_type_suite<__half, __half>(tgemm::math_mode::strict);
  run_type_suite<__half, float>(tgemm::math_mode::strict);
}
TEST_CASE("fused epilogue: __nv_bfloat16 to __nv_bfloat16 and to float", "[epilogue]") {
  run_type_suite<__nv_bfloat16, __nv_bfloat16>(tgemm::math_mode::strict);
  run_type_suite<__nv_bfloat16, float>(tgemm::math_mode::strict);
}
TEST_CASE("fused epilogue: double", "[epilogue]") { run_type_suite<double, double>(tgemm::math_mode::strict); }

TEST_CASE("fused epilogue: NaN stays NaN through ReLU and the clamp; a default epilogue is the plain call", "[epilogue]") {
  // A NaN in A reaches its row of D through every activation and the clamp (neither may hide it).
  const int64_t m = 8, n = 8, k = 8;
  std::vector<float> a(size_t(m * k), 1.0f), b(size_t(k * n), 1.0f);
  a[3] = std::numeric_limits<float>::quiet_NaN();  // row 3, column 0 of A (column-major)
  device_buffer<float> da(a.size()), db(b.size()), dc(size_t(m * n)), dplain(size_t(m * n));
  da.upload(a);
  db.upload(b);
  for (const activation act : {activation::relu, activation::gelu_tanh, activation::gelu_erf, activation::silu}) {
    tgemm::epilogue<float> ep;
    ep.act = act, ep.clamp_min = -1, ep.clamp_max = 1;
    REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f, dc.get(),
                        m, ep) == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<float> out = dc.download();
    for (int64_t j = 0; j < n; ++j) {
      INFO("activation " << to_string(act) << ", column " << j);
      CHECK(std::isnan(out[size_t(3 + j * m)]));
      CHECK(out[size_t(2 + j * m)] == 1.0f);  // 8 clamped to 1
    }
  }
  // A default-constructed epilogue computes what the plain call computes, bit for bit.
  std::vector<float> r = random_values(m * k), s = random_values(k * n);
  da.upload(r);
  db.upload(s);
  REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.5f, da.get(), m, db.get(), k, 0.0f, dc.get(), m,
                      tgemm::epilogue<float>{}) == status::success);
  REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.5f, da.get(), m, db.get(), k, 0.0f,
                      dplain.get(), m) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<float> fused = dc.download(), plain = dplain.download();
  CHECK(std::memcmp(fused.data(), plain.data(), fused.size() * sizeof(float)) == 0);
}

TEST_CASE("fused epilogue: bad arguments return their status, naming the member, with C and D untouched",
          "[epilogue]") {
  const int64_t m = 16, n = 12, k = 8;
  device_buffer<float> da(size_t(m * k)), db(size_t(k * n)), dc(size_t(m * n)), dd(size_t(m * n));
  device_buffer<float> bias(size_t(m) + 1);
  const std::vector<float> c0(size_t(m * n), 7.0f);
  dc.upload(c0);
  dd.upload(c0);
  struct bad {
    const char* what;
    tgemm::epilogue<float> ep;
    status expected;
    const char* message;
  };
  std::vector<bad> cases;
  {
    tgemm::epilogue<float> e;
    e.act = static_cast<activation>(9);
    cases.push_back({"activation", e, status::invalid_epilogue, "epilogue.act = 9"});
  }
  {
    tgemm::epilogue<float> e;
    e.clamp_min = 1, e.clamp_max = 0;
    cases.push_back({"clamp", e, status::invalid_epilogue, "clamp_min = 1 and clamp_max = 0"});
  }
  {
    tgemm::epilogue<float> e;
    e.clamp_max = std::numeric_limits<float>::quiet_NaN();
    cases.push_back({"NaN clamp", e, status::invalid_epilogue, "do not bound a range"});
  }
  {
    tgemm::epilogue<float> e;
    e.row_bias = bias.get(), e.stride_row_bias = -1;
    cases.push_back({"stride", e, status::invalid_epilogue, "epilogue.stride_row_bias = -1 is negative"});
  }
  {
    tgemm::epilogue<float> e;
    e.d = dd.get(), e.ldd = m - 1;
    cases.push_back({"ldd", e, status::invalid_leading_dimension, "ldd = 15 is too small"});
  }
  {
    tgemm::epilogue<float> e;
    e.column_bias = reinterpret_cast<const float*>(reinterpret_cast<const char*>(bias.get()) + 2);
    cases.push_back({"misaligned bias", e, status::misaligned_operand, "epilogue.column_bias"});
  }
  for (const bad& x : cases) {
    INFO(x.what);
    const status s = tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 1.0f,
                                 dc.get(), m, x.ep);
    CHECK(s == x.expected);
    CHECK(tgemm::last_error().message.find(x.message) != std::string::npos);
  }
  // A separate D with beta != 0 reads C: a null C is refused; with beta = 0 C may be null.
  tgemm::epilogue<float> e;
  e.d = dd.get(), e.ldd = m;
  CHECK(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 1.0f,
                    static_cast<float*>(nullptr), m, e) == status::null_pointer);
  // Batches: D's stride must keep the products apart.
  e.stride_d = m * n - 1;
  CHECK(tgemm::gemm_strided_batched(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, 0, db.get(), k,
                                    0, 0.0f, dc.get(), m, 0, 2, e) == status::invalid_batch_stride);
  CHECK(tgemm::last_error().message.find("epilogue.stride_d") != std::string::npos);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(dc.download() == c0);
  CHECK(dd.download() == c0);
  // With beta = 0 and a separate D, a null C is fine.
  std::vector<float> ones(size_t(m * k), 1.0f);
  da.upload(ones);
  db.upload(std::vector<float>(size_t(k * n), 1.0f));
  e.stride_d = 0;
  REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f,
                      static_cast<float*>(nullptr), m, e) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(dd.download() == std::vector<float>(size_t(m * n), float(k)));
}

TEST_CASE("fused epilogue under compute-sanitizer: tiles, split k, GEMV, a separate D, a batch, the large tiles",
          "[sanitize]") {
  const auto run = [](batch_case c) {
    c.ep.on = true;
    run_batch<float, float>(c);
    c.math = tgemm::math_mode::strict;
    run_batch<__nv_bfloat16, __nv_bfloat16>(c);
  };
  batch_case tiles;
  tiles.m = 70, tiles.n = 33, tiles.k = 40, tiles.beta = 0.5f, tiles.order = layout::row_major;
  tiles.ep.act = activation::gelu_erf, tiles.ep.row_bias = tiles.ep.column_scale = true, tiles.ep.separate_d = true;
  run(tiles);
  batch_case deep;
  deep.m = 40, deep.n = 24, deep.k = 3000, deep.ep.act = activation::silu, deep.ep.column_bias = true;
  run(deep);
  batch_case row;
  row.m = 1, row.n = 600, row.k = 300, row.beta = 1, row.ep.act = activation::relu, row.ep.column_bias = true;
  run(row);
  batch_case batch;
  batch.count = 3, batch.m = 24, batch.n = 16, batch.k = 24, batch.ep.act = activation::gelu_tanh;
  batch.ep.row_bias = true;
  run(batch);
  batch_case big;  // the sm_90a kernel on an H200
  big.m = 512, big.n = 512, big.k = 64, big.ep.act = activation::gelu_tanh, big.ep.column_bias = true;
  run(big);
  batch_case wide;  // the large tile on an H200: bf16's ping-pong kernel, several tiles per consumer, ragged
  wide.m = 4104, wide.n = 2000, wide.k = 64, wide.ep.act = activation::gelu_tanh, wide.ep.row_bias = true;
  run(wide);
  // Deeper than the bf16 table's wgmma_fused_pingpong_max_k, where it is finite: the cooperative tile's fused kernel
  // (72 unsplit 128 x 256 tiles on an H200), bf16 only (the float call's SIMT tiles add minutes under the sanitizers
  // and nothing new).
  using table = tgemm::tuning::table_for<__nv_bfloat16, __nv_bfloat16, tgemm::math_mode::strict>::type;
  if constexpr (table::wgmma_fused_pingpong_max_k <= 4096) {
    batch_case cooperative;
    cooperative.m = 1536, cooperative.n = 1536;
    cooperative.k = std::min<int64_t>(table::wgmma_fused_pingpong_max_k, 4096) + 72;  // std::min: as deep_wide's
    cooperative.ep.on = true, cooperative.ep.act = activation::gelu_tanh, cooperative.ep.row_bias = true;
    run_batch<__nv_bfloat16, __nv_bfloat16>(cooperative);
  }
}

TEST_CASE("fused epilogue: the mdspan overloads give the pointer calls' result, bit for bit", "[epilogue][mdspan]") {
  namespace cs = cuda::std;
  using extents2 = cs::dextents<int64_t, 2>;
  using extents3 = cs::dextents<int64_t, 3>;
  const int64_t m = 96, n = 80, k = 40, count = 3;  // column-major products, one after another
  const std::vector<float> a = random_values(count * m * k), b = random_values(count * k * n);
  const std::vector<float> bias = random_values(m);
  device_buffer<float> da(a.size()), db(b.size()), dbias(bias.size()), by_pointers(size_t(count * m * n)),
      by_views(size_t(count * m * n));
  da.upload(a);
  db.upload(b);
  dbias.upload(bias);
  tgemm::epilogue<float> ep;
  ep.row_bias = dbias.get(), ep.act = activation::gelu_erf;  // one bias for every product (stride 0)
  // One product: rank-2 column-major views (row_bias: one value per row of the view) against the pointer call.
  REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f,
                      by_pointers.get(), m, ep) == status::success);
  REQUIRE(tgemm::gemm(1.0f, cs::mdspan<const float, extents2, cs::layout_left>(da.get(), m, k),
                      cs::mdspan<const float, extents2, cs::layout_left>(db.get(), k, n), 0.0f,
                      cs::mdspan<float, extents2, cs::layout_left>(by_views.get(), m, n), ep) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<float> one_p = by_pointers.download(), one_v = by_views.download();
  one_p.resize(size_t(m * n)), one_v.resize(size_t(m * n));  // the one product's elements
  CHECK(differing_bits(one_p, one_v) == 0);
  // The batch: rank-3 views (layout_stride: each matrix column-major, the products m k, k n, m n apart).
  using strided = cs::layout_stride::mapping<extents3>;
  REQUIRE(tgemm::gemm_strided_batched(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, m * k,
                                      db.get(), k, k * n, 0.0f, by_pointers.get(), m, m * n, count, ep) ==
          status::success);
  REQUIRE(tgemm::gemm_strided_batched(
              1.0f,
              cs::mdspan<const float, extents3, cs::layout_stride>(
                  da.get(), strided(extents3(count, m, k), cs::array<int64_t, 3>{m * k, 1, m})),
              cs::mdspan<const float, extents3, cs::layout_stride>(
                  db.get(), strided(extents3(count, k, n), cs::array<int64_t, 3>{k * n, 1, k})),
              0.0f,
              cs::mdspan<float, extents3, cs::layout_stride>(
                  by_views.get(), strided(extents3(count, m, n), cs::array<int64_t, 3>{m * n, 1, m})),
              ep) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(differing_bits(by_pointers.download(), by_views.download()) == 0);
}
