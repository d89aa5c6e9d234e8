// kernel::gemm_small_products launched directly, beside cuBLAS and tgemm's own call, on many small products
// (column-major NN, tight strides): what the kernel gives before tgemm's plans use it. For each shape and type, two
// interleaved pairings of one process, medians: the kernel against cuBLAS, then tgemm's call against cuBLAS
// (cublasGemmStridedBatchedEx or cublasSgemmStridedBatched; with --api pointers cublasGemmBatchedEx, tgemm::
// gemm_batched() and the kernel reading pointer arrays). The kernel's result is compared with cuBLAS's on the first
// operand set (a WARNING when they differ).
//
// Usage: tgemm_small_products_probe [--types f32,bf16,fp16] [--reps N] [--api strided|pointers] [--blocks B]
//   --blocks  at most B blocks of the kernel (default: one per four products of 32 x 32, one per product of 64 x 64)
//
// Timing rules as tgemm_bench_batched: random normal operands, enough sets to pass twice the L2, consecutive calls on
// consecutive sets, 3 warm-up calls each. TFLOP/s = count 2mnk / time; GB/s = A, B and C once / time (4.8 TB/s peak).
#include <tgemm/gemm.cuh>
#include <tgemm/kernel/gemm_small_products.cuh>

#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "element_values.hpp"
#include "timing.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;

struct shape {
  int64_t count, m, n, k;
};
const shape shapes[] = {{4096, 32, 32, 32}, {1024, 64, 64, 64}, {8192, 16, 16, 16}, {2048, 32, 64, 48},
                        {16384, 32, 32, 32}, {4096, 64, 64, 32}};

bool pointer_api = false;
int64_t max_blocks = 0;  // 0: as many as the products need
constexpr int warmup_launches = 3, max_sets = 8;

template <class T>
cudaDataType_t cuda_type() {
  if constexpr (std::is_same<T, __half>::value) return CUDA_R_16F;
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return CUDA_R_16BF;
  return CUDA_R_32F;
}

cublasHandle_t cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    TGEMM_CHECK_CUBLAS(cublasCreate(&h));
    return h;
  }();
  return handle;
}

template <class T>
struct operand_set {
  T *a = nullptr, *b = nullptr, *c = nullptr;
  const T** pa = nullptr;
  const T** pb = nullptr;
  T** pc = nullptr;
};

