// tgemm::gemm() on the tensor cores: 16-bit inputs (A, B in __half or __nv_bfloat16; C in the same type or float),
// float inputs with math_mode::tf32 and tf32x3, and double (DMMA); both storage orders, all four op pairs, sizes around the tile
// edges, k = 0 and 1, alpha and beta edge values, misaligned operands (repacked), each checked against the float64
// host loop on the same (rounded) inputs.
//
// Error bound per element, with magnitude = sum |alpha a b| + |beta c|: (k + 4) 2^-23 magnitude (float
// accumulation, as for FP32); plus, for a 16-bit C, its unit roundoff (2^-11 for __half, 2^-8 for bfloat16) times
// |reference|; plus, for TF32, 2 u + u^2 with u = 2^-11 (both inputs rounded) times magnitude; for 3xTF32,
// 4 2^-22 times magnitude (the small parts' rounding and the dropped small x small product). For double the
// accumulation bound is (k + 4) 2^-52 magnitude (twice double's unit roundoff per term), against a long double
// reference (64-bit significand), and the inputs use all 53 bits of their significands.
#include <tgemm/gemm.cuh>

#include <cuda/std/mdspan>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "element_values.hpp"
#include "error_bounds.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;


struct tc_case {
  tgemm::math_mode math = tgemm::math_mode::strict;  // for float inputs: tf32 or tf32x3
  layout order = layout::col_major;
  op op_a = op::none, op_b = op::none;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1, beta = 0;
  int64_t pad_a = 0, pad_b = 0, pad_c = 0;
  int64_t offset_a = 0, offset_b = 0;  // elements: 1 makes the operand misaligned for 16-byte copies
  int64_t lda() const { return min_ld(order, op_a, m, k) + pad_a; }
  int64_t ldb() const { return min_ld(order, op_b, k, n) + pad_b; }
  int64_t ldc() const { return min_ld(order, op::none, m, n) + pad_c; }
  std::string describe() const {
    std::ostringstream s;
    s << to_string(order) << " " << to_string(op_a) << "/" << to_string(op_b) << " m=" << m << " n=" << n
      << " k=" << k << " alpha=" << alpha << " beta=" << beta << " lda=" << lda() << " ldb=" << ldb()
      << " ldc=" << ldc() << " offsets=" << offset_a << "," << offset_b << " math=" << to_string(math);
    return s.str();
  }
};

