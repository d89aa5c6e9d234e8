// tgemm::gemm_grouped() against cublasGemmGroupedBatchedEx and a loop of cublasGemmEx, bf16 in and out (float
// accumulation), timed side by side in one process: the mixture-of-experts case of issue 15, 8 experts of m = 64 ..
// 2048 tokens, n = 4096, k = 2048 (C_e = A_e B_e, A_e m_e x k, B_e k x n, column-major NN), a uniform variant (8
// experts of 1024 tokens) and a fine-grained one (32 experts of 128 tokens, k = 1024). Each tgemm::gemm_grouped()
// call is also paired with a loop of tgemm::gemm() over the same experts (the column tg-loop): what gemm_grouped()
// ran before its 16-bit groups went out together.
//
// Usage: tgemm_bench_grouped [--reps N] [--sizes host|device]   (default 30, host)
//   --sizes device: tgemm's side is tgemm::gemm_grouped_device() (the groups' sizes and pointers in device memory, the
//   bounds max m x n x k), against the same cuBLAS calls.
//
// Timing rules: normal random operands (mean 0, stddev 1, fixed seed) made on the host, rounded to bf16; enough
// operand sets that one pass exceeds twice the L2, consecutive launches on consecutive sets. Before timing, tgemm's
// and cuBLAS's grouped results are compared (WARNING when they differ by more than bf16 rounding allows). Then 3
// warm-up calls of each, then --reps repetitions, each timing one tgemm call and one cuBLAS call (which goes first
// alternates) with their own events; medians reported, TFLOP/s = sum of 2 m_e n k / time.
#include <tgemm/gemm.cuh>

#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "timing.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr double peak_tflops = 989.0;  // H200 dense bf16 tensor-core peak
constexpr int max_sets = 8;
/// --sizes device: time tgemm::gemm_grouped_device() instead of tgemm::gemm_grouped().
bool device_sizes = false;

std::vector<__nv_bfloat16> normal_values(size_t count, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<__nv_bfloat16> v(count);
  for (auto& x : v) x = __float2bfloat16_rn(normal(engine));
  return v;
}

/// One set of operands for every expert: A_e (m_e x k), B_e (k x n), C_e (m_e x n), each its own allocation.
struct expert_set {
  std::vector<__nv_bfloat16*> a, b, c;
};

