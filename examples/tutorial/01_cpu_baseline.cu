// Step 1: the CPU baseline. C = A B with three nested loops on one host core.
//
// Everything later in the tutorial computes exactly this, only faster. The program is here for two reasons:
// it fixes the conventions every step shares (row-major A (m x k), B (k x n) and C (m x n), element (i, j) of
// C at c[i * n + j]; 2 m n k floating-point operations per product), and it gives a sense of scale: a good
// GPU GEMM is thousands of times faster than this loop.
//
// The loop order is i, l, j rather than the textbook i, j, l: the innermost loop then walks along a row of B and
// a row of C, both contiguous, instead of down a column of B with a stride of n floats. That is the same idea
// as coalescing on the GPU (step 3): neighbouring iterations should touch neighbouring addresses.
//
// Usage: tgemm_tutorial_01_cpu_baseline [n]   (an n x n x n product, default 512)
#include "common.cuh"

#include <chrono>

namespace {

//! [loop]
/// C = A B for row-major matrices; every element of C accumulates in float, as the GPU kernels do.
void cpu_gemm(int m, int n, int k, const float* a, const float* b, float* c) {
  for (int i = 0; i < m; ++i) {
    float* c_row = c + size_t(i) * n;
    for (int j = 0; j < n; ++j) c_row[j] = 0.0f;
    for (int l = 0; l < k; ++l) {
      const float a_il = a[size_t(i) * k + l];
      const float* b_row = b + size_t(l) * n;
      for (int j = 0; j < n; ++j) c_row[j] += a_il * b_row[j];  // contiguous in j: the compiler vectorises it
    }
  }
}
//! [loop]

}  // namespace

int main(int argc, char** argv) {
  const int n = tutorial::size_argument(argc, argv, 512);
  const int m = n, k = n;
  const std::vector<float> a = tutorial::random_values(size_t(m) * k, 1);
  const std::vector<float> b = tutorial::random_values(size_t(k) * n, 2);
  std::vector<float> c(size_t(m) * n);

  // Time with a steady clock: one warm-up run (page faults, caches), then the median of five.
  cpu_gemm(m, n, k, a.data(), b.data(), c.data());
  std::vector<double> times;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    cpu_gemm(m, n, k, a.data(), b.data(), c.data());
    const auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::sort(times.begin(), times.end());

  const bool ok = tutorial::check_product("cpu_gemm", m, n, k, tutorial::host_view{a.data(), k, 1},
                                          tutorial::host_view{b.data(), n, 1}, tutorial::host_view{c.data(), n, 1});
  tutorial::print_time("cpu_gemm (one core)", m, n, k, times[2], 5);
  return tutorial::finish(ok);
}
