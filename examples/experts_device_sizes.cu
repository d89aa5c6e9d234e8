// A mixture-of-experts projection whose token counts only the GPU knows: the router's choices are in device memory,
// a kernel sorts the tokens by expert and writes one tgemm::gemm_group_device per expert (its token count, where
// its rows start), and one tgemm::gemm_grouped_device() call multiplies every expert's tokens by its weights. The
// host never reads the counts back: it gives bounds instead (no expert gets more than all the tokens).
//
//   Y_e = X_e W_e^T   for each expert e: X_e its tokens (count_e x model, row-major), W_e (hidden x model, nn.Linear)
//
// The result is checked against float64 on the host for a sample of tokens of every expert; the program exits with
// status 1 when an element is off by more than the bound, or a group's status (read back for the check) is not 0.
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

namespace {

using bf16 = __nv_bfloat16;

/// Counts each expert's tokens (one thread per token).
__global__ void count_tokens(const int* expert_of, int tokens, int* counts) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) atomicAdd(&counts[expert_of[t]], 1);
}

/// One thread: each expert's first row in the sorted buffers, and its group for tgemm::gemm_grouped_device().
__global__ void describe_groups(const int* counts, int experts, int64_t model, int64_t hidden, const bf16* x_sorted,
                                const bf16* weights, bf16* y_sorted, int* cursor, tgemm::gemm_group_device<bf16>* groups) {
  int row = 0;
  for (int e = 0; e < experts; ++e) {
    cursor[e] = row;
    tgemm::gemm_group_device<bf16>& g = groups[e];
    g.m = counts[e], g.n = hidden, g.k = model;
    g.a = x_sorted + int64_t(row) * model, g.lda = model;        // the expert's tokens, row-major
    g.b = weights + int64_t(e) * hidden * model, g.ldb = model;  // W_e, hidden x model, read as W_e^T
    g.c = y_sorted + int64_t(row) * hidden, g.ldc = hidden;
    row += counts[e];
  }
}

/// Copies each token's row to its expert's next free row (one block per token); `position` records where it went.
__global__ void sort_tokens(const bf16* x, const int* expert_of, int64_t model, int* cursor, bf16* x_sorted,
                            int* position) {
  __shared__ int row;
  if (threadIdx.x == 0) row = atomicAdd(&cursor[expert_of[blockIdx.x]], 1), position[blockIdx.x] = row;
  __syncthreads();
  for (int64_t j = threadIdx.x; j < model; j += blockDim.x) x_sorted[row * model + j] = x[blockIdx.x * model + j];
}

double value(bf16 x) { return double(__bfloat162float(x)); }

}  // namespace

int main() {
  const int tokens = 4096, experts = 8;
  const int64_t model = 1024, hidden = 2048;
  std::mt19937 random(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // The router's choice per token (skewed, as routers are; expert 5 gets none), and the inputs.
  std::vector<int> expert_of(tokens);
  std::discrete_distribution<int> router({8, 1, 4, 2, 6, 0, 3, 1});
  for (int& e : expert_of) e = router(random);
  std::vector<bf16> x(size_t(tokens) * model), w(size_t(experts) * hidden * model);
  for (bf16& v : x) v = __float2bfloat16(normal(random));
  for (bf16& v : w) v = __float2bfloat16(normal(random) / std::sqrt(float(model)));

  int *d_expert_of, *d_counts, *d_cursor, *d_position;
  int32_t* d_status;
  bf16 *d_x, *d_w, *d_x_sorted, *d_y_sorted;
  tgemm::gemm_group_device<bf16>* d_groups;
  CHECK_CUDA(cudaMalloc(&d_expert_of, tokens * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_counts, experts * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_cursor, experts * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_position, tokens * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_status, experts * sizeof(int32_t)));
  CHECK_CUDA(cudaMalloc(&d_x, x.size() * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_w, w.size() * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_x_sorted, x.size() * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_y_sorted, size_t(tokens) * hidden * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_groups, experts * sizeof(tgemm::gemm_group_device<bf16>)));
  CHECK_CUDA(cudaMemcpy(d_expert_of, expert_of.data(), tokens * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_x, x.data(), x.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_w, w.data(), w.size() * sizeof(bf16), cudaMemcpyHostToDevice));

  // Everything on one stream, nothing read back in between: route, describe, sort, multiply.
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  const auto layer = [&] {
    CHECK_CUDA(cudaMemsetAsync(d_counts, 0, experts * sizeof(int), stream));
    count_tokens<<<(tokens + 255) / 256, 256, 0, stream>>>(d_expert_of, tokens, d_counts);
    describe_groups<<<1, 1, 0, stream>>>(d_counts, experts, model, hidden, d_x_sorted, d_w, d_y_sorted, d_cursor,
                                         d_groups);
    sort_tokens<<<tokens, 128, 0, stream>>>(d_x, d_expert_of, model, d_cursor, d_x_sorted, d_position);
    CHECK_CUDA(cudaGetLastError());
    // Bounds: an expert may get every token; each group's own size is read on the GPU.
    const tgemm::group_bounds bounds{tokens, hidden, model};
    const tgemm::status s = tgemm::gemm_grouped_device(tgemm::layout::row_major, tgemm::op::none, tgemm::op::transpose,
                                                       1.0f, d_groups, experts, bounds, 0.0f, d_status, stream);
    if (s != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm_grouped_device failed: %s\n", tgemm::last_error().message.c_str());
      std::exit(1);
    }
  };
  layer();  // warm-up, and the run checked below
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < 10; ++i) layer();
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  std::printf("%d tokens routed to %d experts on the GPU, %lld -> %lld, bfloat16: %.3f ms per layer (routing, sort and "
              "GEMM), %.1f TFLOP/s overall\n",
              tokens, experts, (long long)model, (long long)hidden, ms / 10,
              2.0 * tokens * model * hidden / (ms / 10 * 1e9));

  std::vector<int> position(tokens), counts(experts);
  std::vector<int32_t> statuses(experts);
  std::vector<bf16> y(size_t(tokens) * hidden);
  CHECK_CUDA(cudaMemcpy(position.data(), d_position, tokens * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(counts.data(), d_counts, experts * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(statuses.data(), d_status, experts * sizeof(int32_t), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(y.data(), d_y_sorted, y.size() * sizeof(bf16), cudaMemcpyDeviceToHost));
  int64_t bad = 0, checked = 0, bad_groups = 0;
  for (int e = 0; e < experts; ++e) {
    std::printf("expert %d: %4d tokens, status %s\n", e, counts[size_t(e)],
                tgemm::to_string(static_cast<tgemm::status>(statuses[size_t(e)])));
    bad_groups += statuses[size_t(e)] != 0;
  }
  // Every 37th token: its row of Y (where the sort put it) against float64 from the same bfloat16 inputs.
  for (int t = 0; t < tokens; t += 37) {
    const int e = expert_of[size_t(t)];
    for (int64_t j = 0; j < hidden; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t l = 0; l < model; ++l) {
        const double p = value(x[size_t(t * model + l)]) * value(w[size_t((e * hidden + j) * model + l)]);
        sum += p, magnitude += std::fabs(p);
      }
      const double got = value(y[size_t(position[size_t(t)] * hidden + j)]);
      bad += !(std::fabs(got - sum) <= std::ldexp(std::fabs(sum), -7) + std::ldexp(magnitude, -14) + 1e-3);
      ++checked;
    }
  }
  std::printf("checked %lld elements against float64: %lld off; %lld groups not run\n", (long long)checked,
              (long long)bad, (long long)bad_groups);
  return bad == 0 && bad_groups == 0 ? 0 : 1;
}
