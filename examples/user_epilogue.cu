// tgemm_user_epilogue: your own epilogue operation as a __device__ lambda, through tgemm::gemm() (tgemm::with_op).
//
// Attention logits with a "soft cap" (as some language models bound their logits), for row-major bfloat16 queries Q
// (m x k) and keys K (n x k) with a float mask value per key:
//
//     S(i, j) = cap * tanh((Q K^T)(i, j) / (cap sqrt(k)))   where mask[j] == 0, else -inf
//
// The 1 / sqrt(k) scale is alpha; the soft cap and the mask are the lambda, which tgemm calls on every result inside
// its GEMM kernels (with the element's row, column and batch index), so S is written once. The lambda captures the
// cap by value and the mask by device pointer; it needs nvcc's --extended-lambda (examples/CMakeLists.txt sets it
// for this program). Calls with your own operation compile their kernels where they are made, so this file is in
// tgemm's header-only mode even though the other examples use the compiled library (#undef TGEMM_COMPILED below).
//
// The result is checked against a float64 loop on the host; the program prints PASS or FAIL (exit status 1).
#undef TGEMM_COMPILED
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

namespace {

void check_cuda(cudaError_t error, const char* call, int line) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "user_epilogue.cu:%d: %s failed: %s (%s)\n", line, call, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(EXIT_FAILURE);
}
#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)

}  // namespace

int main() {
  const int64_t m = 384, n = 520, k = 128;  // queries, keys, head dimension
  const float cap = 30.0f, alpha = 1.0f / std::sqrt(float(k));
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 4.0f);  // large enough that the cap bends some logits
  std::vector<__nv_bfloat16> q(size_t(m * k)), keys(size_t(n * k));
  for (auto& x : q) x = __float2bfloat16(normal(rng));
  for (auto& x : keys) x = __float2bfloat16(normal(rng));
  std::vector<float> mask(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) mask[size_t(j)] = j % 7 == 3 ? 1.0f : 0.0f;  // every seventh key masked

  __nv_bfloat16 *dq = nullptr, *dk = nullptr;
  float *dmask = nullptr, *ds = nullptr;
  CHECK_CUDA(cudaMalloc(&dq, q.size() * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMalloc(&dk, keys.size() * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMalloc(&dmask, mask.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&ds, size_t(m * n) * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dq, q.data(), q.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dk, keys.data(), keys.size() * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dmask, mask.data(), mask.size() * sizeof(float), cudaMemcpyHostToDevice));

  // v is alpha (Q K^T)(i, j) in float; i and j are the row and column of row-major S.
  const float* masked = dmask;
  const auto soft_cap = [cap, masked] __device__(float v, int64_t, int64_t j, int64_t) {
    return masked[j] != 0.0f ? -INFINITY : cap * tanhf(v / cap);
  };
  // S (m x n, row-major) = alpha Q K^T: op(B) = K^T, with K stored row-major n x k (ldb = k).
  const tgemm::status s =
      tgemm::gemm(tgemm::layout::row_major, tgemm::op::none, tgemm::op::transpose, m, n, k, alpha, dq, k, dk, k, 0.0f,
                  ds, n, tgemm::with_op(tgemm::epilogue<float>{}, soft_cap));
  if (s != tgemm::status::success) {
    std::fprintf(stderr, "tgemm::gemm failed: %s\n", tgemm::last_error().message.c_str());
    return EXIT_FAILURE;
  }
  std::vector<float> got(size_t(m * n));
  CHECK_CUDA(cudaMemcpy(got.data(), ds, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // float64 reference: the same formula on the same bfloat16 inputs. Bound: float accumulation of k products (k u
  // of their magnitude, scaled by alpha; tanh's slope is at most 1) plus tanhf's few units of float on the cap.
  int64_t bad = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const float g = got[size_t(i * n + j)];
      if (mask[size_t(j)] != 0.0f) {
        bad += !(std::isinf(g) && g < 0);
        continue;
      }
      double sum = 0, magnitude = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double x = double(__bfloat162float(q[size_t(i * k + l)])) * __bfloat162float(keys[size_t(j * k + l)]);
        sum += x, magnitude += std::fabs(x);
      }
      const double want = cap * std::tanh(alpha * sum / cap);
      const double allowed = double(k) * std::ldexp(1.0, -24) * alpha * magnitude + 8 * std::ldexp(1.0, -24) * cap;
      bad += !(std::fabs(g - want) <= allowed);
    }
  }
  CHECK_CUDA(cudaFree(dq));
  CHECK_CUDA(cudaFree(dk));
  CHECK_CUDA(cudaFree(dmask));
  CHECK_CUDA(cudaFree(ds));
  std::printf("soft-capped, masked logits %lld x %lld (k = %lld) through a __device__ lambda: %lld of %lld outside "
              "the bound: %s\n",
              (long long)m, (long long)n, (long long)k, (long long)bad, (long long)(m * n), bad == 0 ? "PASS" : "FAIL");
  return bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
