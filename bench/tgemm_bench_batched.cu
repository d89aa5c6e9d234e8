// tgemm::gemm_strided_batched() against cuBLAS's strided-batched GEMM, or with --api pointers tgemm::gemm_batched()
// against cublasGemmBatchedEx (device arrays of pointers, the same products), timed side by side in one process.
//
// Usage: tgemm_bench_batched [--types f32,bf16,fp16,tf32] [--reps N] [--out DIR] [--api strided|pointers]
//                            [--set issue|small|tiles]
//   --types  f32 = float, strict FP32 (against cublasSgemmStridedBatched); bf16 = bf16 -> bf16 and fp16 = fp16 ->
//            fp16, float accumulation (against cublasGemmStridedBatchedEx, CUBLAS_COMPUTE_32F); tf32 = float with
//            math_mode::tf32 (against CUBLAS_COMPUTE_32F_FAST_TF32). Default f32,bf16.
//   --reps   timed launches per implementation and shape (default 20).
//   --out    directory of batched_results.csv (default ".").
//   --api    strided (default) or pointers: the pointer-array calls on the same operands (arrays built once per set).
//   --set    issue (default): the shapes below; small: many products of at most 64 x 64 (8192 x 16^3, 4096 x 32^3,
//            16384 x 32^3, 2048 x (32, 64, 48), 1024 x 64^3, 4096 x (64, 64, 32)); tiles: products on which the
//            planner chooses between the Hopper kernel's tiles for 16-bit batches (96 x (64, 512, 512), 128 x (64, 1024,
//            256), 192 x (512, 64, 256), 256 x (64, 256, 256), 512 x (128, 128, 64), 256 x (256, 256, 64)).
//
// Shapes (count x (m, n, k), column-major NN, tight leading dimensions and strides): the strided-batched shapes of
// the batched-GEMM issue: 4096 x 32^3, 1024 x 64^3, 256 x 128^3, 64 x 256^3, 16 x 1024^3, 8 x 2048^3,
// 96 x (512, 512, 64), 96 x (512, 64, 512).
//
// Timing rules (as tgemm_bench_tensorop): normal random operands (mean 0, stddev 1, fixed seed) rounded to the type;
// enough operand sets that one pass over them exceeds twice the L2 (at most 8), consecutive launches on consecutive
// sets; both implementations run once on set 0 and are compared (a WARNING when they differ); 3 warm-up launches
// each; then --reps repetitions, each timing one tgemm and one cuBLAS call (which goes first alternates) between
// their own CUDA events; medians reported. TFLOP/s = count 2mnk / time; % peak of the H200's dense peak of the
// type's math (FP32 SIMT 66.9, bf16/fp16 989, TF32 494.7); GB/s = the bytes of A, B and C read or written once
// (C written only: beta = 0) / time, against the H200's 4.8 TB/s.
#include <tgemm/gemm.cuh>

#include "batched_operands.hpp"
#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "download.hpp"
#include "element_values.hpp"
#include "timing.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
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

const shape issue_shapes[] = {{4096, 32, 32, 32},    {1024, 64, 64, 64}, {256, 128, 128, 128}, {64, 256, 256, 256},
                        {16, 1024, 1024, 1024}, {8, 2048, 2048, 2048}, {96, 512, 512, 64}, {96, 512, 64, 512}};
const shape small_shapes[] = {{8192, 16, 16, 16}, {4096, 32, 32, 32},  {16384, 32, 32, 32},
                              {2048, 32, 64, 48}, {1024, 64, 64, 64}, {4096, 64, 64, 32}};
const shape tile_shapes[] = {{96, 64, 512, 512},  {128, 64, 1024, 256}, {192, 512, 64, 256},
                             {256, 64, 256, 256}, {512, 128, 128, 64}, {256, 256, 256, 64}};
/// --set: issue, small or tiles.
std::string set_name = "issue";

constexpr int max_sets = 8;
/// --api pointers: tgemm::gemm_batched() against cublasGemmBatchedEx.
bool pointer_api = false;
constexpr int warmup_launches = 3;

using tgemm::test::cuda_type;
cublasHandle_t cublas() { return tgemm::test::cublas_handle(); }
using tgemm::bench::operand_set;

/// Fills a set's pointer arrays (tight strides, as the strided calls read them).
template <class T>
void make_pointer_arrays(const shape& s, operand_set<T>& o) {
  tgemm::bench::make_pointer_arrays(s.m, s.n, s.k, s.count, o);
}

