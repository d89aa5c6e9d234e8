// tgemm's fused epilogue (tgemm::epilogue: bias + GELU) against cuBLASLt's (CUBLASLT_EPILOGUE_GELU_BIAS), bf16 and
// float (strict FP32), timed side by side in one process; the bias alone (CUBLASLT_EPILOGUE_BIAS) and the plain
// products (tgemm::gemm(), cuBLASLt's default epilogue) beside them; and tgemm with the GELU as the caller's own
// `__device__` lambda (tgemm::with_op, bench/epilogue_user_op.cu; the same arithmetic as the built-in GELU, tanh.approx
// for bf16) against tgemm's built-in bias + GELU (row "user-gelu": its "Lt" columns hold the built-in call, its ratio
// is built-in time / lambda time).
//
// Usage: tgemm_bench_epilogue [--reps N] [--out DIR]
//   --reps   timed repetitions per pair (default 30).
//   --out    directory of epilogue_results.csv (default ".").
//
// What is measured: D = GELU(A B + bias) with A (m x k), B (k x n) and D (m x n) of one type, column-major, bias one
// element per row of D (cuBLASLt's bias vector), GELU's tanh form (cuBLASLt's), alpha 1, beta 0; cuBLASLt with
// CUBLAS_COMPUTE_32F and its first heuristic algorithm for each epilogue (bias + GELU, bias, default). Shapes,
// bf16: 4096^3, 8192^3 and 16384 x 4096 x 1024 (the issue's figures; tgemm's sm_90a kernel), 256 x 4096 x 4096 (its
// mma.sync tiles); float: 4096^3 (its SIMT tiles).
//
// Timing rules: normal random operands (mean 0, stddev 1, fixed seed) made on the host, rounded to bf16; enough
// operand sets that one pass exceeds twice the L2 (at most 8), consecutive launches on consecutive sets. Before
// timing, both fused products run once on the same inputs and their D are compared (WARNING when they differ by
// more than bf16 rounding allows). Then 3 warm-up launches of each, then --reps repetitions, each timing one tgemm
// and one cuBLASLt launch (which goes first alternates) with its own events; medians reported. TFLOP/s = 2mnk /
// time; % peak of the H200's dense bf16 peak, 989 TFLOP/s.
#include <tgemm/gemm.cuh>

#include "check_cuda.hpp"
#include "timing.hpp"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <type_traits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace tgemm::bench {
/// D = GELU(A B + bias): the bias built in, GELU the caller's lambda (bench/epilogue_user_op.cu).
template <class T>
status gemm_bias_user_gelu(int64_t m, int64_t n, int64_t k, const T* a, const T* b, const T* bias, T* d);
}  // namespace tgemm::bench

namespace {

constexpr double peak_tflops = 989.0;  // H200 dense bf16 tensor-core peak
constexpr double peak_f32_tflops = 66.9;  // H200 FP32 (CUDA cores) peak
constexpr int max_sets = 8;

void check_lt(cublasStatus_t status, const char* call, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "tgemm_bench_epilogue.cu:%d: %s failed: cuBLAS status %d\n", line, call, int(status));
  std::exit(2);
}
#define CHECK_LT(call) check_lt((call), #call, __LINE__)

/// cuBLASLt's D = epilogue(A B [+ bias]) for one shape, column-major bf16, with its first heuristic algorithm.
struct lt_matmul {
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void* workspace = nullptr;
  size_t workspace_bytes = 64 << 20;

  lt_matmul(cublasLtHandle_t h, cudaDataType type, int64_t m, int64_t n, int64_t k, cublasLtEpilogue_t epilogue,
            const void* bias)
      : handle(h) {
    CHECK_LT(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    if (bias != nullptr) {
      CHECK_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
      const cudaDataType bias_type = type;
      CHECK_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type));
    }
    CHECK_LT(cublasLtMatrixLayoutCreate(&la, type, uint64_t(m), uint64_t(k), m));
    CHECK_LT(cublasLtMatrixLayoutCreate(&lb, type, uint64_t(k), uint64_t(n), k));
    CHECK_LT(cublasLtMatrixLayoutCreate(&ld, type, uint64_t(m), uint64_t(n), m));
    TGEMM_CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
    cublasLtMatmulPreference_t preference;
    CHECK_LT(cublasLtMatmulPreferenceCreate(&preference));
    CHECK_LT(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                  &workspace_bytes, sizeof workspace_bytes));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    CHECK_LT(cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, ld, ld, preference, 1, &result, &found));
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt found no algorithm for %lld x %lld x %lld\n", (long long)m, (long long)n,
                   (long long)k);
      std::exit(2);
    }
    algo = result.algo;
    CHECK_LT(cublasLtMatmulPreferenceDestroy(preference));
  }
  ~lt_matmul() {
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(desc);
    cudaFree(workspace);
  }
  void run(const void* a, const void* b, void* d) const {
    const float alpha = 1.0f, beta = 0.0f;
    CHECK_LT(cublasLtMatmul(handle, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &algo, workspace,
                            workspace_bytes, nullptr));
  }
};

