// Determinism of tgemm::gemm(): the same call on the same inputs gives C bit for bit identical
//   - across 10 runs in a row on the default stream, and
//   - across runs on 4 streams at once, each writing its own copy of C (twice),
// on a square shape, an odd shape with misaligned pointers and odd leading dimensions, and the skinny and tall
// shapes the dispatcher splits along k (the split-K partials are summed in a fixed order). The first run is also
// checked against float64 dot products on sampled elements, so "identical" means "identically right".
#include "catch.hpp"
#include "cuda_check.hpp"
#include "device_values.cuh"
#include "random.hpp"
#include "reference.hpp"

#include <tgemm/gemm.cuh>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace tgemm;
using namespace tgemm::test;

namespace {

struct determinism_case {
  const char* name;
  layout order;
  op op_a, op_b;
  int64_t m, n, k;
  int64_t pad;     // added to every leading dimension
  int64_t offset;  // A, B and C start offset, offset + 1 and offset + 2 floats past aligned addresses
  float alpha, beta;
};

const determinism_case cases[] = {
    {"square 1024^3", layout::col_major, op::none, op::none, 1024, 1024, 1024, 0, 0, 1.0f, 0.0f},
    {"odd shape, misaligned pointers, odd leading dimensions", layout::row_major, op::transpose, op::none, 1001, 999,
     1003, 1, 1, 1.5f, -0.5f},
    {"skinny 256x256x16384", layout::col_major, op::none, op::transpose, 256, 256, 16384, 0, 0, 1.0f, 0.5f},
    {"skinny 16x8192x8192", layout::row_major, op::none, op::none, 16, 8192, 8192, 0, 0, 1.0f, 0.0f},
    {"skinny 128x4096x4096", layout::col_major, op::transpose, op::none, 128, 4096, 4096, 0, 0, -1.0f, 1.0f},
    {"tall 8192x16x8192", layout::col_major, op::none, op::none, 8192, 16, 8192, 0, 0, 1.0f, 0.0f},
    {"skinny and misaligned 255x257x12289 (repacked, then split)", layout::col_major, op::none, op::none, 255, 257,
     12289, 3, 1, 0.75f, 0.25f},
};

constexpr int sequential_runs = 10;
constexpr int streams = 4;

}  // namespace

