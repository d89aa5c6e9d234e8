// Groups of GEMMs for the tests of tgemm::gemm_grouped(), tgemm::gemm_batched() and tgemm::gemm_grouped_device()
// (test/gpu/grouped_test.cu, indirect_test.cu): each group's random inputs (rounded to its element type), a C with
// sentinels in its padding (NaN where beta = 0: never read), device copies, and the check of every C against a
// long-double host loop on the same inputs with the error bounds of error_bounds.hpp.
#pragma once

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
#include <memory>
#include <vector>

namespace tgemm::test {

/// One group's shape as a test gives it: the leading dimensions are the minimum plus `pad`.
struct group_shape {
  op op_a, op_b;
  int64_t m, n, k;
  double alpha, beta;
  int64_t pad = 0;
  bool bias_gelu = false;  // a fused epilogue: a bias per row of C, then GELU (tanh form)
  int64_t offset = 0;      // A and B start this many elements into their allocations (1: misaligned for vectors)
  int64_t pad_c = -1;      // C's padding when it differs from A's and B's (-1: pad)
};

/// A group's host and device data.
template <class AB, class C>
struct group_data {
  group_shape s;
  int64_t lda, ldb, ldc;
  std::vector<AB> a, b;
  std::vector<C> c0, bias;
  std::unique_ptr<device_buffer<AB>> da, db;
  std::unique_ptr<device_buffer<C>> dc, dbias;
  tgemm::epilogue<C> ep;
  const AB* a_at() const { return da->get() + s.offset; }  ///< A on the device.
  const AB* b_at() const { return db->get() + s.offset; }  ///< B on the device.
};

template <class AB, class C>
std::vector<group_data<AB, C>> make_groups(layout order, const std::vector<group_shape>& shapes) {
  std::vector<group_data<AB, C>> groups(shapes.size());
  for (size_t g = 0; g < shapes.size(); ++g) {
    group_data<AB, C>& d = groups[g];
    const group_shape& s = shapes[g];
    d.s = s;
    d.lda = min_ld(order, s.op_a, s.m, s.k) + s.pad;
    d.ldb = min_ld(order, s.op_b, s.k, s.n) + s.pad;
    d.ldc = min_ld(order, op::none, s.m, s.n) + (s.pad_c >= 0 ? s.pad_c : s.pad);
    const int64_t na = std::max<int64_t>(stored_elements(order, s.op_a, s.m, s.k, d.lda), 1);
    const int64_t nb = std::max<int64_t>(stored_elements(order, s.op_b, s.k, s.n, d.ldb), 1);
    const int64_t nc = std::max<int64_t>(stored_elements(order, op::none, s.m, s.n, d.ldc), 1);
    const std::vector<float> ra = random_values(na), la = random_values(na);
    const std::vector<float> rb = random_values(nb), lb = random_values(nb);
    const std::vector<float> rc = random_values(nc);
    for (int64_t i = 0; i < na; ++i) d.a.push_back(input_value<AB>(ra[size_t(i)], la[size_t(i)]));
    for (int64_t i = 0; i < nb; ++i) d.b.push_back(input_value<AB>(rb[size_t(i)], lb[size_t(i)]));
    // C: sentinels in the padding; the elements random, or NaN where beta = 0 (never read).
    d.c0.assign(size_t(nc), sentinel<C>());
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        const size_t at = size_t(index_of(order, i, j, d.ldc));
        d.c0[at] = s.beta == 0 ? from_float<C>(std::numeric_limits<float>::quiet_NaN()) : from_float<C>(rc[at]);
      }
    }
    d.da = std::make_unique<device_buffer<AB>>(d.a.size() + size_t(s.offset));
    d.db = std::make_unique<device_buffer<AB>>(d.b.size() + size_t(s.offset));
    d.dc = std::make_unique<device_buffer<C>>(d.c0.size());
    TGEMM_CUDA_REQUIRE(cudaMemcpy(d.da->get() + s.offset, d.a.data(), d.a.size() * sizeof(AB), cudaMemcpyHostToDevice));
    TGEMM_CUDA_REQUIRE(cudaMemcpy(d.db->get() + s.offset, d.b.data(), d.b.size() * sizeof(AB), cudaMemcpyHostToDevice));
    d.dc->upload(d.c0);
    if (s.bias_gelu) {
      for (float x : random_values(std::max<int64_t>(s.m, 1))) d.bias.push_back(from_float<C>(x));
      d.dbias = std::make_unique<device_buffer<C>>(d.bias.size());
      d.dbias->upload(d.bias);
      d.ep.row_bias = d.dbias->get();
      d.ep.act = tgemm::activation::gelu_tanh;
    }
  }
  return groups;
}

