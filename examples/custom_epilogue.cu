// tgemm_custom_epilogue: tgemm's block-level GEMM inside a kernel of your own, with a fused epilogue.
//
// The kernel below computes, for column-major A (m x k), B (k x n) and a bias vector (m),
//
//     C(i, j) = max(0, sum_l A(i, l) B(l, j) + bias(i))
//
// in one pass: tgemm::device::gemm() does the tiled product and hands every finished element to a functor,
// which adds the bias, applies the ReLU and stores. No intermediate C is written or read back.
//
// The size (300 x 200 x 123) is deliberately not a multiple of the tile, so the edge handling is exercised.
// The result is checked against a float64 loop on the host; the program prints PASS or FAIL (exit status 1).
#include <tgemm/gemm.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

void check_cuda(cudaError_t error, const char* call, int line) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "custom_epilogue.cu:%d: %s failed: %s (%s)\n", line, call, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(EXIT_FAILURE);
}
#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)

//! [policy]
// The policy fixes every tile size at compile time. This one (128 x 128 block tile, 8 x 8 per thread, float4
// loads, two pipeline stages) needs 16.5 KiB of shared memory: little enough for a plain __shared__ variable.
using policy = tgemm::seed::double_buffered;
static_assert(sizeof(tgemm::device::shared_storage<policy>) <= 48 * 1024,
              "static __shared__ storage is limited to 48 KiB; larger policies need dynamic shared memory");
//! [policy]

//! [epilogue]
// The epilogue: called once for every element of the block's tile that lies inside C, with the element's row and
// column (column-major convention) and the accumulated dot product.
struct bias_relu {
  const float* bias;  // m values, one per row of C
  float* c;           // column-major C
  int64_t ldc;

  __device__ void operator()(int64_t row, int64_t col, float value) const {
    const float x = value + bias[row];
    c[row + col * ldc] = x > 0.0f ? x : 0.0f;
  }
};
//! [epilogue]

//! [kernel]
// One thread block per block_m x block_n tile of C; the block must have exactly Policy::threads threads in x.
template <class Policy, class Epilogue>
__global__ void __launch_bounds__(Policy::threads) gemm_with_epilogue(tgemm::device::problem p, Epilogue epilogue) {
  __shared__ tgemm::device::shared_storage<Policy> smem;
  // Every thread of the block calls device::gemm (it synchronises the block internally).
  tgemm::device::gemm<Policy>(p, int64_t(blockIdx.x), int64_t(blockIdx.y), smem, epilogue);
}
//! [kernel]

/// Rounds x up to a multiple of `multiple`.
int64_t round_up(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }

