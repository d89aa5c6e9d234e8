// The Hopper kernel's cooperative 128 x 256 tile (two consumer warpgroups on one tile) against ping-pong consumers
// (two warpgroups on different 64 x 256 tiles, taking turns: `pp`, the 16-bit tables' wgmma_fused, in 4 or 5
// stages), plain and with a fused bias + GELU, bf16 NN column-major, launched directly (detail::wgmma_kernels) with
// persistent blocks and tile-order groups of 16 or 32 tile rows;
// cublasGemmEx beside them. Before timing, every variant's C is compared bit for bit with the cooperative kernel's
// of its kind (the same wgmma sums in the same order). Timing: random normal operands rounded to bf16, operand sets
// rotated past twice the L2, 3 warm-up rounds, then REPS rounds (default 20) each timing every variant once in a
// rotating order between its own events; medians. docs/performance.md (fused epilogues) has the tables.
// Usage: tgemm_pingpong_probe [REPS]          (an sm_90 GPU running the sm_90a image)
#include <cuda_bf16.h>
#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>  // detail::wgmma_kernels (in the compiled mode too)

#include "check_cuda.hpp"
#include "timing.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using bf = __nv_bfloat16;
using tgemm::op;
using coop = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, bf>;
template <int S>
using pp = tgemm::wgmma_policy<tgemm::block_shape<64, 256, 64>, S, bf, bf, tgemm::math_mode::strict, true>;

int sms = 0;

template <class P, bool Fused>
void run(int64_t m, int64_t n, int64_t k, const bf* a, const bf* b, bf* c, const bf* bias, int group_m) {
  using K = tgemm::detail::wgmma_kernels<P>;
  static const bool ready = [] {
    if (K::template prepare<Fused>(op::none, op::none, 0) != tgemm::status::success) {
      std::fprintf(stderr, "prepare failed: %s\n", tgemm::last_error().message.c_str());
      std::exit(2);
    }
    return true;
  }();
  (void)ready;
  tgemm::device::epilogue_terms<bf, float> t;
  if (Fused) t.row_bias = bias, t.act = tgemm::activation::gelu_tanh;
  const tgemm::status st = K::template launch<Fused>(op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m, sms,
                                                     group_m, nullptr, 0, tgemm::detail::batch_shape{}, t);
  if (st != tgemm::status::success) {
    std::fprintf(stderr, "%s launch failed: %s\n", P::name().c_str(), tgemm::last_error().message.c_str());
    std::exit(2);
  }
}

struct variant {
  std::string name;
  bool fused;
  void (*fn)(int64_t, int64_t, int64_t, const bf*, const bf*, bf*, const bf*);
};

template <class P, bool F, int G>
void call(int64_t m, int64_t n, int64_t k, const bf* a, const bf* b, bf* c, const bf* bias) {
  run<P, F>(m, n, k, a, b, c, bias, G);
}

