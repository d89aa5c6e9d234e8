// tgemm::gemm() and tgemm::gemm_strided_batched() with a tgemm::user_epilogue (tgemm::with_op): the built-in epilogue,
// then the caller's operation, on every path a plan takes (the tile kernels, the sm_90a kernel with its TMA store and
// its C-reading stores, split k with the reduction applying the operation, a staged product, GEMV, k = 0), both orders,
// all op pairs, single calls and strided batches; tgemm::gemm_batched(), tgemm::gemm_grouped_device() and
// tgemm::gemm_grouped(). The operation depends on the element's row, column and product, so that a wrong index (a
// row-major call's swap, a peeled strip's offset, a batch's product) shows. A functor and a `__device__` lambda (this
// target builds with --extended-lambda). The calls compile their kernels here: this translation unit is in
// header-only mode (the others of the test suite use the compiled library).
#undef TGEMM_COMPILED
#include <tgemm/gemm.cuh>

#include "batch_check.hpp"
#include "catch.hpp"
#include "cuda_check.hpp"
#include "element_values.hpp"
#include "random.hpp"

#include <cuda/std/mdspan>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

namespace {

using tgemm::activation;
using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;

/// The caller's operation of the tests: half the value plus a multiple of 1/16 that depends on the row, the column and
/// the product (exact in every C type, so the reference needs no bound of its own beyond one rounding).
struct halve_and_mark {
  float scale = 0.5f;
  __host__ __device__ static float mark(int64_t i, int64_t j, int64_t batch) {
    return 0.0625f * float((i + 2 * j + 3 * batch) % 8);
  }
  template <class T>
  __device__ T operator()(T value, int64_t i, int64_t j, int64_t batch) const {
    return T(scale) * value + T(mark(i, j, batch));
  }
  long double reference(long double value, int64_t i, int64_t j, int64_t batch) const {
    return (long double)scale * value + (long double)mark(i, j, batch);
  }
};

/// The paths the calls of one type took, so the suite can require that each was covered.
struct paths_seen {
  bool wgmma = false, split = false, gemv = false, tiles = false, batch_in_grid = false, scale = false;
  bool peeled = false;
  void add(const tgemm::detail::plan& p) {
    wgmma = wgmma || p.wgmma;
    peeled = peeled || p.peeled;
    split = split || p.split_k;
    gemv = gemv || p.gemv;
    tiles = tiles || (!p.wgmma && !p.gemv && p.step_count > 0);
    batch_in_grid = batch_in_grid || p.batch_in_grid;
    for (int i = 0; i < p.step_count; ++i) scale = scale || p.steps[i].kind == tgemm::detail::step_kind::scale;
  }
};

template <class AB, class C>
void run_user_suite() {
  paths_seen seen;
  const halve_and_mark mark;
  const auto run = [&](batch_case c) {
    c.ep.on = true;
    seen.add(run_batch<AB, C>(c, false, &mark));
  };
  // Tile kernels: both orders, all op pairs, with and without built-in terms.
  int turn = 0;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      batch_case c;
      c.order = order, c.op_a = ops.first, c.op_b = ops.second;
      c.m = 72, c.n = 40, c.k = 56, c.alpha = 1.25f, c.beta = turn % 2 ? 0.5f : 0.0f;
      c.ep.act = turn % 3 == 0 ? activation::gelu_tanh : activation::none;
      c.ep.row_bias = turn % 2 == 0, c.ep.column_scale = turn % 4 == 1;
      run(c);
      ++turn;
    }
  }
  // Large products (the sm_90a kernel for 16-bit types on an H200: TMA stores with beta = 0, C read otherwise), a
  // separate D, ragged edges.
  for (const float beta : {0.0f, 0.75f}) {
    batch_case big;
    big.m = 1024, big.n = 768, big.k = 256, big.beta = beta, big.op_b = op::transpose;
    big.ep.act = activation::relu, big.ep.column_bias = true;
    run(big);
    big.order = layout::row_major, big.m = 640, big.n = 1000, big.ep.separate_d = beta != 0;
    run(big);
  }
  batch_case wide;  // the large tile filling an H200 (the ping-pong kernel for fused 16-bit calls)
  wide.m = 2104, wide.n = 2000, wide.k = 40, wide.ep.act = activation::silu, wide.ep.row_bias = true;
  run(wide);
  batch_case ragged;
  ragged.m = 1029, ragged.n = 515, ragged.k = 130, ragged.beta = 1, ragged.ep.column_bias = true;
  run(ragged);
  // Float's tiles peel the ragged edges of a large product into strips of their own (test/host/plan_test.cu pins
  // this plan for an H200): each strip's kernel sees its block of C from (0, 0), the operation the caller's indices.
  batch_case peel;
  peel.m = 2080, peel.n = 4100, peel.k = 16, peel.beta = 0.5f, peel.ep.column_bias = true;
  run(peel);
  // Split k: the reduction applies the operation (the slices' partial products must not).
  batch_case deep;
  deep.m = 64, deep.n = 48, deep.k = 6000, deep.beta = 0.5f, deep.op_a = op::transpose, deep.ep.row_bias = true;
  run(deep);
  deep.order = layout::row_major;
  run(deep);
  // A misaligned C in a large product (staged, then copied with the epilogue on float's tile kernels).
  batch_case staged;
  staged.m = 2048, staged.n = 1600, staged.k = 40, staged.pad_c = 1, staged.beta = 0.25f;
  run(staged);
  // GEMV: one row, one column.
  batch_case row;
  row.m = 1, row.n = 3000, row.k = 704, row.ep.column_bias = true;
  run(row);
  batch_case column = row;
  column.m = 2500, column.n = 1, column.beta = 2, column.op_a = op::transpose, column.order = layout::row_major;
  run(column);
  batch_case deep_row = row;  // k split along n: on sm_90 the slices meet in C inside the launch (clusters)
  deep_row.n = 3072, deep_row.k = 8192, deep_row.op_b = op::transpose, deep_row.beta = 0.5f;
  run(deep_row);
  // k = 0: D = op(beta C + biases) from the C = beta C kernel.
  batch_case empty_k;
  empty_k.m = 30, empty_k.n = 20, empty_k.k = 0, empty_k.beta = 1.5f, empty_k.ep.row_bias = true;
  run(empty_k);
  // Strided batches: in one grid, and in turn (split k per product): the operation sees each product's index.
  batch_case batch;
  batch.count = 6, batch.m = 40, batch.n = 24, batch.k = 48, batch.gap = 8, batch.beta = 0.5f;
  batch.ep.column_bias = true;
  run(batch);
  batch.order = layout::row_major, batch.ep.shared = true;
  run(batch);
  batch_case split_batch = deep;
  split_batch.order = layout::col_major, split_batch.count = 3, split_batch.gap = 5;
  run(split_batch);

  CHECK(seen.tiles);
  CHECK(seen.split);
  CHECK(seen.gemv);
  CHECK(seen.scale);
  CHECK(seen.batch_in_grid);
  if (runs_sm90a_kernels() && sizeof(AB) == 2) CHECK(seen.wgmma);
  if (runs_sm90a_kernels() && std::is_same<AB, float>::value) CHECK(seen.peeled);  // an H200's float plan
}

