// One GEMM case run on the GPU and checked against the float64 host reference: the building block of the
// GPU tests. Inputs are fresh random values; C is poisoned (NaN) when beta == 0, random otherwise; the
// padding between rows/columns of C and a guard after it must come back untouched.
#pragma once

#include <tgemm/gemm.cuh>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace tgemm::test {

/// A GEMM case: everything a call takes except the pointers.
struct gemm_case {
  layout order = layout::col_major;
  op op_a = op::none;
  op op_b = op::none;
  int64_t m = 1, n = 1, k = 1;
  float alpha = 1.0f, beta = 0.0f;
  int64_t pad_a = 0, pad_b = 0, pad_c = 0;     // extra leading-dimension elements
  int64_t offset_a = 0, offset_b = 0, offset_c = 0;  // pointer offsets in floats (alignment tests)
  int64_t ld_multiple = 1;  // leading dimensions are rounded up to a multiple of this (a policy's vector width)

  int64_t round_up(int64_t ld) const { return (ld + ld_multiple - 1) / ld_multiple * ld_multiple; }
  int64_t lda() const { return round_up(min_ld(order, op_a, m, k)) + pad_a; }
  int64_t ldb() const { return round_up(min_ld(order, op_b, k, n)) + pad_b; }
  int64_t ldc() const { return round_up(min_ld(order, op::none, m, n)) + pad_c; }

  std::string describe() const {
    std::ostringstream s;
    s << "order=" << to_string(order) << " op_a=" << to_string(op_a) << " op_b=" << to_string(op_b) << " m=" << m
      << " n=" << n << " k=" << k << " alpha=" << alpha << " beta=" << beta << " lda=" << lda() << " ldb=" << ldb()
      << " ldc=" << ldc() << " offsets=" << offset_a << "," << offset_b << "," << offset_c;
    return s.str();
  }
};

/// Bits of the sentinel written to C's padding and guard: a signalling-looking NaN no kernel produces.
inline float padding_sentinel() {
  const uint32_t bits = 0x7fa5a5a5u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Elements after C's last one that must stay untouched.
inline constexpr int64_t guard_elements = 64;

/// Runs `call(A, B, C)` (which must launch the GEMM of `c` on the default stream and return its status) and
/// checks: status success, the launch completed without a CUDA error, every element of C within the error
/// bound of the float64 reference, C's padding and the guard after C unchanged.
template <class Call>
void run_and_check(const gemm_case& c, Call&& call) {
  INFO(c.describe());
  const int64_t a_count = stored_elements(c.order, c.op_a, c.m, c.k, c.lda());
  const int64_t b_count = stored_elements(c.order, c.op_b, c.k, c.n, c.ldb());
  const int64_t c_count = stored_elements(c.order, op::none, c.m, c.n, c.ldc());

  const std::vector<float> a = random_values(a_count);
  const std::vector<float> b = random_values(b_count);
  std::vector<float> c0 = random_values(c_count);
  // Padding (rows/columns between m (or n) and ldc) holds the sentinel; with beta == 0, C itself holds NaN,
  // which must not leak into the result and which reveals any element left unwritten.
  for (int64_t j = 0; j < (c.order == layout::col_major ? c.n : c.m); ++j) {
    for (int64_t i = 0; i < c.ldc(); ++i) {
      const int64_t inner = c.order == layout::col_major ? c.m : c.n;
      float& x = c0[size_t(i + j * c.ldc())];
      if (i >= inner) x = padding_sentinel();
      else if (c.beta == 0.0f) x = std::numeric_limits<float>::quiet_NaN();
    }
  }
  const reference_result ref =
      reference_gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a.data(), c.lda(), b.data(), c.ldb(), c.beta,
                     c0.data(), c.ldc());

  device_buffer<float> da(size_t(a_count + c.offset_a)), db(size_t(b_count + c.offset_b));
  device_buffer<float> dc(size_t(c_count + c.offset_c + guard_elements));
  std::vector<float> a_up(size_t(c.offset_a), 0.0f), b_up(size_t(c.offset_b), 0.0f), c_up(size_t(c.offset_c), 0.0f);
  a_up.insert(a_up.end(), a.begin(), a.end());
  b_up.insert(b_up.end(), b.begin(), b.end());
  for (int64_t i = 0; i < c.offset_c; ++i) c_up[size_t(i)] = padding_sentinel();
  c_up.insert(c_up.end(), c0.begin(), c0.end());
  c_up.insert(c_up.end(), size_t(guard_elements), padding_sentinel());
  da.upload(a_up);
  db.upload(b_up);
  dc.upload(c_up);

  const status s = call(da.get() + c.offset_a, db.get() + c.offset_b, dc.get() + c.offset_c);
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());

  const std::vector<float> out = dc.download();
  const float* result = out.data() + c.offset_c;
  const comparison cmp = compare(ref, result, c.order, c.m, c.n, c.k, c.ldc());
  INFO(cmp.describe());
  CHECK(cmp.passed());

  int64_t padding_changed = 0;
  for (int64_t i = 0; i < c.offset_c; ++i) padding_changed += !same_bits(out[size_t(i)], padding_sentinel());
  for (int64_t j = 0; j < (c.order == layout::col_major ? c.n : c.m); ++j) {
    const int64_t inner = c.order == layout::col_major ? c.m : c.n;
    for (int64_t i = inner; i < c.ldc(); ++i) padding_changed += !same_bits(result[i + j * c.ldc()], padding_sentinel());
  }
  for (int64_t i = 0; i < guard_elements; ++i) padding_changed += !same_bits(result[c_count + i], padding_sentinel());
  CHECK(padding_changed == 0);
}

/// The four (op_a, op_b) pairs.
inline const op op_pairs[4][2] = {
    {op::none, op::none}, {op::none, op::transpose}, {op::transpose, op::none}, {op::transpose, op::transpose}};

}  // namespace tgemm::test
