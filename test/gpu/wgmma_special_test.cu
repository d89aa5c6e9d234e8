// The Hopper kernel through tgemm::gemm() (shapes its plans take on sm_90a: the recorded plan says so): NaN and Inf
// follow the FP32 rules, as test/gpu/tensorop_test.cu checks them for the mma.sync paths, and C is the same bit for
// bit on every run of a call. 16-bit operands with 16-bit or float C, float with TF32 and 3xTF32. On a GPU that does
// not run tgemm's sm_90a image the same checks apply to whatever path the plans take.
#include "wgmma_case.hpp"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::test::device_buffer;
using namespace tgemm::test::wgmma;

template <class AB, class C, tgemm::math_mode Math = tgemm::math_mode::strict>
struct combination {
  using ab = AB;
  using c = C;
  static constexpr tgemm::math_mode math = Math;
};

}  // namespace

TEMPLATE_TEST_CASE("gemm() on sm_90a: NaN and Inf follow the FP32 rules on the Hopper kernel; every run gives the same C",
                   "[wgmma][special]", (combination<__nv_bfloat16, __nv_bfloat16>),
                   (combination<__nv_bfloat16, float>), (combination<__half, __half>), (combination<__half, float>),
                   (combination<float, float, tgemm::math_mode::tf32>),
                   (combination<float, float, tgemm::math_mode::tf32x3>)) {
  // The rules of test/reliability/special_values_test.cu: NaN in A(i, l) makes row i of C NaN and NaN in B(l, j)
  // column j; Inf in A(i, l) makes C(i, j) +-Inf with B(l, j)'s sign, and NaN where B(l, j) = 0 (Inf * 0); every
  // other element is bit for bit what it is without the special values. 1100 x 2100 x 200 is 9 x 9 tiles of
  // 128 x 256: the Hopper kernel's plan on an H200 (and 3xTF32's split steps before it).
  using AB = typename TestType::ab;
  using C = typename TestType::c;
  const int64_t m = 1100, n = 2100, k = 200;
  const int64_t nan_row = 3, inf_row = 700, nan_col = 11, zero_col = 1500, nan_k = 5, inf_k = 130, nan_b_k = 77;
  for (const auto& ops : op_pairs) {
    INFO("ops " << (ops[0] == op::none ? "N" : "T") << (ops[1] == op::none ? "N" : "T"));
    const int64_t lda = tgemm::test::min_ld(layout::col_major, ops[0], m, k);
    const int64_t ldb = tgemm::test::min_ld(layout::col_major, ops[1], k, n);
    auto a_at = [&](int64_t i, int64_t l) {
      return size_t(tgemm::test::op_index_of(layout::col_major, ops[0], i, l, lda));
    };
    auto b_at = [&](int64_t l, int64_t j) {
      return size_t(tgemm::test::op_index_of(layout::col_major, ops[1], l, j, ldb));
    };
    std::vector<AB> a(size_t(m * k)), b(size_t(k * n));
    const std::vector<float> ra = tgemm::test::random_values(m * k), rb = tgemm::test::random_values(k * n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = tgemm::test::from_float<AB>(ra[i] == 0 ? 0.5f : ra[i]);
    for (size_t i = 0; i < b.size(); ++i) b[i] = tgemm::test::from_float<AB>(rb[i] == 0 ? 0.5f : rb[i]);
    b[b_at(inf_k, zero_col)] = tgemm::test::from_float<AB>(0.0f);
    device_buffer<AB> da(a.size()), db(b.size());
    device_buffer<C> dc(size_t(m * n));
    tgemm::options opts;
    opts.math = TestType::math;
    auto run = [&] {
      da.upload(a);
      db.upload(b);
      dc.upload(std::vector<C>(size_t(m * n), tgemm::test::from_float<C>(std::numeric_limits<float>::quiet_NaN())));
      tgemm::detail::record_plans plans;
      REQUIRE(tgemm::gemm(layout::col_major, ops[0], ops[1], m, n, k, 1.0f, da.get(), lda, db.get(), ldb, 0.0f,
                          dc.get(), m, nullptr, opts) == status::success);
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
      REQUIRE(plans.calls() == 1);
      if (is_sm90()) CHECK(plans.last().wgmma);
      return dc.download();
    };
    const std::vector<C> plain = run();
    a[a_at(nan_row, nan_k)] = tgemm::test::from_float<AB>(std::numeric_limits<float>::quiet_NaN());
    a[a_at(inf_row, inf_k)] = tgemm::test::from_float<AB>(std::numeric_limits<float>::infinity());
    b[b_at(nan_b_k, nan_col)] = tgemm::test::from_float<AB>(std::numeric_limits<float>::quiet_NaN());
    const std::vector<C> special = run();
    int64_t wrong = 0;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        const size_t at = size_t(i + j * m);
        const double got = tgemm::test::to_double(special[at]);
        bool ok;
        if (i == nan_row || j == nan_col || (i == inf_row && j == zero_col)) {
          ok = std::isnan(got);
        } else if (i == inf_row) {
          ok = std::isinf(got) && (got > 0) == (tgemm::test::to_double(b[b_at(inf_k, j)]) > 0);
        } else {
          ok = tgemm::test::bits_of(special[at]) == tgemm::test::bits_of(plain[at]);
        }
        if (!ok && wrong++ < 5) UNSCOPED_INFO("C(" << i << ", " << j << ") = " << got);
      }
    }
    CHECK(wrong == 0);

    // The plain call again, after other work: the same bits (no atomics, a fixed order of additions).
    a[a_at(nan_row, nan_k)] = tgemm::test::from_float<AB>(ra[a_at(nan_row, nan_k)] == 0 ? 0.5f : ra[a_at(nan_row, nan_k)]);
    a[a_at(inf_row, inf_k)] = tgemm::test::from_float<AB>(ra[a_at(inf_row, inf_k)] == 0 ? 0.5f : ra[a_at(inf_row, inf_k)]);
    b[b_at(nan_b_k, nan_col)] =
        tgemm::test::from_float<AB>(rb[b_at(nan_b_k, nan_col)] == 0 ? 0.5f : rb[b_at(nan_b_k, nan_col)]);
    const std::vector<C> again = run();
    int64_t differ = 0;
    for (size_t i = 0; i < plain.size(); ++i) differ += tgemm::test::bits_of(again[i]) != tgemm::test::bits_of(plain[i]);
    CHECK(differ == 0);
  }
}