/// Runs one call through tgemm::gemm() and checks C against the long-double reference; returns the plan it ran.
template <class AB, class C>
tgemm::detail::plan run_case(const tc_case& c) {
  INFO(c.describe() << " A,B " << tgemm::element_traits<AB>::name << " C " << tgemm::element_traits<C>::name);
  const int64_t a_count = stored_elements(c.order, c.op_a, c.m, c.k, c.lda());
  const int64_t b_count = stored_elements(c.order, c.op_b, c.k, c.n, c.ldb());
  const int64_t c_count = stored_elements(c.order, op::none, c.m, c.n, c.ldc());
  constexpr int64_t guard = 64;

  // Inputs rounded to their types first; the reference multiplies the rounded values.
  std::vector<AB> a(size_t(a_count + c.offset_a)), b(size_t(b_count + c.offset_b));
  const std::vector<float> ra = random_values(int64_t(a.size())), rb = random_values(int64_t(b.size()));
  const std::vector<float> la = random_values(int64_t(a.size())), lb = random_values(int64_t(b.size()));
  for (size_t i = 0; i < a.size(); ++i) a[i] = input_value<AB>(ra[i], la[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = input_value<AB>(rb[i], lb[i]);
  std::vector<C> c0(size_t(c_count + guard));
  const std::vector<float> rc = random_values(int64_t(c0.size()));
  const int64_t inner = c.order == layout::col_major ? c.m : c.n, lines = c.order == layout::col_major ? c.n : c.m;
  for (int64_t j = 0; j < lines; ++j) {
    for (int64_t i = 0; i < c.ldc(); ++i) {
      const size_t at = size_t(i + j * c.ldc());
      c0[at] = i >= inner ? sentinel<C>()
                          : (c.beta == 0 ? from_float<C>(std::numeric_limits<float>::quiet_NaN()) : from_float<C>(rc[at]));
    }
  }
  for (int64_t i = c_count; i < c_count + guard; ++i) c0[size_t(i)] = sentinel<C>();

  // Reference on the rounded values, in long double (for double inputs the float64 loop would carry an error as
  // large as the one under test).
  std::vector<double> expected(size_t(c.m * c.n)), magnitude(size_t(c.m * c.n));
  // On every core (for_row_ranges): each row as a serial loop computes it.
  for_row_ranges(c.m, 2.0 * double(c.n) * double(c.k), [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        long double sum = 0;
        double abs_sum = 0;
        if (c.alpha != 0) {
          for (int64_t l = 0; l < c.k; ++l) {
            const double x = to_double(a[size_t(c.offset_a + op_index_of(c.order, c.op_a, i, l, c.lda()))]);
            const double y = to_double(b[size_t(c.offset_b + op_index_of(c.order, c.op_b, l, j, c.ldb()))]);
            sum += (long double)x * y;
            abs_sum += std::fabs(x * y);
          }
        }
        long double value = (long double)c.alpha * sum;
        double mag = std::fabs(double(c.alpha)) * abs_sum;
        if (c.beta != 0) {
          const double old = to_double(c0[size_t(index_of(c.order, i, j, c.ldc()))]);
          value += (long double)c.beta * old;
          mag += std::fabs(double(c.beta)) * std::fabs(old);
        }
        expected[size_t(i + j * c.m)] = double(value);
        magnitude[size_t(i + j * c.m)] = mag;
      }
    }
  });

  device_buffer<AB> da(a.size()), db(b.size());
  device_buffer<C> dc(c0.size());
  da.upload(a);
  db.upload(b);
  dc.upload(c0);
  tgemm::detail::record_plans plans;
  tgemm::options opts;
  opts.math = c.math;
  const status s = tgemm::gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, da.get() + c.offset_a, c.lda(),
                               db.get() + c.offset_b, c.ldb(), c.beta, dc.get(), c.ldc(), nullptr, opts);
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : tgemm::last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  if (c.offset_a != 0 && c.m > 0 && c.n > 0 && c.k > 0 && c.alpha != 0) {
    // A misaligned operand is repacked: the plan says so (A is B after a row-major swap).
    REQUIRE(plans.calls() == 1);
    CHECK((c.order == layout::col_major ? plans.last().repacked_a : plans.last().repacked_b));
  }

  const std::vector<C> out = dc.download();
  const double factor = accumulation_factor<AB>(c.k) + input_factor(c.math), roundoff = output_roundoff<C>();
  int64_t bad = 0, padding_changed = 0;
  double worst = 0;
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      const double want = expected[size_t(i + j * c.m)];
      const double got = to_double(out[size_t(index_of(c.order, i, j, c.ldc()))]);
      const double allowed =
          factor * magnitude[size_t(i + j * c.m)] + roundoff * std::fabs(want) + underflow_floor<C>();
      const double error = std::fabs(got - want);
      if (!std::isfinite(got) || !(error <= allowed)) {
        ++bad;
        worst = std::max(worst, std::isfinite(error) ? error / allowed : 1e300);
      }
    }
  }
  for (int64_t j = 0; j < lines; ++j) {
    for (int64_t i = inner; i < c.ldc(); ++i) padding_changed += bits_of(out[size_t(i + j * c.ldc())]) != bits_of(sentinel<C>());
  }
  for (int64_t i = c_count; i < c_count + guard; ++i) padding_changed += bits_of(out[size_t(i)]) != bits_of(sentinel<C>());
  INFO(bad << " elements out of bound, worst by " << worst << "x");
  CHECK(bad == 0);
  CHECK(padding_changed == 0);
  return plans.calls() > 0 ? plans.last() : tgemm::detail::plan{};
}

const op op_pairs[4][2] = {{op::none, op::none}, {op::none, op::transpose}, {op::transpose, op::none},
                           {op::transpose, op::transpose}};

using half_half = std::pair<__half, __half>;
using half_float = std::pair<__half, float>;
using bf16_bf16 = std::pair<__nv_bfloat16, __nv_bfloat16>;
using bf16_float = std::pair<__nv_bfloat16, float>;
using f64_f64 = std::pair<double, double>;

/// A type list entry for float inputs on the tensor cores with one math mode.
template <tgemm::math_mode Math>
struct tf32_case {
  using first_type = float;
  using second_type = float;
  static constexpr tgemm::math_mode math = Math;
};
using tf32_float = tf32_case<tgemm::math_mode::tf32>;
using tf32x3_float = tf32_case<tgemm::math_mode::tf32x3>;