/// `count` products (or groups) through tgemm::gemm_batched() (one shape, `device_groups` false) or
/// tgemm::gemm_grouped_device() (rows per group from `rows`; group 1 empty), with the built-in epilogue empty and
/// halve_and_mark, whose term depends on the product's index. Every element against a float64 reference.
template <class AB, class C>
void run_indirect_user(bool device_groups, layout order) {
  const std::vector<int64_t> rows = device_groups ? std::vector<int64_t>{33, 0, 70, 5, 48}
                                                  : std::vector<int64_t>{50, 50, 50, 50, 50};
  const int64_t count = int64_t(rows.size()), n = 40, k = 24;
  const float alpha = 1.5f, beta = 0.5f;
  const halve_and_mark mark;
  INFO((device_groups ? "gemm_grouped_device " : "gemm_batched ") << to_string(order));
  std::vector<std::vector<AB>> a(rows.size()), b(rows.size());
  std::vector<std::vector<C>> c0(rows.size());
  std::vector<std::unique_ptr<device_buffer<AB>>> da, db;
  std::vector<std::unique_ptr<device_buffer<C>>> dc;
  std::vector<const AB*> pa, pb;
  std::vector<C*> pc;
  std::vector<tgemm::gemm_group_device<AB, AB, C>> described;
  tgemm::group_bounds bounds{0, n, k};
  for (size_t p = 0; p < rows.size(); ++p) {
    const int64_t m = rows[p];
    const std::vector<float> ra = random_values(std::max<int64_t>(m * k, 1)), rb = random_values(k * n);
    const std::vector<float> rc = random_values(std::max<int64_t>(m * n, 1));
    a[p].resize(size_t(std::max<int64_t>(m * k, 1))), b[p].resize(size_t(k * n));
    c0[p].resize(size_t(std::max<int64_t>(m * n, 1)));
    for (size_t i = 0; i < a[p].size(); ++i) a[p][i] = from_float<AB>(ra[i]);
    for (size_t i = 0; i < b[p].size(); ++i) b[p][i] = from_float<AB>(rb[i]);
    for (size_t i = 0; i < c0[p].size(); ++i) c0[p][i] = from_float<C>(rc[i]);
    da.push_back(std::make_unique<device_buffer<AB>>(a[p].size()));
    db.push_back(std::make_unique<device_buffer<AB>>(b[p].size()));
    dc.push_back(std::make_unique<device_buffer<C>>(c0[p].size()));
    da.back()->upload(a[p]), db.back()->upload(b[p]), dc.back()->upload(c0[p]);
    pa.push_back(da.back()->get()), pb.push_back(db.back()->get()), pc.push_back(dc.back()->get());
    described.push_back({m, n, k, da.back()->get(), min_ld(order, op::none, m, k), db.back()->get(),
                         min_ld(order, op::none, k, n), dc.back()->get(), min_ld(order, op::none, m, n)});
    bounds.max_m = std::max(bounds.max_m, m);
  }
  device_buffer<const AB*> dpa(pa.size()), dpb(pb.size());
  device_buffer<C*> dpc(pc.size());
  device_buffer<tgemm::gemm_group_device<AB, AB, C>> dgroups(described.size());
  dpa.upload(pa), dpb.upload(pb), dpc.upload(pc), dgroups.upload(described);
  const auto ep = tgemm::with_op(tgemm::epilogue<C>{}, mark);
  const int64_t m0 = rows[0];
  const status s =
      device_groups
          ? tgemm::gemm_grouped_device(order, op::none, op::none, alpha, dgroups.get(), count, bounds, beta, ep)
          : tgemm::gemm_batched(order, op::none, op::none, m0, n, k, alpha, dpa.get(), min_ld(order, op::none, m0, k),
                                dpb.get(), min_ld(order, op::none, k, n), beta, dpc.get(),
                                min_ld(order, op::none, m0, n), count, ep);
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : tgemm::last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const double u = std::ldexp(1.0, -24);
  int64_t bad = 0;
  for (size_t p = 0; p < rows.size(); ++p) {
    const int64_t m = rows[p], lda = min_ld(order, op::none, m, k), ldb = min_ld(order, op::none, k, n);
    const int64_t ldc = min_ld(order, op::none, m, n);
    const std::vector<C> got = dc[p]->download();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        long double sum = 0;
        double magnitude = 0;
        for (int64_t l = 0; l < k; ++l) {
          const double x = to_double(a[p][size_t(index_of(order, i, l, lda))]);
          const double y = to_double(b[p][size_t(index_of(order, l, j, ldb))]);
          sum += (long double)x * y, magnitude += std::fabs(x * y);
        }
        const double old = to_double(c0[p][size_t(index_of(order, i, j, ldc))]);
        const long double v = (long double)alpha * sum + (long double)beta * old;
        const long double want = mark.reference(v, i, j, int64_t(p));
        const double allowed = double(k + 4) * u * (std::fabs(alpha) * magnitude + std::fabs(beta * old)) +
                               output_roundoff<C>() * std::fabs(double(want)) + 4 * u * std::fabs(double(want)) +
                               underflow_floor<C>();
        bad += !(std::fabs(to_double(got[size_t(index_of(order, i, j, ldc))]) - double(want)) <= allowed);
      }
    }
  }
  INFO(bad << " elements out of bound");
  CHECK(bad == 0);
}