TEST_CASE("gemm() gives bit-identical C across repeated runs and across streams", "[gpu][determinism]") {
  for (const determinism_case& d : cases) {
    INFO(d.name << ": " << to_string(d.order) << " op_a=" << to_string(d.op_a) << " op_b=" << to_string(d.op_b)
                << " m=" << d.m << " n=" << d.n << " k=" << d.k);
    const int64_t lda = min_ld(d.order, d.op_a, d.m, d.k) + d.pad;
    const int64_t ldb = min_ld(d.order, d.op_b, d.k, d.n) + d.pad;
    const int64_t ldc = min_ld(d.order, op::none, d.m, d.n) + d.pad;
    const int64_t a_count = stored_elements(d.order, d.op_a, d.m, d.k, lda);
    const int64_t b_count = stored_elements(d.order, d.op_b, d.k, d.n, ldb);
    const int64_t c_count = stored_elements(d.order, op::none, d.m, d.n, ldc);
    const int64_t offset_a = d.offset, offset_b = d.offset ? d.offset + 1 : 0, offset_c = d.offset ? d.offset + 2 : 0;
    const uint64_t seed_a = run_seed() * 3 + 11, seed_b = run_seed() * 5 + 13, seed_c = run_seed() * 7 + 17;

    device_buffer<float> a(size_t(a_count + offset_a)), b(size_t(b_count + offset_b)), c0(size_t(c_count + offset_c));
    TGEMM_CUDA_REQUIRE(reliability::fill_device(a.get(), a.size(), seed_a));
    TGEMM_CUDA_REQUIRE(reliability::fill_device(b.get(), b.size(), seed_b));
    TGEMM_CUDA_REQUIRE(reliability::fill_device(c0.get(), c0.size(), seed_c));
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());

    const auto call = [&](float* c, cudaStream_t stream) {
      return gemm(d.order, d.op_a, d.op_b, d.m, d.n, d.k, d.alpha, a.get() + offset_a, lda, b.get() + offset_b, ldb,
                  d.beta, c + offset_c, ldc, stream);
    };
    const size_t c_bytes = c0.size() * sizeof(float);

    // 10 runs in a row on the default stream.
    device_buffer<float> c(c0.size());
    std::vector<float> first;
    int differing_runs = 0;
    for (int run = 0; run < sequential_runs; ++run) {
      TGEMM_CUDA_REQUIRE(cudaMemcpy(c.get(), c0.get(), c_bytes, cudaMemcpyDeviceToDevice));
      const status s = call(c.get(), nullptr);
      INFO("run " << run << ": " << to_string(s) << " " << (s == status::success ? "" : last_error().message));
      REQUIRE(s == status::success);
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
      std::vector<float> out = c.download();
      if (run == 0) {
        first = std::move(out);
      } else if (std::memcmp(first.data(), out.data(), c_bytes) != 0) {
        ++differing_runs;
      }
    }
    CHECK(differing_runs == 0);

    // The first result is right: sampled elements against float64 dot products of the same generated values.
    const auto a_at = [&](int64_t i, int64_t l) {
      return double(reliability::value_at(seed_a, uint64_t(offset_a + op_index_of(d.order, d.op_a, i, l, lda))));
    };
    const auto b_at = [&](int64_t l, int64_t j) {
      return double(reliability::value_at(seed_b, uint64_t(offset_b + op_index_of(d.order, d.op_b, l, j, ldb))));
    };
    int64_t wrong = 0;
    for (int sample = 0; sample < 64; ++sample) {
      const int64_t i = (sample * 7919) % d.m, j = (sample * 104729 + 3) % d.n;
      const int64_t at = offset_c + index_of(d.order, i, j, ldc);
      double sum = 0, magnitude = 0;
      for (int64_t l = 0; l < d.k; ++l) {
        const double p = a_at(i, l) * b_at(l, j);
        sum += p;
        magnitude += std::fabs(p);
      }
      const double old = reliability::value_at(seed_c, uint64_t(at));
      const double expected = double(d.alpha) * sum + (d.beta != 0.0f ? double(d.beta) * old : 0.0);
      const double allowed = error_factor(d.k) * (std::fabs(double(d.alpha)) * magnitude +
                                                  (d.beta != 0.0f ? std::fabs(double(d.beta) * old) : 0.0));
      if (!(std::fabs(double(first[size_t(at)]) - expected) <= allowed)) ++wrong;
    }
    CHECK(wrong == 0);

    // The same call on 4 streams at once, each on its own C, twice.
    cudaStream_t stream[streams];
    for (cudaStream_t& s : stream) TGEMM_CUDA_REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<std::unique_ptr<device_buffer<float>>> outputs;
    for (int s = 0; s < streams; ++s) outputs.push_back(std::make_unique<device_buffer<float>>(c0.size()));
    int differing_streams = 0;
    for (int round = 0; round < 2; ++round) {
      for (int s = 0; s < streams; ++s) {
        TGEMM_CUDA_REQUIRE(cudaMemcpyAsync(outputs[size_t(s)]->get(), c0.get(), c_bytes, cudaMemcpyDeviceToDevice,
                                           stream[s]));
        const status st = call(outputs[size_t(s)]->get(), stream[s]);
        INFO("stream " << s << ": " << to_string(st) << " " << (st == status::success ? "" : last_error().message));
        REQUIRE(st == status::success);
      }
      for (cudaStream_t& s : stream) TGEMM_CUDA_REQUIRE(cudaStreamSynchronize(s));
      for (int s = 0; s < streams; ++s) {
        const std::vector<float> out = outputs[size_t(s)]->download();
        if (std::memcmp(first.data(), out.data(), c_bytes) != 0) ++differing_streams;
      }
    }
    for (cudaStream_t& s : stream) TGEMM_CUDA_REQUIRE(cudaStreamDestroy(s));
    CHECK(differing_streams == 0);
  }
}
