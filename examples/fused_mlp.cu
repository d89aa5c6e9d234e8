// A transformer's MLP block in bfloat16, as PyTorch lays it out (row-major activations, nn.Linear weights stored
// out_features x in_features), with the bias and the activation fused into the GEMMs' stores:
//
//   H = GELU(X W1^T + b1)     tgemm::gemm() with a tgemm::epilogue: column_bias = b1, act = gelu_tanh
//   Y = H W2^T + b2 + X       the second GEMM adds b2 and, with beta = 1, the residual X (C), writing Y (D)
//
// Neither bias, nor the GELU, nor the residual costs a pass over the activations of its own. The result is checked
// against float64 on the host for a sample of rows (from the same bfloat16 inputs, H rounded to bfloat16 as the GPU
// stores it); the program exits with status 1 when an element is off by more than the bound below.
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK_CUDA(call)                                                                                   \
  do {                                                                                                     \
    const cudaError_t error_ = (call);                                                                     \
    if (error_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(error_));                          \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

#define CHECK_TGEMM(call)                                                                                  \
  do {                                                                                                     \
    const tgemm::status status_ = (call);                                                                  \
    if (status_ != tgemm::status::success) {                                                               \
      std::fprintf(stderr, "%s failed: %s\n", #call, tgemm::last_error().message.c_str());                 \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

namespace {

std::vector<__nv_bfloat16> random_bf16(size_t count, float scale, std::mt19937& random) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<__nv_bfloat16> v(count);
  for (auto& x : v) x = __float2bfloat16(normal(random));
  return v;
}

__nv_bfloat16* to_device(const std::vector<__nv_bfloat16>& v) {
  __nv_bfloat16* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, v.size() * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMemcpy(p, v.data(), v.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  return p;
}

double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

}  // namespace

int main() {
  const int64_t tokens = 2048, model = 1024, hidden = 4096;  // X: tokens x model, W1: hidden x model
  std::mt19937 random(11);
  const std::vector<__nv_bfloat16> x = random_bf16(size_t(tokens * model), 1.0f, random);
  const std::vector<__nv_bfloat16> w1 = random_bf16(size_t(hidden * model), 1.0f / std::sqrt(float(model)), random);
  const std::vector<__nv_bfloat16> b1 = random_bf16(size_t(hidden), 0.1f, random);
  const std::vector<__nv_bfloat16> w2 = random_bf16(size_t(model * hidden), 1.0f / std::sqrt(float(hidden)), random);
  const std::vector<__nv_bfloat16> b2 = random_bf16(size_t(model), 0.1f, random);
  __nv_bfloat16 *d_x = to_device(x), *d_w1 = to_device(w1), *d_b1 = to_device(b1), *d_w2 = to_device(w2),
                *d_b2 = to_device(b2), *d_h = nullptr, *d_y = nullptr;
  CHECK_CUDA(cudaMalloc(&d_h, size_t(tokens * hidden) * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMalloc(&d_y, size_t(tokens * model) * sizeof(__nv_bfloat16)));

  using tgemm::layout;
  using tgemm::op;
  // H (tokens x hidden) = GELU(X W1^T + b1): one bias per column of H.
  tgemm::epilogue<__nv_bfloat16> up;
  up.column_bias = d_b1;
  up.act = tgemm::activation::gelu_tanh;
  // Y (tokens x model) = H W2^T + b2 + X: C is the residual X (read, beta = 1), D is Y.
  tgemm::epilogue<__nv_bfloat16> down;
  down.column_bias = d_b2;
  down.d = d_y, down.ldd = model;

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const auto layer = [&] {
    CHECK_TGEMM(tgemm::gemm(layout::row_major, op::none, op::transpose, tokens, hidden, model, 1.0f, d_x, model, d_w1,
                            model, 0.0f, d_h, hidden, up));
    CHECK_TGEMM(tgemm::gemm(layout::row_major, op::none, op::transpose, tokens, model, hidden, 1.0f, d_h, hidden, d_w2,
                            hidden, 1.0f, d_x, model, down));
  };
  layer();  // warm-up (and the run checked below)
  CHECK_CUDA(cudaEventRecord(start));
  for (int i = 0; i < 10; ++i) layer();
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  ms /= 10;
  const double flops = 2.0 * 2.0 * double(tokens) * double(model) * double(hidden);
  std::printf("MLP block, %lld tokens, %lld -> %lld -> %lld, bfloat16: %.3f ms, %.1f TFLOP/s\n", (long long)tokens,
              (long long)model, (long long)hidden, (long long)model, ms, flops / (ms * 1e9));

  std::vector<__nv_bfloat16> h(size_t(tokens * hidden)), y(size_t(tokens * model));
  CHECK_CUDA(cudaMemcpy(h.data(), d_h, h.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(y.data(), d_y, y.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  // Every 97th row: H from X, then Y from the GPU's H (rounded as stored), each within bfloat16's rounding of its
  // magnitude plus the sums' float error (2^-8 of the value, 2^-16 per unit of the products' magnitude).
  int64_t bad = 0;
  for (int64_t t = 0; t < tokens; t += 97) {
    for (int64_t j = 0; j < hidden; ++j) {
      double sum = __bfloat162float(b1[size_t(j)]), magnitude = std::fabs(sum);
      for (int64_t l = 0; l < model; ++l) {
        const double p = double(__bfloat162float(x[size_t(t * model + l)])) * __bfloat162float(w1[size_t(j * model + l)]);
        sum += p, magnitude += std::fabs(p);
      }
      const double want = gelu_tanh(sum), got = __bfloat162float(h[size_t(t * hidden + j)]);
      bad += !(std::fabs(got - want) <= std::ldexp(std::fabs(want), -7) + std::ldexp(magnitude, -14) + 1e-3);
    }
    for (int64_t j = 0; j < model; ++j) {
      double sum = double(__bfloat162float(b2[size_t(j)])) + __bfloat162float(x[size_t(t * model + j)]);
      double magnitude = std::fabs(sum);
      for (int64_t l = 0; l < hidden; ++l) {
        const double p = double(__bfloat162float(h[size_t(t * hidden + l)])) * __bfloat162float(w2[size_t(j * hidden + l)]);
        sum += p, magnitude += std::fabs(p);
      }
      const double got = __bfloat162float(y[size_t(t * model + j)]);
      bad += !(std::fabs(got - sum) <= std::ldexp(std::fabs(sum), -7) + std::ldexp(magnitude, -14) + 1e-3);
    }
  }
  std::printf("checked every 97th token against float64: %lld elements out of bound\n", (long long)bad);
  for (__nv_bfloat16* p : {d_x, d_w1, d_b1, d_w2, d_b2, d_h, d_y}) CHECK_CUDA(cudaFree(p));
  return bad == 0 ? 0 : 1;
}
