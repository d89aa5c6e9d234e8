// Problems too large for a full float64 host reference: an operand of more than 2^31 elements, a C of more than
// 2^32 bytes, and the products large enough for gemm() to repack operands read along k. Operands are generated on
// the GPU by a counter-based hash the host can recompute, so sampled entries of C are checked against a float64
// dot product without copying gigabytes back.
#include "gemm_case.hpp"
#include "splitmix.hpp"

#include <algorithm>
#include <array>
#include <vector>

using namespace tgemm;
using namespace tgemm::test;

namespace {

__global__ void fill_hashed(float* x, uint64_t count, uint64_t seed) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
    x[i] = hashed_unit(seed, i);
  }
}

void fill(float* x, uint64_t count, uint64_t seed) {
  fill_hashed<<<4096, 256>>>(x, count, seed);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
}

/// The hashed operands of a call, and the float64 check of one entry of C against them.
struct hashed_operands {
  op op_a, op_b;
  int64_t k, lda, ldb;
  uint64_t seed_a, seed_b;

  /// Is `got` within error_factor(k) * sum |a b| of the float64 dot product for C(i, j)? Reports it if not.
  bool entry_ok(int64_t i, int64_t j, double got) const {
    double sum = 0, magnitude = 0;
    for (int64_t l = 0; l < k; ++l) {
      const uint64_t ai = op_a == op::none ? uint64_t(i) + uint64_t(l) * lda : uint64_t(l) + uint64_t(i) * lda;
      const uint64_t bi = op_b == op::none ? uint64_t(l) + uint64_t(j) * ldb : uint64_t(j) + uint64_t(l) * ldb;
      const double av = hashed_unit(seed_a, ai), bv = hashed_unit(seed_b, bi);
      sum += av * bv;
      magnitude += std::fabs(av * bv);
    }
    const bool ok = std::fabs(got - sum) <= error_factor(k) * magnitude;
    if (!ok) UNSCOPED_INFO("C(" << i << ", " << j << ") = " << got << ", expected " << sum);
    return ok;
  }
};

/// Runs C = op(A) op(B) (column-major, beta = 0 on NaN-filled C) and checks `samples` rows x all sampled columns.
void check_huge(op op_a, op op_b, int64_t m, int64_t n, int64_t k, const std::vector<int64_t>& rows,
                const std::vector<int64_t>& cols) {
  const int64_t lda = op_a == op::none ? m : k, ldb = op_b == op::none ? k : n, ldc = m;
  const uint64_t a_count = uint64_t(lda) * uint64_t(op_a == op::none ? k : m);
  const uint64_t b_count = uint64_t(ldb) * uint64_t(op_b == op::none ? n : k);
  const uint64_t c_count = uint64_t(ldc) * uint64_t(n);
  INFO("op_a=" << to_string(op_a) << " op_b=" << to_string(op_b) << " m=" << m << " n=" << n << " k=" << k
               << " A elements=" << a_count << " C bytes=" << c_count * 4);
  const uint64_t seed_a = run_seed() * 3 + 1, seed_b = run_seed() * 5 + 2;
  const hashed_operands operands{op_a, op_b, k, lda, ldb, seed_a, seed_b};
  device_buffer<float> a(a_count), b(b_count), c(c_count);
  fill(a.get(), a_count, seed_a);
  fill(b.get(), b_count, seed_b);
  TGEMM_CUDA_REQUIRE(cudaMemset(c.get(), 0xff, c_count * sizeof(float)));  // all-ones bits: NaN poison
  REQUIRE(gemm(layout::col_major, op_a, op_b, m, n, k, 1.0f, a.get(), lda, b.get(), ldb, 0.0f, c.get(), ldc) ==
          status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());

  int64_t bad = 0;
  for (int64_t j : cols) {
    for (int64_t i : rows) {
      float got = 0;
      TGEMM_CUDA_REQUIRE(cudaMemcpy(&got, c.get() + (uint64_t(i) + uint64_t(j) * uint64_t(ldc)), sizeof(float),
                                    cudaMemcpyDeviceToHost));
      bad += !operands.entry_ok(i, j, got);
    }
  }
  REQUIRE(bad == 0);
}

