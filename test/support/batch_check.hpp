// Running one strided-batched call (or a single GEMM: a batch of one) through tgemm::gemm_strided_batched() and
// checking every product against a long-double host loop on the same (rounded) inputs, with the error bounds of
// error_bounds.hpp; shared by the batched and GEMV tests (test/gpu/batched_test.cu, gemv_test.cu).
#pragma once

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

namespace tgemm::test {

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
  int64_t pad_a = 0, pad_b = 0;  // extra leading-dimension elements of A and B
  int64_t pad_c = 0;   // extra leading-dimension elements of C
  int64_t lda() const { return min_ld(order, op_a, m, k) + pad_a; }
  int64_t ldb() const { return min_ld(order, op_b, k, n) + pad_b; }
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
      << sc() << " lda=" << lda() << " ldb=" << ldb() << " ldc=" << ldc() << " math=" << to_string(math);
    return s.str();
  }
};

/// Elements a buffer holding `count` products `stride` apart, each `span` long, needs.
inline int64_t batch_elements(int64_t count, int64_t stride, int64_t span) {
  return count == 0 ? 0 : (count - 1) * stride + span;
}

/// Runs `c` through tgemm::gemm_strided_batched() (with the caller's workspace when `own_workspace`) and checks every
/// product's C against the reference, and every element of C's buffer that no product owns (padding, gaps, a guard
/// after the last) for its sentinel. Returns the plan that ran.
template <class AB, class C>
inline tgemm::detail::plan run_batch(const batch_case& c, bool own_workspace = false) {
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

}  // namespace tgemm::test
