// A paired probe (scripts/user_op_probe.sh): the built-in bias + GELU against the same GELU as a user lambda
// (tgemm::with_op: tgemm_bench_epilogue's, bench/epilogue_user_op.cu, linked in), both through tgemm::gemm(), in one
// process; built against two include trees, it compares their user-operation paths. Operands are random normal, sets
// rotated past twice the L2. Per shape: (1) single launches interleaved, one event pair each, median of 30 (as
// tgemm_bench_epilogue times them); (2) batches of 20 launches per event pair, alternating, median of 9 (the GPU never
// waits for the host); (3) host microseconds to issue one call; and how many elements of D the two calls write
// differently (the lambda's arithmetic is not the built-in's to the last bit: float's tanhf against the built-in
// formula, FMA contraction).
// With --depth: deep 16-bit shapes, each twice in a row: as planned (past a finite wgmma_fused_pingpong_max_k in the
// bf16 table, the cooperative tile's fused kernel) and with a tuning hook that puts every fused large-tile step on
// the ping-pong tile (`pp` rows): which tile each of the two epilogues should take at depth. The bf16 table's value is
// 2048 (tuning/tensorop_f16.cuh); against a table with the largest int64_t there (ec72474's) both rows run the
// ping-pong tile.
// Usage: user_op_probe [--depth]
#include <tgemm/gemm.cuh>
#include <cuda_bf16.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check_cuda.hpp"
#include "splitmix.hpp"


template <class T>
__global__ void fill_normal(T* x, size_t count, unsigned long long seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t z = tgemm::test::splitmix64_mix(seed + (i + 1) * tgemm::test::splitmix64_gamma);
    const float u1 = (float((z >> 40) & 0xffffff) + 0.5f) / 16777216.0f, u2 = float(z & 0xffffff) / 16777216.0f;
    x[i] = T(sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));
  }
}

namespace tgemm::bench {
/// bench/epilogue_user_op.cu (built into the same binary): the benchmark's own bias with GELU as a `__device__` lambda.
template <class T>
status gemm_bias_user_gelu(int64_t m, int64_t n, int64_t k, const T* a, const T* b, const T* bias, T* d);
}  // namespace tgemm::bench

template <class T>
tgemm::status builtin_gelu(int64_t m, int64_t n, int64_t k, const T* a, const T* b, const T* bias, T* d) {
  tgemm::epilogue<T> ep;
  ep.row_bias = bias;
  ep.act = tgemm::activation::gelu_tanh;
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, d, m,
                     ep);
}

float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

/// The tuning hook of the `pp` rows: every fused large-tile step on the ping-pong tile, at any depth.
void pingpong_at_every_depth(tgemm::tuning::tuning_values& values, const char*, const char*) {
  values.wgmma_fused_pingpong_max_k = INT64_MAX;
}