/// Random values in [-1, -0.25] and [0.25, 1]: never zero.
std::vector<float> random_values(size_t count, std::mt19937& generator) {
  std::uniform_real_distribution<float> magnitude(0.25f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> values(count);
  for (float& x : values) x = negative(generator) ? -magnitude(generator) : magnitude(generator);
  return values;
}

uint32_t bits_of(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

}  // namespace

int main() {
  const int64_t m = 300, n = 200, k = 123;

  // The policy moves policy::vector_width (4) floats at a time, so every operand must start 16-byte aligned
  // (cudaMalloc guarantees that) and have a leading dimension that is a multiple of 4. B's natural leading
  // dimension, k = 123, is not: pad it. C gets a few spare rows, filled with a marker, to catch stray writes.
  const int64_t lda = round_up(m, policy::vector_width);
  const int64_t ldb = round_up(k, policy::vector_width);
  const int64_t ldc = round_up(m, policy::vector_width) + 4;
  const float nan = std::nanf("");

  // Operands, with NaN in the padding rows: padding is never part of the product, so it must never be read.
  std::mt19937 generator(7u);
  std::vector<float> a(size_t(lda * k), nan), b(size_t(ldb * n), nan);
  const std::vector<float> a_values = random_values(size_t(m * k), generator);
  const std::vector<float> b_values = random_values(size_t(k * n), generator);
  for (int64_t l = 0; l < k; ++l) {
    for (int64_t i = 0; i < m; ++i) a[size_t(i + l * lda)] = a_values[size_t(i + l * m)];
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t l = 0; l < k; ++l) b[size_t(l + j * ldb)] = b_values[size_t(l + j * k)];
  }
  std::vector<float> bias(static_cast<size_t>(m));
  std::uniform_real_distribution<float> bias_value(-0.5f, 0.5f);
  for (float& x : bias) x = bias_value(generator);

  float *d_a = nullptr, *d_b = nullptr, *d_bias = nullptr, *d_c = nullptr;
  CHECK_CUDA(cudaMalloc(&d_a, a.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_b, b.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_bias, bias.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_c, size_t(ldc * n) * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_a, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_b, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_bias, bias.data(), bias.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_c, 0xFF, size_t(ldc * n) * sizeof(float)));  // every word 0xFFFFFFFF, a NaN: "unwritten"

  // device::gemm does not check its arguments; the host-side tgemm::can_implement<Policy>() checks the same
  // shapes, leading dimensions and alignment that tgemm::launch<Policy>() would, without touching the device.
  const tgemm::status s = tgemm::can_implement<policy>(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m,
                                                       n, k, 1.0f, d_a, lda, d_b, ldb, 0.0f, d_c, ldc);
  if (s != tgemm::status::success) {
    std::fprintf(stderr, "can_implement<%s>: %s: %s\n", policy::name().c_str(), tgemm::to_string(s),
                 tgemm::last_error().message.c_str());
    return EXIT_FAILURE;
  }

  //! [launch]
  // The grid is ours to choose: here simply one block per tile, tile (x, y) = (blockIdx.x, blockIdx.y).
  const tgemm::device::problem problem{m, n, k, d_a, lda, d_b, ldb};
  const bias_relu epilogue{d_bias, d_c, ldc};
  const dim3 grid(unsigned((m + policy::block_m - 1) / policy::block_m),
                  unsigned((n + policy::block_n - 1) / policy::block_n));
  const dim3 block(policy::threads);
  gemm_with_epilogue<policy><<<grid, block>>>(problem, epilogue);
  CHECK_CUDA(cudaGetLastError());       // launch errors (bad configuration, no kernel image for this GPU)
  CHECK_CUDA(cudaDeviceSynchronize());  // errors while the kernel ran
  //! [launch]

  std::vector<float> c(size_t(ldc * n));
  CHECK_CUDA(cudaMemcpy(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // Reference in float64. Each FP32 element is within (k + 2) * eps * (sum_l |a b| + |bias|) of it (the ReLU
  // cannot increase a difference).
  int64_t wrong = 0, stray = 0;
  double worst = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double dot = 0.0, magnitude = 0.0;
      for (int64_t l = 0; l < k; ++l) {
        const double product = double(a[size_t(i + l * lda)]) * double(b[size_t(l + j * ldb)]);
        dot += product;
        magnitude += std::fabs(product);
      }
      const double expected = std::max(0.0, dot + double(bias[size_t(i)]));
      const double tolerance = double(k + 2) * double(FLT_EPSILON) * (magnitude + std::fabs(double(bias[size_t(i)])));
      const double error = std::fabs(double(c[size_t(i + j * ldc)]) - expected);
      if (!(error <= tolerance)) {  // NaN (never written, or padding read) fails too
        if (wrong < 5) {
          std::printf("  C(%lld, %lld) = %.9g, expected %.9g\n", (long long)i, (long long)j,
                      double(c[size_t(i + j * ldc)]), expected);
        }
        ++wrong;
      } else {
        worst = std::max(worst, error / tolerance);
      }
    }
    for (int64_t i = m; i < ldc; ++i) {
      if (bits_of(c[size_t(i + j * ldc)]) != 0xFFFFFFFFu) ++stray;  // rows past m must be untouched
    }
  }

  // Timing: a warm-up launch, then the median of 20.
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  gemm_with_epilogue<policy><<<grid, block>>>(problem, epilogue);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> times(20);
  for (float& ms : times) {
    CHECK_CUDA(cudaEventRecord(start));
    gemm_with_epilogue<policy><<<grid, block>>>(problem, epilogue);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  }
  std::sort(times.begin(), times.end());
  const double ms = 0.5 * (double(times[9]) + double(times[10]));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));

  CHECK_CUDA(cudaFree(d_a));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaFree(d_bias));
  CHECK_CUDA(cudaFree(d_c));

  std::printf("policy   : %s (%d threads per block, %zu bytes of shared memory)\n", policy::name().c_str(),
              policy::threads, sizeof(tgemm::device::shared_storage<policy>));
  std::printf("problem  : C = relu(A * B + bias), m = %lld, n = %lld, k = %lld, grid %u x %u\n", (long long)m,
              (long long)n, (long long)k, grid.x, grid.y);
  std::printf("check    : %lld of %lld elements wrong, %lld stray writes past row m, worst error %.3f of its bound\n",
              (long long)wrong, (long long)(m * n), (long long)stray, worst);
  std::printf("time     : %.3f ms per launch (median of %zu)\n", ms, times.size());
  const bool ok = wrong == 0 && stray == 0;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
