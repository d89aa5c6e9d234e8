// Running one strided-batched call (or a single GEMM: a batch of one) through tgemm::gemm_strided_batched() and
// checking every product against a long-double host loop on the same (rounded) inputs, with the error bounds of
// error_bounds.hpp; shared by the batched, GEMV and fused-epilogue tests (test/gpu/batched_test.cu, gemv_test.cu,
// epilogue_test.cu). With a fused epilogue (batch_case::ep) the call takes a tgemm::epilogue and the reference
// applies its formula.
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
#include <type_traits>
#include <vector>

namespace tgemm::test {

/// A fused epilogue for a batch_case: which members the call sets (the vectors hold random values, one set per
/// product unless `shared`).
struct epilogue_case {
  bool on = false;  // call the overload taking a tgemm::epilogue
  tgemm::activation act = tgemm::activation::none;
  bool row_bias = false, column_bias = false, row_scale = false, column_scale = false;
  bool shared = false;      // one set of vectors for every product (strides 0)
  bool separate_d = false;  // the result goes to D (C only read), with pad_d extra leading-dimension elements
  int64_t pad_d = 0;
  double clamp_min = -std::numeric_limits<double>::infinity(), clamp_max = std::numeric_limits<double>::infinity();
  std::string describe() const {
    if (!on) return "";
    std::ostringstream s;
    s << " epilogue{" << to_string(act) << (row_bias ? " row_bias" : "") << (column_bias ? " column_bias" : "")
      << (row_scale ? " row_scale" : "") << (column_scale ? " column_scale" : "") << (shared ? " shared" : "")
      << (separate_d ? " D" : "") << " clamp [" << clamp_min << ", " << clamp_max << "]}";
    return s.str();
  }
};

/// The activation in long double, as the reference applies it.
inline long double reference_activation(tgemm::activation act, long double x) {
  switch (act) {
    case tgemm::activation::relu: return x < 0 ? 0.0L : x;
    case tgemm::activation::gelu_tanh:
      return 0.5L * x * (1.0L + std::tanh(0.7978845608028654L * (x + 0.044715L * x * x * x)));
    case tgemm::activation::gelu_erf: return 0.5L * x * (1.0L + std::erf(x / std::sqrt(2.0L)));
    case tgemm::activation::silu: return x / (1.0L + std::exp(-x));
    case tgemm::activation::none: break;
  }
  return x;
}

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
  epilogue_case ep;    // a fused epilogue (ep.on)
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
      << sc() << " lda=" << lda() << " ldb=" << ldb() << " ldc=" << ldc() << " math=" << to_string(math)
      << ep.describe();
    return s.str();
  }
};

/// Elements a buffer holding `count` products `stride` apart, each `span` long, needs.
inline int64_t batch_elements(int64_t count, int64_t stride, int64_t span) {
  return count == 0 ? 0 : (count - 1) * stride + span;
}

