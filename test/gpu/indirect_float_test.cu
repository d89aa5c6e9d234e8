// tgemm::gemm_batched() and tgemm::gemm_grouped_device() for float: strict FP32 (the SIMT tiles), TF32 and 3xTF32
// (the tensor-core tiles), both orders, every op pair; more than 65,535 products (several launches); bad host
// arguments. The 16-bit types and double are in indirect_test.cu (the same cases, indirect_case.hpp).
#include <tgemm/gemm.cuh>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "group_check.hpp"
#include "indirect_case.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {
using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;
}  // namespace

TEST_CASE("gemm_batched: float strict, TF32 and 3xTF32", "[batched_pointers]") {
  for (const layout order : {layout::col_major, layout::row_major}) batched_suite<float, float>(order, tgemm::math_mode::strict);
  batched_suite<float, float>(layout::col_major, tgemm::math_mode::tf32);
  batched_suite<float, float>(layout::row_major, tgemm::math_mode::tf32x3);
}

TEST_CASE("gemm_batched: more than 65,535 products", "[batched_pointers]") {
  run_batched<float, float>(layout::col_major, {op::none, op::transpose, 3, 5, 4, 1.0, 0.0, 0}, 70000,
                            tgemm::math_mode::strict);
}

TEST_CASE("gemm_grouped_device: float experts, strict and TF32, both orders", "[grouped_device]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    run_grouped_device<float, float>(order, op::transpose, op::none, expert_shapes(1.0, -0.5), tgemm::math_mode::strict);
    run_grouped_device<float, float>(order, op::none, op::none, expert_shapes(1.0, 0.0), tgemm::math_mode::tf32);
  }
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
  tgemm::epilogue<float> ep;
  ep.d = groups[0].dc->get(), ep.ldd = 8;  // a separate D: not for pointer arrays
  CHECK(tgemm::gemm_batched(col, op::none, op::none, 8, 8, 8, 1.0f, da->get(), 8, da->get(), 8, 0.0f, dc->get(), 8, 2, ep) ==
        status::invalid_epilogue);
  ep.d = nullptr, ep.clamp_min = 1, ep.clamp_max = 0;
  CHECK(tgemm::gemm_batched(col, op::none, op::none, 8, 8, 8, 1.0f, da->get(), 8, da->get(), 8, 0.0f, dc->get(), 8, 2, ep) ==
        status::invalid_epilogue);
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
