// A paired probe (scripts/layout_probe.sh): tgemm::gemm() on float, column-major, every op pair, on the shapes of the
// thin tiles (tiny and narrow), a few medium and small ones, the scalar-load tile's (misaligned leading dimensions) and
// mid-sized ones whose A alone is misaligned, built against two include trees and run alternately: it compares the
// kernels of a change to the tiles' loads.
// Operands are random normal (the largest B is 256 MiB, past the L2); per case one checked-in call, three warm-up
// calls, then the median of REPS calls timed one event pair each; and a weighted sum of C, which two trees whose plans
// agree must reproduce to the last bit; then batches of 20 calls per event pair (median of 15: the GPU time per call
// when the host keeps ahead, which single calls of a 20-us product do not show) and the host's time to issue a call.
// Usage: tgemm_layout_probe [REPS] (default 30).
#include <tgemm/gemm.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "check_cuda.hpp"
#include "timing.hpp"

namespace {

struct shape {
  int64_t m, n, k, extra;  // extra: added to every leading dimension (1 makes them misaligned)
  bool a_only = false;     // extra added to A's leading dimension only
};

constexpr shape shapes[] = {{16, 8192, 8192, 0}, {8, 4096, 16384, 0}, {8192, 16, 8192, 0}, {4096, 8, 16384, 0},
                            {32, 8192, 8192, 0}, {24, 4096, 4096, 0}, {8192, 32, 8192, 0}, {4096, 24, 4096, 0},
                            {16, 1024, 1024, 0}, {1024, 32, 1024, 0}, {2000, 2000, 2000, 0}, {1000, 1000, 1000, 0},
                            {640, 640, 640, 0},  {512, 512, 512, 0},  {256, 256, 256, 0},  {255, 255, 255, 0},
                            {300, 300, 300, 1},  {500, 400, 300, 1},
                            // Mid-sized products whose A alone is misaligned: NN and TN copy A and read B in place
                            // along k (the large tile's padded-NN steps, which run the plain kernel since 73cb1a0).
                            {2047, 1500, 1024, 0}, {3000, 1000, 1024, 1, true}, {6000, 500, 1024, 1, true}};

}  // namespace

int main(int argc, char** argv) {
  using namespace tgemm;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 30;
  size_t elements = 0;
  for (const shape& s : shapes) {
    elements = std::max<size_t>(elements, size_t(std::max(s.m, s.k) + 1) * size_t(std::max(s.k, s.n) + 1));
  }
  std::vector<float> host(elements);
  std::mt19937 generator(7);
  std::normal_distribution<float> normal;
  for (float& x : host) x = normal(generator);
  float *a, *b, *c;
  const size_t c_bytes = size_t(64) << 20;
  TGEMM_CHECK_CUDA(cudaMalloc(&a, elements * sizeof(float)));
  TGEMM_CHECK_CUDA(cudaMalloc(&b, elements * sizeof(float)));
  TGEMM_CHECK_CUDA(cudaMalloc(&c, c_bytes));
  TGEMM_CHECK_CUDA(cudaMemcpy(a, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  std::reverse(host.begin(), host.end());
  TGEMM_CHECK_CUDA(cudaMemcpy(b, host.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  TGEMM_CHECK_CUDA(cudaEventCreate(&start));
  TGEMM_CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<float> out;
  for (const shape& s : shapes) {
    for (op op_a : {op::none, op::transpose}) {
      for (op op_b : {op::none, op::transpose}) {
        const int64_t lda = (op_a == op::none ? s.m : s.k) + s.extra;
        const int64_t ldb = (op_b == op::none ? s.k : s.n) + (s.a_only ? 0 : s.extra);
        const int64_t ldc = s.m + (s.a_only ? 0 : s.extra);
        const auto call = [&] {
          return gemm(layout::col_major, op_a, op_b, s.m, s.n, s.k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
        };
        TGEMM_CHECK_CUDA(cudaMemset(c, 0xff, size_t(ldc) * s.n * sizeof(float)));  // NaN: every element written
        if (call() != status::success) {
          std::printf("tgemm::gemm() failed: %s\n", last_error().message.c_str());
          return 1;
        }
        TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
        out.resize(size_t(ldc) * s.n);
        TGEMM_CHECK_CUDA(cudaMemcpy(out.data(), c, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
        double sum = 0;
        for (int64_t j = 0; j < s.n; ++j) {
          for (int64_t i = 0; i < s.m; ++i) sum += out[i + j * ldc] * double((i * 7 + j * 13) % 17 + 1);
        }
        for (int w = 0; w < 3; ++w) call();
        const double ms = tgemm::test::median_event_ms(call, reps, 0);  // exactly reps calls
        // Batches of 20 calls per event pair: the GPU time per call once the host keeps ahead of it, and the host's
        // microseconds to issue one call.
        std::vector<float> batched;
        double host_us = 0;
        for (int r = 0; r < 15; ++r) {
          TGEMM_CHECK_CUDA(cudaEventRecord(start));
          const auto issue = std::chrono::steady_clock::now();
          for (int i = 0; i < 20; ++i) call();
          host_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - issue).count() / 20;
          TGEMM_CHECK_CUDA(cudaEventRecord(stop));
          TGEMM_CHECK_CUDA(cudaEventSynchronize(stop));
          float batch_ms = 0;
          TGEMM_CHECK_CUDA(cudaEventElapsedTime(&batch_ms, start, stop));
          batched.push_back(batch_ms / 20);
        }
        std::printf("(%lld,%lld,%lld)+%lld%s %c%c %.5f ms %.2f TF sum %.6e batched %.5f ms host %.2f us\n",
                    (long long)s.m, (long long)s.n, (long long)s.k, (long long)s.extra, s.a_only ? "a" : "",
                    op_a == op::none ? 'N' : 'T', op_b == op::none ? 'N' : 'T', ms,
                    2.0 * double(s.m) * double(s.n) * double(s.k) / ms * 1e-9, sum, tgemm::test::median_of(batched),
                    host_us / 15);
      }
    }
  }
  return 0;
}