template <class T, class = void>
struct math_of {
  static constexpr tgemm::math_mode value = tgemm::math_mode::strict;
};
template <class T>
struct math_of<T, std::void_t<decltype(T::math)>> {
  static constexpr tgemm::math_mode value = T::math;
};

/// Counts, over every 16-bit pattern and a sample of floats, where tgemm::convert on the device (numeric.cuh: one
/// cvt on the bits) differs from CUDA's intrinsics. patterns: the float samples' bits.
__global__ void count_conversion_mismatches(const uint32_t* patterns, int count, unsigned long long* mismatches) {
  unsigned long long local = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const float x = __uint_as_float(patterns[i]);
    local += tgemm::detail::bits_of(tgemm::convert<__half>(x)) != __half_as_ushort(__float2half_rn(x));
    local += tgemm::detail::bits_of(tgemm::convert<__nv_bfloat16>(x)) != __bfloat16_as_ushort(__float2bfloat16_rn(x));
    if (i < 0x10000) {
      const float h = tgemm::convert<float>(__ushort_as_half((unsigned short)i));
      const float b = tgemm::convert<float>(__ushort_as_bfloat16((unsigned short)i));
      const float h_cuda = __half2float(__ushort_as_half((unsigned short)i));
      const float b_cuda = __bfloat162float(__ushort_as_bfloat16((unsigned short)i));
      local += isnan(h_cuda) ? !isnan(h) : __float_as_uint(h) != __float_as_uint(h_cuda);
      local += isnan(b_cuda) ? !isnan(b) : __float_as_uint(b) != __float_as_uint(b_cuda);
    }
  }
  atomicAdd(mismatches, local);
}

}  // namespace

TEST_CASE("convert on the device: bit for bit as CUDA's conversion intrinsics", "[tensorop][numeric]") {
  // Every sign and exponent with the mantissa endings that decide rounding (ties, one either side), as the host
  // test (test/host/numeric_test.cu) checks the host side.
  const std::vector<uint32_t> patterns = tgemm::test::rounding_patterns();
  uint32_t* d_patterns = nullptr;
  unsigned long long* d_mismatches = nullptr;
  TGEMM_CUDA_REQUIRE(cudaMalloc(&d_patterns, patterns.size() * sizeof(uint32_t)));
  TGEMM_CUDA_REQUIRE(cudaMalloc(&d_mismatches, sizeof(unsigned long long)));
  TGEMM_CUDA_REQUIRE(cudaMemcpy(d_patterns, patterns.data(), patterns.size() * sizeof(uint32_t),
                                cudaMemcpyHostToDevice));
  TGEMM_CUDA_REQUIRE(cudaMemset(d_mismatches, 0, sizeof(unsigned long long)));
  count_conversion_mismatches<<<264, 256>>>(d_patterns, int(patterns.size()), d_mismatches);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  unsigned long long mismatches = ~0ull;
  TGEMM_CUDA_REQUIRE(cudaMemcpy(&mismatches, d_mismatches, sizeof mismatches, cudaMemcpyDeviceToHost));
  TGEMM_CUDA_REQUIRE(cudaFree(d_patterns));
  TGEMM_CUDA_REQUIRE(cudaFree(d_mismatches));
  CHECK(mismatches == 0);
}

TEMPLATE_TEST_CASE("tensor-core gemm(): layouts, ops and tile edges", "[tensorop]", half_half, half_float,
                   bf16_bf16, bf16_float, tf32_float, tf32x3_float, f64_f64) {
  using AB = typename TestType::first_type;
  using C = typename TestType::second_type;
  // Sizes around the 64, 128 and 256 tiles and the 32-deep k slices; the thin ones (at most 32 rows or columns)
  // take the 16 x 128 and 128 x 16 tiles with their 128-deep slices, ragged in every extent here.
  const int64_t shapes[][3] = {{1, 1, 1},      {8, 8, 8},       {16, 24, 40},    {64, 64, 32},   {65, 63, 33},
                               {127, 129, 31}, {128, 256, 96},  {200, 300, 257}, {257, 130, 64}, {31, 500, 100},
                               {500, 17, 100}, {1, 700, 300},   {700, 1, 300},   {384, 512, 1000}, {20, 300, 260},
                               {300, 27, 391}};
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : shapes) {
        tc_case c;
        c.math = math_of<TestType>::value;
        c.order = order, c.op_a = ops[0], c.op_b = ops[1];
        c.m = shape[0], c.n = shape[1], c.k = shape[2];
        c.alpha = random_scalar(0.5f, 2.0f);
        c.beta = shape[0] % 2 == 0 ? 0.0f : random_scalar(-1.0f, 1.0f);
        // Leading dimensions that keep 16-byte alignment (multiples of 8 elements) for some shapes, odd for
        // others (then A and B are repacked).
        c.pad_a = shape[2] % 2 == 0 ? 8 : 0;
        c.pad_c = 3;
        run_case<AB, C>(c);
      }
    }
  }
}