void run_case(cublasHandle_t handle, const char* name, const std::vector<int>& ms, int n, int k, int reps, int l2) {
  const int experts = int(ms.size());
  size_t set_bytes = 0;
  double flops = 0;
  for (int m : ms) set_bytes += size_t(m) * k * 2 + size_t(k) * n * 2, flops += 2.0 * m * double(n) * k;
  const int sets = tgemm::test::rotation_sets(set_bytes, size_t(l2), max_sets);
  std::vector<expert_set> operands(static_cast<size_t>(sets));
  for (int s = 0; s < sets; ++s) {
    for (int e = 0; e < experts; ++e) {
      const int m = ms[size_t(e)];
      const auto a = normal_values(size_t(m) * k, unsigned(100 * s + 2 * e + 1));
      const auto b = normal_values(size_t(k) * n, unsigned(100 * s + 2 * e + 2));
      __nv_bfloat16 *da, *db, *dc;
      TGEMM_CHECK_CUDA(cudaMalloc(&da, a.size() * 2));
      TGEMM_CHECK_CUDA(cudaMalloc(&db, b.size() * 2));
      TGEMM_CHECK_CUDA(cudaMalloc(&dc, size_t(m) * n * 2));
      TGEMM_CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
      TGEMM_CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
      operands[size_t(s)].a.push_back(da), operands[size_t(s)].b.push_back(db), operands[size_t(s)].c.push_back(dc);
    }
  }
  // tgemm's groups per set.
  std::vector<std::vector<tgemm::gemm_group<__nv_bfloat16>>> groups(static_cast<size_t>(sets));
  for (int s = 0; s < sets; ++s) {
    for (int e = 0; e < experts; ++e) {
      tgemm::gemm_group<__nv_bfloat16> g;
      g.m = ms[size_t(e)], g.n = n, g.k = k;
      g.a = operands[size_t(s)].a[size_t(e)], g.lda = g.m;
      g.b = operands[size_t(s)].b[size_t(e)], g.ldb = k;
      g.c = operands[size_t(s)].c[size_t(e)], g.ldc = g.m;
      groups[size_t(s)].push_back(g);
    }
  }
  // cuBLAS's grouped call: one group per expert of one product each; device arrays of pointers per set.
  std::vector<cublasOperation_t> ops(size_t(experts), CUBLAS_OP_N);
  std::vector<int> m_array(ms), n_array(size_t(experts), n), k_array(size_t(experts), k), ones(size_t(experts), 1);
  std::vector<int> lda(ms), ldb(size_t(experts), k), ldc(ms);
  std::vector<float> alphas(size_t(experts), 1.0f), betas(size_t(experts), 0.0f);
  std::vector<void**> pointer_arrays(static_cast<size_t>(sets));
  for (int s = 0; s < sets; ++s) {
    std::vector<void*> host;
    for (auto* p : operands[size_t(s)].a) host.push_back(p);
    for (auto* p : operands[size_t(s)].b) host.push_back(p);
    for (auto* p : operands[size_t(s)].c) host.push_back(p);
    TGEMM_CHECK_CUDA(cudaMalloc(&pointer_arrays[size_t(s)], host.size() * sizeof(void*)));
    TGEMM_CHECK_CUDA(
        cudaMemcpy(pointer_arrays[size_t(s)], host.data(), host.size() * sizeof(void*), cudaMemcpyHostToDevice));
  }
  // The same groups described in device memory (--sizes device).
  std::vector<tgemm::gemm_group_device<__nv_bfloat16>*> device_groups(static_cast<size_t>(sets), nullptr);
  tgemm::group_bounds bounds{*std::max_element(ms.begin(), ms.end()), n, k};
  for (int s = 0; s < sets && device_sizes; ++s) {
    std::vector<tgemm::gemm_group_device<__nv_bfloat16>> host;
    for (const auto& g : groups[size_t(s)]) host.push_back({g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, g.c, g.ldc});
    TGEMM_CHECK_CUDA(cudaMalloc(&device_groups[size_t(s)], host.size() * sizeof(host[0])));
    TGEMM_CHECK_CUDA(
        cudaMemcpy(device_groups[size_t(s)], host.data(), host.size() * sizeof(host[0]), cudaMemcpyHostToDevice));
  }
  const auto tgemm_call = [&](int s) {
    const tgemm::status st =
        device_sizes ? tgemm::gemm_grouped_device(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 1.0f,
                                                  device_groups[size_t(s)], experts, bounds, 0.0f)
                     : tgemm::gemm_grouped(tgemm::layout::col_major, groups[size_t(s)].data(), experts);
    if (st != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm_grouped failed: %s\n", tgemm::last_error().message.c_str());
      std::exit(2);
    }
  };
  const auto cublas_grouped = [&](int s) {
    void** p = pointer_arrays[size_t(s)];
    TGEMM_CHECK_CUBLAS(cublasGemmGroupedBatchedEx(
        handle, ops.data(), ops.data(), m_array.data(), n_array.data(), k_array.data(), alphas.data(), p, CUDA_R_16BF,
        lda.data(), p + experts, CUDA_R_16BF, ldb.data(), betas.data(), p + 2 * experts, CUDA_R_16BF, ldc.data(),
        experts, ones.data(), CUBLAS_COMPUTE_32F));
  };
  const auto cublas_loop = [&](int s) {
    const float alpha = 1.0f, beta = 0.0f;
    for (int e = 0; e < experts; ++e) {
      const int m = ms[size_t(e)];
      TGEMM_CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, operands[size_t(s)].a[size_t(e)],
                                      CUDA_R_16BF, m, operands[size_t(s)].b[size_t(e)], CUDA_R_16BF, k, &beta,
                                      operands[size_t(s)].c[size_t(e)], CUDA_R_16BF, m, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
    }
  };
  // tgemm::gemm() once per expert: what gemm_grouped() ran before 16-bit groups went out together on the grouped
  // Hopper kernel (each expert with its own plan).
  const auto tgemm_loop = [&](int s) {
    for (const auto& g : groups[size_t(s)]) {
      const tgemm::status st = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, g.m, g.n, g.k,
                                           1.0f, g.a, g.lda, g.b, g.ldb, 0.0f, g.c, g.ldc);
      if (st != tgemm::status::success) {
        std::fprintf(stderr, "tgemm::gemm failed: %s\n", tgemm::last_error().message.c_str());
        std::exit(2);
      }
    }
  };
  // The same inputs through tgemm and cuBLAS's grouped call: compare each expert's C (a sample of elements).
  {
    std::vector<std::vector<__nv_bfloat16>> ours(static_cast<size_t>(experts));
    tgemm_call(0);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    for (int e = 0; e < experts; ++e) {
      ours[size_t(e)].resize(size_t(ms[size_t(e)]) * n);
      TGEMM_CHECK_CUDA(cudaMemcpy(ours[size_t(e)].data(), operands[0].c[size_t(e)], ours[size_t(e)].size() * 2,
                                  cudaMemcpyDeviceToHost));
    }
    cublas_grouped(0);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    double worst = 0;
    for (int e = 0; e < experts; ++e) {
      std::vector<__nv_bfloat16> theirs(ours[size_t(e)].size());
      TGEMM_CHECK_CUDA(
          cudaMemcpy(theirs.data(), operands[0].c[size_t(e)], theirs.size() * 2, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < theirs.size(); i += 101) {
        const double u = __bfloat162float(ours[size_t(e)][i]), v = __bfloat162float(theirs[i]);
        worst = std::max(worst, std::fabs(u - v) / (std::fabs(v) + 0.05 * std::sqrt(double(k))));
      }
    }
    if (worst > 0.02) std::printf("WARNING: tgemm and cuBLAS grouped results differ by %.3g (relative)\n", worst);
  }
  int turn = 0;
  const auto pair = [&](auto&& theirs) {
    return tgemm::test::interleaved_medians(
        [&](bool first) {
          if (first) {
            tgemm_call(turn % sets);
          } else {
            theirs(turn % sets);
            ++turn;
          }
        },
        reps, 3);
  };
  const tgemm::test::paired_medians grouped = pair(cublas_grouped);
  const tgemm::test::paired_medians loop = pair(cublas_loop);
  const tgemm::test::paired_medians own_loop = pair(tgemm_loop);
  const auto tf = [&](double ms) { return flops / (ms * 1e9); };
  char shape[64];
  std::snprintf(shape, sizeof shape, "%d x (m, %d, %d)", experts, n, k);
  std::printf("%-10s %-26s %9.1f %9.1f %9.1f %9.1f %7.2f %7.2f %7.2f %6.1f\n", name, shape, tf(grouped.first_ms),
              tf(grouped.second_ms), tf(loop.second_ms), tf(own_loop.second_ms), grouped.second_ms / grouped.first_ms,
              loop.second_ms / loop.first_ms, own_loop.second_ms / own_loop.first_ms,
              100.0 * tf(grouped.first_ms) / peak_tflops);
  std::printf("           (tgemm %.4f / %.4f / %.4f ms in the three pairings; cuBLAS grouped %.4f ms, loop %.4f ms; "
              "loop of tgemm::gemm() %.4f ms)\n",
              grouped.first_ms, loop.first_ms, own_loop.first_ms, grouped.second_ms, loop.second_ms,
              own_loop.second_ms);
  for (int s = 0; s < sets; ++s) {
    for (int e = 0; e < experts; ++e) {
      cudaFree(operands[size_t(s)].a[size_t(e)]), cudaFree(operands[size_t(s)].b[size_t(e)]);
      cudaFree(operands[size_t(s)].c[size_t(e)]);
    }
    cudaFree(pointer_arrays[size_t(s)]);
    cudaFree(device_groups[size_t(s)]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 30;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (arg == "--sizes" && i + 1 < argc && (std::string(argv[i + 1]) == "host" || std::string(argv[i + 1]) == "device")) {
      device_sizes = std::string(argv[++i]) == "device";
    } else {
      std::fprintf(stderr, "usage: %s [--reps N] [--sizes host|device]\n", argv[0]);
      return 1;
    }
  }
  int l2 = 0;
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  cudaDeviceProp prop{};
  TGEMM_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s; bf16 in and out, float accumulation, column-major NN; TFLOP/s (medians); tgemm: %s\n",
              prop.name, device_sizes ? "gemm_grouped_device (sizes in device memory)" : "gemm_grouped");
  std::printf("%-10s %-26s %9s %9s %9s %9s %7s %7s %7s %6s\n", "case", "shape", "tgemm", "cuBLAS-g", "loop",
              "tg-loop", "vs g", "vs loop", "vs tg-l", "%peak");
  cublasHandle_t handle;
  TGEMM_CHECK_CUBLAS(cublasCreate(&handle));
  run_case(handle, "experts", {64, 128, 256, 512, 768, 1024, 1536, 2048}, 4096, 2048, reps, l2);
  run_case(handle, "uniform", std::vector<int>(8, 1024), 4096, 2048, reps, l2);
  run_case(handle, "fine", std::vector<int>(32, 128), 4096, 1024, reps, l2);
  cublasDestroy(handle);
  return 0;
}