/// Runs `c` through tgemm::gemm_strided_batched() (with the caller's workspace when `own_workspace`) and checks every
/// product's C against the reference, and every element of C's buffer that no product owns (padding, gaps, a guard
/// after the last) for its sentinel. Returns the plan that ran. With `op` (a fused epilogue, c.ep.on; strict math; not
/// with own_workspace): the call takes tgemm::with_op(epilogue, *op) and no options, and the reference applies
/// op->reference(value, i, j, product) to each result last. Op's operation must be a contraction plus a term exact in
/// C's type (the bound adds one rounding of the result).
template <class AB, class C, class Op = tgemm::device::no_user_op>
inline tgemm::detail::plan run_batch(const batch_case& c, bool own_workspace = false, const Op* op = nullptr) {
  constexpr bool user_op = !std::is_same<Op, tgemm::device::no_user_op>::value;
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

  // A fused epilogue's vectors (random; one set per product unless shared) and D (sentinels, like C's padding).
  using S = typename tgemm::epilogue<C>::scalar_type;
  const epilogue_case& e = c.ep;
  const int64_t sets = e.shared ? 1 : std::max<int64_t>(c.count, 1);
  std::vector<C> row_bias, column_bias;
  std::vector<S> row_scale, column_scale;
  const auto fill_bias = [&](bool used, int64_t length, std::vector<C>& v) {
    if (!used) return;
    const std::vector<float> r = random_values(sets * length);
    for (float x : r) v.push_back(from_float<C>(x));
  };
  const auto fill_scale = [&](bool used, int64_t length, std::vector<S>& v) {
    if (!used) return;
    const std::vector<float> r = random_values(sets * length);
    for (float x : r) v.push_back(S(0.5f + 0.25f * x));  // factors around 0.5, of either sign rarely
  };
  fill_bias(e.row_bias, c.m, row_bias);
  fill_bias(e.column_bias, c.n, column_bias);
  fill_scale(e.row_scale, c.m, row_scale);
  fill_scale(e.column_scale, c.n, column_scale);
  const int64_t ldd = min_ld(c.order, op::none, c.m, c.n) + e.pad_d;
  const int64_t span_d = stored_elements(c.order, op::none, c.m, c.n, ldd), stride_d = span_d + c.gap;
  const int64_t d_count = e.separate_d ? batch_elements(c.count, stride_d, span_d) + guard : 0;
  std::vector<C> d0(size_t(d_count), sentinel<C>());
  std::vector<char> d_owned(size_t(d_count), 0);
  for (int64_t p = 0; p < (e.separate_d ? c.count : 0); ++p) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) d_owned[size_t(p * stride_d + index_of(c.order, i, j, ldd))] = 1;
    }
  }

  device_buffer<AB> da(a.size()), db(b.size());
  device_buffer<C> dc(c0.size());
  device_buffer<C> d_row_bias(std::max<size_t>(row_bias.size(), 1)), d_column_bias(std::max<size_t>(column_bias.size(), 1));
  device_buffer<S> d_row_scale(std::max<size_t>(row_scale.size(), 1)), d_column_scale(std::max<size_t>(column_scale.size(), 1));
  device_buffer<C> dd(std::max<size_t>(d0.size(), 1));
  da.upload(a);
  db.upload(b);
  dc.upload(c0);
  if (!row_bias.empty()) d_row_bias.upload(row_bias);
  if (!column_bias.empty()) d_column_bias.upload(column_bias);
  if (!row_scale.empty()) d_row_scale.upload(row_scale);
  if (!column_scale.empty()) d_column_scale.upload(column_scale);
  if (!d0.empty()) dd.upload(d0);
  tgemm::epilogue<C> epilogue;
  epilogue.act = e.act;
  epilogue.row_bias = e.row_bias ? d_row_bias.get() : nullptr;
  epilogue.column_bias = e.column_bias ? d_column_bias.get() : nullptr;
  epilogue.row_scale = e.row_scale ? d_row_scale.get() : nullptr;
  epilogue.column_scale = e.column_scale ? d_column_scale.get() : nullptr;
  epilogue.stride_row_bias = epilogue.stride_row_scale = e.shared ? 0 : c.m;
  epilogue.stride_column_bias = epilogue.stride_column_scale = e.shared ? 0 : c.n;
  epilogue.clamp_min = S(e.clamp_min), epilogue.clamp_max = S(e.clamp_max);
  if (e.separate_d) epilogue.d = dd.get(), epilogue.ldd = ldd, epilogue.stride_d = stride_d;
  tgemm::detail::record_plans plans;
  tgemm::options opts;
  opts.math = c.math;
  status s = status::success;
  if constexpr (user_op) {
    REQUIRE(e.on);
    REQUIRE(!own_workspace);
    REQUIRE(op != nullptr);
    REQUIRE(c.math == tgemm::math_mode::strict);  // called without options: only the strict table's kernels compile
    s = tgemm::gemm_strided_batched(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get(), c.lda(), c.sa(),
                                    db.get(), c.ldb(), c.sb(), c.beta, dc.get(), c.ldc(), c.sc(), c.count,
                                    tgemm::with_op(epilogue, *op));
  } else if (e.on) {
    if (own_workspace) {
      size_t bytes = 0;
      REQUIRE(tgemm::gemm_strided_batched_workspace_size(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get(),
                                                         c.lda(), c.sa(), db.get(), c.ldb(), c.sb(), c.beta, dc.get(),
                                                         c.ldc(), c.sc(), c.count, epilogue, bytes, nullptr,
                                                         opts) == status::success);
      device_buffer<std::byte> ws(std::max<size_t>(bytes, 1));
      s = tgemm::gemm_strided_batched(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get(), c.lda(), c.sa(),
                                      db.get(), c.ldb(), c.sb(), c.beta, dc.get(), c.ldc(), c.sc(), c.count, epilogue,
                                      nullptr, tgemm::workspace{ws.get(), bytes}, opts);
      if (s == status::success) REQUIRE(plans.last().workspace_bytes == bytes);
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());  // before the workspace is freed
    } else {
      s = tgemm::gemm_strided_batched(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get(), c.lda(), c.sa(),
                                      db.get(), c.ldb(), c.sb(), c.beta, dc.get(), c.ldc(), c.sc(), c.count, epilogue,
                                      nullptr, opts);
    }
  } else if (own_workspace) {
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
  const std::vector<C> c_after = dc.download();
  const std::vector<C> out = e.separate_d ? dd.download() : c_after;
  const int64_t out_ld = e.separate_d ? ldd : c.ldc(), out_stride = e.separate_d ? stride_d : c.sc();

  const double factor = accumulation_factor<AB>(c.k) + input_factor(c.math), roundoff = output_roundoff<C>();
  // A fused epilogue: up to four more roundings in the accumulator's type on the terms' magnitude, the activation's
  // slope (at most 1.13, GELU's) on the product's error, and the activation's own error: tanh.approx where C is
  // 16-bit (about 2^-11 of tanh, so 2^-11 |x| / 2 of GELU; 2^-10 |x| allowed), a few units of float or double else.
  const double u_acc = std::is_same<C, double>::value ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  const bool smooth = e.act == tgemm::activation::gelu_tanh || e.act == tgemm::activation::gelu_erf ||
                      e.act == tgemm::activation::silu;
  const double slope = smooth ? 1.2 : 1.0;
  const double act_error = !smooth ? 0.0 : sizeof(C) == 2 ? std::ldexp(1.0, -10) : 16 * u_acc;
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
          const int64_t set = e.shared ? 0 : p;
          if (e.on && e.row_scale) want *= (long double)row_scale[size_t(set * c.m + i)], magnitude *= std::fabs(double(row_scale[size_t(set * c.m + i)]));
          if (e.on && e.column_scale) want *= (long double)column_scale[size_t(set * c.n + j)], magnitude *= std::fabs(double(column_scale[size_t(set * c.n + j)]));
          if (c.beta != 0) {
            const double old = to_double(c0[at]);
            want += (long double)c.beta * old;
            magnitude += std::fabs(double(c.beta)) * std::fabs(old);
          }
          double act_term = 0;
          if (e.on) {
            if (e.row_bias) want += to_double(row_bias[size_t(set * c.m + i)]), magnitude += std::fabs(to_double(row_bias[size_t(set * c.m + i)]));
            if (e.column_bias) want += to_double(column_bias[size_t(set * c.n + j)]), magnitude += std::fabs(to_double(column_bias[size_t(set * c.n + j)]));
            act_term = act_error * std::fabs(double(want));
            want = reference_activation(e.act, want);
            if (want < (long double)e.clamp_min) want = e.clamp_min;
            if (want > (long double)e.clamp_max) want = e.clamp_max;
          }
          double op_term = 0;  // the operation's own rounding of its result
          if constexpr (user_op) {
            want = op->reference(want, i, j, p);
            op_term = 2 * u_acc * std::fabs(double(want));
          }
          const size_t out_at = size_t(p * out_stride + index_of(c.order, i, j, out_ld));
          const double got = to_double(out[out_at]);
          const double allowed = slope * (factor + (e.on ? 4 * u_acc : 0.0)) * magnitude + act_term + op_term +
                                 roundoff * std::fabs(double(want)) + underflow_floor<C>();
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
  if (e.separate_d) {  // C only read: every bit as it was; D: only the products' elements written
    for (int64_t i = 0; i < c_count; ++i) untouched_changed += !same_bits(c_after[size_t(i)], c0[size_t(i)]);
    for (int64_t i = 0; i < d_count; ++i) {
      untouched_changed += !d_owned[size_t(i)] && !same_bits(out[size_t(i)], sentinel<C>());
    }
  } else {
    for (int64_t i = 0; i < c_count; ++i) untouched_changed += !owned[size_t(i)] && !same_bits(out[size_t(i)], sentinel<C>());
  }
  INFO(bad << " elements out of bound, worst by " << worst << "x; " << untouched_changed
           << " elements outside every product's C changed");
  CHECK(bad == 0);
  CHECK(untouched_changed == 0);
  REQUIRE(plans.calls() == 1);
  CHECK(plans.last().batches == c.count);
  CHECK(plans.last().fused == e.on);
  return plans.last();
}

}  // namespace tgemm::test