TEMPLATE_TEST_CASE("tensor-core gemm(): a 16-bit C splits k with float partials, rounded once", "[tensorop]",
                   half_half, bf16_bf16) {
  using AB = typename TestType::first_type;
  using C = typename TestType::second_type;
  // Thin problems (the Hopper kernel takes none): the mma.sync tiles split k, the float-C kernel writes the
  // partials and the reduction rounds once into C (beta = 0 on a NaN C too: never read).
  const int64_t shapes[][3] = {{16, 2048, 3000}, {2048, 16, 3000}, {24, 1000, 1500}, {32, 640, 1800}};
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : shapes) {
        tc_case c;
        c.order = order, c.op_a = ops[0], c.op_b = ops[1];
        c.m = shape[0], c.n = shape[1], c.k = shape[2];
        c.alpha = random_scalar(0.5f, 2.0f);
        c.beta = shape[2] == 3000 ? 0.0f : random_scalar(-1.0f, 1.0f);
        c.pad_c = 3;
        const tgemm::detail::plan p = run_case<AB, C>(c);
        INFO(c.describe());
        CHECK(p.split_k);
        CHECK_FALSE(p.wgmma);
        for (int i = 0; i < p.step_count; ++i) {
          const tgemm::detail::plan_step& s = p.steps[i];
          if (s.kind == tgemm::detail::step_kind::gemm || s.kind == tgemm::detail::step_kind::reduce) {
            CHECK(s.float_partials);
          }
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("tensor-core gemm(): k = 0, alpha = 0, beta = 1 and misaligned pointers", "[tensorop]",
                   half_half, half_float, bf16_bf16, bf16_float, tf32_float, tf32x3_float, f64_f64) {
  using AB = typename TestType::first_type;
  using C = typename TestType::second_type;
  tc_case c;
  c.math = math_of<TestType>::value;
  c.m = 96, c.n = 80, c.k = 0, c.beta = 0.5f;
  run_case<AB, C>(c);  // C = beta C
  c.k = 64, c.alpha = 0, c.beta = 0;
  run_case<AB, C>(c);  // C = 0, nothing read
  c.alpha = 1, c.beta = 1;
  run_case<AB, C>(c);
  for (const auto& ops : op_pairs) {
    c.op_a = ops[0], c.op_b = ops[1];
    c.m = 520, c.n = 264, c.k = 136, c.alpha = -1.5f, c.beta = 0.25f;
    c.offset_a = 1, c.offset_b = 3;
    run_case<AB, C>(c);  // misaligned A and B: repacked
  }
}

TEMPLATE_TEST_CASE("tensor-core gemm(): NaN and Inf follow the FP32 rules", "[tensorop][special]", half_half,
                   half_float, bf16_bf16, bf16_float, tf32_float, tf32x3_float, f64_f64) {
  // The rules of test/reliability/special_values_test.cu for the tensor-core paths: NaN in A(i, l) makes row i of C
  // NaN and NaN in B(l, j) column j; Inf in A(i, l) makes C(i, j) +-Inf with B(l, j)'s sign, and NaN where
  // B(l, j) = 0 (Inf * 0); every other element is bit for bit what it is without the special values.
  using AB = typename TestType::first_type;
  using C = typename TestType::second_type;
  const int64_t m = 40, n = 36, k = 48;
  const int64_t nan_row = 3, inf_row = 20, nan_col = 11, zero_col = 30, nan_k = 5, inf_k = 9, nan_b_k = 7;
  for (const auto& ops : op_pairs) {
    INFO("ops " << to_string(ops[0]) << "/" << to_string(ops[1]));
    const int64_t lda = min_ld(layout::col_major, ops[0], m, k), ldb = min_ld(layout::col_major, ops[1], k, n);
    auto a_at = [&](int64_t i, int64_t l) { return size_t(op_index_of(layout::col_major, ops[0], i, l, lda)); };
    auto b_at = [&](int64_t l, int64_t j) { return size_t(op_index_of(layout::col_major, ops[1], l, j, ldb)); };
    std::vector<AB> a(size_t(m * k)), b(size_t(k * n));
    const std::vector<float> ra = random_values(m * k), rb = random_values(k * n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = from_float<AB>(ra[i] == 0 ? 0.5f : ra[i]);
    for (size_t i = 0; i < b.size(); ++i) b[i] = from_float<AB>(rb[i] == 0 ? 0.5f : rb[i]);
    b[b_at(inf_k, zero_col)] = from_float<AB>(0.0f);
    device_buffer<AB> da(a.size()), db(b.size());
    device_buffer<C> dc(size_t(m * n));
    tgemm::options opts;
    opts.math = math_of<TestType>::value;
    auto run = [&] {
      da.upload(a);
      db.upload(b);
      REQUIRE(tgemm::gemm(layout::col_major, ops[0], ops[1], m, n, k, 1.0f, da.get(), lda, db.get(), ldb, 0.0f,
                          dc.get(), m, nullptr, opts) == status::success);
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
      return dc.download();
    };
    const std::vector<C> plain = run();
    a[a_at(nan_row, nan_k)] = from_float<AB>(std::numeric_limits<float>::quiet_NaN());
    a[a_at(inf_row, inf_k)] = from_float<AB>(std::numeric_limits<float>::infinity());
    b[b_at(nan_b_k, nan_col)] = from_float<AB>(std::numeric_limits<float>::quiet_NaN());
    const std::vector<C> special = run();
    int64_t wrong = 0;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        const double got = to_double(special[size_t(i + j * m)]);
        bool ok;
        if (i == nan_row || j == nan_col || (i == inf_row && j == zero_col)) {
          ok = std::isnan(got);
        } else if (i == inf_row) {
          ok = std::isinf(got) && (got > 0) == (to_double(b[b_at(inf_k, j)]) > 0);
        } else {
          ok = bits_of(special[size_t(i + j * m)]) == bits_of(plain[size_t(i + j * m)]);
        }
        if (!ok && wrong++ < 5) UNSCOPED_INFO("C(" << i << ", " << j << ") = " << got);
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("3xTF32 lands within 2x of strict FP32's error; TF32 rounds its inputs", "[tensorop]") {
  // One product in three modes on the same inputs, each compared normwise with the float64 reference.
  const int64_t m = 384, n = 320, k = 2048;
  const std::vector<float> a = random_values(m * k), b = random_values(k * n);
  const std::vector<double> expected = tgemm::test::product_f64(a, b, m, n, k);
  device_buffer<float> da(a.size()), db(b.size()), dc(size_t(m * n));
  da.upload(a);
  db.upload(b);
  auto error_of = [&](tgemm::math_mode math) {
    tgemm::options opts;
    opts.math = math;
    REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f, dc.get(), m,
                        nullptr, opts) == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    return tgemm::test::normwise_relative_error(dc.download(), expected);
  };
  const double strict = error_of(tgemm::math_mode::strict);
  const double x3 = error_of(tgemm::math_mode::tf32x3);
  const double tf32 = error_of(tgemm::math_mode::tf32);
  INFO("relative errors: strict " << strict << ", tf32x3 " << x3 << ", tf32 " << tf32);
  CHECK(x3 <= 2 * strict);
  CHECK(tf32 > 10 * strict);  // TF32 really rounded its inputs (about 2^-11 against 2^-24 per product)
  CHECK(tf32 < 1e-3);
  tgemm::options bad;
  bad.math = static_cast<tgemm::math_mode>(7);
  CHECK(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f, dc.get(), m,
                    nullptr, bad) == status::invalid_option);
}

TEST_CASE("NVIDIA_TF32_OVERRIDE=0 makes TF32 and 3xTF32 calls strict FP32", "[tf32_override]") {
  // Run by ctest with the variable set (gpu.tensorop.tf32_override): the results must be strict FP32's, bit for bit.
  const char* value = std::getenv("NVIDIA_TF32_OVERRIDE");
  REQUIRE(value != nullptr);
  REQUIRE(std::string(value) == "0");
  const int64_t m = 200, n = 136, k = 300;
  const std::vector<float> a = random_values(m * k), b = random_values(k * n);
  device_buffer<float> da(a.size()), db(b.size()), dc(size_t(m * n));
  da.upload(a);
  db.upload(b);
  auto run = [&](tgemm::math_mode math) {
    tgemm::options opts;
    opts.math = math;
    REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f, dc.get(), m,
                        nullptr, opts) == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    return dc.download();
  };
  const std::vector<float> strict = run(tgemm::math_mode::strict);
  CHECK(run(tgemm::math_mode::tf32) == strict);
  CHECK(run(tgemm::math_mode::tf32x3) == strict);
}

TEMPLATE_TEST_CASE("tensor-core gemm(): the sanitizer's subset", "[sanitize]", half_half, half_float, bf16_bf16,
                   bf16_float, tf32_float, tf32x3_float, f64_f64) {
  // Small enough to run under every compute-sanitizer tool (scripts/sanitize.sh): ragged tiles of each slot, every
  // op pair, beta = 0 on a C full of NaN (initcheck: C is never read), misaligned operands (the repack path), and a
  // thin product deep enough to split k (a 16-bit C's float partials) and one with few columns (the 128 x 16 tile).
  using AB = typename TestType::first_type;
  using C = typename TestType::second_type;
  const int64_t shapes[][3] = {{37, 45, 50}, {130, 260, 72}, {20, 300, 40}, {24, 200, 520}, {300, 20, 260}};
  for (const auto& ops : op_pairs) {
    for (const auto& shape : shapes) {
      tc_case c;
      c.math = math_of<TestType>::value;
      c.op_a = ops[0], c.op_b = ops[1];
      c.m = shape[0], c.n = shape[1], c.k = shape[2];
      c.beta = shape[0] == 130 ? 0.5f : 0.0f;
      c.offset_a = shape[0] == 20 ? 1 : 0;
      run_case<AB, C>(c);
    }
  }
}

TEST_CASE("tensor-core policies through launch<P>, can_implement<P> and mdspan views", "[tensorop]") {
  using policy = tgemm::tensorop_policy<tgemm::block_shape<64, 64, 32>, tgemm::warp_shape<32, 32>,
                                        tgemm::mma_shape<16, 8, 16>, 3, __nv_bfloat16, float>;
  const int64_t m = 136, n = 72, k = 96;
  std::vector<__nv_bfloat16> a(size_t(m * k)), b(size_t(k * n));
  const std::vector<float> ra = random_values(m * k), rb = random_values(k * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = __float2bfloat16_rn(ra[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = __float2bfloat16_rn(rb[i]);
  device_buffer<__nv_bfloat16> da(a.size() + 8), db(b.size());
  device_buffer<float> launched(size_t(m * n)), dispatched(size_t(m * n)), viewed(size_t(m * n));
  da.upload(a);
  db.upload(b);
  // launch<P> with a fixed tensor-core policy, the dispatcher, and mdspan views must agree with the reference
  // (and the two dispatcher paths with each other, bit for bit: same plan, same kernel).
  REQUIRE(tgemm::can_implement<policy>(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k,
                                       0.0f, launched.get(), m) == status::success);
  REQUIRE(tgemm::launch<policy>(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f,
                                launched.get(), m) == status::success);
  REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f,
                      dispatched.get(), m) == status::success);
  namespace cs = cuda::std;
  using extents = cs::dextents<int64_t, 2>;
  cs::mdspan<const __nv_bfloat16, extents, cs::layout_left> va(da.get(), m, k), vb(db.get(), k, n);
  cs::mdspan<float, extents, cs::layout_left> vc(viewed.get(), m, n);
  REQUIRE(tgemm::gemm(1.0f, va, vb, 0.0f, vc) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<float> x = launched.download(), y = dispatched.download(), z = viewed.download();
  CHECK(y == z);
  int64_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double want = 0, magnitude = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double p = double(float(a[size_t(i + l * m)])) * double(float(b[size_t(l + j * k)]));
        want += p, magnitude += std::fabs(p);
      }
      const double allowed = error_factor(k) * magnitude + 1e-30;
      bad += !(std::fabs(x[size_t(i + j * m)] - want) <= allowed);
      bad += !(std::fabs(y[size_t(i + j * m)] - want) <= allowed);
    }
  }
  CHECK(bad == 0);
  // A pointer that is not 16-byte aligned: can_implement and launch refuse it, C untouched.
  CHECK(tgemm::can_implement<policy>(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get() + 1, m, db.get(), k,
                                     0.0f, launched.get(), m) == status::misaligned_operand);
  CHECK(tgemm::launch<policy>(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get() + 1, m, db.get(), k, 0.0f,
                              launched.get(), m) == status::misaligned_operand);
  // TF32 through an mdspan view with options.
  std::vector<float> fa(size_t(m * k)), fb(size_t(k * n));
  for (size_t i = 0; i < fa.size(); ++i) fa[i] = ra[i];
  for (size_t i = 0; i < fb.size(); ++i) fb[i] = rb[i];
  device_buffer<float> dfa(fa.size()), dfb(fb.size()), dfc(size_t(m * n)), dfd(size_t(m * n));
  dfa.upload(fa);
  dfb.upload(fb);
  cs::mdspan<const float, extents, cs::layout_left> fva(dfa.get(), m, k), fvb(dfb.get(), k, n);
  cs::mdspan<float, extents, cs::layout_left> fvc(dfc.get(), m, n);
  tgemm::options opts;
  opts.math = tgemm::math_mode::tf32;
  REQUIRE(tgemm::gemm(1.0f, fva, fvb, 0.0f, fvc, nullptr, opts) == status::success);
  REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, dfa.get(), m, dfb.get(), k, 0.0f, dfd.get(),
                      m, nullptr, opts) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(dfc.download() == dfd.download());
}

