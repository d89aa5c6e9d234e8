// What one tgemm::gemm() call costs the host, beside the GPU's time, for float products from a 64^3 launch-bound call
// to 120 us ones (docs/performance.md, "Host time per call"). Per shape: the host's microseconds per call (8 calls
// enqueued back to back after a synchronize, so the queue never fills; median of 40), one call between two events
// (host time included: what tgemm_bench times; median of 200), and 20 calls back to back between two events (the
// GPU's time per call when the host keeps ahead; median of 10). It uses only the public API, so the same source builds
// against an older include tree to compare revisions in one device call:
//   nvcc -std=c++17 -O3 -arch=sm_90a -I OLD/include -I test/support bench/call_overhead_probe.cu -o probe_old
// The CMake target (TGEMM_CALL_PARTS) also times the parts of a call: cudaGetDevice, an empty launch (<<<>>> and
// cudaLaunchKernelEx, 184 bytes of parameters), a 32 KiB cudaMallocAsync + cudaFreeAsync on the default pool,
// gemm_workspace_size() (the device lookup and the plan: everything before the launches), gemm() with a caller's
// workspace (no allocation), and cublasSgemm's host time for the same products.
// Usage: tgemm_call_overhead_probe [LABEL]
#include <tgemm/gemm.cuh>
#if defined(TGEMM_CALL_PARTS)
#include <cublas_v2.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "check_cuda.hpp"

namespace {

/// Values in [-1, 1) from a hash of the index: never zeros, no host copy needed.
__global__ void fill(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    p[i] = float(h & 0xffff) / 32768.0f - 1.0f;
  }
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Host microseconds per f(): 8 calls back to back after a synchronize, median of 40.
template <class F>
double host_us(F&& f) {
  std::vector<double> v;
  for (int r = 0; r < 40; ++r) {
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int j = 0; j < 8; ++j) f();
    const auto t1 = std::chrono::steady_clock::now();
    v.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 8);
  }
  return median(v);
}

#if defined(TGEMM_CALL_PARTS)
struct parameters {
  char bytes[184];  // about a tgemm kernel's parameters
};
__global__ void empty_kernel(parameters) {}

void time_parts(float* a, float* b, float* c) {
  void* ws = nullptr;
  const size_t ws_bytes = size_t(64) << 20;
  TGEMM_CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) std::exit(2);
  const parameters arg{};
  std::printf("cudaGetDevice %.2f us, empty launch <<<>>> %.2f us, cudaLaunchKernelEx %.2f us, "
              "cudaMallocAsync + cudaFreeAsync (32 KiB, default pool) %.2f us\n",
              host_us([] {
                int device = 0;
                TGEMM_CHECK_CUDA(cudaGetDevice(&device));
              }),
              host_us([&] { empty_kernel<<<1, 32>>>(arg); }),
              host_us([&] {
                cudaLaunchConfig_t config{};
                config.gridDim = dim3(1), config.blockDim = dim3(32);
                TGEMM_CHECK_CUDA(cudaLaunchKernelEx(&config, empty_kernel, arg));
              }),
              host_us([] {
                void* p = nullptr;
                TGEMM_CHECK_CUDA(cudaMallocAsync(&p, 32768, nullptr));
                TGEMM_CHECK_CUDA(cudaFreeAsync(p, nullptr));
              }));
  const long long sizes[][3] = {{4096, 4096, 128}, {512, 512, 512}, {64, 64, 64}};
  for (const auto& s : sizes) {
    const long long m = s[0], n = s[1], k = s[2];
    const float one = 1, zero = 0;
    size_t bytes = 0;
    const auto ok = [](tgemm::status st) {
      if (st != tgemm::status::success) std::exit(2);
    };
    const auto plain = [&] {
      ok(tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m));
    };
    const auto given = [&] {
      ok(tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m,
                     nullptr, tgemm::workspace{ws, ws_bytes}));
    };
    const auto size = [&] {
      ok(tgemm::gemm_workspace_size(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f, a, m, b,
                                    k, 0.0f, c, m, bytes));
    };
    const auto cublas = [&] {
      if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &one, a, int(m), b, int(k), &zero, c,
                      int(m)) != CUBLAS_STATUS_SUCCESS) {
        std::exit(2);
      }
    };
    plain(), given(), size(), cublas();
    std::printf("%lldx%lldx%lld host us: gemm_workspace_size %.2f, gemm %.2f, gemm with a caller's workspace %.2f, "
                "cublasSgemm %.2f\n",
                m, n, k, host_us(size), host_us(plain), host_us(given), host_us(cublas));
  }
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  cublasDestroy(handle);
  TGEMM_CHECK_CUDA(cudaFree(ws));
}
#endif

}  // namespace