/// What one element type runs with: its name, math, cuBLAS compute type and peak.
struct type_info {
  const char* name;
  tgemm::math_mode math;
  cublasComputeType_t compute;
  double peak_tflops;
};

template <class T>
void launch_tgemm(const shape& s, const type_info& info, const operand_set<T>& o) {
  tgemm::options opts;
  opts.math = info.math;
  if (pointer_api) {
    const tgemm::status st = tgemm::gemm_batched(layout::col_major, op::none, op::none, s.m, s.n, s.k, 1.0f, o.pa, s.m,
                                                 o.pb, s.k, 0.0f, o.pc, s.m, s.count, nullptr, opts);
    if (st != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm_batched failed: %s\n", tgemm::last_error().message.c_str());
      std::exit(2);
    }
    return;
  }
  const tgemm::status st = tgemm::gemm_strided_batched(
      layout::col_major, op::none, op::none, s.m, s.n, s.k, 1.0f, o.a, s.m, s.m * s.k, o.b, s.k, s.k * s.n, 0.0f, o.c,
      s.m, s.m * s.n, s.count, nullptr, opts);
  if (st != tgemm::status::success) {
    std::fprintf(stderr, "tgemm::gemm_strided_batched failed: %s\n", tgemm::last_error().message.c_str());
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
    return;
  }
  if (std::is_same<T, float>::value && info.math == tgemm::math_mode::strict) {
    TGEMM_CHECK_CUBLAS(cublasSgemmStridedBatched(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k),
                                                 &alpha, reinterpret_cast<const float*>(o.a), int(s.m), s.m * s.k,
                                                 reinterpret_cast<const float*>(o.b), int(s.k), s.k * s.n, &beta,
                                                 reinterpret_cast<float*>(o.c), int(s.m), s.m * s.n, int(s.count)));
    return;
  }
  TGEMM_CHECK_CUBLAS(cublasGemmStridedBatchedEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k),
                                                &alpha, o.a, cuda_type<T>(), int(s.m), s.m * s.k, o.b, cuda_type<T>(),
                                                int(s.k), s.k * s.n, &beta, o.c, cuda_type<T>(), int(s.m), s.m * s.n,
                                                int(s.count), info.compute, CUBLAS_GEMM_DEFAULT));
}