template <class T>
void make_pointer_arrays(const shape& s, operand_set<T>& o) {
  std::vector<const T*> a(size_t(s.count)), b(size_t(s.count));
  std::vector<T*> c(size_t(s.count));
  for (int64_t i = 0; i < s.count; ++i) {
    a[size_t(i)] = o.a + i * s.m * s.k, b[size_t(i)] = o.b + i * s.k * s.n, c[size_t(i)] = o.c + i * s.m * s.n;
  }
  TGEMM_CHECK_CUDA(cudaMalloc(&o.pa, a.size() * sizeof(T*)));
  TGEMM_CHECK_CUDA(cudaMalloc(&o.pb, b.size() * sizeof(T*)));
  TGEMM_CHECK_CUDA(cudaMalloc(&o.pc, c.size() * sizeof(T*)));
  TGEMM_CHECK_CUDA(cudaMemcpy(o.pa, a.data(), a.size() * sizeof(T*), cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(o.pb, b.data(), b.size() * sizeof(T*), cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(o.pc, c.data(), c.size() * sizeof(T*), cudaMemcpyHostToDevice));
}

struct type_info {
  const char* name;
  cublasComputeType_t compute;
};

/// The kernel on one operand set.
template <class T>
void launch_small(const shape& s, const operand_set<T>& o) {
  const auto run = [&](auto extent, const auto& products) {
    constexpr int e = decltype(extent)::value;
    constexpr int teams = tgemm::kernel::small_products_threads / ((e / 4) * (e / 4));
    int64_t blocks = (s.count + teams - 1) / teams;
    if (max_blocks > 0) blocks = std::min(blocks, max_blocks);
    using P = std::decay_t<decltype(products)>;
    tgemm::kernel::gemm_small_products<e, float, false, P, T, T, T, float>
        <<<unsigned(blocks), tgemm::kernel::small_products_threads>>>(products, s.count, op::none, op::none, 1.0f,
                                                                       0.0f, tgemm::device::epilogue_terms<T, float>{});
  };
  const auto with_extent = [&](const auto& products) {
    if (std::max(s.m, s.n) <= 32) {
      run(std::integral_constant<int, 32>{}, products);
    } else {
      run(std::integral_constant<int, 64>{}, products);
    }
  };
  if (pointer_api) {
    tgemm::kernel::indirect_products<T, T, T> p;
    p.a = o.pa, p.b = o.pb, p.c = o.pc, p.m = s.m, p.n = s.n, p.k = s.k, p.lda = s.m, p.ldb = s.k, p.ldc = s.m;
    with_extent(p);
  } else {
    tgemm::kernel::strided_products<T, T, T> p;
    p.a = o.a, p.b = o.b, p.c = o.c, p.m = s.m, p.n = s.n, p.k = s.k, p.lda = s.m, p.ldb = s.k, p.ldc = s.m;
    p.stride_a = s.m * s.k, p.stride_b = s.k * s.n, p.stride_c = s.m * s.n;
    with_extent(p);
  }
  TGEMM_CHECK_CUDA(cudaGetLastError());
}

template <class T>
void launch_tgemm(const shape& s, const operand_set<T>& o) {
  const tgemm::status st =
      pointer_api ? tgemm::gemm_batched(layout::col_major, op::none, op::none, s.m, s.n, s.k, 1.0f, o.pa, s.m, o.pb,
                                        s.k, 0.0f, o.pc, s.m, s.count)
                  : tgemm::gemm_strided_batched(layout::col_major, op::none, op::none, s.m, s.n, s.k, 1.0f, o.a, s.m,
                                                s.m * s.k, o.b, s.k, s.k * s.n, 0.0f, o.c, s.m, s.m * s.n, s.count);
  if (st != tgemm::status::success) {
    std::fprintf(stderr, "tgemm failed: %s\n", tgemm::last_error().message.c_str());
    std::exit(2);
  }
}

template <class T>
void launch_cublas(const shape& s, const type_info& info, const operand_set<T>& o) {
  const float alpha = 1.0f, beta = 0.0f;
  if (pointer_api) {
    TGEMM_CHECK_CUBLAS(cublasGemmBatchedEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k), &alpha,
                                           reinterpret_cast<const void* const*>(o.pa), cuda_type<T>(), int(s.m),
                                           reinterpret_cast<const void* const*>(o.pb), cuda_type<T>(), int(s.k), &beta,
                                           reinterpret_cast<void* const*>(o.pc), cuda_type<T>(), int(s.m),
                                           int(s.count), info.compute, CUBLAS_GEMM_DEFAULT));
  } else if (std::is_same<T, float>::value) {
    TGEMM_CHECK_CUBLAS(cublasSgemmStridedBatched(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k),
                                                 &alpha, reinterpret_cast<const float*>(o.a), int(s.m), s.m * s.k,
                                                 reinterpret_cast<const float*>(o.b), int(s.k), s.k * s.n, &beta,
                                                 reinterpret_cast<float*>(o.c), int(s.m), s.m * s.n, int(s.count)));
  } else {
    TGEMM_CHECK_CUBLAS(cublasGemmStridedBatchedEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k),
                                                  &alpha, o.a, cuda_type<T>(), int(s.m), s.m * s.k, o.b,
                                                  cuda_type<T>(), int(s.k), s.k * s.n, &beta, o.c, cuda_type<T>(),
                                                  int(s.m), s.m * s.n, int(s.count), info.compute,
                                                  CUBLAS_GEMM_DEFAULT));
  }
}