/// tgemm::gemm_grouped() with groups of their own shapes, each with its own tgemm::user_epilogue object (its own scale,
/// and a row bias for one), one group with none; float, col-major. (The operation type of the float suite, so that
/// no more kernels compile.)
void run_grouped_user() {
  struct shape {
    int64_t m, n, k;
    bool with_op, bias;
  };
  const std::vector<shape> shapes = {{70, 33, 40, true, false}, {128, 96, 64, true, true}, {9, 300, 17, false, false},
                                     {200, 1, 50, true, false}};
  std::vector<std::vector<float>> a, b, c0;
  std::vector<std::unique_ptr<device_buffer<float>>> buffers;
  std::vector<float> bias(128);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.25f * float(int(i % 9) - 4);
  device_buffer<float> dbias(bias.size());
  dbias.upload(bias);
  using user_type = tgemm::user_epilogue<float, halve_and_mark>;
  std::vector<user_type> eps;
  eps.reserve(shapes.size());  // the groups point into it
  std::vector<tgemm::gemm_group<float, float, float, user_type>> groups;
  for (size_t g = 0; g < shapes.size(); ++g) {
    const shape& s = shapes[g];
    a.push_back(random_values(s.m * s.k)), b.push_back(random_values(s.k * s.n));
    c0.push_back(random_values(s.m * s.n));
    for (const auto* host : {&a.back(), &b.back(), &c0.back()}) {
      buffers.push_back(std::make_unique<device_buffer<float>>(host->size()));
      buffers.back()->upload(*host);
    }
    tgemm::epilogue<float> ep;
    if (s.bias) ep.row_bias = dbias.get();
    eps.push_back(tgemm::with_op(ep, halve_and_mark{1.0f / float(g + 1)}));
    tgemm::gemm_group<float, float, float, user_type> group;
    group.m = s.m, group.n = s.n, group.k = s.k, group.alpha = 1.0f, group.beta = 0.5f;
    group.a = buffers[buffers.size() - 3]->get(), group.lda = s.m;
    group.b = buffers[buffers.size() - 2]->get(), group.ldb = s.k;
    group.c = buffers[buffers.size() - 1]->get(), group.ldc = s.m;
    group.ep = s.with_op ? &eps.back() : nullptr;
    groups.push_back(group);
  }
  const status st = tgemm::gemm_grouped(layout::col_major, groups.data(), int64_t(groups.size()));
  INFO("status " << to_string(st) << ": " << (st == status::success ? "" : tgemm::last_error().message));
  REQUIRE(st == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const double u = std::ldexp(1.0, -24);
  int64_t bad = 0;
  for (size_t g = 0; g < shapes.size(); ++g) {
    const shape& s = shapes[g];
    const std::vector<float> got = buffers[3 * g + 2]->download();
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < s.k; ++l) {
          const double x = double(a[g][size_t(i + l * s.m)]) * b[g][size_t(l + j * s.k)];
          sum += x, magnitude += std::fabs(x);
        }
        const double old = c0[g][size_t(i + j * s.m)];
        double want = sum + 0.5 * old + (s.bias ? bias[size_t(i)] : 0.0);
        if (s.with_op) want = want / double(g + 1) + halve_and_mark::mark(i, j, 0);  // batch 0: one GEMM per group
        const double allowed = double(s.k + 6) * u * (magnitude + std::fabs(old) + 4 + std::fabs(want));
        bad += !(std::fabs(got[size_t(i + j * s.m)] - want) <= allowed);
      }
    }
  }
  INFO(bad << " elements out of bound");
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("user epilogue: tgemm::gemm_grouped(), each group its own operation object", "[user_epilogue]") {
  run_grouped_user();
}