template <class T>
void run_type(const type_info& info, size_t l2_bytes, int reps, std::ofstream& csv) {
  const std::vector<shape> shapes =
      set_name == "small"   ? std::vector<shape>(std::begin(small_shapes), std::end(small_shapes))
      : set_name == "tiles" ? std::vector<shape>(std::begin(tile_shapes), std::end(tile_shapes))
                            : std::vector<shape>(std::begin(issue_shapes), std::end(issue_shapes));
  for (const shape& s : shapes) {
    const size_t a_count = size_t(s.count * s.m * s.k), b_count = size_t(s.count * s.k * s.n);
    const size_t c_count = size_t(s.count * s.m * s.n);
    const size_t bytes = (a_count + b_count + c_count) * sizeof(T);
    const int sets = tgemm::test::rotation_sets(bytes, l2_bytes, max_sets);
    std::vector<operand_set<T>> operands =
        tgemm::bench::make_operand_sets<T>(s.m, s.n, s.k, s.count, sets, pointer_api, 20261202);
    // Correctness against cuBLAS on set 0.
    T* reference = nullptr;
    TGEMM_CHECK_CUDA(cudaMalloc(&reference, c_count * sizeof(T)));
    launch_tgemm(s, info, operands[0]);
    operand_set<T> check{operands[0].a, operands[0].b, reference};
    if (pointer_api) make_pointer_arrays(s, check);
    launch_cublas(s, info, check);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<double> got = tgemm::test::download_as_double(operands[0].c, c_count),
                              want = tgemm::test::download_as_double(reference, c_count);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < got.size(); ++i) diff += (got[i] - want[i]) * (got[i] - want[i]), norm += want[i] * want[i];
    const double relative = std::sqrt(diff / norm), tolerance = sizeof(T) == 2 || info.math != tgemm::math_mode::strict ? 1e-2 : 1e-4;
    if (!(relative < tolerance)) {
      std::printf("WARNING: %s %lld x (%lld, %lld, %lld): tgemm differs from cuBLAS, relative Frobenius error %.3g\n",
                  info.name, (long long)s.count, (long long)s.m, (long long)s.n, (long long)s.k, relative);
    }
    TGEMM_CHECK_CUDA(cudaFree(reference));
    cudaFree(check.pa), cudaFree(check.pb), cudaFree(check.pc);

    size_t rotation = 0;
    const tgemm::test::paired_medians t = tgemm::test::interleaved_medians(
        [&](bool tgemm_impl) {
          const operand_set<T>& o = operands[rotation++ % operands.size()];
          if (tgemm_impl) launch_tgemm(s, info, o);
          else launch_cublas(s, info, o);
        },
        reps, warmup_launches);
    for (operand_set<T>& o : operands) {
      tgemm::bench::free_operands(o);
    }

    const double flops = 2.0 * double(s.count) * double(s.m) * double(s.n) * double(s.k);
    const double t_ms = t.first_ms, c_ms = t.second_ms;
    char dims[64];
    std::snprintf(dims, sizeof dims, "%lldx(%lld,%lld,%lld)", (long long)s.count, (long long)s.m, (long long)s.n,
                  (long long)s.k);
    for (int impl = 0; impl < 2; ++impl) {
      const double ms = impl == 0 ? c_ms : t_ms;
      const double tflops = flops / (ms * 1e-3) / 1e12, gbs = double(bytes) / (ms * 1e-3) / 1e9;
      const double ratio = c_ms / ms;
      const char* name = impl == 0 ? "cublas" : "tgemm";
      std::printf("%-6s %-22s %-7s %10.4f %9.2f %8.3fx %6.1f%% %8.0f\n", info.name, dims, name, ms, tflops, ratio,
                  100.0 * tflops / info.peak_tflops, gbs);
      csv << info.name << ',' << dims << ',' << name << ',' << ms << ',' << tflops << ',' << ratio << ','
          << 100.0 * tflops / info.peak_tflops << ',' << gbs << '\n';
    }
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string types = "f32,bf16", out_dir = ".";
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--types" && i + 1 < argc) types = argv[++i];
    else if (arg == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (arg == "--api" && i + 1 < argc && (std::string(argv[i + 1]) == "strided" || std::string(argv[i + 1]) == "pointers")) {
      pointer_api = std::string(argv[++i]) == "pointers";
    } else if (arg == "--set" && i + 1 < argc &&
               (std::string(argv[i + 1]) == "issue" || std::string(argv[i + 1]) == "small" ||
                std::string(argv[i + 1]) == "tiles")) {
      set_name = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--types f32,bf16,fp16,tf32] [--reps N] [--out DIR] [--api strided|pointers] "
                   "[--set issue|small|tiles]\n",
                   argv[0]);
      return 1;
    }
  }
  const cudaDeviceProp prop = tgemm::test::current_device_properties();
  std::printf("device: %s, sm_%d%d, %d SMs, L2 %d MB; api: %s\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount, prop.l2CacheSize >> 20,
              pointer_api ? "pointer arrays (tgemm::gemm_batched, cublasGemmBatchedEx)" : "strided");
  std::ofstream csv(out_dir + (pointer_api ? "/batched_pointers_results.csv" : "/batched_results.csv"));
  csv << "type,shape,implementation,median_ms,tflops,ratio_to_cublas,percent_of_peak,gb_per_s\n";
  std::printf("%-6s %-22s %-7s %10s %9s %9s %7s %8s\n", "type", "count x (m,n,k)", "impl", "median ms", "TFLOP/s",
              "vs cuBLAS", "% peak", "GB/s");
  std::stringstream list(types);
  for (std::string t; std::getline(list, t, ',');) {
    if (t == "f32") run_type<float>({"f32", tgemm::math_mode::strict, CUBLAS_COMPUTE_32F, 66.9}, size_t(prop.l2CacheSize), reps, csv);
    else if (t == "tf32") run_type<float>({"tf32", tgemm::math_mode::tf32, CUBLAS_COMPUTE_32F_FAST_TF32, 494.7}, size_t(prop.l2CacheSize), reps, csv);
    else if (t == "bf16") run_type<__nv_bfloat16>({"bf16", tgemm::math_mode::strict, CUBLAS_COMPUTE_32F, 989.0}, size_t(prop.l2CacheSize), reps, csv);
    else if (t == "fp16") run_type<__half>({"fp16", tgemm::math_mode::strict, CUBLAS_COMPUTE_32F, 989.0}, size_t(prop.l2CacheSize), reps, csv);
    else {
      std::fprintf(stderr, "unknown type %s\n", t.c_str());
      return 1;
    }
  }
  std::printf("wrote %s/%s\n", out_dir.c_str(), pointer_api ? "batched_pointers_results.csv" : "batched_results.csv");
  return 0;
}