cublasHandle_t handle;
void cublas_call(int64_t m, int64_t n, int64_t k, const bf* a, const bf* b, bf* c, const bf*) {
  const float alpha = 1, beta = 0;
  cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &alpha, a, CUDA_R_16BF, int(m), b, CUDA_R_16BF,
               int(k), &beta, c, CUDA_R_16BF, int(m), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  const variant variants[] = {
      {"coop plain", false, call<coop, false, 16>},       {"pp4 plain g16", false, call<pp<4>, false, 16>},
      {"pp4 plain g32", false, call<pp<4>, false, 32>},   {"pp5 plain g16", false, call<pp<5>, false, 16>},
      {"cublas plain", false, cublas_call},               {"coop fused", true, call<coop, true, 16>},
      {"pp4 fused g16", true, call<pp<4>, true, 16>},     {"pp4 fused g32", true, call<pp<4>, true, 32>},
      {"pp5 fused g16", true, call<pp<5>, true, 16>},
  };
  constexpr int nv = sizeof(variants) / sizeof(variants[0]);
  const int64_t shapes[][3] = {{2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 4096, 1024},
                               {4096, 4096, 128}, {1000, 1000, 1000}};
  for (const auto& sh : shapes) {
    const int64_t m = sh[0], n = sh[1], k = sh[2];
    const size_t bytes_ab = size_t(m * k + k * n) * 2;
    const int sets = int(std::min<size_t>(4, 2 * 60 * (size_t(1) << 20) / bytes_ab + 1));
    std::vector<bf*> a(sets), b(sets), c(sets);
    bf *bias = nullptr, *ref = nullptr;
    std::mt19937_64 engine(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<bf> host(size_t(std::max(m * k, k * n)));
    for (int s = 0; s < sets; ++s) {
      TGEMM_CHECK_CUDA(cudaMalloc(&a[s], size_t(m * k) * 2));
      TGEMM_CHECK_CUDA(cudaMalloc(&b[s], size_t(k * n) * 2));
      TGEMM_CHECK_CUDA(cudaMalloc(&c[s], size_t(m * n) * 2));
      for (int64_t i = 0; i < m * k; ++i) host[size_t(i)] = __float2bfloat16(normal(engine));
      TGEMM_CHECK_CUDA(cudaMemcpy(a[s], host.data(), size_t(m * k) * 2, cudaMemcpyHostToDevice));
      for (int64_t i = 0; i < k * n; ++i) host[size_t(i)] = __float2bfloat16(normal(engine));
      TGEMM_CHECK_CUDA(cudaMemcpy(b[s], host.data(), size_t(k * n) * 2, cudaMemcpyHostToDevice));
    }
    TGEMM_CHECK_CUDA(cudaMalloc(&bias, size_t(m) * 2));
    for (int64_t i = 0; i < m; ++i) host[size_t(i)] = __float2bfloat16(normal(engine));
    TGEMM_CHECK_CUDA(cudaMemcpy(bias, host.data(), size_t(m) * 2, cudaMemcpyHostToDevice));
    TGEMM_CHECK_CUDA(cudaMalloc(&ref, size_t(m * n) * 2));
    // Bit-for-bit: every tgemm variant against the cooperative kernel of its kind (plain or fused).
    std::vector<uint16_t> want(size_t(m * n)), got(size_t(m * n));
    for (int fused = 0; fused < 2; ++fused) {
      bool have = false;
      for (const variant& v : variants) {
        if (v.fused != bool(fused) || v.name.rfind("cublas", 0) == 0) continue;
        TGEMM_CHECK_CUDA(cudaMemset(c[0], 0xff, size_t(m * n) * 2));  // NaN poison
        v.fn(m, n, k, a[0], b[0], c[0], bias);
        TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
        TGEMM_CHECK_CUDA(cudaMemcpy(have ? got.data() : want.data(), c[0], size_t(m * n) * 2, cudaMemcpyDeviceToHost));
        if (!have) {
          have = true;
          continue;
        }
        size_t diff = 0;
        for (size_t i = 0; i < got.size(); ++i) diff += got[i] != want[i];
        std::printf("check %lldx%lldx%lld %-14s: %zu of %zu elements differ from the cooperative kernel's\n",
                    (long long)m, (long long)n, (long long)k, v.name.c_str(), diff, got.size());
      }
    }
    // Sanity against cuBLAS (plain).
    cublas_call(m, n, k, a[0], b[0], ref, nullptr);
    call<coop, false, 16>(m, n, k, a[0], b[0], c[0], nullptr);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    TGEMM_CHECK_CUDA(cudaMemcpy(got.data(), c[0], size_t(m * n) * 2, cudaMemcpyDeviceToHost));
    TGEMM_CHECK_CUDA(cudaMemcpy(want.data(), ref, size_t(m * n) * 2, cudaMemcpyDeviceToHost));
    double d2 = 0, n2 = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      float g, w;
      uint32_t gu = uint32_t(got[i]) << 16, wu = uint32_t(want[i]) << 16;
      std::memcpy(&g, &gu, 4), std::memcpy(&w, &wu, 4);
      d2 += double(g - w) * (g - w), n2 += double(w) * w;
    }
    std::printf("cuBLAS vs coop relative error %.3g\n", std::sqrt(d2 / n2));
    // Round-robin timing: each repetition times every variant once, in a rotating order, each between its own events.
    for (int w = 0; w < 3; ++w)
      for (const variant& v : variants) v.fn(m, n, k, a[w % sets], b[w % sets], c[w % sets], bias);
    std::vector<cudaEvent_t> ev(size_t(2 * nv * reps));
    for (auto& e : ev) TGEMM_CHECK_CUDA(cudaEventCreate(&e));
    int set = 0;
    for (int r = 0; r < reps; ++r) {
      for (int j = 0; j < nv; ++j) {
        const int v = (j + r) % nv;
        TGEMM_CHECK_CUDA(cudaEventRecord(ev[size_t(2 * (r * nv + v))]));
        variants[v].fn(m, n, k, a[set], b[set], c[set], bias);
        TGEMM_CHECK_CUDA(cudaEventRecord(ev[size_t(2 * (r * nv + v) + 1)]));
        set = (set + 1) % sets;
      }
    }
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    TGEMM_CHECK_CUDA(cudaGetLastError());
    const double flops = 2.0 * double(m) * double(n) * double(k);
    double base_plain = 0, base_fused = 0;
    for (int v = 0; v < nv; ++v) {
      std::vector<float> t(static_cast<size_t>(reps));
      for (int r = 0; r < reps; ++r)
        TGEMM_CHECK_CUDA(cudaEventElapsedTime(&t[size_t(r)], ev[size_t(2 * (r * nv + v))], ev[size_t(2 * (r * nv + v) + 1)]));
      const double ms = tgemm::test::median_of(t);
      if (v == 0) base_plain = ms;
      if (variants[v].name == "coop fused") base_fused = ms;
      const double base = variants[v].fused ? base_fused : base_plain;
      std::printf("%5lldx%5lldx%5lld %-14s %9.4f ms %7.1f TFLOP/s  vs coop %.3f\n", (long long)m, (long long)n,
                  (long long)k, variants[v].name.c_str(), ms, flops / ms / 1e9, base > 0 ? base / ms : 0.0);
    }
    for (auto& e : ev) cudaEventDestroy(e);
    for (int s = 0; s < sets; ++s) cudaFree(a[s]), cudaFree(b[s]), cudaFree(c[s]);
    cudaFree(bias), cudaFree(ref);
    std::fflush(stdout);
  }
  return 0;
}
