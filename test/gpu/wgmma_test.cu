// The Hopper kernel (TMA, mbarrier ring, warp-specialised wgmma) through tgemm::experimental::gemm_tma_wgmma<P>:
// every policy and element combination against the float64 host loop on the same (rounded) inputs, ragged tile
// edges, k = 0 and 1, alpha and beta edge values, beta = 0 on a NaN-filled C, and arguments it must refuse.
// On a GPU that is not sm_90 the call must say unsupported_device, and the test checks that instead.
#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>
#include <tgemm/policy/wgmma_policy.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "element_values.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::test::device_buffer;

template <class T>
using wide_tile = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, T, T>;
template <class T>
using wide_tile_float_c = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, T, float>;
template <class T>
using narrow_tile = tgemm::wgmma_policy<tgemm::block_shape<64, 128, 64>, 6, T, T>;

using policies = std::tuple<wide_tile<__nv_bfloat16>, wide_tile_float_c<__nv_bfloat16>, narrow_tile<__nv_bfloat16>,
                            wide_tile<__half>, wide_tile_float_c<__half>, narrow_tile<__half>>;

/// The unit roundoff of C's element type (0 for float: its rounding is inside the k-dependent factor).
template <class T>
double output_unit() {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return std::ldexp(1.0, -8);
  if constexpr (std::is_same<T, __half>::value) return std::ldexp(1.0, -11);
  return 0.0;
}

bool is_sm90() {
  int device = 0, arch = 0;
  TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
  TGEMM_CUDA_REQUIRE(tgemm::detail::read_compute_capability(device, arch));
  return arch == 900;
}

/// One call: random A (k x m, column-major, used transposed), B (k x n), C (m x n, NaN-filled when beta = 0),
/// checked element by element against the float64 product of the rounded inputs.
template <class P>
void check_call(int64_t m, int64_t n, int64_t k, float alpha, float beta) {
  using T = typename P::element_a;
  using TC = typename P::element_c;
  const int64_t lda = (k + 7) / 8 * 8 + 8, ldb = (k + 7) / 8 * 8 + 16, ldc = m + 3;
  std::vector<T> a(size_t(lda * m)), b(size_t(ldb * n));
  std::vector<float> a_float(a.size()), b_float(b.size()), c_float(size_t(ldc * n));
  const std::vector<float> ra = tgemm::test::random_values(int64_t(a.size()));
  const std::vector<float> rb = tgemm::test::random_values(int64_t(b.size()));
  const std::vector<float> rc = tgemm::test::random_values(int64_t(c_float.size()));
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = tgemm::test::from_float<T>(ra[i]);
    a_float[i] = float(tgemm::test::to_double(a[i]));
  }
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = tgemm::test::from_float<T>(rb[i]);
    b_float[i] = float(tgemm::test::to_double(b[i]));
  }
  std::vector<TC> c(c_float.size());
  for (size_t i = 0; i < c.size(); ++i) {
    c[i] = beta == 0.0f ? tgemm::test::sentinel<TC>() : tgemm::test::from_float<TC>(rc[i]);
    c_float[i] = beta == 0.0f ? 0.0f : float(tgemm::test::to_double(c[i]));
  }
  device_buffer<T> d_a(a.size()), d_b(b.size());
  device_buffer<TC> d_c(c.size());
  d_a.upload(a);
  d_b.upload(b);
  d_c.upload(c);
  INFO(P::name() << ": m = " << m << ", n = " << n << ", k = " << k << ", alpha = " << alpha << ", beta = " << beta);
  const status s = tgemm::experimental::gemm_tma_wgmma<P>(m, n, k, alpha, d_a.get(), lda, d_b.get(), ldb, beta,
                                                           d_c.get(), ldc);
  if (!is_sm90()) {
    REQUIRE(s == status::unsupported_device);
    return;
  }
  INFO(tgemm::last_error().message);
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<TC> result = d_c.download();
  const tgemm::test::reference_result ref =
      tgemm::test::reference_gemm(layout::col_major, op::transpose, op::none, m, n, k, alpha, a_float.data(), lda,
                                  b_float.data(), ldb, beta, c_float.data(), ldc);
  const double factor = tgemm::test::error_factor(k), unit = output_unit<TC>();
  int64_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < ldc; ++i) {
      const TC got = result[size_t(i + j * ldc)];
      if (i >= m) {  // the padding rows of C stay as they were
        if (!tgemm::test::same_bits(got, c[size_t(i + j * ldc)]) && ++bad <= 5) {
          FAIL_CHECK("padding (" << i << ", " << j << ") changed");
        }
        continue;
      }
      const double expected = ref.value[size_t(i + j * m)];
      const double bound = factor * ref.magnitude[size_t(i + j * m)] + unit * std::fabs(expected);
      const double value = tgemm::test::to_double(got);
      if (!(std::fabs(value - expected) <= bound) && ++bad <= 5) {
        FAIL_CHECK("C(" << i << ", " << j << ") = " << value << ", expected " << expected << " within " << bound);
      }
    }
  }
  CHECK(bad == 0);
}

}  // namespace

TEMPLATE_LIST_TEST_CASE("Hopper kernel: K-major products, tile edges, alpha and beta", "[wgmma]", policies) {
  const int64_t shapes[][3] = {{128, 256, 64},  {1, 1, 1},     {129, 257, 72}, {300, 513, 1000},
                               {1000, 64, 8},   {64, 1000, 200}, {200, 300, 0}};
  for (const auto& shape : shapes) {
    check_call<TestType>(shape[0], shape[1], shape[2], 1.0f, 0.0f);
  }
  check_call<TestType>(257, 129, 136, -1.5f, 0.75f);  // beta != 0 reads C
  check_call<TestType>(130, 260, 64, 0.0f, 2.0f);    // alpha = 0: C = beta C, A and B not read
  check_call<TestType>(130, 260, 64, 0.5f, 1.0f);
}

TEST_CASE("Hopper kernel: refused arguments leave C untouched", "[wgmma]") {
  using P = wide_tile<__nv_bfloat16>;
  const int64_t m = 64, n = 64, k = 64;
  device_buffer<__nv_bfloat16> a(size_t(80 * m)), b(size_t(80 * n)), c(size_t(m * n));
  std::vector<__nv_bfloat16> poison(size_t(m * n), tgemm::test::sentinel<__nv_bfloat16>());
  c.upload(poison);
  const auto call = [&](int64_t lda, int64_t ldb, int64_t ldc, const __nv_bfloat16* pa) {
    return tgemm::experimental::gemm_tma_wgmma<P>(m, n, k, 1.0f, pa, lda, b.get(), ldb, 0.0f, c.get(), ldc);
  };
  CHECK(call(65, 72, m, a.get()) == status::misaligned_operand);       // lda not a multiple of 8
  CHECK(call(72, 72, m, a.get() + 1) == status::misaligned_operand);   // A not 16-byte aligned
  CHECK(call(56, 72, m, a.get()) == status::invalid_leading_dimension);  // lda < k
  CHECK(call(72, 72, m - 1, a.get()) == status::invalid_leading_dimension);
  CHECK(call(72, 72, m, nullptr) == status::null_pointer);
  CHECK(tgemm::experimental::gemm_tma_wgmma<P>(-1, n, k, 1.0f, a.get(), 72, b.get(), 72, 0.0f, c.get(), m) ==
        status::invalid_dimension);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<__nv_bfloat16> after = c.download();
  for (size_t i = 0; i < after.size(); ++i) REQUIRE(tgemm::test::same_bits(after[i], poison[i]));
}
