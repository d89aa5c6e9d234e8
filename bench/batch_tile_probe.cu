// Which Hopper tile a strided batch of small 16-bit products wants: issue 15's batch shapes (and the dispatch notes'
// tile set) on the sm_90a kernel's policies launched directly for the whole batch (detail::wgmma_kernels, one grid of
// (product, tile) work items), beside tgemm::gemm_strided_batched() (its plan) and cublasGemmStridedBatchedEx.
// Candidates: the 16-bit tables' large tile (L, 128 x 256, 4 stages) and smaller one (S, 64 x 128, 8 stages); tiles
// not in the library: 128 x 128 in 4 stages alone and in clusters of two along m (M4, M4c2), in 3 stages (M3),
// ping-pong consumers on 64 x 128 tiles (P: one consumer's
// epilogue runs while the other's wgmmas do) in 6 and 3 stages, and the smaller tile in 3 stages (S64x128s3: small
// enough for two blocks a multiprocessor). The first line lists each candidate's shared memory. Each with persistent blocks (as many as fit on the multiprocessors at once) and with one block per work item ("/t").
// bf16 in and out, column-major NN, tight strides, beta = 0, random normal operands, operand sets rotated past twice
// the L2; every candidate's C is checked against cuBLAS's (largest difference relative to the largest |C|) before
// timing; then REPS rounds, each timing every candidate once between its own events (the sets rotating); medians.
// Usage: tgemm_batch_tile_probe [REPS]      (an sm_90 GPU running the sm_90a image)
#include <cuda_bf16.h>
#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>  // detail::wgmma_kernels

#include "batched_operands.hpp"
#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "timing.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using bf = __nv_bfloat16;
using tgemm::op;
template <int M, int N, int S, bool Pingpong = false, int Cluster = 1>
using tile = tgemm::wgmma_policy<tgemm::block_shape<M, N, 64>, S, bf, bf, tgemm::math_mode::strict, Pingpong, Cluster>;

