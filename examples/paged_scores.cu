// Pointer-array batches: attention scores against a paged key cache, S_r = Q_r K_r^T / sqrt(d) for every request r
// of a serving batch, in one tgemm::gemm_batched() call (cuBLAS's cublasGemmBatchedEx).
//
// A paged cache keeps each request's keys in fixed-size blocks from one pool, wherever a free block was: request r's
// block is block `where[r]` of the pool, in no order. A strided batch cannot describe that; a device array of
// pointers can. So the call gets three arrays: Q_r (one contiguous buffer, `q_len x d` per request), K_r (the pool's
// block, `block_tokens x d`, read transposed) and S_r (`q_len x block_tokens`, float, here also placed out of order).
// Q and K are bfloat16, the products summed in float, S float.
//
// The program checks every S_r against float64 on the host (from the same bfloat16 inputs), shows that a bad call
// (a negative batch count) returns a named status and leaves S untouched, prints the call's time, and exits with
// status 1 when anything is off.
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
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

int main() {
  using bf16 = __nv_bfloat16;
  const int64_t requests = 48, q_len = 128, block_tokens = 256, d = 128, pool_blocks = 96;
  const float scale = 1.0f / std::sqrt(float(d));
  std::mt19937 random(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);

  // The pool of key blocks, the queries, and where each request's block and scores live.
  std::vector<bf16> pool(static_cast<size_t>(pool_blocks * block_tokens * d));
  std::vector<bf16> q(static_cast<size_t>(requests * q_len * d));
  for (bf16& x : pool) x = __float2bfloat16(normal(random));
  for (bf16& x : q) x = __float2bfloat16(normal(random));
  std::vector<int64_t> blocks(static_cast<size_t>(pool_blocks)), where(static_cast<size_t>(requests)),
      slot(static_cast<size_t>(requests));
  std::iota(blocks.begin(), blocks.end(), 0);
  std::shuffle(blocks.begin(), blocks.end(), random);
  std::copy(blocks.begin(), blocks.begin() + requests, where.begin());  // request r's keys: pool block where[r]
  std::iota(slot.begin(), slot.end(), 0);
  std::shuffle(slot.begin(), slot.end(), random);  // request r's scores: slot slot[r] of S

  const int64_t s_elements = requests * q_len * block_tokens;
  bf16 *d_pool, *d_q;
  float* d_s;
  CHECK_CUDA(cudaMalloc(&d_pool, pool.size() * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_q, q.size() * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_s, size_t(s_elements) * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(d_pool, pool.data(), pool.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_q, q.data(), q.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_s, 0xff, size_t(s_elements) * sizeof(float)));  // NaN: beta = 0 never reads it

  // The pointer arrays, built on the host and copied to the device (the call reads them there).
  const size_t count = static_cast<size_t>(requests);
  std::vector<const bf16*> a(count), b(count);
  std::vector<float*> c(count);
  for (int64_t r = 0; r < requests; ++r) {
    a[size_t(r)] = d_q + r * q_len * d;
    b[size_t(r)] = d_pool + where[size_t(r)] * block_tokens * d;
    c[size_t(r)] = d_s + slot[size_t(r)] * q_len * block_tokens;
  }
  const bf16** d_a;
  const bf16** d_b;
  float** d_c;
  CHECK_CUDA(cudaMalloc(&d_a, a.size() * sizeof(a[0])));
  CHECK_CUDA(cudaMalloc(&d_b, b.size() * sizeof(b[0])));
  CHECK_CUDA(cudaMalloc(&d_c, c.size() * sizeof(c[0])));
  CHECK_CUDA(cudaMemcpy(d_a, a.data(), a.size() * sizeof(a[0]), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_b, b.data(), b.size() * sizeof(b[0]), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_c, c.data(), c.size() * sizeof(c[0]), cudaMemcpyHostToDevice));

  // S_r = scale Q_r K_r^T, row-major: q_len x block_tokens from (q_len x d) times (block_tokens x d)^T.
  auto scores = [&](int64_t count) {
    return tgemm::gemm_batched(tgemm::layout::row_major, tgemm::op::none, tgemm::op::transpose, q_len, block_tokens,
                               d, scale, d_a, d, d_b, d, 0.0f, d_c, block_tokens, count);
  };
  if (scores(requests) != tgemm::status::success) {  // also the warm-up: the first call reads the device
    std::fprintf(stderr, "gemm_batched failed: %s\n", tgemm::last_error().message.c_str());
    return 1;
  }
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const int reps = 20;
  CHECK_CUDA(cudaEventRecord(start));
  for (int i = 0; i < reps; ++i) (void)scores(requests);
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  ms /= reps;
  const double flops = 2.0 * double(requests) * double(q_len) * double(block_tokens) * double(d);
  std::printf("%lld requests, %lld queries x %lld cached keys of size %lld each, keys in shuffled pool blocks: %.4f ms "
              "(%.1f TFLOP/s)\n",
              (long long)requests, (long long)q_len, (long long)block_tokens, (long long)d, ms,
              flops / (ms * 1e-3) / 1e12);

  std::vector<float> s(static_cast<size_t>(s_elements));
  CHECK_CUDA(cudaMemcpy(s.data(), d_s, s.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // A bad call: a negative batch count is refused by name before any work, and S stays as it is.
  const tgemm::status bad_call = scores(-1);
  std::vector<float> after(s.size());
  CHECK_CUDA(cudaMemcpy(after.data(), d_s, after.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const bool refused = bad_call == tgemm::status::invalid_dimension &&
                       std::memcmp(after.data(), s.data(), s.size() * sizeof(float)) == 0;
  std::printf("batch_count = -1: %s (%s)%s\n", tgemm::to_string(bad_call), tgemm::last_error().message.c_str(),
              refused ? "; S untouched" : "; UNEXPECTED");

  // Each element against float64 on the same bfloat16 inputs. Products of two bfloat16 values are exact in float, so
  // the error is the float accumulation: at most (d + 4) 2^-23 of the sum of |terms| (d roundings and a margin for
  // the order the tensor cores add in), times the scale.
  int64_t bad = 0;
  double worst = 0;
  for (int64_t r = 0; r < requests; ++r) {
    const bf16* qr = q.data() + r * q_len * d;
    const bf16* kr = pool.data() + where[size_t(r)] * block_tokens * d;
    const float* sr = s.data() + slot[size_t(r)] * q_len * block_tokens;
    for (int64_t i = 0; i < q_len; ++i) {
      for (int64_t j = 0; j < block_tokens; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < d; ++l) {
          const double term = double(__bfloat162float(qr[i * d + l])) * double(__bfloat162float(kr[j * d + l]));
          sum += term, magnitude += std::fabs(term);
        }
        const double want = scale * sum, got = sr[i * block_tokens + j];
        const double bound = (d + 4) * std::ldexp(1.0, -23) * scale * magnitude + std::ldexp(std::fabs(want), -24);
        if (!(std::fabs(got - want) <= bound)) ++bad;  // NaN (never written) fails too
        worst = std::max(worst, std::fabs(got - want) / (bound > 0 ? bound : 1));
      }
    }
  }
  std::printf("check against float64: %lld elements out of bound, worst at %.2f of its bound: %s\n", (long long)bad,
              worst, bad == 0 && refused ? "PASSED" : "FAILED");
  CHECK_CUDA(cudaFree(d_pool));
  CHECK_CUDA(cudaFree(d_q));
  CHECK_CUDA(cudaFree(d_s));
  CHECK_CUDA(cudaFree(d_a));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaFree(d_c));
  return bad == 0 && refused ? 0 : 1;
}
