// The Hopper kernel (tgemm::experimental::gemm_tma_wgmma<P>, sm_90a; its grid and tile order variants through
// tgemm::detail::wgmma_kernels) beside tgemm::gemm() and cublasGemmEx, same process, same buffers, interleaved: C = A^T B with A a column-major k x m array and
// B a column-major k x n array (cuBLAS's OP_T, OP_N), random normal inputs, C poisoned before the first call and
// each result checked against cuBLAS's. Prints a markdown table: TFLOP/s (median of CUDA-event timings), the
// ratio to cuBLAS and the percentage of the H200's 989 TFLOP/s dense 16-bit peak.
// Usage: tgemm_bench_hopper [--reps N] [--quick | --clusters]   (--quick: 4096^3 and 8192^3 only; --clusters: bf16
// tiles alone and in clusters of two sharing B (wgmma_policy's ClusterM), each pair of rows one after the other, then
// the ping-pong tile with a fused bias + GELU alone and in pairs, alternating)
#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>
#include <tgemm/policy/wgmma_policy.cuh>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "element_values.hpp"
#include "timing.hpp"

namespace {

constexpr double peak_16bit_tflops = 989.0;  // H100/H200 SXM dense bf16/fp16 with float accumulation

using tgemm::test::cuda_type;
using tgemm::test::to_double;

/// The short name of an element type in the table ("bf16", "f16", "f32").
template <class T>
const char* type_name() {
  return tgemm::element_traits<T>::tag;
}

struct shape {
  int64_t m, n, k;
};

/// Times every policy of `Policies` on one shape; prints one row per policy, then the first policy's
/// grid and tile-order variants (`grid_variants`).
template <class T, class TC, class... Policies>
void run_shape(cublasHandle_t handle, shape s, int reps, bool grid_variants = true) {
  const int64_t m = s.m, n = s.n, k = s.k, lda = k, ldb = k, ldc = m;
  std::mt19937 engine(unsigned(m * 31 + n * 7 + k));
  std::normal_distribution<float> normal;
  std::vector<T> a(size_t(lda * m)), b(size_t(ldb * n));
  for (auto& x : a) x = tgemm::convert<T>(normal(engine));
  for (auto& x : b) x = tgemm::convert<T>(normal(engine));
  T *d_a = nullptr, *d_b = nullptr;
  TC *d_c = nullptr, *d_ref = nullptr;
  TGEMM_CHECK_CUDA(cudaMalloc(&d_a, a.size() * sizeof(T)));
  TGEMM_CHECK_CUDA(cudaMalloc(&d_b, b.size() * sizeof(T)));
  TGEMM_CHECK_CUDA(cudaMalloc(&d_c, size_t(ldc * n) * sizeof(TC)));
  TGEMM_CHECK_CUDA(cudaMalloc(&d_ref, size_t(ldc * n) * sizeof(TC)));
  TGEMM_CHECK_CUDA(cudaMemcpy(d_a, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(d_b, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  const float alpha = 1.0f, beta = 0.0f;
  const auto cublas = [&] {
    TGEMM_CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(m), int(n), int(k), &alpha, d_a,
                                    cuda_type<T>(), int(lda), d_b, cuda_type<T>(), int(ldb), &beta, d_ref,
                                    cuda_type<TC>(), int(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  const auto mma_sync = [&] {
    if (tgemm::gemm(tgemm::layout::col_major, tgemm::op::transpose, tgemm::op::none, m, n, k, alpha, d_a, lda, d_b,
                    ldb, beta, d_c, ldc) != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm failed: %s\n", tgemm::last_error().message.c_str());
      std::exit(1);
    }
  };
  cublas();
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<TC> ref(size_t(ldc * n)), got(ref.size());
  TGEMM_CHECK_CUDA(cudaMemcpy(ref.data(), d_ref, ref.size() * sizeof(TC), cudaMemcpyDeviceToHost));
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const auto tflops = [&](float ms) { return flops / (double(ms) * 1e9); };
  const double budget = 200.0;
  float t_cublas = tgemm::test::median_event_ms(cublas, reps, budget);
  const float t_mma = tgemm::test::median_event_ms(mma_sync, reps, budget);
  const auto row = [&](const std::string& name, float ms, double max_diff) {
    std::printf("| %s -> %s | %lld x %lld x %lld | %s | %.1f | %.1f | %.3fx | %.1f %% | %.3g |\n", type_name<T>(),
                type_name<TC>(), (long long)m, (long long)n, (long long)k, name.c_str(), tflops(ms), tflops(t_cublas),
                double(t_cublas) / ms, 100.0 * tflops(ms) / peak_16bit_tflops, max_diff);
    std::fflush(stdout);
  };
  const auto max_diff = [&] {
    TGEMM_CHECK_CUDA(cudaMemcpy(got.data(), d_c, got.size() * sizeof(TC), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double d = std::fabs(to_double(got[i]) - to_double(ref[i]));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
    return worst;
  };
  row("tgemm::gemm()", t_mma, max_diff());
  // One row: `launch` computes C; poisoned first, checked against cuBLAS, timed interleaved with cuBLAS.
  const auto one = [&](const std::string& name, const auto& launch) {
    TGEMM_CHECK_CUDA(cudaMemset(d_c, 0xff, size_t(ldc * n) * sizeof(TC)));  // NaN poison
    const auto checked = [&] {
      if (launch() != tgemm::status::success) {
        std::fprintf(stderr, "%s failed: %s\n", name.c_str(), tgemm::last_error().message.c_str());
        std::exit(1);
      }
    };
    checked();
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    const double diff = max_diff();
    // Interleaved with cuBLAS: the cuBLAS figure of the row is re-measured beside each kernel.
    t_cublas = tgemm::test::median_event_ms(cublas, reps, budget);
    const float t = tgemm::test::median_event_ms(checked, reps, budget);
    row(name, t, diff);
  };
  const auto policy = [&](auto policy_tag) {
    using P = decltype(policy_tag);
    one(P::name(), [&] {
      return tgemm::experimental::gemm_tma_wgmma<P>(tgemm::layout::col_major, tgemm::op::transpose, tgemm::op::none,
                                                    m, n, k, alpha, d_a, lda, d_b, ldb, beta, d_c, ldc);
    });
  };
  (policy(Policies{}), ...);
  if (!grid_variants) {
    TGEMM_CHECK_CUDA(cudaFree(d_a));
    TGEMM_CHECK_CUDA(cudaFree(d_b));
    TGEMM_CHECK_CUDA(cudaFree(d_c));
    TGEMM_CHECK_CUDA(cudaFree(d_ref));
    return;
  }
  // The first policy's grid and tile order: one block per tile or persistent blocks, groups of tile rows.
  using first = std::tuple_element_t<0, std::tuple<Policies...>>;
  using kernels = tgemm::detail::wgmma_kernels<first>;
  int device = 0, sms = 0;
  TGEMM_CHECK_CUDA(cudaGetDevice(&device));
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (kernels::prepare(tgemm::op::transpose, tgemm::op::none, device) != tgemm::status::success) std::exit(1);
  const int tiles_m = int(kernels::tiles_m(m));
  const struct {
    const char* name;
    int blocks, group;
  } variants[] = {{"one block per tile, column order", 0, tiles_m}, {"one block per tile, groups of 16", 0, 16},
                  {"persistent, column order", sms, tiles_m},       {"persistent, groups of 8", sms, 8},
                  {"persistent, groups of 16", sms, 16},            {"persistent, groups of 32", sms, 32}};
  for (const auto& v : variants) {
    one(first::name() + ", " + v.name, [&] {
      return kernels::launch(tgemm::op::transpose, tgemm::op::none, m, n, k, alpha, d_a, lda, d_b, ldb, beta, d_c, ldc,
                             v.blocks, v.group, nullptr, device);
    });
  }
  TGEMM_CHECK_CUDA(cudaFree(d_a));
  TGEMM_CHECK_CUDA(cudaFree(d_b));
  TGEMM_CHECK_CUDA(cudaFree(d_c));
  TGEMM_CHECK_CUDA(cudaFree(d_ref));
}

template <class T, class TC>
using wide = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, T, TC>;
/// The wide tile in three stages: room for a whole 128 x 256 16-bit C tile of TMA-store staging (one store pass).
template <class T, class TC>
using wide_s3 = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 3, T, TC>;
template <class T, class TC>
using square = tgemm::wgmma_policy<tgemm::block_shape<128, 128, 64>, 5, T, TC>;
template <class T, class TC>
using strip = tgemm::wgmma_policy<tgemm::block_shape<64, 256, 64>, 5, T, TC>;

/// The same tiles in clusters of two along m (ClusterM = 2: B slices copied once per pair, multicast to both).
template <class T, class TC>
using wide_pair = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, T, TC, tgemm::math_mode::strict, false, 2>;
/// The tables' small tile (64 x 128, eight stages: few-tile problems such as 128 x 4096 x 4096), alone and in pairs.
template <class T, class TC>
using narrow = typename tgemm::tuning::tensorop_f16_sm90<T, TC>::wgmma_small;
template <class T, class TC>
using narrow_pair = tgemm::wgmma_policy<tgemm::block_shape<64, 128, 64>, 8, T, TC, tgemm::math_mode::strict, false, 2>;
/// The tables' ping-pong tile (fused epilogues' 64 x 256), alone and in pairs.
template <class T, class TC>
using pingpong = typename tgemm::tuning::tensorop_f16_sm90<T, TC>::wgmma_fused;
template <class T, class TC>
using pingpong_pair = tgemm::wgmma_policy<tgemm::block_shape<64, 256, 64>, 4, T, TC, tgemm::math_mode::strict, true, 2>;

/// The ping-pong tile with a fused bias + GELU (tgemm::gemm()'s plan for the large fused problems), alone and in pairs,
/// alternating twice, C = A^T B as the other rows: TFLOP/s of each run, and whether the pairs' C is the single blocks'
/// bit for bit (a cluster changes where B's bytes come from, not the arithmetic).
template <class T>
void run_fused_pairs(shape s, int reps) {
  const int64_t m = s.m, n = s.n, k = s.k;
  std::mt19937 engine(unsigned(m * 13 + n));
  std::normal_distribution<float> normal;
  std::vector<T> a(static_cast<size_t>(k * m)), b(static_cast<size_t>(k * n)), bias(static_cast<size_t>(m));
  for (auto& x : a) x = tgemm::convert<T>(normal(engine));
  for (auto& x : b) x = tgemm::convert<T>(normal(engine));
  for (auto& x : bias) x = tgemm::convert<T>(normal(engine));
  T *d_a = nullptr, *d_b = nullptr, *d_bias = nullptr, *d_c[2] = {nullptr, nullptr};
  TGEMM_CHECK_CUDA(cudaMalloc(&d_a, a.size() * sizeof(T)));
  TGEMM_CHECK_CUDA(cudaMalloc(&d_b, b.size() * sizeof(T)));
  TGEMM_CHECK_CUDA(cudaMalloc(&d_bias, bias.size() * sizeof(T)));
  for (auto& c : d_c) TGEMM_CHECK_CUDA(cudaMalloc(&c, size_t(m * n) * sizeof(T)));
  TGEMM_CHECK_CUDA(cudaMemcpy(d_a, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(d_b, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(d_bias, bias.data(), bias.size() * sizeof(T), cudaMemcpyHostToDevice));
  tgemm::device::epilogue_terms<T, float> terms;
  terms.row_bias = d_bias;
  terms.act = tgemm::activation::gelu_tanh;
  int device = 0, sms = 0;
  TGEMM_CHECK_CUDA(cudaGetDevice(&device));
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const auto launcher = [&](auto policy_tag, T* c) {
    using kernels = tgemm::detail::wgmma_kernels<decltype(policy_tag)>;
    if (kernels::template prepare<true>(tgemm::op::transpose, tgemm::op::none, device) != tgemm::status::success) {
      std::fprintf(stderr, "prepare failed: %s\n", tgemm::last_error().message.c_str());
      std::exit(1);
    }
    return [=] {
      if (kernels::template launch<true>(tgemm::op::transpose, tgemm::op::none, m, n, k, 1.0f, d_a, k, d_b, k, 0.0f, c,
                                         m, sms, 16, nullptr, device, tgemm::detail::batch_shape{},
                                         terms) != tgemm::status::success) {
        std::fprintf(stderr, "fused launch failed: %s\n", tgemm::last_error().message.c_str());
        std::exit(1);
      }
    };
  };
  const auto single = launcher(pingpong<T, T>{}, d_c[0]);
  const auto pair = launcher(pingpong_pair<T, T>{}, d_c[1]);
  single();
  pair();
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<T> c0(static_cast<size_t>(m * n)), c1(c0.size());
  TGEMM_CHECK_CUDA(cudaMemcpy(c0.data(), d_c[0], c0.size() * sizeof(T), cudaMemcpyDeviceToHost));
  TGEMM_CHECK_CUDA(cudaMemcpy(c1.data(), d_c[1], c1.size() * sizeof(T), cudaMemcpyDeviceToHost));
  const bool same = std::memcmp(c0.data(), c1.data(), c0.size() * sizeof(T)) == 0;
  const double flops = 2.0 * double(m) * double(n) * double(k);
  std::printf("| %s bias + GELU | %lld x %lld x %lld | ping-pong alone / in pairs, two rounds |", type_name<T>(),
              (long long)m, (long long)n, (long long)k);
  for (int round = 0; round < 2; ++round) {
    const float t_single = tgemm::test::median_event_ms(single, reps, 200.0);
    const float t_pair = tgemm::test::median_event_ms(pair, reps, 200.0);
    std::printf(" %.1f / %.1f |", flops / (double(t_single) * 1e9), flops / (double(t_pair) * 1e9));
  }
  std::printf(" same bits: %s |\n", same ? "yes" : "NO");
  TGEMM_CHECK_CUDA(cudaFree(d_a));
  TGEMM_CHECK_CUDA(cudaFree(d_b));
  TGEMM_CHECK_CUDA(cudaFree(d_bias));
  for (T* c : d_c) TGEMM_CHECK_CUDA(cudaFree(c));
}

template <class T, class TC>
void run_clusters(cublasHandle_t handle, const std::vector<shape>& shapes, int reps) {
  for (const shape& s : shapes) {
    run_shape<T, TC, wide<T, TC>, wide_pair<T, TC>, narrow<T, TC>, narrow_pair<T, TC>, pingpong<T, TC>,
              pingpong_pair<T, TC>>(handle, s, reps, false);
  }
  for (const shape& s : {shape{4096, 4096, 4096}, shape{8192, 8192, 8192}, shape{16384, 4096, 1024}}) {
    run_fused_pairs<T>(s, reps);
  }
}

template <class T, class TC>
void run_type(cublasHandle_t handle, const std::vector<shape>& shapes, int reps) {
  for (const shape& s : shapes) run_shape<T, TC, wide<T, TC>, wide_s3<T, TC>, square<T, TC>, strip<T, TC>>(handle, s, reps);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 15;
  bool quick = false, clusters = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--clusters") {
      clusters = true;
    } else {
      std::fprintf(stderr, "usage: %s [--reps N] [--quick | --clusters]\n", argv[0]);
      return 2;
    }
  }
  cublasHandle_t handle;
  TGEMM_CHECK_CUBLAS(cublasCreate(&handle));
  if (clusters) {
    std::printf("| A, B -> C | m x n x k | kernel | TFLOP/s | cuBLAS | ratio | of peak | max |C - C_cuBLAS| |\n");
    std::printf("|---|---|---|---:|---:|---:|---:|---:|\n");
    run_clusters<__nv_bfloat16, __nv_bfloat16>(handle,
                                               {{2048, 2048, 2048},
                                                {4096, 4096, 4096},
                                                {8192, 8192, 8192},
                                                {128, 4096, 4096},
                                                {256, 4096, 4096},
                                                {256, 2048, 4096},
                                                {4096, 4096, 128}},
                                               reps);
    TGEMM_CHECK_CUBLAS(cublasDestroy(handle));
    return 0;
  }
  const std::vector<shape> shapes =
      quick ? std::vector<shape>{{4096, 4096, 4096}, {8192, 8192, 8192}}
            : std::vector<shape>{{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {4095, 4097, 4096},
                                 {4096, 4096, 128},  {128, 4096, 4096}};
  std::printf("| A, B -> C | m x n x k | kernel | TFLOP/s | cuBLAS | ratio | of peak | max |C - C_cuBLAS| |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|\n");
  run_type<__nv_bfloat16, __nv_bfloat16>(handle, shapes, reps);
  run_type<__nv_bfloat16, float>(handle, shapes, reps);
  run_type<__half, __half>(handle, quick ? shapes : std::vector<shape>{{4096, 4096, 4096}, {8192, 8192, 8192}}, reps);
  TGEMM_CHECK_CUBLAS(cublasDestroy(handle));
  return 0;
}
