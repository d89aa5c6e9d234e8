// tgemm::gemm_strided_batched(): every element type and math mode, both orders, all op pairs, products run together
// in one grid and one after another, strides of 0 (one A or B for every product), overlapping read-only operands,
// strides that break the operands' alignment, gaps between the products' C that must come back untouched, more
// products than one grid holds, k = 0 and alpha = 0, the caller's workspace, and bad strides leaving C untouched.
// Each product is checked against a long-double host loop on the same (rounded) inputs, with the error bounds of
// the tensor-core tests (test/support/error_bounds.hpp).
#include <tgemm/gemm.cuh>

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

/// A strided batch: one call's arguments but the pointers. A stride of -1 means "the products one after another"
/// (the operand's span plus `gap` elements).
struct batch_case {
  tgemm::math_mode math = tgemm::math_mode::strict;
  layout order = layout::col_major;
  op op_a = op::none, op_b = op::none;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1, beta = 0;
  int64_t count = 1;
  int64_t stride_a = -1, stride_b = -1, stride_c = -1;
  int64_t gap = 0;     // elements between one product's C (or A, B) and the next, with stride -1
  int64_t pad_c = 0;   // extra leading-dimension elements of C
  int64_t lda() const { return min_ld(order, op_a, m, k); }
  int64_t ldb() const { return min_ld(order, op_b, k, n); }
  int64_t ldc() const { return min_ld(order, op::none, m, n) + pad_c; }
  int64_t span_a() const { return stored_elements(order, op_a, m, k, lda()); }
  int64_t span_b() const { return stored_elements(order, op_b, k, n, ldb()); }
  int64_t span_c() const { return stored_elements(order, op::none, m, n, ldc()); }
  int64_t sa() const { return stride_a >= 0 ? stride_a : span_a() + gap; }
  int64_t sb() const { return stride_b >= 0 ? stride_b : span_b() + gap; }
  int64_t sc() const { return stride_c >= 0 ? stride_c : span_c() + gap; }
  std::string describe() const {
    std::ostringstream s;
    s << to_string(order) << " " << to_string(op_a) << "/" << to_string(op_b) << " " << count << " x (" << m << ", "
      << n << ", " << k << ") alpha=" << alpha << " beta=" << beta << " strides " << sa() << ", " << sb() << ", "
      << sc() << " ldc=" << ldc() << " math=" << to_string(math);
    return s.str();
  }
};

/// Elements a buffer holding `count` products `stride` apart, each `span` long, needs.
int64_t batch_elements(int64_t count, int64_t stride, int64_t span) {
  return count == 0 ? 0 : (count - 1) * stride + span;
}

