// tgemm::gemm_grouped(): groups of different shapes, ops, scalars and leading dimensions in one call, as a user calls
// it: bf16 (some groups large enough for the sm_90a kernel, one with a fused bias + GELU epilogue), float strict and
// row-major, double; empty groups (m = 0, n = 0), k = 0 (C = beta C), beta = 0 on a NaN C; the caller's workspace;
// and bad arguments (a group's ld too small, a negative group count, null groups) returning their status, naming the
// group, with every C untouched; and 16-bit groups that fill the GPU together, which an H200 running the sm_90a image
// runs in one launch of the grouped Hopper kernel (the plan record says so), every op pair and both orders, and that
// kernel alone with two persistent blocks (small enough for the sanitizers). Each group's C against a long-double
// host loop on the same rounded inputs, with the error bounds of test/support/error_bounds.hpp; the padding of every
// C must come back as it was.
#include <tgemm/gemm.cuh>
#include <tgemm/host/grouped_plan.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "group_check.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

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

/// Groups that fill an H200 together (144 tiles of 128 x 256), all with one op pair and A and B as TMA reads them
/// (every extent and padding of A and B a multiple of 8 elements), so that on an H200 running the sm_90a image they
/// go out in one launch of the grouped Hopper kernel: extents ragged against the tile (k too: 16 to 104), C's leading
/// dimension a multiple of 8 elements (beta = 0: TMA stores) or not (the kernel writes C itself), beta = 0 on a NaN C
/// and beta != 0, alpha of both signs.
std::vector<group_shape> hopper_run_shapes(op op_a, op op_b) {
  return {
      {op_a, op_b, 64, 2048, 40, 1.0, 0.0, 0},
      {op_a, op_b, 200, 2048, 72, -0.5, 0.0, 8},
      {op_a, op_b, 1000, 1496, 16, 1.0, 0.5, 8, false, 0, 3},
      {op_a, op_b, 328, 2040, 104, 2.0, 0.0, 0, false, 0, 1},
      {op_a, op_b, 128, 2048, 64, 1.0, 1.0, 0},
      {op_a, op_b, 640, 2048, 24, 0.25, 0.0, 16},
  };
}

template <class T>
void run_hopper_groups(layout order, op op_a, op op_b) {
  INFO(to_string(order) << " " << (op_a == op::none ? "N" : "T") << (op_b == op::none ? "N" : "T"));
  tgemm::detail::record_plans plans;
  run_groups<T, T>(order, hopper_run_shapes(op_a, op_b), tgemm::math_mode::strict, false);
  CHECK(plans.grouped_hopper_groups() == (runs_sm90a_kernels() ? 6 : 0));
}

}  // namespace

TEST_CASE("gemm_grouped: 16-bit groups that fill the GPU run together on the grouped Hopper kernel", "[grouped]") {
  for (const op op_a : {op::none, op::transpose}) {
    for (const op op_b : {op::none, op::transpose}) run_hopper_groups<__nv_bfloat16>(layout::col_major, op_a, op_b);
  }
  run_hopper_groups<__half>(layout::row_major, op::none, op::none);
  run_hopper_groups<__half>(layout::row_major, op::transpose, op::none);
}

TEST_CASE("grouped Hopper kernel: two persistent blocks walk every group's tiles", "[grouped][sanitize]") {
  // Small enough for every compute-sanitizer tool (scripts/sanitize.sh): three bf16 groups (12 tiles of 128 x 256)
  // launched straight on the kernel with two blocks, each walking tiles of several groups, so that the stage ring's
  // phases and the staging tiles carry over from one group to the next; ragged edges, beta = 0 on a NaN C through
  // TMA stores and through the kernel's own stores (ldc odd), beta != 0.
  if (!runs_sm90a_kernels()) return;
  using T = __nv_bfloat16;
  using P = tgemm::tuning::tensorop_f16_sm90<T, T>::wgmma;
  using kernels = tgemm::detail::wgmma_kernels<P>;
  const std::vector<group_shape> shapes = {
      {op::none, op::none, 296, 500, 72, 1.0, 0.0, 0},  // A and B as TMA reads them (the plan's condition)
      {op::none, op::none, 64, 300, 136, -0.5, 0.5, 8},
      {op::none, op::none, 200, 260, 40, 2.0, 0.0, 0, false, 0, 3},
  };
  auto groups = make_groups<T, T>(layout::col_major, shapes);
  const auto described = describe(groups);
  std::vector<tgemm::detail::hopper_group_arguments<T, T, T>> run(described.size());
  for (size_t i = 0; i < run.size(); ++i) {
    const auto& g = described[i];
    run[i].m = g.m, run[i].n = g.n, run[i].k = g.k, run[i].alpha = g.alpha, run[i].beta = g.beta;
    run[i].a = g.a, run[i].lda = g.lda, run[i].b = g.b, run[i].ldb = g.ldb, run[i].c = g.c, run[i].ldc = g.ldc;
  }
  int device = 0;
  TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
  REQUIRE(kernels::prepare_grouped(op::none, op::none, device) == status::success);
  const status s = kernels::launch_grouped(op::none, op::none, run.data(), int(run.size()), 2, 2, nullptr, device);
  INFO(tgemm::last_error().message);
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  check_groups(layout::col_major, groups, tgemm::math_mode::strict);
}

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
