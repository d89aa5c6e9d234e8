// The cases of the indirect-call tests (indirect_test.cu, indirect_float_test.cu): products given as device
// arrays of pointers (tgemm::gemm_batched()) or as groups in device memory (tgemm::gemm_grouped_device()), run as a
// user runs them and checked with test/support/group_check.hpp. Two test sources so that their kernels (eight per
// tuning table) compile side by side.
#pragma once

#include <tgemm/gemm.cuh>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "group_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tgemm::test {

template <class T>
std::unique_ptr<device_buffer<T>> upload_array(const std::vector<T>& host) {
  auto d = std::make_unique<device_buffer<T>>(host.size() > 0 ? host.size() : 1);
  d->upload(host);
  return d;
}

/// One row-bias buffer for every group (group g's bias at g * stride) and a bias + GELU (tanh) epilogue reading it, for
/// groups made with bias_gelu: the epilogue form of the indirect calls (vectors strided by the product index).
template <class AB, class C>
std::unique_ptr<device_buffer<C>> strided_biases(const std::vector<group_data<AB, C>>& groups, int64_t stride,
                                                 tgemm::epilogue<C>& ep) {
  std::vector<C> all(groups.size() * size_t(stride), from_float<C>(0.0f));
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t i = 0; i < groups[g].bias.size() && int64_t(i) < groups[g].s.m; ++i) {
      all[g * size_t(stride) + i] = groups[g].bias[i];
    }
  }
  auto d = upload_array(all);
  ep.row_bias = d->get();
  ep.stride_row_bias = stride;
  ep.act = tgemm::activation::gelu_tanh;
  return d;
}

/// `count` products of one shape through tgemm::gemm_batched() (with a bias + GELU epilogue when shape.bias_gelu);
/// product `misaligned` (if >= 0) has its A and B one element past an aligned address, product `null_c` (if >= 0) a
/// null C (skipped: its C must come back untouched).
template <class AB, class C>
void run_batched(layout order, group_shape shape, int64_t count, tgemm::math_mode math, int64_t misaligned = -1,
                 int64_t null_c = -1) {
  std::vector<group_shape> shapes(size_t(count), shape);
  if (misaligned >= 0) shapes[size_t(misaligned)].offset = 1;
  auto groups = make_groups<AB, C>(order, shapes);
  std::vector<const AB*> a(static_cast<size_t>(count)), b(static_cast<size_t>(count));
  std::vector<C*> c(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    a[size_t(i)] = groups[size_t(i)].a_at();
    b[size_t(i)] = groups[size_t(i)].b_at();
    c[size_t(i)] = i == null_c ? nullptr : groups[size_t(i)].dc->get();
  }
  auto da = upload_array(a);
  auto db = upload_array(b);
  auto dc = upload_array(c);
  tgemm::options opts;
  opts.math = math;
  const group_data<AB, C>& g0 = groups[0];
  using S = tgemm::detail::scalar_for<AB, C>;
  tgemm::epilogue<C> ep;
  std::unique_ptr<device_buffer<C>> biases;
  if (shape.bias_gelu) biases = strided_biases(groups, std::max<int64_t>(shape.m, 1), ep);
  const status s =
      shape.bias_gelu
          ? tgemm::gemm_batched(order, shape.op_a, shape.op_b, shape.m, shape.n, shape.k, S(shape.alpha), da->get(),
                                g0.lda, db->get(), g0.ldb, S(shape.beta), dc->get(), g0.ldc, count, ep, nullptr, opts)
          : tgemm::gemm_batched(order, shape.op_a, shape.op_b, shape.m, shape.n, shape.k, S(shape.alpha), da->get(),
                                g0.lda, db->get(), g0.ldb, S(shape.beta), dc->get(), g0.ldc, count, nullptr, opts);
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : tgemm::last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  if (null_c >= 0) {
    const std::vector<C> got = groups[size_t(null_c)].dc->download();
    int64_t changed = 0;
    for (size_t i = 0; i < got.size(); ++i) changed += !same_bits(got[i], groups[size_t(null_c)].c0[i]);
    CHECK(changed == 0);
    groups.erase(groups.begin() + null_c);
  }
  check_groups(order, groups, math);
}