/// Runs C = op(A) op(B) (column-major, beta = 0 on NaN-filled C), checks that no poison is left anywhere in C,
/// and checks every pair of the sampled rows and columns against float64.
void check_sampled(op op_a, op op_b, int64_t m, int64_t n, int64_t k, const std::vector<int64_t>& rows,
                   const std::vector<int64_t>& cols) {
  const int64_t lda = op_a == op::none ? m : k, ldb = op_b == op::none ? k : n, ldc = m;
  INFO("op_a=" << to_string(op_a) << " op_b=" << to_string(op_b) << " m=" << m << " n=" << n << " k=" << k);
  const uint64_t seed_a = run_seed() * 7 + 3, seed_b = run_seed() * 11 + 4;
  const hashed_operands operands{op_a, op_b, k, lda, ldb, seed_a, seed_b};
  device_buffer<float> a(uint64_t(m) * k), b(uint64_t(k) * n), c(uint64_t(m) * n);
  fill(a.get(), uint64_t(m) * k, seed_a);
  fill(b.get(), uint64_t(k) * n, seed_b);
  TGEMM_CUDA_REQUIRE(cudaMemset(c.get(), 0xff, uint64_t(m) * n * sizeof(float)));  // all-ones bits: NaN poison
  REQUIRE(gemm(layout::col_major, op_a, op_b, m, n, k, 1.0f, a.get(), lda, b.get(), ldb, 0.0f, c.get(), ldc) ==
          status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  std::vector<float> host(uint64_t(m) * n);
  TGEMM_CUDA_REQUIRE(cudaMemcpy(host.data(), c.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int64_t unwritten = 0;
  for (float x : host) unwritten += std::isnan(x);
  REQUIRE(unwritten == 0);
  int64_t bad = 0;
  for (int64_t j : cols) {
    for (int64_t i : rows) {
      bad += !operands.entry_ok(i, j, host[uint64_t(i) + uint64_t(j) * ldc]);
    }
  }
  REQUIRE(bad == 0);
}

}  // namespace

TEST_CASE("gemm() repacks the operands read along k of large aligned products", "[gpu][dispatch]") {
  // 2mnk >= tgemm::tuning::sm90::layout_pack_flops with m and n >= layout_pack_min_extent: A (when transposed) and B
  // (when not) are rewritten so both tiles stream in with cp.async. k = 2051 leaves a ragged last slice; rows and
  // columns are sampled at tile boundaries (256 x 128 tiles) and at the edges.
  const int64_t k = 2051;
  SECTION("m and n whole multiples of the copies' padding") {
    const int64_t m = 2304, n = 2176;
    REQUIRE(2.0 * m * n * k >= tgemm::tuning::sm90::layout_pack_flops);
    REQUIRE(std::min(m, n) >= tgemm::tuning::sm90::layout_pack_min_extent);
    const std::vector<int64_t> rows = {0, 1, 3, 255, 256, 257, 1023, 1024, 1500, 2047, 2048, 2302, 2303};
    const std::vector<int64_t> cols = {0, 1, 127, 128, 129, 1000, 1919, 1920, 2047, 2048, 2174, 2175};
    for (const auto& ops : op_pairs) check_sampled(ops[0], ops[1], m, n, k, rows, cols);
  }
  SECTION("a large tile's worth of waves over a padded copy of B (the padded kernel)") {
    // n = 3900 pads B's copy to 4096 columns; 16 x 31 blocks of 256 x 128 fill several waves, so the large tile
    // runs, as the padded kernel, and its right-hand blocks load through the padding.
    const int64_t m = 4000, n = 3900, k2 = 600;
    REQUIRE(2.0 * m * n * k2 >= tgemm::tuning::sm90::layout_pack_flops);
    REQUIRE(n % tgemm::tuning::sm90::pack_padding != 0);
    const std::vector<int64_t> rows = {0, 1, 255, 256, 2047, 3839, 3840, 3998, 3999};
    const std::vector<int64_t> cols = {0, 1, 127, 128, 3839, 3840, 3841, 3898, 3899};
    check_sampled(op::none, op::none, m, n, k2, rows, cols);
    check_sampled(op::transpose, op::none, m, n, k2, rows, cols);
  }
  SECTION("ragged m and n: the edge blocks read the copies' zero padding") {
    // The copies are padded to whole 256-row (column) tiles and declared readable, so the last row and column of
    // blocks load whole tiles; only their stores are bounded.
    const int64_t m = 2300, n = 2172;
    REQUIRE(m % tgemm::tuning::sm90::pack_padding != 0);
    REQUIRE(n % tgemm::tuning::sm90::pack_padding != 0);
    const std::vector<int64_t> rows = {0, 1, 255, 256, 1024, 2047, 2048, 2049, 2296, 2298, 2299};
    const std::vector<int64_t> cols = {0, 1, 127, 128, 1000, 2047, 2048, 2049, 2168, 2170, 2171};
    for (const auto& ops : op_pairs) check_sampled(ops[0], ops[1], m, n, k, rows, cols);
  }
}

TEST_CASE("an operand of more than 2^31 elements", "[gpu][huge]") {
  const int64_t m = 70000, k = 33000, n = 3;  // A: 2.31e9 elements (9.2 GB)
  const std::vector<int64_t> rows = {0, 1, 4095, 32767, 65535, 65536, 69999};
  const std::vector<int64_t> cols = {0, 2};
  SECTION("A not transposed: column-major m x k") { check_huge(op::none, op::none, m, n, k, rows, cols); }
  SECTION("A transposed: stored k x m") { check_huge(op::transpose, op::none, m, n, k, rows, cols); }
}

TEST_CASE("a C of more than 2^32 bytes", "[gpu][huge]") {
  const int64_t m = 33000, n = 33000, k = 12;  // C: 1.09e9 elements, 4.36 GB
  check_huge(op::none, op::transpose, m, n, k, {0, 17, 32999}, {0, 16384, 32767, 32999});
}
