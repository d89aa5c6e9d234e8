// Tuning candidates for the tensor-core tiles: each policy launched through tgemm::launch<Policy> on col-major
// products, beside cublasGemmEx, interleaved, median of --reps (the winners go to tuning/tensorop_f16.cuh and
// tuning/tensorop_tf32.cuh and tuning/tensorop_f64.cuh). bf16 (--type bf16, the default), float with TF32 and
// 3xTF32 (--type tf32, beside cuBLAS's TF32 and tgemm's strict FP32) or double (--type f64, beside cublasDgemm).
// Operands are random normal; each is larger than L2 at the sizes timed.
// Usage: tgemm_tensorop_candidates [--type bf16|tf32|f64] [--reps N] [--sizes 4096,8192]
// Built only in a build configured with -DTGEMM_BENCH_CANDIDATES=ON.
#include <tgemm/gemm.cuh>

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "check_cuda.hpp"
#include "tensorop_candidates.hpp"

namespace {

using tgemm::bench::contender;

cublasHandle_t handle;
template <class Element, cublasComputeType_t Compute>
tgemm::status run_cublas(int64_t n, const Element* a, const Element* b, Element* c) {
  const float alpha = 1, beta = 0;
  const cudaDataType_t type = std::is_same<Element, float>::value ? CUDA_R_32F : CUDA_R_16BF;
  const cublasStatus_t s = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, a, type,
                                        int(n), b, type, int(n), &beta, c, type, int(n), Compute, CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS ? tgemm::status::success : tgemm::status::cuda_error;
}

tgemm::status run_dgemm(int64_t n, const double* a, const double* b, double* c) {
  const double alpha = 1, beta = 0;
  const cublasStatus_t s = cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &alpha, a, int(n), b,
                                       int(n), &beta, c, int(n));
  return s == CUBLAS_STATUS_SUCCESS ? tgemm::status::success : tgemm::status::cuda_error;
}

tgemm::status run_strict(int64_t n, const float* a, const float* b, float* c) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}

template <class Element>
int time_all(const std::vector<contender<Element>>& all, const std::vector<int64_t>& sizes, int reps) {
  for (const int64_t n : sizes) {
    const size_t count = size_t(n * n);
    std::vector<Element> host(count);
    std::mt19937 engine(42);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto& x : host) x = Element(normal(engine));
    Element *a, *b, *c;
    TGEMM_CHECK_CUDA(cudaMalloc(&a, count * sizeof(Element)));
    TGEMM_CHECK_CUDA(cudaMalloc(&b, count * sizeof(Element)));
    TGEMM_CHECK_CUDA(cudaMalloc(&c, count * sizeof(Element)));
    TGEMM_CHECK_CUDA(cudaMemcpy(a, host.data(), count * sizeof(Element), cudaMemcpyHostToDevice));
    TGEMM_CHECK_CUDA(cudaMemcpy(b, host.data(), count * sizeof(Element), cudaMemcpyHostToDevice));
    std::vector<std::vector<float>> times(all.size());
    cudaEvent_t start, stop;
    TGEMM_CHECK_CUDA(cudaEventCreate(&start));
    TGEMM_CHECK_CUDA(cudaEventCreate(&stop));
    for (int r = -2; r < reps; ++r) {  // two warm-up rounds
      for (size_t i = 0; i < all.size(); ++i) {
        TGEMM_CHECK_CUDA(cudaEventRecord(start));
        if (all[i].run(n, a, b, c) != tgemm::status::success) {
          std::fprintf(stderr, "%s failed: %s\n", all[i].name.c_str(), tgemm::last_error().message.c_str());
          return 1;
        }
        TGEMM_CHECK_CUDA(cudaEventRecord(stop));
        TGEMM_CHECK_CUDA(cudaEventSynchronize(stop));
        float ms = 0;
        TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
        if (r >= 0) times[i].push_back(ms);
      }
    }
    double cublas_ms = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      std::sort(times[i].begin(), times[i].end());
      const double ms = times[i][times[i].size() / 2];
      if (i == 0) cublas_ms = ms;
      std::printf("%5lld^3  %-52s %8.4f ms %7.1f TFLOP/s %6.3fx cuBLAS\n", (long long)n, all[i].name.c_str(), ms,
                  2.0 * double(n) * double(n) * double(n) / (ms * 1e-3) / 1e12, cublas_ms / ms);
    }
    cudaFree(a), cudaFree(b), cudaFree(c);
    cudaEventDestroy(start), cudaEventDestroy(stop);
  }
  return 0;
}

// The references first (the first one is what the ratios are against), then the candidates.
template <class Element>
std::vector<contender<Element>> joined(std::vector<contender<Element>> first,
                                       const std::vector<contender<Element>>& rest) {
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10;
  std::string type = "bf16";
  std::vector<int64_t> sizes = {4096, 8192};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    if (arg == "--type" && i + 1 < argc) type = argv[++i];
    if (arg == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::stringstream list(argv[++i]);
      for (std::string x; std::getline(list, x, ',');) sizes.push_back(std::atoll(x.c_str()));
    }
  }
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  if (type == "tf32") {
    return time_all(joined({{"cublasGemmEx TF32", &run_cublas<float, CUBLAS_COMPUTE_32F_FAST_TF32>},
                            {"tgemm strict FP32", &run_strict}},
                           tgemm::bench::tf32_candidates()),
                    sizes, reps);
  }
  if (type == "f64") {
    return time_all(joined({{"cublasDgemm", &run_dgemm}}, tgemm::bench::f64_candidates()), sizes, reps);
  }
  return time_all(joined({{"cublasGemmEx", &run_cublas<__nv_bfloat16, CUBLAS_COMPUTE_32F>}},
                         tgemm::bench::bf16_candidates()),
                  sizes, reps);
}