/// The shapes every type runs: small products many times (several per wave), medium ones a few times, a thin one,
/// alpha = 0, k = 0, and beta = 0 on a NaN C; every op pair.
template <class AB, class C>
void batched_suite(layout order, tgemm::math_mode math) {
  const op ops[] = {op::none, op::transpose};
  for (const op oa : ops) {
    for (const op ob : ops) {
      run_batched<AB, C>(order, {oa, ob, 32, 32, 32, 1.0, 0.0, 0}, 300, math);
      run_batched<AB, C>(order, {oa, ob, 200, 150, 70, -0.5, 0.75, 3}, 5, math, 2);
      run_batched<AB, C>(order, {oa, ob, 1, 300, 64, 2.0, 1.0, 1}, 3, math);
    }
  }
  run_batched<AB, C>(order, {op::none, op::none, 40, 30, 20, 0.0, 0.5, 0}, 4, math);      // alpha = 0: C = beta C
  run_batched<AB, C>(order, {op::transpose, op::none, 40, 30, 0, 1.0, -1.0, 2}, 4, math);  // k = 0
}

/// Groups of many sizes through tgemm::gemm_grouped_device(): sizes and pointers copied to the device, the bounds
/// their maxima; every group's status read back (all success).
template <class AB, class C>
void run_grouped_device(layout order, op oa, op ob, const std::vector<group_shape>& base, tgemm::math_mode math) {
  std::vector<group_shape> shapes = base;
  for (group_shape& s : shapes) s.op_a = oa, s.op_b = ob;
  auto groups = make_groups<AB, C>(order, shapes);
  std::vector<tgemm::gemm_group_device<AB, AB, C>> described(groups.size());
  tgemm::group_bounds bounds;
  for (size_t g = 0; g < groups.size(); ++g) {
    const group_data<AB, C>& d = groups[g];
    described[g] = {d.s.m, d.s.n, d.s.k, d.a_at(), d.lda, d.b_at(), d.ldb, d.dc->get(), d.ldc};
    bounds.max_m = std::max(bounds.max_m, d.s.m);
    bounds.max_n = std::max(bounds.max_n, d.s.n);
    bounds.max_k = std::max(bounds.max_k, d.s.k);
  }
  auto dgroups = upload_array(described);
  device_buffer<int32_t> dstatus(groups.size());
  TGEMM_CUDA_REQUIRE(cudaMemset(dstatus.get(), 0xff, groups.size() * sizeof(int32_t)));
  tgemm::options opts;
  opts.math = math;
  using S = tgemm::detail::scalar_for<AB, C>;
  // One alpha and beta per call: the groups' own are replaced by the first group's.
  for (group_data<AB, C>& d : groups) d.s.alpha = base[0].alpha, d.s.beta = base[0].beta;
  tgemm::epilogue<C> ep;
  std::unique_ptr<device_buffer<C>> biases;
  if (base[0].bias_gelu) biases = strided_biases(groups, std::max<int64_t>(bounds.max_m, 1), ep);
  const status s =
      base[0].bias_gelu
          ? tgemm::gemm_grouped_device(order, oa, ob, S(base[0].alpha), dgroups->get(), int64_t(groups.size()), bounds,
                                       S(base[0].beta), ep, dstatus.get(), nullptr, opts)
          : tgemm::gemm_grouped_device(order, oa, ob, S(base[0].alpha), dgroups->get(), int64_t(groups.size()), bounds,
                                       S(base[0].beta), dstatus.get(), nullptr, opts);
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : tgemm::last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<int32_t> statuses = dstatus.download();
  for (size_t g = 0; g < groups.size(); ++g) {
    INFO("group " << g);
    CHECK(statuses[g] == int32_t(status::success));  // empty groups too: their first block reports
  }
  check_groups(order, groups, math);
}

/// Experts of different token counts (m), one empty, one with k = 0, one misaligned (the direct loop); with a row
/// bias + GELU epilogue on every group when `fused`.
inline std::vector<group_shape> expert_shapes(double alpha, double beta, bool fused = false) {
  return {
      {op::none, op::none, 96, 256, 128, alpha, beta, 0, fused},  {op::none, op::none, 0, 256, 128, alpha, beta, 0, fused},
      {op::none, op::none, 17, 256, 128, alpha, beta, 2, fused},  {op::none, op::none, 300, 256, 128, alpha, beta, 0, fused},
      {op::none, op::none, 1, 256, 128, alpha, beta, 0, fused},   {op::none, op::none, 64, 200, 128, alpha, beta, 1, fused, 1},
      {op::none, op::none, 130, 256, 0, alpha, beta, 0, fused},
  };
}

}  // namespace tgemm::test