float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
float to_float(float x) { return x; }
template <class T>
T from_float(float x) {
  if constexpr (std::is_same<T, float>::value) {
    return x;
  } else {
    return __float2bfloat16_rn(x);
  }
}

template <class T>
std::vector<T> normal_values(size_t count, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<T> v(count);
  for (auto& x : v) x = from_float<T>(normal(engine));
  return v;
}

struct measured {
  double tgemm_ms, lt_ms;
};

template <class T>
void run_shapes(cublasLtHandle_t handle, int l2, int reps, std::ofstream& csv,
                std::initializer_list<std::array<int64_t, 3>> shapes) {
  const cudaDataType type = std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_16BF;
  const double peak = std::is_same<T, float>::value ? peak_f32_tflops : peak_tflops;
  const char* type_name = std::is_same<T, float>::value ? "float" : "bf16";
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    const size_t set_bytes = size_t(m * k + k * n) * sizeof(T);
    const int sets = tgemm::test::rotation_sets(set_bytes, size_t(l2), max_sets);
    const std::vector<T> ha = normal_values<T>(size_t(m * k), 1), hb = normal_values<T>(size_t(k * n), 2);
    const std::vector<T> hbias = normal_values<T>(size_t(m), 3);
    std::vector<T*> a(sets), b(sets);
    for (int i = 0; i < sets; ++i) {
      TGEMM_CHECK_CUDA(cudaMalloc(&a[i], size_t(m * k) * sizeof(T)));
      TGEMM_CHECK_CUDA(cudaMalloc(&b[i], size_t(k * n) * sizeof(T)));
      // Each set a rotation of the same values: different data, one host pool.
      const size_t shift_a = size_t(i) * 7919 % ha.size(), shift_b = size_t(i) * 104729 % hb.size();
      TGEMM_CHECK_CUDA(cudaMemcpy(a[i], ha.data() + shift_a, (ha.size() - shift_a) * sizeof(T), cudaMemcpyHostToDevice));
      TGEMM_CHECK_CUDA(cudaMemcpy(a[i] + (ha.size() - shift_a), ha.data(), shift_a * sizeof(T), cudaMemcpyHostToDevice));
      TGEMM_CHECK_CUDA(cudaMemcpy(b[i], hb.data() + shift_b, (hb.size() - shift_b) * sizeof(T), cudaMemcpyHostToDevice));
      TGEMM_CHECK_CUDA(cudaMemcpy(b[i] + (hb.size() - shift_b), hb.data(), shift_b * sizeof(T), cudaMemcpyHostToDevice));
    }
    T *bias = nullptr, *d_tgemm = nullptr, *d_lt = nullptr;
    TGEMM_CHECK_CUDA(cudaMalloc(&bias, size_t(m) * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMemcpy(bias, hbias.data(), size_t(m) * sizeof(T), cudaMemcpyHostToDevice));
    TGEMM_CHECK_CUDA(cudaMalloc(&d_tgemm, size_t(m * n) * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMalloc(&d_lt, size_t(m * n) * sizeof(T)));
    tgemm::epilogue<T> ep;
    ep.row_bias = bias, ep.act = tgemm::activation::gelu_tanh;
    tgemm::epilogue<T> ep_bias;
    ep_bias.row_bias = bias;
    const lt_matmul fused(handle, type, m, n, k, CUBLASLT_EPILOGUE_GELU_BIAS, bias);
    const lt_matmul fused_bias(handle, type, m, n, k, CUBLASLT_EPILOGUE_BIAS, bias);
    const lt_matmul plain(handle, type, m, n, k, CUBLASLT_EPILOGUE_DEFAULT, nullptr);
    int turn = 0;
    // kind 0: bias + GELU, 1: bias alone, 2: no epilogue.
    const auto tgemm_call = [&](int kind) {
      const int i = turn % sets;
      const tgemm::status st =
          kind < 2 ? tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f, a[i], m,
                                 b[i], k, 0.0f, d_tgemm, m, kind == 0 ? ep : ep_bias)
                   : tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f, a[i], m,
                                 b[i], k, 0.0f, d_tgemm, m);
      if (st != tgemm::status::success) {
        std::fprintf(stderr, "tgemm::gemm failed: %s\n", tgemm::last_error().message.c_str());
        std::exit(2);
      }
    };
    // Same inputs, both fused: compare D.
    tgemm_call(0);
    fused.run(a[0], b[0], d_lt);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    {
      std::vector<T> x(size_t(m * n)), y(size_t(m * n));
      TGEMM_CHECK_CUDA(cudaMemcpy(x.data(), d_tgemm, x.size() * sizeof(T), cudaMemcpyDeviceToHost));
      TGEMM_CHECK_CUDA(cudaMemcpy(y.data(), d_lt, y.size() * sizeof(T), cudaMemcpyDeviceToHost));
      double worst = 0;
      for (size_t i = 0; i < x.size(); i += 97) {
        const double u = to_float(x[i]), v = to_float(y[i]);
        worst = std::max(worst, std::fabs(u - v) / (std::fabs(v) + 0.05 * std::sqrt(double(k))));
      }
      if (worst > 0.02) std::printf("WARNING: tgemm and cuBLASLt D differ by %.3g (relative)\n", worst);
    }
    const auto row_out = [&](const char* name, const measured& r) {
      const double flops = 2.0 * double(m) * double(n) * double(k);
      const double t = flops / (r.tgemm_ms * 1e9), l = flops / (r.lt_ms * 1e9);
      char dims[64];
      std::snprintf(dims, sizeof dims, "%lld x %lld x %lld", (long long)m, (long long)n, (long long)k);
      std::printf("%-6s %-20s %-10s %10.4f %10.4f %9.1f %9.1f %7.3f %6.1f\n", type_name, dims, name, r.tgemm_ms,
                  r.lt_ms, t, l, t / l, 100.0 * t / peak);
      csv << type_name << "," << m << "," << n << "," << k << "," << name << "," << r.tgemm_ms << "," << r.lt_ms << ","
          << t << "," << l << "," << t / l << "," << 100.0 * t / peak << "\n";
    };
    for (const int kind : {0, 1, 2}) {
      const lt_matmul& lt = kind == 0 ? fused : kind == 1 ? fused_bias : plain;
      const tgemm::test::paired_medians p = tgemm::test::interleaved_medians(
          [&](bool first) {
            if (first) {
              tgemm_call(kind);
            } else {
              lt.run(a[turn % sets], b[turn % sets], d_lt);
            }
            if (!first) ++turn;
          },
          reps, 3);
      row_out(kind == 0 ? "bias+gelu" : kind == 1 ? "bias" : "plain", measured{p.first_ms, p.second_ms});
    }
    // The GELU as the caller's lambda, interleaved with the built-in bias + GELU (same inputs, same D).
    {
      const auto user_call = [&] {
        const int i = turn % sets;
        if (tgemm::bench::gemm_bias_user_gelu<T>(m, n, k, a[i], b[i], bias, d_tgemm) != tgemm::status::success) {
          std::fprintf(stderr, "tgemm::gemm (user op) failed: %s\n", tgemm::last_error().message.c_str());
          std::exit(2);
        }
      };
      const tgemm::test::paired_medians p = tgemm::test::interleaved_medians(
          [&](bool first) {
            if (first) {
              user_call();
            } else {
              tgemm_call(0);
            }
            if (!first) ++turn;
          },
          reps, 3);
      row_out("user-gelu", measured{p.first_ms, p.second_ms});
    }
    for (int i = 0; i < sets; ++i) cudaFree(a[i]), cudaFree(b[i]);
    cudaFree(bias), cudaFree(d_tgemm), cudaFree(d_lt);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 30;
  std::string out_dir = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (arg == "--out" && i + 1 < argc) {
      out_dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--reps N] [--out DIR]\n", argv[0]);
      return 1;
    }
  }
  int l2 = 0;
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  cudaDeviceProp prop{};
  TGEMM_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, L2 %d MiB; column-major, bias per row, GELU (tanh form), alpha 1, beta 0\n",
              prop.name, l2 >> 20);
  cublasLtHandle_t handle;
  CHECK_LT(cublasLtCreate(&handle));
  std::ofstream csv(out_dir + "/epilogue_results.csv");
  csv << "type,m,n,k,epilogue,tgemm_ms,cublaslt_ms,tgemm_tflops,cublaslt_tflops,ratio,percent_peak\n";
  std::printf("%-6s %-20s %-10s %10s %10s %9s %9s %7s %6s\n", "type", "m x n x k", "epilogue", "tgemm ms", "Lt ms", "tgemm TF",
              "Lt TF", "ratio", "%peak");
  run_shapes<__nv_bfloat16>(handle, l2, reps, csv, {{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 4096, 1024},
                                                    {256, 4096, 4096}});
  run_shapes<float>(handle, l2, reps, csv, {{4096, 4096, 4096}});
  cublasLtDestroy(handle);
  return 0;
}