/// Runs `c` through tgemm::gemm_strided_batched() (with the caller's workspace when `own_workspace`) and checks every
/// product's C against the reference, and every element of C's buffer that no product owns (padding, gaps, a guard
/// after the last) for its sentinel. Returns the plan that ran.
template <class AB, class C>
tgemm::detail::plan run_batch(const batch_case& c, bool own_workspace = false) {
  INFO(c.describe() << " A,B " << tgemm::element_traits<AB>::name << " C " << tgemm::element_traits<C>::name);
  constexpr int64_t guard = 64;
  const int64_t a_count = batch_elements(c.count, c.sa(), c.span_a());
  const int64_t b_count = batch_elements(c.count, c.sb(), c.span_b());
  const int64_t c_count = batch_elements(c.count, c.sc(), c.span_c()) + guard;

  std::vector<AB> a(size_t(std::max<int64_t>(a_count, 1))), b(size_t(std::max<int64_t>(b_count, 1)));
  const std::vector<float> ra = random_values(int64_t(a.size())), rb = random_values(int64_t(b.size()));
  const std::vector<float> la = random_values(int64_t(a.size())), lb = random_values(int64_t(b.size()));
  for (size_t i = 0; i < a.size(); ++i) a[i] = input_value<AB>(ra[i], la[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = input_value<AB>(rb[i], lb[i]);
  // C: every element a sentinel, then each product's m x n elements random (or NaN when beta == 0: never read).
  std::vector<C> c0(size_t(c_count), sentinel<C>());
  std::vector<char> owned(size_t(c_count), 0);
  const std::vector<float> rc = random_values(c_count);
  for (int64_t p = 0; p < c.count; ++p) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        const size_t at = size_t(p * c.sc() + index_of(c.order, i, j, c.ldc()));
        c0[at] = c.beta == 0 ? from_float<C>(std::numeric_limits<float>::quiet_NaN()) : from_float<C>(rc[at]);
        owned[at] = 1;
      }
    }
  }

  device_buffer<AB> da(a.size()), db(b.size());
  device_buffer<C> dc(c0.size());
  da.upload(a);
  db.upload(b);
  dc.upload(c0);
  tgemm::detail::record_plans plans;
  tgemm::options opts;
  opts.math = c.math;
  status s = status::success;
  if (own_workspace) {
    size_t bytes = 0;
    REQUIRE(tgemm::gemm_strided_batched_workspace_size(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get(),
                                                       c.lda(), c.sa(), db.get(), c.ldb(), c.sb(), c.beta, dc.get(),
                                                       c.ldc(), c.sc(), c.count, bytes, nullptr,
                                                       opts) == status::success);
    device_buffer<std::byte> ws(std::max<size_t>(bytes, 1));
    s = tgemm::gemm_strided_batched(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get(), c.lda(), c.sa(),
                                    db.get(), c.ldb(), c.sb(), c.beta, dc.get(), c.ldc(), c.sc(), c.count, nullptr,
                                    tgemm::workspace{ws.get(), bytes}, opts);
    if (s == status::success) REQUIRE(plans.last().workspace_bytes == bytes);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());  // before the workspace is freed
  } else {
    s = tgemm::gemm_strided_batched(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get(), c.lda(), c.sa(),
                                    db.get(), c.ldb(), c.sb(), c.beta, dc.get(), c.ldc(), c.sc(), c.count, nullptr,
                                    opts);
  }
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : tgemm::last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<C> out = dc.download();

  const double factor = accumulation_factor<AB>(c.k) + input_factor(c.math), roundoff = output_roundoff<C>();
  int64_t bad = 0, untouched_changed = 0;
  double worst = 0;
  // Rows of every product, as one range: row r is row r % m of product r / m.
  for_row_ranges(c.count * c.m, 2.0 * double(c.n) * double(c.k), [&](int64_t first, int64_t last) {
    int64_t local_bad = 0;
    double local_worst = 0;
    for (int64_t r = first; r < last; ++r) {
      const int64_t p = r / c.m, i = r % c.m;
      const AB* pa = a.data() + p * c.sa();
      const AB* pb = b.data() + p * c.sb();
      {
        for (int64_t j = 0; j < c.n; ++j) {
          long double sum = 0;
          double magnitude = 0;
          if (c.alpha != 0) {
            for (int64_t l = 0; l < c.k; ++l) {
              const double x = to_double(pa[op_index_of(c.order, c.op_a, i, l, c.lda())]);
              const double y = to_double(pb[op_index_of(c.order, c.op_b, l, j, c.ldb())]);
              sum += (long double)x * y;
              magnitude += std::fabs(x * y);
            }
          }
          long double want = (long double)c.alpha * sum;
          magnitude *= std::fabs(double(c.alpha));
          const size_t at = size_t(p * c.sc() + index_of(c.order, i, j, c.ldc()));
          if (c.beta != 0) {
            const double old = to_double(c0[at]);
            want += (long double)c.beta * old;
            magnitude += std::fabs(double(c.beta)) * std::fabs(old);
          }
          const double got = to_double(out[at]);
          const double allowed = factor * magnitude + roundoff * std::fabs(double(want)) + underflow_floor<C>();
          const double error = std::fabs(got - double(want));
          if (!std::isfinite(got) || !(error <= allowed)) {
            ++local_bad;
            local_worst = std::max(local_worst, std::isfinite(error) ? error / allowed : 1e300);
          }
        }
      }
    }
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    bad += local_bad;
    worst = std::max(worst, local_worst);
  });
  for (int64_t i = 0; i < c_count; ++i) untouched_changed += !owned[size_t(i)] && !same_bits(out[size_t(i)], sentinel<C>());
  INFO(bad << " elements out of bound, worst by " << worst << "x; " << untouched_changed
           << " elements outside every product's C changed");
  CHECK(bad == 0);
  CHECK(untouched_changed == 0);
  REQUIRE(plans.calls() == 1);
  CHECK(plans.last().batches == c.count);
  return plans.last();
}

/// The shapes every element type runs: products together in one grid (many small ones, a few medium ones), one
/// after another (deep k with few tiles: each splits k), strides of 0 and overlapping operands, misaligned strides.
template <class AB, class C>
void run_type_suite(tgemm::math_mode math) {
  batch_case base;
  base.math = math;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : {std::pair<op, op>{op::none, op::none}, {op::none, op::transpose},
                            {op::transpose, op::none}, {op::transpose, op::transpose}}) {
      batch_case c = base;
      c.order = order, c.op_a = ops.first, c.op_b = ops.second;
      c.count = 7, c.m = 40, c.n = 24, c.k = 48, c.gap = 8, c.beta = 0.5f;  // aligned for every type's vectors
      const tgemm::detail::plan p = run_batch<AB, C>(c);
      CHECK(p.batch_in_grid);
    }
  }
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

TEST_CASE("strided batches whose products fill the GPU alone run one after another, on the Hopper kernel where it runs",
          "[batched]") {
  batch_case c;
  c.count = 2, c.m = 1280, c.n = 1792, c.k = 64, c.gap = 8;
  const tgemm::detail::plan p = run_batch<__nv_bfloat16, __nv_bfloat16>(c);
  int device = 0, major = 0;
  TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
  TGEMM_CUDA_REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  if (major == 9) {  // an sm_90a image on an H100/H200: 10 x 7 tiles of 128 x 256 fill more than half of it
    CHECK(p.wgmma);
    CHECK(p.batch_in_grid);
  }
  batch_case odd = c;  // a stride TMA cannot describe: each product realigns A, then runs the Hopper kernel
  odd.stride_a = odd.span_a() + 1;
  const tgemm::detail::plan r = run_batch<__nv_bfloat16, __nv_bfloat16>(odd);
  if (major == 9) {
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
}

namespace {

bool runs_sm90a_kernels() {
  int device = 0, major = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  return major == 9;
}

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