TEST_CASE("double through launch<P>, can_implement<P> and mdspan views", "[tensorop]") {
  using policy = tgemm::tensorop_policy<tgemm::block_shape<64, 32, 16>, tgemm::warp_shape<32, 16>,
                                        tgemm::mma_shape<16, 8, 8>, 3, double, double>;
  const int64_t m = 100, n = 72, k = 50;
  const std::vector<float> ra = random_values(m * k), rb = random_values(k * n), la = random_values(m * k),
                           lb = random_values(k * n);
  std::vector<double> a(size_t(m * k)), b(size_t(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = input_value<double>(ra[i], la[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = input_value<double>(rb[i], lb[i]);
  device_buffer<double> da(a.size() + 2), db(b.size()), launched(size_t(m * n)), dispatched(size_t(m * n)),
      viewed(size_t(m * n));
  da.upload(a);
  db.upload(b);
  REQUIRE(tgemm::can_implement<policy>(layout::col_major, op::none, op::none, m, n, k, 1.0, da.get(), m, db.get(), k,
                                       0.0, launched.get(), m) == status::success);
  REQUIRE(tgemm::launch<policy>(layout::col_major, op::none, op::none, m, n, k, 1.0, da.get(), m, db.get(), k, 0.0,
                                launched.get(), m) == status::success);
  REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0, da.get(), m, db.get(), k, 0.0,
                      dispatched.get(), m) == status::success);
  namespace cs = cuda::std;
  using extents = cs::dextents<int64_t, 2>;
  cs::mdspan<const double, extents, cs::layout_left> va(da.get(), m, k), vb(db.get(), k, n);
  cs::mdspan<double, extents, cs::layout_left> vc(viewed.get(), m, n);
  REQUIRE(tgemm::gemm(1.0, va, vb, 0.0, vc) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<double> x = launched.download(), y = dispatched.download(), z = viewed.download();
  CHECK(y == z);
  int64_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      long double want = 0;
      double magnitude = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double p = a[size_t(i + l * m)] * b[size_t(l + j * k)];
        want += (long double)a[size_t(i + l * m)] * b[size_t(l + j * k)], magnitude += std::fabs(p);
      }
      const double allowed = accumulation_factor<double>(k) * magnitude + 1e-300;
      bad += !(std::fabs(x[size_t(i + j * m)] - double(want)) <= allowed);
      bad += !(std::fabs(y[size_t(i + j * m)] - double(want)) <= allowed);
    }
  }
  CHECK(bad == 0);
  // A pointer that is not 16-byte aligned (one double off): can_implement and launch refuse it.
  CHECK(tgemm::can_implement<policy>(layout::col_major, op::none, op::none, m, n, k, 1.0, da.get() + 1, m, db.get(), k,
                                     0.0, launched.get(), m) == status::misaligned_operand);
}
