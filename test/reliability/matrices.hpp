// Host matrices of one GEMM call, run through any path of paths.hpp: the building block of the reliability
// GPU tests (Catch2).
#pragma once

#include "catch.hpp"
#include "cuda_check.hpp"
#include "paths.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <tgemm/status.cuh>
#include <tgemm/types.cuh>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace tgemm::reliability {

inline constexpr float nan_value = std::numeric_limits<float>::quiet_NaN();
inline constexpr float inf_value = std::numeric_limits<float>::infinity();

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// A, B and C of one call, stored as the call describes them, with random values in [-1, 1).
struct matrices {
  layout order = layout::col_major;
  op op_a = op::none, op_b = op::none;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 1, ldb = 1, ldc = 1;
  std::vector<float> a, b, c;

  /// Leading dimensions are the smallest valid ones rounded up to `ld_multiple`, plus `pad`.
  matrices(layout order_, op op_a_, op op_b_, int64_t m_, int64_t n_, int64_t k_, int64_t ld_multiple = 4,
           int64_t pad = 0)
      : order(order_), op_a(op_a_), op_b(op_b_), m(m_), n(n_), k(k_) {
    const auto round = [&](int64_t x) { return (x + ld_multiple - 1) / ld_multiple * ld_multiple + pad; };
    lda = round(test::min_ld(order, op_a, m, k));
    ldb = round(test::min_ld(order, op_b, k, n));
    ldc = round(test::min_ld(order, op::none, m, n));
    a = test::random_values(test::stored_elements(order, op_a, m, k, lda));
    b = test::random_values(test::stored_elements(order, op_b, k, n, ldb));
    c = test::random_values(test::stored_elements(order, op::none, m, n, ldc));
  }

  float& A(int64_t i, int64_t l) { return a[size_t(test::op_index_of(order, op_a, i, l, lda))]; }
  float& B(int64_t l, int64_t j) { return b[size_t(test::op_index_of(order, op_b, l, j, ldb))]; }
  float& C(int64_t i, int64_t j) { return c[size_t(test::index_of(order, i, j, ldc))]; }
  /// Element (i, j) of a result laid out like C.
  float at(const std::vector<float>& result, int64_t i, int64_t j) const {
    return result[size_t(test::index_of(order, i, j, ldc))];
  }

  test::reference_result reference(float alpha, float beta) const {
    return test::reference_gemm(order, op_a, op_b, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  }

  std::string describe() const {
    return std::string(to_string(order)) + " op_a=" + to_string(op_a) + " op_b=" + to_string(op_b) +
           " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
           " lda=" + std::to_string(lda) + " ldb=" + std::to_string(ldb) + " ldc=" + std::to_string(ldc);
  }
};

/// Copies `host` to a fresh device buffer, `offset` floats past its (256-byte aligned) start.
inline void upload_at(test::device_buffer<float>& buffer, const std::vector<float>& host, int64_t offset) {
  if (!host.empty()) {
    TGEMM_CUDA_REQUIRE(cudaMemcpy(buffer.get() + offset, host.data(), host.size() * sizeof(float),
                                  cudaMemcpyHostToDevice));
  }
}

/// Downloads `count` floats from `device`.
inline std::vector<float> download(const float* device, size_t count) {
  std::vector<float> host(count);
  if (count > 0) TGEMM_CUDA_REQUIRE(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

/// Runs C = alpha op(A) op(B) + beta C on `path` with A, B and C copied to the device `offset` floats past
/// aligned addresses, and returns C. With offset 0 and leading dimensions that are multiples of 4 (matrices'
/// default) every policy accepts the call; the test fails if one does not. `null_operands` passes null A and B.
inline std::vector<float> run_on(const gemm_path& path, const matrices& x, float alpha, float beta,
                                 int64_t offset = 0, bool null_operands = false) {
  test::device_buffer<float> da(x.a.size() + size_t(offset) + 1), db(x.b.size() + size_t(offset) + 1);
  test::device_buffer<float> dc(x.c.size() + size_t(offset) + 1);
  upload_at(da, x.a, offset);
  upload_at(db, x.b, offset);
  upload_at(dc, x.c, offset);
  const float* a = null_operands ? nullptr : da.get() + offset;
  const float* b = null_operands ? nullptr : db.get() + offset;
  float* c = dc.get() + offset;
  INFO(path.name << " on " << x.describe() << " alpha=" << alpha << " beta=" << beta << " offset=" << offset);
  if (path.can_implement != nullptr) {
    const status can = path.can_implement(x.order, x.op_a, x.op_b, x.m, x.n, x.k, alpha, a, x.lda, b, x.ldb, beta, c,
                                          x.ldc);
    INFO("can_implement: " << to_string(can) << ": " << (can == status::success ? "" : last_error().message));
    REQUIRE(can == status::success);
  }
  const status s =
      path.run(x.order, x.op_a, x.op_b, x.m, x.n, x.k, alpha, a, x.lda, b, x.ldb, beta, c, x.ldc, nullptr);
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  return download(c, x.c.size());
}

/// A way to run: a path, and the pointer offset and padding its operands get.
struct variant {
  const gemm_path* path;
  int64_t offset;       ///< floats past an aligned address (1: every pointer misaligned for vector loads)
  int64_t ld_multiple;  ///< leading dimensions rounded up to this (4 suits every policy)
  int64_t pad;          ///< then padded by this (1 with offset 1: odd leading dimensions)
  std::string describe() const {
    return path->name + (offset != 0 ? " (pointers + " + std::to_string(offset) + ", leading dimensions + " +
                                           std::to_string(pad) + ")"
                                     : "");
  }
};

/// Every path on aligned operands, and the dispatcher also on misaligned ones (its scalar-load path).
inline std::vector<variant> every_variant() {
  std::vector<variant> out;
  for (const gemm_path& path : all_paths()) {
    out.push_back({&path, 0, 4, 0});
    if (path.dispatcher) out.push_back({&path, 1, 1, 1});
  }
  return out;
}

/// The dispatcher.
inline const gemm_path& dispatcher() { return all_paths().front(); }

/// Counts elements that break a rule and keeps the first few for the failure message.
struct violations {
  int64_t count = 0;
  std::string first;
  void add(const std::string& what) {
    if (count++ < 5) first += "\n  " + what;
  }
};

/// Element (i, j) against the float64 reference: within error_factor(k) times its magnitude.
inline bool within_bound(const test::reference_result& ref, int64_t m, int64_t k, int64_t i, int64_t j, float got) {
  const double expected = ref.value[size_t(i + j * m)];
  const double allowed = test::error_factor(k) * ref.magnitude[size_t(i + j * m)] +
                         std::numeric_limits<float>::denorm_min();
  return std::isfinite(got) && std::fabs(double(got) - expected) <= allowed;
}

inline std::string element(const char* name, int64_t i, int64_t j, float value) {
  return std::string(name) + "(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(value);
}

}  // namespace tgemm::reliability