TEST_CASE("user epilogue: pointer arrays and device-side groups (the operation sees each product's index)",
          "[user_epilogue]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const bool device_groups : {false, true}) {
      run_indirect_user<float, float>(device_groups, order);
      run_indirect_user<__nv_bfloat16, __nv_bfloat16>(device_groups, order);
    }
  }
}

TEST_CASE("user epilogue: float, strict FP32", "[user_epilogue]") { run_user_suite<float, float>(); }
TEST_CASE("user epilogue: __nv_bfloat16", "[user_epilogue]") { run_user_suite<__nv_bfloat16, __nv_bfloat16>(); }

TEST_CASE("user epilogue: a __device__ lambda through tgemm::gemm(), with and without the caller's workspace",
          "[user_epilogue][sanitize]") {
  // D = min(v, cap[j]) for a row-major 300 x 200 x 96 bf16 product: the lambda reads a device vector it captured, of
  // C's extent, on a shape no tile divides (the operation must see elements inside C only; memcheck in sanitize.sh).
  const int64_t m = 300, n = 200, k = 96;
  const std::vector<float> ra = random_values(m * k), rb = random_values(k * n), rcap = random_values(n);
  std::vector<__nv_bfloat16> a(size_t(m * k)), b(size_t(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = from_float<__nv_bfloat16>(ra[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = from_float<__nv_bfloat16>(rb[i]);
  device_buffer<__nv_bfloat16> da(a.size()), db(b.size()), dc(size_t(m * n));
  device_buffer<float> dcap(static_cast<size_t>(n));
  da.upload(a);
  db.upload(b);
  dcap.upload(rcap);
  const float* cap = dcap.get();
  const auto clip = [cap] __device__(float v, int64_t, int64_t j, int64_t) { return v < cap[j] ? v : cap[j]; };
  const auto ep = tgemm::with_op(tgemm::epilogue<__nv_bfloat16>{}, clip);
  for (const bool own_workspace : {false, true}) {
    dc.upload(std::vector<__nv_bfloat16>(size_t(m * n), from_float<__nv_bfloat16>(1e4f)));  // poison
    status s = status::success;
    if (own_workspace) {
      size_t bytes = 0;
      REQUIRE(tgemm::gemm_workspace_size(layout::row_major, op::none, op::none, m, n, k, 1.0f, da.get(), k, db.get(),
                                         n, 0.0f, dc.get(), n, ep, bytes) == status::success);
      device_buffer<std::byte> ws(std::max<size_t>(bytes, 1));
      // With a tgemm::options argument (bf16 has one table: nothing more compiles).
      s = tgemm::gemm(layout::row_major, op::none, op::none, m, n, k, 1.0f, da.get(), k, db.get(), n, 0.0f, dc.get(),
                      n, ep, nullptr, tgemm::workspace{ws.get(), bytes}, tgemm::options{});
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    } else {
      s = tgemm::gemm(layout::row_major, op::none, op::none, m, n, k, 1.0f, da.get(), k, db.get(), n, 0.0f, dc.get(),
                      n, ep);
    }
    INFO("status " << to_string(s) << ": " << (s == status::success ? "" : tgemm::last_error().message));
    REQUIRE(s == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<__nv_bfloat16> c = dc.download();
    int64_t bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < k; ++l) {
          const double x = to_double(a[size_t(i * k + l)]) * to_double(b[size_t(l * n + j)]);
          sum += x, magnitude += std::fabs(x);
        }
        const double want = std::min(sum, double(rcap[size_t(j)]));
        const double got = to_double(c[size_t(i * n + j)]);
        // fp32 accumulation of k products, then one rounding to bf16 (2^-8 relative).
        const double allowed = double(k) * std::ldexp(1.0, -23) * magnitude + std::ldexp(1.0, -8) * std::fabs(want) +
                               std::ldexp(1.0, -8) * std::fabs(double(rcap[size_t(j)]));
        bad += !(std::fabs(got - want) <= allowed);
      }
    }
    INFO(bad << " elements out of bound (own workspace: " << own_workspace << ")");
    CHECK(bad == 0);
  }
  tgemm::options bad_math;
  bad_math.math = tgemm::math_mode(9);
  CHECK(tgemm::gemm(layout::row_major, op::none, op::none, m, n, k, 1.0f, da.get(), k, db.get(), n, 0.0f, dc.get(), n,
                    ep, nullptr, bad_math) == status::invalid_option);
}

TEST_CASE("user epilogue: bad arguments are refused as with a built-in epilogue, C untouched", "[user_epilogue]") {
  device_buffer<float> da(64), db(64), dc(64);
  const std::vector<float> poison(64, 7.0f);
  dc.upload(poison);
  tgemm::epilogue<float> bad;
  bad.clamp_min = 1, bad.clamp_max = -1;  // out of order
  const halve_and_mark mark;
  CHECK(tgemm::gemm(layout::col_major, op::none, op::none, 8, 8, 8, 1.0f, da.get(), 8, db.get(), 8, 0.0f, dc.get(), 8,
                    tgemm::with_op(bad, mark)) == status::invalid_epilogue);
  CHECK(tgemm::gemm(layout::col_major, op::none, op::none, 8, 8, 8, 1.0f, da.get(), 8, db.get(), 8, 0.0f, dc.get(), 4,
                    tgemm::with_op(tgemm::epilogue<float>{}, mark)) == status::invalid_leading_dimension);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(dc.download() == poison);
}

TEST_CASE("user epilogue: the mdspan overloads give the pointer calls' result, bit for bit",
          "[user_epilogue][mdspan]") {
  namespace cs = cuda::std;
  using extents2 = cs::dextents<int64_t, 2>;
  using extents3 = cs::dextents<int64_t, 3>;
  const int64_t m = 96, n = 80, k = 40, count = 3;  // row-major products, one after another
  const std::vector<float> ra = random_values(count * m * k), rb = random_values(count * k * n);
  std::vector<__nv_bfloat16> a(ra.size()), b(rb.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = from_float<__nv_bfloat16>(ra[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = from_float<__nv_bfloat16>(rb[i]);
  device_buffer<__nv_bfloat16> da(a.size()), db(b.size()), by_pointers(size_t(count * m * n)),
      by_views(size_t(count * m * n));
  da.upload(a);
  db.upload(b);
  const auto ep = tgemm::with_op(tgemm::epilogue<__nv_bfloat16>{}, halve_and_mark{});
  // One product: rank-2 row-major views against the row-major pointer call.
  REQUIRE(tgemm::gemm(layout::row_major, op::none, op::none, m, n, k, 1.0f, da.get(), k, db.get(), n, 0.0f,
                      by_pointers.get(), n, ep) == status::success);
  REQUIRE(tgemm::gemm(1.0f, cs::mdspan<const __nv_bfloat16, extents2, cs::layout_right>(da.get(), m, k),
                      cs::mdspan<const __nv_bfloat16, extents2, cs::layout_right>(db.get(), k, n), 0.0f,
                      cs::mdspan<__nv_bfloat16, extents2, cs::layout_right>(by_views.get(), m, n), ep) ==
          status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> one_p = by_pointers.download(), one_v = by_views.download();
  one_p.resize(size_t(m * n)), one_v.resize(size_t(m * n));  // the one product's elements
  CHECK(differing_bits(one_p, one_v) == 0);
  // The batch: rank-3 views (count, rows, columns) against the strided pointer call.
  REQUIRE(tgemm::gemm_strided_batched(layout::row_major, op::none, op::none, m, n, k, 1.0f, da.get(), k, m * k,
                                      db.get(), n, k * n, 0.0f, by_pointers.get(), n, m * n, count, ep) ==
          status::success);
  REQUIRE(tgemm::gemm_strided_batched(
              1.0f, cs::mdspan<const __nv_bfloat16, extents3, cs::layout_right>(da.get(), count, m, k),
              cs::mdspan<const __nv_bfloat16, extents3, cs::layout_right>(db.get(), count, k, n), 0.0f,
              cs::mdspan<__nv_bfloat16, extents3, cs::layout_right>(by_views.get(), count, m, n), ep) ==
          status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(differing_bits(by_pointers.download(), by_views.download()) == 0);
}