template <class T>
std::vector<double> download(const T* c, size_t count) {
  std::vector<T> host(count);
  TGEMM_CHECK_CUDA(cudaMemcpy(host.data(), c, count * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = tgemm::test::to_double(host[i]);
  return out;
}

template <class T>
void run_type(const type_info& info, size_t l2_bytes, int reps) {
  for (const shape& s : shapes) {
    const size_t a_count = size_t(s.count * s.m * s.k), b_count = size_t(s.count * s.k * s.n);
    const size_t c_count = size_t(s.count * s.m * s.n);
    const size_t bytes = (a_count + b_count + c_count) * sizeof(T);
    const int sets = int(std::min<size_t>(max_sets, 2 * l2_bytes / bytes + 1));
    std::vector<T> host(a_count + b_count);
    std::mt19937_64 engine(20261204);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<operand_set<T>> operands(static_cast<size_t>(sets));
    for (operand_set<T>& o : operands) {
      for (T& x : host) x = tgemm::test::from_float<T>(normal(engine));
      TGEMM_CHECK_CUDA(cudaMalloc(&o.a, a_count * sizeof(T)));
      TGEMM_CHECK_CUDA(cudaMalloc(&o.b, b_count * sizeof(T)));
      TGEMM_CHECK_CUDA(cudaMalloc(&o.c, c_count * sizeof(T)));
      TGEMM_CHECK_CUDA(cudaMemcpy(o.a, host.data(), a_count * sizeof(T), cudaMemcpyHostToDevice));
      TGEMM_CHECK_CUDA(cudaMemcpy(o.b, host.data() + a_count, b_count * sizeof(T), cudaMemcpyHostToDevice));
      TGEMM_CHECK_CUDA(cudaMemset(o.c, 0x3c, c_count * sizeof(T)));
      if (pointer_api) make_pointer_arrays(s, o);
    }
    T* reference = nullptr;
    TGEMM_CHECK_CUDA(cudaMalloc(&reference, c_count * sizeof(T)));
    launch_small(s, operands[0]);
    operand_set<T> check{operands[0].a, operands[0].b, reference};
    if (pointer_api) make_pointer_arrays(s, check);
    launch_cublas(s, info, check);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<double> got = download(operands[0].c, c_count), want = download(reference, c_count);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < got.size(); ++i) diff += (got[i] - want[i]) * (got[i] - want[i]), norm += want[i] * want[i];
    const double relative = std::sqrt(diff / norm), tolerance = sizeof(T) == 2 ? 1e-2 : 1e-4;
    if (!(relative < tolerance)) {
      std::printf("WARNING: %s %lld x (%lld, %lld, %lld): the kernel differs from cuBLAS, relative error %.3g\n",
                  info.name, (long long)s.count, (long long)s.m, (long long)s.n, (long long)s.k, relative);
    }
    TGEMM_CHECK_CUDA(cudaFree(reference));
    cudaFree(check.pa), cudaFree(check.pb), cudaFree(check.pc);

    size_t rotation = 0;
    const auto next = [&]() -> const operand_set<T>& { return operands[rotation++ % operands.size()]; };
    const tgemm::test::paired_medians kernel_pair = tgemm::test::interleaved_medians(
        [&](bool first) { first ? launch_small(s, next()) : launch_cublas(s, info, next()); }, reps, warmup_launches);
    const tgemm::test::paired_medians call_pair = tgemm::test::interleaved_medians(
        [&](bool first) { first ? launch_tgemm(s, next()) : launch_cublas(s, info, next()); }, reps, warmup_launches);
    for (operand_set<T>& o : operands) {
      cudaFree(o.a), cudaFree(o.b), cudaFree(o.c), cudaFree(o.pa), cudaFree(o.pb), cudaFree(o.pc);
    }
    const double flops = 2.0 * double(s.count) * double(s.m) * double(s.n) * double(s.k);
    const auto tf = [&](double ms) { return flops / (ms * 1e-3) / 1e12; };
    char dims[64];
    std::snprintf(dims, sizeof dims, "%lldx(%lld,%lld,%lld)", (long long)s.count, (long long)s.m, (long long)s.n,
                  (long long)s.k);
    std::printf("%-5s %-20s kernel %8.4f ms %7.2f TF %5.0f GB/s %5.2fx | tgemm %8.4f ms %5.2fx | cuBLAS %8.4f / %8.4f ms"
                " %7.2f TF\n",
                info.name, dims, kernel_pair.first_ms, tf(kernel_pair.first_ms),
                double(bytes) / (kernel_pair.first_ms * 1e-3) / 1e9, kernel_pair.second_ms / kernel_pair.first_ms,
                call_pair.first_ms, call_pair.second_ms / call_pair.first_ms, kernel_pair.second_ms,
                call_pair.second_ms, tf(kernel_pair.second_ms));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string types = "f32,bf16,fp16";
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--types" && i + 1 < argc) types = argv[++i];
    else if (arg == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--blocks" && i + 1 < argc) max_blocks = std::max(0, std::atoi(argv[++i]));
    else if (arg == "--api" && i + 1 < argc && (std::string(argv[i + 1]) == "strided" || std::string(argv[i + 1]) == "pointers")) {
      pointer_api = std::string(argv[++i]) == "pointers";
    } else {
      std::fprintf(stderr, "usage: %s [--types f32,bf16,fp16] [--reps N] [--api strided|pointers] [--blocks B]\n",
                   argv[0]);
      return 1;
    }
  }
  cudaDeviceProp prop{};
  int device = 0;
  TGEMM_CHECK_CUDA(cudaGetDevice(&device));
  TGEMM_CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("device: %s, %d SMs; api: %s; the kernel's ratio and tgemm's are cuBLAS's time over theirs\n", prop.name,
              prop.multiProcessorCount, pointer_api ? "pointer arrays" : "strided");
  std::stringstream list(types);
  for (std::string t; std::getline(list, t, ',');) {
    if (t == "f32") run_type<float>({"f32", CUBLAS_COMPUTE_32F}, size_t(prop.l2CacheSize), reps);
    else if (t == "bf16") run_type<__nv_bfloat16>({"bf16", CUBLAS_COMPUTE_32F}, size_t(prop.l2CacheSize), reps);
    else if (t == "fp16") run_type<__half>({"fp16", CUBLAS_COMPUTE_32F}, size_t(prop.l2CacheSize), reps);
    else {
      std::fprintf(stderr, "unknown type %s\n", t.c_str());
      return 1;
    }
  }
  return 0;
}