namespace {

int sms = 0;

struct shape {
  int64_t count, m, n, k;
};

struct candidate {
  std::string name;
  std::function<void(const tgemm::bench::operand_set<bf>&)> run;
};

/// The batch on policy P, `blocks` persistent blocks (0: one per work item).
template <class P>
candidate on(const std::string& name, const shape& s, int64_t blocks) {
  using K = tgemm::detail::wgmma_kernels<P>;
  if (K::prepare(op::none, op::none, 0) != tgemm::status::success) {
    std::fprintf(stderr, "%s: prepare failed: %s\n", name.c_str(), tgemm::last_error().message.c_str());
    std::exit(2);
  }
  return {name + (blocks == 0 ? "/t" : ""), [=](const tgemm::bench::operand_set<bf>& o) {
            tgemm::detail::batch_shape batch{s.count, s.m * s.k, s.k * s.n, s.m * s.n};
            const tgemm::status st = K::launch(op::none, op::none, s.m, s.n, s.k, 1.0f, o.a, s.m, o.b, s.k, 0.0f, o.c,
                                               s.m, blocks, 8, nullptr, 0, batch);
            if (st != tgemm::status::success) {
              std::fprintf(stderr, "%s: launch failed: %s\n", P::name().c_str(), tgemm::last_error().message.c_str());
              std::exit(2);
            }
          }};
}

/// Blocks of policy P resident on one multiprocessor: 228 KiB of shared memory (each block also holds 1 KiB the
/// system reserves) and 2048 threads.
template <class P>
int64_t resident() {
  return std::min<int64_t>(228 * 1024 / (P::shared_bytes + 1024), 2048 / P::threads);
}

template <class P>
void both(std::vector<candidate>& v, const std::string& name, const shape& s) {
  static bool said = false;
  if (!said) std::printf("%s: %d B shared, %lld blocks a multiprocessor\n", name.c_str(), int(P::shared_bytes),
                         (long long)resident<P>());
  said = true;
  v.push_back(on<P>(name, s, sms * resident<P>()));
  v.push_back(on<P>(name, s, 0));
}

void run_shape(cublasHandle_t handle, const shape& s, int reps, size_t l2) {
  const size_t set_bytes = size_t(s.count) * size_t(s.m * s.k + s.k * s.n + s.m * s.n) * sizeof(bf);
  const int sets = tgemm::test::rotation_sets(set_bytes, l2, 8);
  auto operands = tgemm::bench::make_operand_sets<bf>(s.m, s.n, s.k, s.count, sets, false, 20261207);
  const float one = 1.0f, zero = 0.0f;
  std::vector<candidate> v;
  v.push_back({"cublas", [&](const tgemm::bench::operand_set<bf>& o) {
                 TGEMM_CHECK_CUBLAS(cublasGemmStridedBatchedEx(
                     handle, CUBLAS_OP_N, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k), &one, o.a, CUDA_R_16BF, int(s.m),
                     s.m * s.k, o.b, CUDA_R_16BF, int(s.k), s.k * s.n, &zero, o.c, CUDA_R_16BF, int(s.m), s.m * s.n,
                     int(s.count), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
               }});
  v.push_back({"tgemm", [&](const tgemm::bench::operand_set<bf>& o) {
                 const tgemm::status st = tgemm::gemm_strided_batched(
                     tgemm::layout::col_major, op::none, op::none, s.m, s.n, s.k, 1.0f, o.a, s.m, s.m * s.k, o.b, s.k,
                     s.k * s.n, 0.0f, o.c, s.m, s.m * s.n, s.count);
                 if (st != tgemm::status::success) {
                   std::fprintf(stderr, "tgemm: %s\n", tgemm::last_error().message.c_str());
                   std::exit(2);
                 }
               }});
  both<tile<128, 256, 4>>(v, "L128x256s4", s);
  both<tile<64, 128, 8>>(v, "S64x128s8", s);
  both<tile<128, 128, 4>>(v, "M128x128s4", s);
  v.push_back(on<tile<128, 128, 4, false, 2>>("M128x128s4c2", s, sms));
  both<tile<128, 128, 3>>(v, "M128x128s3", s);
  both<tile<64, 128, 6, true>>(v, "P64x128s6", s);
  both<tile<64, 128, 3>>(v, "S64x128s3", s);
  both<tile<64, 128, 3, true>>(v, "P64x128s3", s);

  // Correctness on set 0: every candidate against cuBLAS.
  const size_t c_count = size_t(s.count * s.m * s.n);
  std::vector<bf> ref(c_count), got(c_count);
  v[0].run(operands[0]);
  TGEMM_CHECK_CUDA(cudaMemcpy(ref.data(), operands[0].c, c_count * sizeof(bf), cudaMemcpyDeviceToHost));
  double largest = 0;
  for (bf x : ref) largest = std::max(largest, std::fabs(double(__bfloat162float(x))));
  std::string bad;
  for (size_t i = 1; i < v.size(); ++i) {
    TGEMM_CHECK_CUDA(cudaMemset(operands[0].c, 0xff, c_count * sizeof(bf)));  // NaN poison
    v[i].run(operands[0]);
    TGEMM_CHECK_CUDA(cudaMemcpy(got.data(), operands[0].c, c_count * sizeof(bf), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t j = 0; j < c_count; ++j) {
      const double d = std::fabs(double(__bfloat162float(got[j])) - double(__bfloat162float(ref[j])));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
    if (!(worst <= 0.02 * largest)) bad += " " + v[i].name;
  }
  if (!bad.empty()) std::printf("check FAILED (differs from cuBLAS by more than 2%% of max |C|):%s\n", bad.c_str());

  std::vector<std::vector<float>> times(v.size());
  int next = 0;
  for (int round = 0; round < reps + 3; ++round) {
    for (size_t i = 0; i < v.size(); ++i) {
      const auto& o = operands[size_t(next++ % sets)];
      const float ms = tgemm::test::median_event_ms([&] { v[i].run(o); }, 1, 0.0);
      if (round >= 3) times[i].push_back(ms);
    }
  }
  const double cublas_ms = tgemm::test::median_of(times[0]);
  std::printf("bf16 %lldx(%lld,%lld,%lld)", (long long)s.count, (long long)s.m, (long long)s.n, (long long)s.k);
  for (size_t i = 0; i < v.size(); ++i) {
    const double ms = tgemm::test::median_of(times[i]);
    std::printf("  %s %.4f (%.2fx)", v[i].name.c_str(), ms, cublas_ms / ms);
  }
  std::printf("\n");
  std::fflush(stdout);
  for (auto& o : operands) tgemm::bench::free_operands(o);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 20;
  int l2 = 0;
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  cublasHandle_t handle;
  TGEMM_CHECK_CUBLAS(cublasCreate(&handle));
  const std::vector<shape> shapes = {{256, 128, 128, 128}, {64, 256, 256, 256}, {1024, 64, 64, 64},
                                     {96, 512, 64, 512},   {96, 512, 512, 64},  {16, 1024, 1024, 1024},
                                     {512, 128, 128, 64},  {192, 512, 64, 256}, {96, 64, 512, 512}};
  for (const shape& s : shapes) run_shape(handle, s, reps, size_t(l2));
  TGEMM_CHECK_CUBLAS(cublasDestroy(handle));
  return 0;
}
