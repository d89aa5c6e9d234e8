// GEMMs whose operands only the GPU sees, as a user calls them: tgemm::gemm_batched() (device arrays of pointers) and
// tgemm::gemm_grouped_device() (group sizes and pointers in device memory, host bounds). Every element type and math
// option, both storage orders, every op pair, padded leading dimensions; alpha = 0, k = 0 and beta = 0 on a NaN C;
// products whose A and B are misaligned for vector loads (the direct loop); more than 65,535 products (several
// launches); a null pointer in an array (that product skipped); groups that break their bounds or leading-dimension
// rules (skipped, with their status written back); bad host arguments (named status, no C touched). Every C against
// the long-double host loop on the same rounded inputs (test/support/group_check.hpp), its padding unchanged.
#include <tgemm/gemm.cuh>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "group_check.hpp"

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;

template <class T>
std::unique_ptr<device_buffer<T>> upload_array(const std::vector<T>& host) {
  auto d = std::make_unique<device_buffer<T>>(host.size() > 0 ? host.size() : 1);
  d->upload(host);
  return d;
}

/// `count` products of one shape through tgemm::gemm_batched(); product `misaligned` (if >= 0) has its A and B one
/// element past an aligned address, product `null_c` (if >= 0) a null C (skipped: its C must come back untouched).
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
  const status s = tgemm::gemm_batched(order, shape.op_a, shape.op_b, shape.m, shape.n, shape.k, S(shape.alpha),
                                       da->get(), g0.lda, db->get(), g0.ldb, S(shape.beta), dc->get(), g0.ldc, count,
                                       nullptr, opts);
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
  const status s = tgemm::gemm_grouped_device(order, oa, ob, S(base[0].alpha), dgroups->get(), int64_t(groups.size()),
                                              bounds, S(base[0].beta), dstatus.get(), nullptr, opts);
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

/// Experts of different token counts (m), one empty, one with k = 0, one misaligned (the direct loop).
std::vector<group_shape> expert_shapes(double alpha, double beta) {
  return {
      {op::none, op::none, 96, 256, 128, alpha, beta, 0},   {op::none, op::none, 0, 256, 128, alpha, beta, 0},
      {op::none, op::none, 17, 256, 128, alpha, beta, 2},   {op::none, op::none, 300, 256, 128, alpha, beta, 0},
      {op::none, op::none, 1, 256, 128, alpha, beta, 0},    {op::none, op::none, 64, 200, 128, alpha, beta, 1, false, 1},
      {op::none, op::none, 130, 256, 0, alpha, beta, 0},
  };
}

}  // namespace

TEST_CASE("gemm_batched: bf16 and fp16, both C types, both orders, every op pair", "[batched_pointers]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    batched_suite<__nv_bfloat16, __nv_bfloat16>(order, tgemm::math_mode::strict);
    batched_suite<__half, float>(order, tgemm::math_mode::strict);
  }
}

TEST_CASE("gemm_batched: float strict, TF32 and 3xTF32, and double", "[batched_pointers]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    batched_suite<float, float>(order, tgemm::math_mode::strict);
    batched_suite<double, double>(order, tgemm::math_mode::strict);
  }
  batched_suite<float, float>(layout::col_major, tgemm::math_mode::tf32);
  batched_suite<float, float>(layout::row_major, tgemm::math_mode::tf32x3);
}

TEST_CASE("gemm_batched: more than 65,535 products, and a null C skipped", "[batched_pointers]") {
  run_batched<float, float>(layout::col_major, {op::none, op::transpose, 3, 5, 4, 1.0, 0.0, 0}, 70000,
                            tgemm::math_mode::strict);
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::none, 64, 64, 64, 1.0, 0.0, 0}, 6,
                                            tgemm::math_mode::strict, -1, 3);
}