template <class T>
void shape(const char* type, int64_t m, int64_t n, int64_t k) {
  const size_t per_set = size_t(m * k + k * n) * sizeof(T);
  const int sets = int(std::max<size_t>(2, (size_t(240) << 20) / per_set + 1));
  std::vector<T*> a(sets), b(sets);
  for (int i = 0; i < sets; ++i) {
    TGEMM_CHECK_CUDA(cudaMalloc(&a[i], size_t(m * k) * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMalloc(&b[i], size_t(k * n) * sizeof(T)));
    fill_normal<<<1024, 256>>>(a[i], size_t(m * k), 11 + 2 * i);
    fill_normal<<<1024, 256>>>(b[i], size_t(k * n), 12 + 2 * i);
  }
  T *bias, *d0, *d1;
  TGEMM_CHECK_CUDA(cudaMalloc(&bias, size_t(m) * sizeof(T)));
  fill_normal<<<64, 256>>>(bias, size_t(m), 99);
  TGEMM_CHECK_CUDA(cudaMalloc(&d0, size_t(m * n) * sizeof(T)));
  TGEMM_CHECK_CUDA(cudaMalloc(&d1, size_t(m * n) * sizeof(T)));
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  int turn = 0;
  const auto call = [&](bool user, T* d) {
    const int i = turn++ % sets;
    const tgemm::status s =
        user ? tgemm::bench::gemm_bias_user_gelu<T>(m, n, k, a[i], b[i], bias, d)
             : builtin_gelu<T>(m, n, k, a[i], b[i], bias, d);
    if (s != tgemm::status::success) {
      std::printf("gemm failed: %s\n", tgemm::last_error().message.c_str());
      std::exit(1);
    }
  };
  // Same inputs: compare D.
  turn = 0;
  call(false, d0);
  turn = 0;
  call(true, d1);
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<T> x(size_t(m * n)), y(size_t(m * n));
  TGEMM_CHECK_CUDA(cudaMemcpy(x.data(), d0, x.size() * sizeof(T), cudaMemcpyDeviceToHost));
  TGEMM_CHECK_CUDA(cudaMemcpy(y.data(), d1, y.size() * sizeof(T), cudaMemcpyDeviceToHost));
  size_t differ = 0;
  for (size_t i = 0; i < x.size(); ++i) differ += float(x[i]) != float(y[i]);
  // (1) single launches, interleaved.
  std::vector<float> t_user, t_builtin;
  cudaEvent_t e[4];
  for (auto& ev : e) TGEMM_CHECK_CUDA(cudaEventCreate(&ev));
  for (int w = 0; w < 3; ++w) call(true, d1), call(false, d0);
  for (int r = 0; r < 30; ++r) {
    const bool user_first = r % 2 == 0;
    for (int j = 0; j < 2; ++j) {
      const bool user = (j == 0) == user_first;
      TGEMM_CHECK_CUDA(cudaEventRecord(e[2 * j]));
      call(user, user ? d1 : d0);
      TGEMM_CHECK_CUDA(cudaEventRecord(e[2 * j + 1]));
    }
    TGEMM_CHECK_CUDA(cudaEventSynchronize(e[3]));
    for (int j = 0; j < 2; ++j) {
      float ms; TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, e[2 * j], e[2 * j + 1]));
      ((j == 0) == user_first ? t_user : t_builtin).push_back(ms);
    }
  }
  // (2) batches of 20, alternating; (3) host time of issuing them.
  std::vector<float> b_user, b_builtin;
  double host_user = 0, host_builtin = 0;
  for (int r = 0; r < 9; ++r) {
    for (int j = 0; j < 2; ++j) {
      const bool user = (j == 0) == (r % 2 == 0);
      TGEMM_CHECK_CUDA(cudaEventRecord(e[0]));
      const auto h0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 20; ++i) call(user, user ? d1 : d0);
      const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count() / 20;
      TGEMM_CHECK_CUDA(cudaEventRecord(e[1]));
      TGEMM_CHECK_CUDA(cudaEventSynchronize(e[1]));
      float ms; TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, e[0], e[1]));
      (user ? b_user : b_builtin).push_back(ms / 20);
      (user ? host_user : host_builtin) += us / 9;
    }
  }
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const float su = median(t_user), sb = median(t_builtin), bu = median(b_user), bb = median(b_builtin);
  std::printf("%-5s %6lld x %6lld x %6lld  single: user %.4f builtin %.4f ms (builtin/user %.3f)  batched: user %.4f "
              "builtin %.4f ms (%.3f, user %.1f TF)  host us/call: user %.1f builtin %.1f  D differs: %zu\n",
              type, (long long)m, (long long)n, (long long)k, su, sb, sb / su, bu, bb, bb / bu, flops / (bu * 1e9),
              host_user, host_builtin, differ);
  for (auto& ev : e) cudaEventDestroy(ev);
  for (int i = 0; i < sets; ++i) cudaFree(a[i]), cudaFree(b[i]);
  cudaFree(bias), cudaFree(d0), cudaFree(d1);
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--depth") == 0) {
    const int64_t deep[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 4096, 8192}, {2048, 2048, 4096}};
    for (const auto& mnk : deep) {
      for (int round = 0; round < 2; ++round) {
        tgemm::detail::tuning_hook() = nullptr;
        shape<__nv_bfloat16>("bf16", mnk[0], mnk[1], mnk[2]);
        tgemm::detail::tuning_hook() = pingpong_at_every_depth;
        shape<__nv_bfloat16>("pp", mnk[0], mnk[1], mnk[2]);
      }
    }
    tgemm::detail::tuning_hook() = nullptr;
    return 0;
  }
  shape<__nv_bfloat16>("bf16", 4096, 4096, 4096);
  shape<__nv_bfloat16>("bf16", 8192, 8192, 8192);
  shape<__nv_bfloat16>("bf16", 16384, 4096, 1024);
  shape<__nv_bfloat16>("bf16", 256, 4096, 4096);
  shape<__nv_bfloat16>("bf16", 4095, 4097, 1024);
  shape<float>("float", 4096, 4096, 4096);
  shape<float>("float", 1024, 1024, 1024);
  return 0;
}