int main(int argc, char** argv) {
  struct shape {
    long long m, n, k;
  };
  const shape shapes[] = {{4096, 4096, 128}, {512, 512, 512},  {1024, 1024, 1024}, {128, 4096, 4096},
                          {16, 8192, 8192},  {256, 256, 16384}, {64, 64, 64}};
  const char* label = argc > 1 ? argv[1] : "tgemm";
  const size_t most = size_t(8192) * 8192, most_c = size_t(4096) * 4096;
  float *a, *b, *c;
  TGEMM_CHECK_CUDA(cudaMalloc(&a, most * sizeof(float)));
  TGEMM_CHECK_CUDA(cudaMalloc(&b, most * sizeof(float)));
  TGEMM_CHECK_CUDA(cudaMalloc(&c, most_c * sizeof(float)));
  fill<<<1024, 256>>>(a, most, 1);
  fill<<<1024, 256>>>(b, most, 2);
  fill<<<1024, 256>>>(c, most_c, 3);
  TGEMM_CHECK_CUDA(cudaGetLastError());
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  TGEMM_CHECK_CUDA(cudaEventCreate(&start));
  TGEMM_CHECK_CUDA(cudaEventCreate(&stop));
  for (const shape s : shapes) {
    const auto call = [&] {
      const tgemm::status st = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, s.m, s.n, s.k,
                                           1.0f, a, s.m, b, s.k, 0.0f, c, s.m);
      if (st != tgemm::status::success) {
        std::fprintf(stderr, "tgemm::gemm() refused %lldx%lldx%lld\n", s.m, s.n, s.k);
        std::exit(2);
      }
    };
    for (int i = 0; i < 5; ++i) call();
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    const double host = host_us(call);
    std::vector<double> single, back_to_back;
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    float ms = 0;
    for (int r = 0; r < 200; ++r) {
      TGEMM_CHECK_CUDA(cudaEventRecord(start));
      call();
      TGEMM_CHECK_CUDA(cudaEventRecord(stop));
      TGEMM_CHECK_CUDA(cudaEventSynchronize(stop));
      TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      single.push_back(ms * 1000.0);
    }
    for (int r = 0; r < 10; ++r) {
      TGEMM_CHECK_CUDA(cudaEventRecord(start));
      for (int j = 0; j < 20; ++j) call();
      TGEMM_CHECK_CUDA(cudaEventRecord(stop));
      TGEMM_CHECK_CUDA(cudaEventSynchronize(stop));
      TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      back_to_back.push_back(ms * 1000.0 / 20);
    }
    std::printf("%s %lldx%lldx%lld: host %.2f us/call, one call between events %.2f us, back to back %.2f us/call\n",
                label, s.m, s.n, s.k, host, median(single), median(back_to_back));
  }
#if defined(TGEMM_CALL_PARTS)
  time_parts(a, b, c);
#endif
  TGEMM_CHECK_CUDA(cudaGetLastError());
  TGEMM_CHECK_CUDA(cudaFree(a));
  TGEMM_CHECK_CUDA(cudaFree(b));
  TGEMM_CHECK_CUDA(cudaFree(c));
}
