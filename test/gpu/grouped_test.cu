// tgemm::gemm_grouped(): groups of different shapes, ops, scalars and leading dimensions in one call, as a user calls
// it: bf16 (some groups large enough for the sm_90a kernel, one with a fused bias + GELU epilogue), float strict and
// row-major, double; empty groups (m = 0, n = 0), k = 0 (C = beta C), beta = 0 on a NaN C; the caller's workspace;
// and bad arguments (a group's ld too small, a negative group count, null groups) returning their status, naming the
// group, with every C untouched. Each group's C against a long-double host loop on the same rounded inputs, with the
// error bounds of test/support/error_bounds.hpp; the padding of every C must come back as it was.
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
#include <string>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;

/// One group's shape as a test gives it: the leading dimensions are the minimum plus `pad`.
struct group_shape {
  op op_a, op_b;
  int64_t m, n, k;
  double alpha, beta;
  int64_t pad = 0;
  bool bias_gelu = false;  // a fused epilogue: a bias per row of C, then GELU (tanh form)
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
    d.ldc = min_ld(order, op::none, s.m, s.n) + s.pad;
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
    d.da = std::make_unique<device_buffer<AB>>(d.a.size());
    d.db = std::make_unique<device_buffer<AB>>(d.b.size());
    d.dc = std::make_unique<device_buffer<C>>(d.c0.size());
    d.da->upload(d.a);
    d.db->upload(d.b);
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
    out[g].a = d.da->get(), out[g].lda = d.lda;
    out[g].b = d.db->get(), out[g].ldb = d.ldb;
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
    INFO("group " << g << ": " << s.m << " x " << s.n << " x " << s.k << " alpha " << s.alpha << " beta " << s.beta
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

template <class AB, class C>
void run_groups(layout order, const std::vector<group_shape>& shapes, tgemm::math_mode math, bool own_workspace) {
  auto groups = make_groups<AB, C>(order, shapes);
  const auto described = describe(groups);
  tgemm::options opts;
  opts.math = math;
  status s;
  if (own_workspace) {
    size_t bytes = 0;
    REQUIRE(tgemm::gemm_grouped_workspace_size(order, described.data(), int64_t(described.size()), bytes, nullptr,
                                               opts) == status::success);
    device_buffer<std::byte> ws(std::max<size_t>(bytes, 1));
    s = tgemm::gemm_grouped(order, described.data(), int64_t(described.size()), nullptr,
                            tgemm::workspace{ws.get(), bytes}, opts);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());  // before the workspace is freed
  } else {
    s = tgemm::gemm_grouped(order, described.data(), int64_t(described.size()), nullptr, opts);
  }
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : tgemm::last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  check_groups(order, groups, math);
}

/// The experts-like mix: groups of many sizes, ops and scalars, an empty one, k = 0, and one or two large enough for
/// the big kernels.
std::vector<group_shape> mixed_shapes(bool with_epilogue) {
  return {
      {op::none, op::none, 640, 1024, 256, 1.0, 0.0, 0, with_epilogue},  // sm_90a kernel on an H200 (bf16)
      {op::transpose, op::none, 64, 1024, 256, 1.0, 0.0, 0},
      {op::none, op::transpose, 37, 51, 29, -0.5, 0.75, 3},
      {op::none, op::none, 0, 128, 64, 1.0, 0.0, 0},      // empty: nothing touched
      {op::transpose, op::transpose, 96, 80, 0, 1.0, 0.5, 1},  // k = 0: C = beta C
      {op::none, op::none, 1, 300, 512, 2.0, 0.0, 0},     // GEMV-like
      {op::none, op::none, 256, 200, 1000, 1.0, 1.0, 8},
  };
}

}  // namespace

TEST_CASE("gemm_grouped: bf16 groups of every shape, one with a fused bias + GELU", "[grouped]") {
  run_groups<__nv_bfloat16, __nv_bfloat16>(layout::col_major, mixed_shapes(true), tgemm::math_mode::strict, false);
  run_groups<__nv_bfloat16, float>(layout::row_major, mixed_shapes(false), tgemm::math_mode::strict, true);
}

TEST_CASE("gemm_grouped: float (strict and TF32) and double, both orders, the caller's workspace", "[grouped]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    run_groups<float, float>(order, mixed_shapes(true), tgemm::math_mode::strict, order == layout::row_major);
    run_groups<float, float>(order, mixed_shapes(false), tgemm::math_mode::tf32, false);
    run_groups<double, double>(order, mixed_shapes(false), tgemm::math_mode::strict, false);
  }
}

TEST_CASE("gemm_grouped: bad arguments name the group and touch no C", "[grouped]") {
  auto groups = make_groups<__nv_bfloat16, __nv_bfloat16>(layout::col_major, mixed_shapes(true));
  auto described = describe(groups);
  const int64_t count = int64_t(described.size());
  SECTION("a group's lda too small") {
    described[2].lda = described[2].m - 1;  // column-major, op none: lda must be at least m
    const status s = tgemm::gemm_grouped(layout::col_major, described.data(), count);
    CHECK(s == status::invalid_leading_dimension);
    CHECK(tgemm::last_error().message.rfind("groups[2]: ", 0) == 0);
  }
  SECTION("a null A in the last group") {
    described[count - 1].a = nullptr;
    const status s = tgemm::gemm_grouped(layout::col_major, described.data(), count);
    CHECK(s == status::null_pointer);
    CHECK(tgemm::last_error().message.rfind("groups[" + std::to_string(count - 1) + "]: ", 0) == 0);
  }
  SECTION("a bad epilogue") {
    tgemm::epilogue<__nv_bfloat16> ep = groups[0].ep;
    ep.clamp_min = 1.0f, ep.clamp_max = 0.0f;
    described[0].ep = &ep;
    CHECK(tgemm::gemm_grouped(layout::col_major, described.data(), count) == status::invalid_epilogue);
    CHECK(tgemm::last_error().message.rfind("groups[0]: ", 0) == 0);
  }
  SECTION("a negative count, null groups, a workspace too small") {
    CHECK(tgemm::gemm_grouped(layout::col_major, described.data(), -1) == status::invalid_dimension);
    CHECK(tgemm::gemm_grouped<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(layout::col_major, nullptr, 3) ==
          status::null_pointer);
    CHECK(tgemm::gemm_grouped<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(layout::col_major, nullptr, 0) ==
          status::success);
    size_t bytes = 0;
    REQUIRE(tgemm::gemm_grouped_workspace_size(layout::col_major, described.data(), count, bytes) == status::success);
    if (bytes > 0) {
      device_buffer<std::byte> ws(bytes);
      CHECK(tgemm::gemm_grouped(layout::col_major, described.data(), count, nullptr,
                                tgemm::workspace{ws.get(), bytes / 2}) == status::workspace_too_small);
    }
  }
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  check_untouched(groups);
}
