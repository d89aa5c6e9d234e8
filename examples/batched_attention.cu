// Attention-like strided batches: for each of `heads` heads, scores S = Q K^T / sqrt(d) and then O = S V, in
// bfloat16 with float accumulation, as two calls that each multiply every head at once.
//
//   - S = Q K^T: tgemm::gemm_strided_batched() on pointers, row-major, K read transposed (op_b), one head's Q, K
//     and S `seq x d`, `seq x d` and `seq x seq` elements apart;
//   - O = S V: the same call on rank-3 mdspan views (head, row, column), whose strides say all of that.
//
// (A real attention layer applies a softmax to S between the two; it is left out to keep the check simple.) The
// result is checked against float64 on the host, from the same bfloat16 inputs, with S rounded to bfloat16 as the
// GPU stores it; the program exits with status 1 when an element is off by more than the bound below.
#include <tgemm/gemm.cuh>

#include <cuda/std/mdspan>  // tgemm does not include it
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

int main() {
  const int64_t heads = 64, seq = 256, d = 64;
  const int64_t qk_elements = heads * seq * d, s_elements = heads * seq * seq;
  std::mt19937 random(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<__nv_bfloat16> q(qk_elements), k(qk_elements), v(qk_elements);
  for (auto* x : {&q, &k, &v}) {
    for (__nv_bfloat16& e : *x) e = __float2bfloat16(normal(random));
  }
  __nv_bfloat16 *d_q, *d_k, *d_v, *d_s, *d_o;
  for (auto* p : {&d_q, &d_k, &d_v, &d_o}) CHECK_CUDA(cudaMalloc(p, qk_elements * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMalloc(&d_s, s_elements * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMemcpy(d_q, q.data(), qk_elements * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_k, k.data(), qk_elements * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_v, v.data(), qk_elements * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const float scale = 1.0f / std::sqrt(float(d));
  auto attention = [&] {
    // S[h] = scale Q[h] K[h]^T: row-major, seq x seq from seq x d times (seq x d)^T.
    CHECK_TGEMM(tgemm::gemm_strided_batched(tgemm::layout::row_major, tgemm::op::none, tgemm::op::transpose, seq, seq,
                                            d, scale, d_q, d, seq * d, d_k, d, seq * d, 0.0f, d_s, seq, seq * seq,
                                            heads));
    // O[h] = S[h] V[h], on views of extents (head, row, column).
    using extents = cuda::std::dextents<int64_t, 3>;
    cuda::std::mdspan<const __nv_bfloat16, extents, cuda::std::layout_right> s_view(d_s, heads, seq, seq);
    cuda::std::mdspan<const __nv_bfloat16, extents, cuda::std::layout_right> v_view(d_v, heads, seq, d);
    cuda::std::mdspan<__nv_bfloat16, extents, cuda::std::layout_right> o_view(d_o, heads, seq, d);
    CHECK_TGEMM(tgemm::gemm_strided_batched(1.0f, s_view, v_view, 0.0f, o_view));
  };
  attention();  // warm-up: the first call reads the device and loads the kernels
  CHECK_CUDA(cudaEventRecord(start));
  const int reps = 20;
  for (int i = 0; i < reps; ++i) attention();
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  ms /= reps;
  const double flops = 2.0 * 2.0 * double(heads) * double(seq) * double(seq) * double(d);
  std::printf("%lld heads, sequence %lld, head size %lld: S = Q K^T and O = S V in %.4f ms (%.1f TFLOP/s)\n",
              (long long)heads, (long long)seq, (long long)d, ms, flops / (ms * 1e-3) / 1e12);

  std::vector<__nv_bfloat16> s(s_elements), o(qk_elements);
  CHECK_CUDA(cudaMemcpy(s.data(), d_s, s_elements * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(o.data(), d_o, qk_elements * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  // Each element's bound: float accumulation over the sum of |terms| ((length + 4) 2^-23), plus the final rounding
  // to bfloat16 (2^-8 of the value). O is checked against the GPU's own S (already rounded), so S's rounding does
  // not compound.
  int64_t bad = 0;
  double worst = 0;
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < seq; ++i) {
      for (int64_t j = 0; j < seq; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < d; ++l) {
          const double term = double(__bfloat162float(q[(h * seq + i) * d + l])) * __bfloat162float(k[(h * seq + j) * d + l]);
          sum += term, magnitude += std::fabs(term);
        }
        const double want = scale * sum, got = __bfloat162float(s[(h * seq + i) * seq + j]);
        const double bound = (d + 4) * std::ldexp(1.0, -23) * scale * magnitude + std::ldexp(1.0, -8) * std::fabs(want);
        if (!(std::fabs(got - want) <= bound)) ++bad;
        worst = std::max(worst, std::fabs(got - want) / (bound > 0 ? bound : 1));
      }
      for (int64_t j = 0; j < d; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < seq; ++l) {
          const double term = double(__bfloat162float(s[(h * seq + i) * seq + l])) * __bfloat162float(v[(h * seq + l) * d + j]);
          sum += term, magnitude += std::fabs(term);
        }
        const double got = __bfloat162float(o[(h * seq + i) * d + j]);
        const double bound = (seq + 4) * std::ldexp(1.0, -23) * magnitude + std::ldexp(1.0, -8) * std::fabs(sum);
        if (!(std::fabs(got - sum) <= bound)) ++bad;
        worst = std::max(worst, std::fabs(got - sum) / (bound > 0 ? bound : 1));
      }
    }
  }
  std::printf("check against float64: %lld elements out of bound, worst at %.2f of its bound: %s\n", (long long)bad,
              worst, bad == 0 ? "PASSED" : "FAILED");
  for (auto* p : {d_q, d_k, d_v, d_s, d_o}) CHECK_CUDA(cudaFree(p));
  return bad == 0 ? 0 : 1;
}