TEST_CASE("gemm_batched: bad arguments return their status and touch no C", "[batched_pointers]") {
  auto groups = make_groups<float, float>(layout::col_major, std::vector<group_shape>(
                                                                 2, group_shape{op::none, op::none, 8, 8, 8, 1.0, 0.0, 0}));
  std::vector<const float*> a = {groups[0].a_at(), groups[1].a_at()};
  std::vector<float*> c = {groups[0].dc->get(), groups[1].dc->get()};
  auto da = upload_array(a);
  auto dc = upload_array(c);
  const layout col = layout::col_major;
  CHECK(tgemm::gemm_batched(col, op::none, op::none, 8, 8, 8, 1.0f, da->get(), 8, da->get(), 8, 0.0f, dc->get(), 8, -1) ==
        status::invalid_dimension);
  CHECK(tgemm::gemm_batched(col, op::none, op::none, 8, 8, 8, 1.0f, da->get(), 7, da->get(), 8, 0.0f, dc->get(), 8, 2) ==
        status::invalid_leading_dimension);
  CHECK(tgemm::last_error().message.rfind("lda = 7", 0) == 0);
  CHECK(tgemm::gemm_batched<float, float, float>(col, op::none, op::none, 8, 8, 8, 1.0f, nullptr, 8, da->get(), 8, 0.0f,
                                                 dc->get(), 8, 2) == status::null_pointer);
  CHECK(tgemm::gemm_batched(col, op::none, op::none, -8, 8, 8, 1.0f, da->get(), 8, da->get(), 8, 0.0f, dc->get(), 8, 2) ==
        status::invalid_dimension);
  CHECK(tgemm::gemm_batched(col, op(3), op::none, 8, 8, 8, 1.0f, da->get(), 8, da->get(), 8, 0.0f, dc->get(), 8, 2) ==
        status::invalid_op);
  tgemm::options bad;
  bad.math = tgemm::math_mode(7);
  CHECK(tgemm::gemm_batched(col, op::none, op::none, 8, 8, 8, 1.0f, da->get(), 8, da->get(), 8, 0.0f, dc->get(), 8, 2,
                            nullptr, bad) == status::invalid_option);
  // Nothing to do: succeeds without reading the arrays (null ones included).
  CHECK(tgemm::gemm_batched<float, float, float>(col, op::none, op::none, 8, 8, 8, 1.0f, nullptr, 8, nullptr, 8, 0.0f,
                                                 nullptr, 8, 0) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  check_untouched(groups);
}

TEST_CASE("gemm_grouped_device: experts of different sizes, every type, both orders", "[grouped_device]") {
  const op ops[] = {op::none, op::transpose};
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const op oa : ops) {
      for (const op ob : ops) {
        run_grouped_device<__nv_bfloat16, __nv_bfloat16>(order, oa, ob, expert_shapes(1.0, 0.0),
                                                         tgemm::math_mode::strict);
      }
    }
    run_grouped_device<__half, float>(order, op::none, op::transpose, expert_shapes(0.5, 1.0), tgemm::math_mode::strict);
    run_grouped_device<float, float>(order, op::transpose, op::none, expert_shapes(1.0, -0.5), tgemm::math_mode::strict);
    run_grouped_device<float, float>(order, op::none, op::none, expert_shapes(1.0, 0.0), tgemm::math_mode::tf32);
    run_grouped_device<double, double>(order, op::none, op::transpose, expert_shapes(2.0, 0.0), tgemm::math_mode::strict);
  }
}

TEST_CASE("gemm_grouped_device: bad groups are skipped with their status, bad calls touch nothing", "[grouped_device]") {
  const std::vector<group_shape> shapes(4, group_shape{op::none, op::none, 40, 24, 16, 1.0, 0.0, 0});
  auto groups = make_groups<__nv_bfloat16, __nv_bfloat16>(layout::col_major, shapes);
  std::vector<tgemm::gemm_group_device<__nv_bfloat16>> described;
  for (const auto& d : groups) {
    described.push_back({d.s.m, d.s.n, d.s.k, d.a_at(), d.lda, d.b_at(), d.ldb, d.dc->get(), d.ldc});
  }
  described[1].m = 41;          // past the bound of 40
  described[2].lda = 39;        // below m
  described[3].b = nullptr;     // read, but null
  auto dgroups = upload_array(described);
  device_buffer<int32_t> dstatus(4);
  const tgemm::group_bounds bounds{40, 24, 16};
  const layout col = layout::col_major;
  SECTION("bad groups") {
    REQUIRE(tgemm::gemm_grouped_device(col, op::none, op::none, 1.0f, dgroups->get(), 4, bounds, 0.0f, dstatus.get()) ==
            status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<int32_t> got = dstatus.download();
    CHECK(got[0] == int32_t(status::success));
    CHECK(got[1] == int32_t(status::invalid_dimension));
    CHECK(got[2] == int32_t(status::invalid_leading_dimension));
    CHECK(got[3] == int32_t(status::null_pointer));
    std::vector<group_data<__nv_bfloat16, __nv_bfloat16>> ran;
    ran.push_back(std::move(groups[0]));
    groups.erase(groups.begin());  // group 0 ran; the others must be as they were
    check_groups(col, ran, tgemm::math_mode::strict);
  }
  SECTION("bad calls") {
    CHECK(tgemm::gemm_grouped_device(col, op::none, op::none, 1.0f, dgroups->get(), -1, bounds, 0.0f) ==
          status::invalid_dimension);
    CHECK(tgemm::gemm_grouped_device(col, op::none, op::none, 1.0f, dgroups->get(), 4, tgemm::group_bounds{-1, 24, 16},
                                     0.0f) == status::invalid_dimension);
    CHECK(tgemm::gemm_grouped_device<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(col, op::none, op::none, 1.0f,
                                                                                  nullptr, 4, bounds, 0.0f) ==
          status::null_pointer);
    CHECK(tgemm::gemm_grouped_device(layout(5), op::none, op::none, 1.0f, dgroups->get(), 4, bounds, 0.0f) ==
          status::invalid_layout);
    CHECK(tgemm::gemm_grouped_device(col, op::none, op(0), 1.0f, dgroups->get(), 4, bounds, 0.0f) == status::invalid_op);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  }
  check_untouched(groups);
}
