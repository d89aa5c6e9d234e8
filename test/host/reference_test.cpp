// The float64 host reference every GPU test is held to: computed on many threads (test/support/reference.hpp's
// for_row_ranges), it must be the same bit for bit as on one, and right on a product small enough to check by hand.
#include "catch.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

using tgemm::layout;
using tgemm::op;
using namespace tgemm::test;

TEST_CASE("the float64 reference is the same bit for bit on one thread and on many", "[reference]") {
  // Large enough that for_row_ranges starts several threads (2 m n k over 2^22 per thread), odd so the ranges
  // are uneven; every layout, since the rows are split along op(A)'s m whatever the storage.
  const int64_t m = 203, n = 157, k = 301;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const op op_a : {op::none, op::transpose}) {
      for (const op op_b : {op::none, op::transpose}) {
        const int64_t lda = min_ld(order, op_a, m, k) + 3, ldb = min_ld(order, op_b, k, n) + 1;
        const int64_t ldc = min_ld(order, op::none, m, n) + 2;
        const std::vector<float> a = random_values(stored_elements(order, op_a, m, k, lda));
        const std::vector<float> b = random_values(stored_elements(order, op_b, k, n, ldb));
        const std::vector<float> c = random_values(stored_elements(order, op::none, m, n, ldc));
        const reference_result one =
            reference_gemm(order, op_a, op_b, m, n, k, 1.5f, a.data(), lda, b.data(), ldb, -0.5f, c.data(), ldc, 1);
        for (const int threads : {2, 7, 0}) {
          const reference_result many = reference_gemm(order, op_a, op_b, m, n, k, 1.5f, a.data(), lda, b.data(),
                                                       ldb, -0.5f, c.data(), ldc, threads);
          REQUIRE(many.value.size() == one.value.size());
          CHECK(std::memcmp(many.value.data(), one.value.data(), one.value.size() * sizeof(double)) == 0);
          CHECK(std::memcmp(many.magnitude.data(), one.magnitude.data(), one.magnitude.size() * sizeof(double)) == 0);
        }
      }
    }
  }
}

TEST_CASE("the float64 reference of a 2 x 2 x 2 product", "[reference]") {
  // A = [1 2; 3 4], B = [5 6; 7 8] column-major, C = 1: alpha A B + beta C with alpha = 2, beta = -1.
  const float a[] = {1, 3, 2, 4}, b[] = {5, 7, 6, 8}, c[] = {1, 1, 1, 1};
  const reference_result r =
      reference_gemm(layout::col_major, op::none, op::none, 2, 2, 2, 2.0f, a, 2, b, 2, -1.0f, c, 2);
  const double expected[] = {2 * 19 - 1, 2 * 43 - 1, 2 * 22 - 1, 2 * 50 - 1};  // column-major
  for (int i = 0; i < 4; ++i) CHECK(r.value[size_t(i)] == expected[i]);
  CHECK(r.magnitude[0] == 2 * 19 + 1);
}
