// A mixture-of-experts layer in bfloat16: the tokens routed to each expert sit one expert after another in one
// buffer (row-major, as PyTorch sorts them), every expert has its own weights (nn.Linear's out_features x
// in_features) and its own token count, and each projection of all experts is one tgemm::gemm_grouped() call:
//
//   H_e = GELU(X_e W1_e^T + b1_e)   a group per expert, each with a tgemm::epilogue (column_bias b1_e, gelu_tanh)
//   Y_e = H_e W2_e^T                a group per expert, written in place of the expert's rows of Y
//
// An expert that received no tokens is a group with m = 0 (nothing to do, nothing touched). The result is checked
// against float64 on the host for a sample of each expert's tokens (from the same bfloat16 inputs, H rounded to
// bfloat16 as the GPU stores it); the program exits with status 1 when an element is off by more than the bound.
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

double value(const __nv_bfloat16& x) { return double(__bfloat162float(x)); }

}  // namespace

int main() {
  const int64_t model = 1024, hidden = 2048;
  // Tokens per expert, as a router might leave them (one expert got none).
  const std::vector<int64_t> counts = {512, 64, 1536, 0, 256, 2048, 128, 768};
  const int64_t experts = int64_t(counts.size());
  std::vector<int64_t> first(counts.size(), 0);  // each expert's first row in X, H and Y
  int64_t tokens = 0;
  for (int64_t e = 0; e < experts; ++e) first[size_t(e)] = tokens, tokens += counts[size_t(e)];

  std::mt19937 random(7);
  const auto x = random_bf16(size_t(tokens * model), 1.0f, random);
  const auto w1 = random_bf16(size_t(experts * hidden * model), 1.0f / std::sqrt(float(model)), random);
  const auto b1 = random_bf16(size_t(experts * hidden), 0.1f, random);
  const auto w2 = random_bf16(size_t(experts * model * hidden), 1.0f / std::sqrt(float(hidden)), random);
  __nv_bfloat16 *d_x = to_device(x), *d_w1 = to_device(w1), *d_b1 = to_device(b1), *d_w2 = to_device(w2);
  __nv_bfloat16 *d_h = nullptr, *d_y = nullptr;
  CHECK_CUDA(cudaMalloc(&d_h, size_t(tokens * hidden) * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMalloc(&d_y, size_t(tokens * model) * sizeof(__nv_bfloat16)));

  // One group per expert and projection. Row-major: op(A) = X_e (count x model), op(B) = W1_e^T (model x hidden).
  std::vector<tgemm::epilogue<__nv_bfloat16>> up_epilogues(counts.size());
  std::vector<tgemm::gemm_group<__nv_bfloat16>> up(counts.size()), down(counts.size());
  for (int64_t e = 0; e < experts; ++e) {
    const size_t i = size_t(e);
    up_epilogues[i].column_bias = d_b1 + e * hidden;
    up_epilogues[i].act = tgemm::activation::gelu_tanh;
    up[i].op_b = tgemm::op::transpose;
    up[i].m = counts[i], up[i].n = hidden, up[i].k = model;
    up[i].a = d_x + first[i] * model, up[i].lda = model;
    up[i].b = d_w1 + e * hidden * model, up[i].ldb = model;
    up[i].c = d_h + first[i] * hidden, up[i].ldc = hidden;
    up[i].ep = &up_epilogues[i];
    down[i].op_b = tgemm::op::transpose;
    down[i].m = counts[i], down[i].n = model, down[i].k = hidden;
    down[i].a = d_h + first[i] * hidden, down[i].lda = hidden;
    down[i].b = d_w2 + e * model * hidden, down[i].ldb = hidden;
    down[i].c = d_y + first[i] * model, down[i].ldc = model;
  }

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const auto layer = [&] {
    CHECK_TGEMM(tgemm::gemm_grouped(tgemm::layout::row_major, up.data(), experts));
    CHECK_TGEMM(tgemm::gemm_grouped(tgemm::layout::row_major, down.data(), experts));
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
  std::printf("experts layer, %lld experts, %lld tokens, %lld -> %lld -> %lld, bfloat16: %.3f ms, %.1f TFLOP/s\n",
              (long long)experts, (long long)tokens, (long long)model, (long long)hidden, (long long)model, ms,
              flops / (ms * 1e9));

  std::vector<__nv_bfloat16> h(size_t(tokens * hidden)), y(size_t(tokens * model));
  CHECK_CUDA(cudaMemcpy(h.data(), d_h, h.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(y.data(), d_y, y.size() * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  // Every 61st token of each expert (and its last): H from X, then Y from the GPU's H (rounded as stored), each
  // within bfloat16's rounding of its magnitude plus the sums' float error.
  int64_t bad = 0, checked = 0;
  for (int64_t e = 0; e < experts; ++e) {
    const int64_t count = counts[size_t(e)];
    std::vector<int64_t> sample;
    for (int64_t t = 0; t < count; t += 61) sample.push_back(t);
    if (count > 0 && sample.back() != count - 1) sample.push_back(count - 1);
    for (const int64_t t : sample) {
      const int64_t row = first[size_t(e)] + t;
      for (int64_t j = 0; j < hidden; ++j) {
        double sum = value(b1[size_t(e * hidden + j)]), magnitude = std::fabs(sum);
        for (int64_t l = 0; l < model; ++l) {
          const double p = value(x[size_t(row * model + l)]) * value(w1[size_t((e * hidden + j) * model + l)]);
          sum += p, magnitude += std::fabs(p);
        }
        const double want = gelu_tanh(sum), got = value(h[size_t(row * hidden + j)]);
        bad += !(std::fabs(got - want) <= std::ldexp(std::fabs(want), -7) + std::ldexp(magnitude, -14) + 1e-3);
      }
      for (int64_t j = 0; j < model; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < hidden; ++l) {
          const double p = value(h[size_t(row * hidden + l)]) * value(w2[size_t((e * model + j) * hidden + l)]);
          sum += p, magnitude += std::fabs(p);
        }
        const double got = value(y[size_t(row * model + j)]);
        bad += !(std::fabs(got - sum) <= std::ldexp(std::fabs(sum), -7) + std::ldexp(magnitude, -14) + 1e-3);
      }
      ++checked;
    }
  }
  std::printf("checked %lld tokens against float64: %lld elements out of bound\n", (long long)checked,
              (long long)bad);
  for (__nv_bfloat16* p : {d_x, d_w1, d_b1, d_w2, d_h, d_y}) CHECK_CUDA(cudaFree(p));
  return bad == 0 ? 0 : 1;
}
