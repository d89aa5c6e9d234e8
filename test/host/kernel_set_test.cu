// Which kernels a dispatcher compiles, in header-only mode (this translation unit's own: the other host tests use the
// compiled library, which compiles them all). Only constant expressions: no kernel is instantiated here.
#undef TGEMM_COMPILED
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>

#include "catch.hpp"

namespace {

using tgemm::op;
using tgemm::tuning::slot;

/// Whether dispatcher kernels K compile a kernel for slot S (any op pair, unpadded).
template <class K, slot S>
constexpr bool compiles() {
  return K::template exists<S, op::none, op::none, false>() || K::template exists<S, op::none, op::transpose, false>() ||
         K::template exists<S, op::transpose, op::none, false>() ||
         K::template exists<S, op::transpose, op::transpose, false>();
}

}  // namespace

TEST_CASE("single-product calls compile no products tile; batched calls do", "[plan]") {
  using tgemm::detail::tuned_kernels;
  using float_table = tgemm::tuning::default_table<float, float>::type;
  using bf16_table = tgemm::tuning::table_for<__nv_bfloat16, __nv_bfloat16, tgemm::math_mode::strict>::type;
  using user = tgemm::device::no_user_op;
  // tgemm::gemm() passes single_product, gemm_strided_batched() a batch_shape: only the latter may run a batch.
  STATIC_REQUIRE(!tgemm::detail::runs_batches<tgemm::detail::single_product>);
  STATIC_REQUIRE(tgemm::detail::runs_batches<tgemm::detail::batch_shape>);
  // float and bf16 name a products tile of their own on sm_90 (32 x 32; 64 x 32 for bf16).
  STATIC_REQUIRE(compiles<tuned_kernels<float_table, false, user, true>, slot::products>());
  STATIC_REQUIRE(!compiles<tuned_kernels<float_table, false, user, false>, slot::products>());
  STATIC_REQUIRE(compiles<tuned_kernels<bf16_table, true, user, true>, slot::products>());
  STATIC_REQUIRE(!compiles<tuned_kernels<bf16_table, true, user, false>, slot::products>());
  // Every other slot the same either way.
  STATIC_REQUIRE(compiles<tuned_kernels<float_table, false, user, false>, slot::small>());
  STATIC_REQUIRE(compiles<tuned_kernels<float_table, false, user, false>, slot::tiny_n>());
  STATIC_REQUIRE(compiles<tuned_kernels<float_table, false, user, false>, slot::general>() ==
                 compiles<tuned_kernels<float_table, false, user, true>, slot::general>());
  // double's products slot is its small tile: the single-product kernels keep that kernel for the small slot.
  using double_table = tgemm::tuning::table_for<double, double, tgemm::math_mode::strict>::type;
  STATIC_REQUIRE(!compiles<tuned_kernels<double_table, false, user, false>, slot::products>());
  STATIC_REQUIRE(compiles<tuned_kernels<double_table, false, user, false>, slot::small>());
}

TEST_CASE("one kernel serves both ops of an operand a tile reads either way", "[plan]") {
  using tgemm::detail::tuned_kernels;
  using float_table = tgemm::tuning::default_table<float, float>::type;
  using kernels = tuned_kernels<float_table, false, tgemm::device::no_user_op, false>;
  // The large tiles: general reads op(A) along m (both B layouts; NT, the repacked layout, also padded), general_tn
  // and general_tt one op pair each; medium and small one kernel per op pair.
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::general, false>() == 2);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::general, true>() == 1);
  STATIC_REQUIRE(kernels::has_padded_twin(op::none, op::transpose) && !kernels::has_padded_twin(op::none, op::none));
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::general_tn, false>() == 1);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::general_tt, false>() == 1);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::medium, false>() == 4);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::small, false>() == 4);
  // The thin tiles take their thin operand's op at run time: two kernels each (the other operand's ops).
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::tiny_m, false>() == 2);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::tiny_n, false>() == 2);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::narrow_m, false>() == 2);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::narrow_n, false>() == 2);
  // The scalar-load tile takes both: one kernel.
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::unaligned, false>() == 1);
  STATIC_REQUIRE(kernels::kernels_of_slot<slot::products, false>() == 0);
  STATIC_REQUIRE(kernels::kernel_count() == 22);
  // A batched caller adds the products tile's four.
  STATIC_REQUIRE(tuned_kernels<float_table, false, tgemm::device::no_user_op, true>::kernel_count() == 26);
}