template <class AB, class C>
std::vector<tgemm::gemm_group<AB, AB, C>> describe(const std::vector<group_data<AB, C>>& groups) {
  std::vector<tgemm::gemm_group<AB, AB, C>> out(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const group_data<AB, C>& d = groups[g];
    using S = typename tgemm::gemm_group<AB, AB, C>::scalar_type;
    out[g].op_a = d.s.op_a, out[g].op_b = d.s.op_b;
    out[g].m = d.s.m, out[g].n = d.s.n, out[g].k = d.s.k;
    out[g].alpha = S(d.s.alpha), out[g].beta = S(d.s.beta);
    out[g].a = d.a_at(), out[g].lda = d.lda;
    out[g].b = d.b_at(), out[g].ldb = d.ldb;
    out[g].c = d.dc->get(), out[g].ldc = d.ldc;
    out[g].ep = d.s.bias_gelu ? &d.ep : nullptr;
  }
  return out;
}

/// Checks every group's C against the host loop, and its padding against the sentinels.
template <class AB, class C>
void check_groups(layout order, const std::vector<group_data<AB, C>>& groups, tgemm::math_mode math) {
  for (size_t g = 0; g < groups.size(); ++g) {
    const group_data<AB, C>& d = groups[g];
    const group_shape& s = d.s;
    INFO("group " << g << ": " << to_string(order) << " " << (s.op_a == op::none ? "N" : "T")
                  << (s.op_b == op::none ? "N" : "T") << " " << s.m << " x " << s.n << " x " << s.k << " alpha " << s.alpha << " beta " << s.beta
                  << " pad " << s.pad << (s.bias_gelu ? " bias+gelu" : ""));
    const std::vector<C> got = d.dc->download();
    const double factor = accumulation_factor<AB>(s.k) + input_factor(math), roundoff = output_roundoff<C>();
    const double u_acc = std::is_same<C, double>::value ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
    const double act_error = !s.bias_gelu ? 0.0 : sizeof(C) == 2 ? std::ldexp(1.0, -10) : 16 * u_acc;
    int64_t bad = 0, padding_changed = 0;
    std::vector<char> owned(got.size(), 0);
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        long double sum = 0;
        double magnitude = 0;
        for (int64_t l = 0; l < s.k; ++l) {
          const double x = to_double(d.a[size_t(op_index_of(order, s.op_a, i, l, d.lda))]);
          const double y = to_double(d.b[size_t(op_index_of(order, s.op_b, l, j, d.ldb))]);
          sum += (long double)x * y;
          magnitude += std::fabs(x * y);
        }
        const size_t at = size_t(index_of(order, i, j, d.ldc));
        owned[at] = 1;
        long double want = (long double)s.alpha * sum;
        magnitude *= std::fabs(s.alpha);
        if (s.beta != 0) {
          want += (long double)s.beta * to_double(d.c0[at]);
          magnitude += std::fabs(s.beta) * std::fabs(to_double(d.c0[at]));
        }
        double act_term = 0;
        if (s.bias_gelu) {
          want += to_double(d.bias[size_t(i)]);
          magnitude += std::fabs(to_double(d.bias[size_t(i)]));
          act_term = act_error * std::fabs(double(want));
          want = reference_activation(tgemm::activation::gelu_tanh, want);
        }
        const double slope = s.bias_gelu ? 1.2 : 1.0;
        const double allowed = slope * (factor + (s.bias_gelu ? 4 * u_acc : 0.0)) * magnitude + act_term +
                               roundoff * std::fabs(double(want)) + underflow_floor<C>();
        const double value = to_double(got[at]);
        if (!std::isfinite(value) || !(std::fabs(value - double(want)) <= allowed)) ++bad;
      }
    }
    for (size_t i = 0; i < got.size(); ++i) padding_changed += !owned[i] && !same_bits(got[i], d.c0[i]);
    CHECK(bad == 0);
    CHECK(padding_changed == 0);
  }
}

/// Every C exactly as it was uploaded.
template <class AB, class C>
void check_untouched(const std::vector<group_data<AB, C>>& groups) {
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::vector<C> got = groups[g].dc->download();
    int64_t changed = 0;
    for (size_t i = 0; i < got.size(); ++i) changed += !same_bits(got[i], groups[g].c0[i]);
    INFO("group " << g);
    CHECK(changed == 0);
  }
}

}  // namespace tgemm::test
