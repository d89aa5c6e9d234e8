// tgemm's tensor-core GEMMs against cuBLAS (cublasGemmEx, cublasDgemm), timed side by side in one process.
//
// Usage: tgemm_bench_tensorop [--set square|odd|layouts|skinny|all|few_tiles|thin|gemv]
//                             [--types bf16,fp16,bf16f32,fp16f32,f64,tf32,tf32x3]
//                             [--reps N] [--out DIR] [--quick] [--lt-best]
//   --set    shapes (default all): square 2048^3, 4096^3, 8192^3; odd 4095^3, 4097^3 (leading dimensions odd,
//            so operands are not 16-byte aligned); layouts 4096^3 in every col-major op pair and row-major NN;
//            skinny 4096x4096x128, 128x4096x4096, 16x8192x8192; few_tiles (not part of all): problems whose
//            128 x 256 tiles fill fewer than half of an H200's multiprocessors (128x4096x4096, 256x2048x4096,
//            512x1024x8192, 1024^3, 1000^3, 768x768x2048, 512^3, 256x256x8192, 64x4096x4096, and the experts of a
//            mixture-of-experts layer: m = 64, 128, 256, 512, 768 x 4096 x 2048); thin (not part of
//            all): at most 32 rows or columns, where tgemm keeps the mma.sync tiles (1, 8, 16 and 32 x 8192 x 8192,
//            8192 x 16 x 8192, 16 x 4096 x 4096, 16 x 8192 x 8192 row-major and TN); gemv (not part of all): at
//            most 8 rows or columns, the GEMV kernels (1 x 8192 x 8192 and 8192 x 1 x 8192 in every op pair, 4 and
//            8 x 8192 x 8192, 1 x 4096 x 4096, 1 x 2048 x 65536, 1 x 65536 x 2048 NT).
//   --types  element types A,B -> C (default bf16,fp16): bf16 = bf16->bf16, fp16 = fp16->fp16, bf16f32 =
//            bf16->float, fp16f32 = fp16->float, f64 = double->double (against cublasDgemm), tf32 = float with
//            math_mode::tf32 (against CUBLAS_COMPUTE_32F_FAST_TF32), tf32x3 = float with math_mode::tf32x3 (against
//            cuBLAS's strict FP32, CUBLAS_COMPUTE_32F). Products are summed in float (double for f64).
//   --reps   timed launches per implementation and shape (default 20).
//   --quick  only 4096^3 and 8192^3, bf16.
//   --out    directory of tensorop_results.csv and tensorop_results.json (default ".").
//   --lt-best  also time cuBLASLt's best of up to 16 heuristic algorithms (not for f64): each algorithm cuBLASLt's
//            heuristic returns for the shape (workspace 64 MiB) is timed (median of 5 launches after 2 warm-ups,
//            rotating operand sets), and the fastest is then timed against tgemm again, interleaved as below. Rows
//            "lt_best16" (ratio 1) and "tgemm_lt" (cuBLASLt's best ms / tgemm's ms) in the same table.
//
// What is measured: C = op(A) op(B) (alpha 1, beta 0) by tgemm::gemm() and by cublasGemmEx (CUBLAS_COMPUTE_32F,
// CUBLAS_GEMM_DEFAULT, column-major; a row-major call is given to cuBLAS as the column-major C^T = op(B)^T op(A)^T).
//
// Timing rules: A and B hold normal random numbers (mean 0, stddev 1, fixed seed) made on the host and rounded to
// the element type; enough operand sets are allocated that one pass over them exceeds twice the L2 (at most 8),
// and consecutive launches use consecutive sets. Before timing, both implementations run once on the same inputs
// and their C are compared (a WARNING is printed when they differ). Then 3 warm-up launches of each; then --reps
// repetitions, each timing one tgemm and one cuBLAS launch (which goes first alternates) with its own pair of CUDA
// events; the median of each implementation's times is reported. TFLOP/s = 2mnk / time; % peak is of the dense
// 16-bit tensor-core peak of an H200, 989 TFLOP/s (for f64, of its FP64 tensor-core peak, 66.9; for tf32, of the
// TF32 peak, 494.7; for tf32x3, of a third of it, 164.9: three TF32 products per multiply-add).
#include <tgemm/gemm.cuh>

#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "download.hpp"
#include "element_values.hpp"
#include "timing.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;

constexpr double peak_tflops = 989.0;      // H200 dense bf16/fp16 tensor-core peak
constexpr double peak_f64_tflops = 66.9;   // H200 FP64 tensor-core (DMMA) peak
constexpr double peak_tf32_tflops = 494.7; // H200 dense TF32 tensor-core peak

/// The math of the float types (tf32, tf32x3): tgemm's option and cuBLAS's compute type, set per type by main().
tgemm::math_mode float_math = tgemm::math_mode::strict;
cublasComputeType_t float_compute = CUBLAS_COMPUTE_32F;

/// One reported row, kept for the JSON file.
struct row {
  std::string type, set, dims, order_ops, implementation;
  double ms, tflops, ratio, percent;
};
std::vector<row> rows;
bool lt_best = false;  // --lt-best
constexpr int warmup_launches = 3;
constexpr int max_sets = 8;

struct shape {
  int64_t m, n, k;
  layout order;
  op op_a, op_b;
  std::string set;
};

std::string ops_name(const shape& s) {
  return std::string(s.order == layout::col_major ? "col " : "row ") + (s.op_a == op::none ? "N" : "T") +
         (s.op_b == op::none ? "N" : "T");
}

/// Leading dimension of a rows x cols op(X) stored densely in `order` (no padding: ld is the stored extent).
int64_t leading(layout order, op x, int64_t rows, int64_t cols) {
  return (order == layout::col_major) == (x == op::none) ? rows : cols;
}

using tgemm::test::cuda_type;

using tgemm::test::from_float;

/// At least `count` normal random numbers (fixed seed) in type T, made once and grown on demand; the operand sets
/// are rotations of this pool, so each set differs while the host generates only one set's worth.
template <class T>
const std::vector<T>& normal_pool(size_t count) {
  static std::vector<T> pool;
  if (pool.size() < count) {
    std::mt19937_64 engine(20240611);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    pool.resize(count);
    for (T& x : pool) x = from_float<T>(normal(engine));
  }
  return pool;
}

/// Copies `count` elements of `pool`, starting at `offset` and wrapping around, to device memory `dst`.
template <class T>
void upload_rotated(T* dst, size_t count, const std::vector<T>& pool, size_t offset) {
  for (size_t done = 0; done < count;) {
    const size_t at = (offset + done) % pool.size(), chunk = std::min(count - done, pool.size() - at);
    TGEMM_CHECK_CUDA(cudaMemcpy(dst + done, pool.data() + at, chunk * sizeof(T), cudaMemcpyHostToDevice));
    done += chunk;
  }
}

/// The operand sets of one shape, plus a C for cuBLAS's result in the correctness check.
template <class T, class TC>
struct operands {
  struct set { T *a = nullptr, *b = nullptr; TC* c = nullptr; };
  std::vector<set> sets;
  TC* reference_c = nullptr;
  int64_t lda = 0, ldb = 0, ldc = 0;
  size_t a_count = 0, b_count = 0, c_count = 0;
  operands() = default;
  operands(const operands&) = delete;
  operands& operator=(const operands&) = delete;
  ~operands() {
    for (set& s : sets) cudaFree(s.a), cudaFree(s.b), cudaFree(s.c);
    cudaFree(reference_c);
  }
};

/// Allocates and fills the operand sets for `s` that tgemm::test::rotation_sets() asks for (2 to max_sets).
template <class T, class TC>
void make_operands(const shape& s, size_t l2_bytes, operands<T, TC>& w) {
  w.lda = leading(s.order, s.op_a, s.m, s.k);
  w.ldb = leading(s.order, s.op_b, s.k, s.n);
  w.ldc = leading(s.order, op::none, s.m, s.n);
  w.a_count = size_t(s.m * s.k), w.b_count = size_t(s.k * s.n), w.c_count = size_t(s.m * s.n);  // ld == extent
  const size_t bytes = (w.a_count + w.b_count) * sizeof(T) + w.c_count * sizeof(TC);
  const int sets = tgemm::test::rotation_sets(bytes, l2_bytes, max_sets);
  const std::vector<T>& pool = normal_pool<T>(w.a_count + w.b_count);
  for (int i = 0; i < sets; ++i) {
    typename operands<T, TC>::set o;
    TGEMM_CHECK_CUDA(cudaMalloc(&o.a, w.a_count * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMalloc(&o.b, w.b_count * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMalloc(&o.c, w.c_count * sizeof(TC)));
    const size_t offset = size_t(i) * 7919 * 131;  // a different rotation of the pool per set
    upload_rotated(o.a, w.a_count, pool, offset);
    upload_rotated(o.b, w.b_count, pool, offset + w.a_count);
    TGEMM_CHECK_CUDA(cudaMemset(o.c, 0x3c, w.c_count * sizeof(TC)));  // finite, non-zero; not read (beta = 0)
    w.sets.push_back(o);
  }
  TGEMM_CHECK_CUDA(cudaMalloc(&w.reference_c, w.c_count * sizeof(TC)));
}

cublasHandle_t cublas() { return tgemm::test::cublas_handle(); }

template <class T, class TC>
void launch_tgemm(const shape& s, const operands<T, TC>& w, const T* a, const T* b, TC* c) {
  tgemm::options opts;
  opts.math = float_math;  // only read for float inputs
  const tgemm::status st =
      tgemm::gemm(s.order, s.op_a, s.op_b, s.m, s.n, s.k, 1.0f, a, w.lda, b, w.ldb, 0.0f, c, w.ldc, nullptr, opts);
  if (st != tgemm::status::success) {
    std::fprintf(stderr, "tgemm::gemm failed on %lldx%lldx%lld %s: %s\n", (long long)s.m, (long long)s.n,
                 (long long)s.k, ops_name(s).c_str(), tgemm::last_error().message.c_str());
    std::exit(2);
  }
}

template <class T, class TC>
void launch_cublas(const shape& s, const operands<T, TC>& w, const T* a, const T* b, TC* c) {
  auto t = [](op x) { return x == op::none ? CUBLAS_OP_N : CUBLAS_OP_T; };
  const bool col = s.order == layout::col_major;  // row-major: C^T = op(B)^T op(A)^T, column-major
  if constexpr (std::is_same<T, double>::value) {
    const double alpha = 1.0, beta = 0.0;
    TGEMM_CHECK_CUBLAS(cublasDgemm(cublas(), t(col ? s.op_a : s.op_b), t(col ? s.op_b : s.op_a), int(col ? s.m : s.n),
                             int(col ? s.n : s.m), int(s.k), &alpha, col ? a : b, int(col ? w.lda : w.ldb),
                             col ? b : a, int(col ? w.ldb : w.lda), &beta, c, int(w.ldc)));
    return;
  }
  const float alpha = 1.0f, beta = 0.0f;
  TGEMM_CHECK_CUBLAS(cublasGemmEx(cublas(), t(col ? s.op_a : s.op_b), t(col ? s.op_b : s.op_a), int(col ? s.m : s.n),
                            int(col ? s.n : s.m), int(s.k), &alpha, col ? a : b, cuda_type<T>(),
                            int(col ? w.lda : w.ldb), col ? b : a, cuda_type<T>(), int(col ? w.ldb : w.lda), &beta, c,
                            cuda_type<TC>(), int(w.ldc), std::is_same<T, float>::value ? float_compute : CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}


/// ||C - C_cuBLAS||_F / ||C_cuBLAS||_F between set 0's C and the reference C (after a synchronization).
template <class T, class TC>
double relative_difference(const operands<T, TC>& w) {
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<double> got = tgemm::test::download_as_double(w.sets[0].c, w.c_count),
                            want = tgemm::test::download_as_double(w.reference_c, w.c_count);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) diff += (got[i] - want[i]) * (got[i] - want[i]), norm += want[i] * want[i];
  return std::sqrt(diff) / std::sqrt(norm);
}

/// cuBLASLt's matmul of one shape with a chosen algorithm (column-major; a row-major call swaps A and B as above).
template <class T, class TC>
struct lt_matmul {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  void* workspace = nullptr;
  static constexpr size_t workspace_bytes = size_t(64) << 20;
  std::vector<cublasLtMatmulHeuristicResult_t> algorithms;  // the heuristic's, best first

  explicit lt_matmul(const shape& s, const operands<T, TC>& w) {
    auto t = [](op x) { return x == op::none ? CUBLAS_OP_N : CUBLAS_OP_T; };
    const bool col = s.order == layout::col_major;
    const cublasOperation_t ta = t(col ? s.op_a : s.op_b), tb = t(col ? s.op_b : s.op_a);
    const int64_t m = col ? s.m : s.n, n = col ? s.n : s.m, lda = col ? w.lda : w.ldb, ldb = col ? w.ldb : w.lda;
    const cublasComputeType_t compute = std::is_same<T, float>::value ? float_compute : CUBLAS_COMPUTE_32F;
    TGEMM_CHECK_CUBLAS(cublasLtCreate(&handle));
    TGEMM_CHECK_CUBLAS(cublasLtMatmulDescCreate(&desc, compute, CUDA_R_32F));
    TGEMM_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    TGEMM_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    TGEMM_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&la, cuda_type<T>(), uint64_t(ta == CUBLAS_OP_N ? m : s.k),
                                                  uint64_t(ta == CUBLAS_OP_N ? s.k : m), lda));
    TGEMM_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lb, cuda_type<T>(), uint64_t(tb == CUBLAS_OP_N ? s.k : n),
                                                  uint64_t(tb == CUBLAS_OP_N ? n : s.k), ldb));
    TGEMM_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lc, cuda_type<TC>(), uint64_t(m), uint64_t(n), w.ldc));
    TGEMM_CHECK_CUDA(cudaMalloc(&workspace, workspace_bytes));
    cublasLtMatmulPreference_t preference;
    TGEMM_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
    TGEMM_CHECK_CUBLAS(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                            &workspace_bytes, sizeof workspace_bytes));
    algorithms.resize(16);
    int found = 0;
    TGEMM_CHECK_CUBLAS(cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, preference, 16,
                                                      algorithms.data(), &found));
    algorithms.resize(size_t(found));
    TGEMM_CHECK_CUBLAS(cublasLtMatmulPreferenceDestroy(preference));
  }
  lt_matmul(const lt_matmul&) = delete;
  lt_matmul& operator=(const lt_matmul&) = delete;
  ~lt_matmul() {
    cudaFree(workspace);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(desc);
    cublasLtDestroy(handle);
  }
  void launch(const shape& s, size_t algorithm, const T* a, const T* b, TC* c) const {
    const bool col = s.order == layout::col_major;
    const float alpha = 1.0f, beta = 0.0f;
    TGEMM_CHECK_CUBLAS(cublasLtMatmul(handle, desc, &alpha, col ? a : b, la, col ? b : a, lb, &beta, c, lc, c, lc,
                                      &algorithms[algorithm].algo, workspace, workspace_bytes, nullptr));
  }
};

/// --lt-best: times every algorithm of cuBLASLt's heuristic (up to 16), then the fastest against tgemm, interleaved.
/// Returns false (and prints why) where the heuristic offers none.
template <class T, class TC>
bool time_lt_best(const shape& s, const operands<T, TC>& w, int reps, tgemm::test::paired_medians& out,
                  size_t& best, size_t& offered) {
  const lt_matmul<T, TC> lt(s, w);
  offered = lt.algorithms.size();
  if (lt.algorithms.empty()) {
    std::printf("cuBLASLt's heuristic offers no algorithm for %lldx%lldx%lld\n", (long long)s.m, (long long)s.n,
                (long long)s.k);
    return false;
  }
  size_t rotation = 0;
  double best_ms = 0;
  for (size_t i = 0; i < lt.algorithms.size(); ++i) {
    const tgemm::test::paired_medians t = tgemm::test::interleaved_medians(
        [&](bool first) {
          const auto& o = w.sets[rotation++ % w.sets.size()];
          if (first) lt.launch(s, i, o.a, o.b, o.c);
          else launch_cublas(s, w, o.a, o.b, o.c);
        },
        5, 2);
    if (i == 0 || t.first_ms < best_ms) best_ms = t.first_ms, best = i;
  }
  // The winner's result against cuBLAS's, as check_against_cublas does for tgemm.
  lt.launch(s, best, w.sets[0].a, w.sets[0].b, w.sets[0].c);
  launch_cublas(s, w, w.sets[0].a, w.sets[0].b, w.reference_c);
  if (!(relative_difference(w) <= 1e-2)) std::printf("WARNING: cuBLASLt's algorithm %zu differs\n", best);
  out = tgemm::test::interleaved_medians(
      [&](bool first) {
        const auto& o = w.sets[rotation++ % w.sets.size()];
        if (first) launch_tgemm(s, w, o.a, o.b, o.c);
        else lt.launch(s, best, o.a, o.b, o.c);
      },
      reps, warmup_launches);
  return true;
}

/// Runs both on set 0 and prints a WARNING when ||C_tgemm - C_cublas||_F / ||C_cublas||_F is not small.
template <class T, class TC>
void check_against_cublas(const shape& s, const operands<T, TC>& w, const char* type) {
  launch_tgemm(s, w, w.sets[0].a, w.sets[0].b, w.sets[0].c);
  launch_cublas(s, w, w.sets[0].a, w.sets[0].b, w.reference_c);
  const bool tf32_inputs = std::is_same<T, float>::value && float_math == tgemm::math_mode::tf32;
  const double relative = relative_difference(w), tolerance = sizeof(TC) == 2 || tf32_inputs ? 1e-2 : 1e-3;
  if (!(relative < tolerance)) {
    std::printf("WARNING: %s %lldx%lldx%lld %s: tgemm differs from cuBLAS, relative Frobenius error %.3g "
                "(tolerance %.0e)\n", type, (long long)s.m, (long long)s.n, (long long)s.k, ops_name(s).c_str(),
                relative, tolerance);
  }
}

/// Warm-up, then `reps` repetitions of one tgemm and one cuBLAS launch (alternating which goes first), each between
/// its own pair of events, the operand sets rotating launch by launch; returns each implementation's median.
template <class T, class TC>
tgemm::test::paired_medians time_interleaved(const shape& s, const operands<T, TC>& w, int reps) {
  size_t rotation = 0;
  return tgemm::test::interleaved_medians(
      [&](bool tgemm_impl) {
        const auto& o = w.sets[rotation++ % w.sets.size()];
        if (tgemm_impl) launch_tgemm(s, w, o.a, o.b, o.c);
        else launch_cublas(s, w, o.a, o.b, o.c);
      },
      reps, warmup_launches);
}

/// Prints one table row and writes the same values as a CSV row.
void report(std::ofstream& csv, const char* type, const shape& s, const char* impl, double ms, double ratio) {
  const double tflops = 2.0 * double(s.m) * double(s.n) * double(s.k) / (ms * 1e-3) / 1e12;
  const std::string name = type;
  const double peak = name == "f64"      ? peak_f64_tflops
                      : name == "tf32"   ? peak_tf32_tflops
                      : name == "tf32x3" ? peak_tf32_tflops / 3
                                         : peak_tflops;
  const double percent = 100.0 * tflops / peak;
  char dims[64];
  std::snprintf(dims, sizeof dims, "%lldx%lldx%lld", (long long)s.m, (long long)s.n, (long long)s.k);
  std::printf("%-8s %-8s %-18s %-7s %-7s %10.4f %9.1f %9.3fx %6.1f%%\n", type, s.set.c_str(), dims,
              ops_name(s).c_str(), impl, ms, tflops, ratio, percent);
  csv << type << ',' << s.set << ',' << dims << ',' << ops_name(s) << ',' << impl << ',' << ms << ',' << tflops << ','
      << ratio << ',' << percent << '\n';
  rows.push_back({type, s.set, dims, ops_name(s), impl, ms, tflops, ratio, percent});
  csv.flush();
  std::fflush(stdout);
}

/// Checks, times and reports every shape for one element combination T x T -> TC.
template <class T, class TC>
void run_type(const char* type, const std::vector<shape>& shapes, size_t l2_bytes, int reps, std::ofstream& csv) {
  for (const shape& s : shapes) {
    operands<T, TC> w;
    make_operands(s, l2_bytes, w);
    check_against_cublas(s, w, type);
    const tgemm::test::paired_medians t = time_interleaved(s, w, reps);  // first: tgemm, second: cuBLAS
    report(csv, type, s, "tgemm", t.first_ms, t.second_ms / t.first_ms);
    report(csv, type, s, "cublas", t.second_ms, 1.0);
    if constexpr (!std::is_same<T, double>::value) {
      tgemm::test::paired_medians lt{};
      size_t best = 0, offered = 0;
      if (lt_best && time_lt_best(s, w, reps, lt, best, offered)) {
        std::printf("  cuBLASLt: the fastest of %zu heuristic algorithms is number %zu\n", offered, best);
        report(csv, type, s, "tgemm_lt", lt.first_ms, lt.second_ms / lt.first_ms);
        report(csv, type, s, "lt_best16", lt.second_ms, 1.0);
      }
    }
  }
}

std::vector<shape> make_shapes(const std::string& set, bool quick) {
  std::vector<shape> shapes;
  auto add = [&](int64_t m, int64_t n, int64_t k, const char* name, layout o = layout::col_major, op a = op::none,
                 op b = op::none) { shapes.push_back({m, n, k, o, a, b, name}); };
  const bool all = set == "all";
  if (quick) {
    for (int64_t s : {4096, 8192}) add(s, s, s, "square");
    return shapes;
  }
  if (all || set == "square") {
    for (int64_t s : {2048, 4096, 8192}) add(s, s, s, "square");
  }
  if (all || set == "odd") {
    for (int64_t s : {4095, 4097}) add(s, s, s, "odd");
  }
  if (all || set == "layouts") {
    for (op a : {op::none, op::transpose}) {
      for (op b : {op::none, op::transpose}) {
        if (!(all && a == op::none && b == op::none)) add(4096, 4096, 4096, "layouts", layout::col_major, a, b);
      }
    }
    add(4096, 4096, 4096, "layouts", layout::row_major);
  }
  if (all || set == "skinny") {
    add(4096, 4096, 128, "skinny");
    add(128, 4096, 4096, "skinny");
    add(16, 8192, 8192, "skinny");
  }
  if (set == "thin") {
    for (int64_t m : {1, 8, 16, 32}) add(m, 8192, 8192, "thin");
    add(8192, 16, 8192, "thin");
    add(16, 4096, 4096, "thin");
    add(16, 8192, 8192, "thin", layout::row_major);
    add(16, 8192, 8192, "thin", layout::col_major, op::transpose, op::none);
  }
  if (set == "gemv") {
    // m or n of at most 8 (the GEMV kernels), every op pair for one vector; not part of "all".
    for (op a : {op::none, op::transpose}) {
      for (op b : {op::none, op::transpose}) {
        add(1, 8192, 8192, "gemv", layout::col_major, a, b);
        add(8192, 1, 8192, "gemv", layout::col_major, a, b);
      }
    }
    for (int64_t m : {4, 8}) add(m, 8192, 8192, "gemv");
    add(8, 8192, 8192, "gemv", layout::col_major, op::none, op::transpose);
    add(1, 4096, 4096, "gemv");
    add(1, 2048, 65536, "gemv");
    add(1, 65536, 2048, "gemv", layout::col_major, op::none, op::transpose);
  }
  if (set == "few_tiles") {
    const int64_t few[][3] = {{128, 4096, 4096}, {256, 2048, 4096}, {512, 1024, 8192}, {1024, 1024, 1024},
                              {1000, 1000, 1000}, {768, 768, 2048},  {512, 512, 512},   {256, 256, 8192},
                              {64, 4096, 4096},   {64, 4096, 2048},  {128, 4096, 2048}, {256, 4096, 2048},
                              {512, 4096, 2048},  {768, 4096, 2048}};
    for (const auto& f : few) add(f[0], f[1], f[2], "few_tiles");
  }
  return shapes;
}

[[noreturn]] void usage(const char* program) {
  std::fprintf(stderr, "usage: %s [--set square|odd|layouts|skinny|all|few_tiles|thin|gemv] "
               "[--types bf16,fp16,bf16f32,fp16f32,f64,tf32,tf32x3] [--reps N] [--out DIR] [--quick] "
               "[--lt-best]\n", program);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string set = "all", types = "bf16,fp16", out_dir = ".";
  int reps = 20;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--set" && i + 1 < argc) set = argv[++i];
    else if (arg == "--types" && i + 1 < argc) types = argv[++i];
    else if (arg == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (arg == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (arg == "--quick") quick = true;
    else if (arg == "--lt-best") lt_best = true;
    else usage(argv[0]);
  }
  if (reps < 1 || (set != "all" && set != "square" && set != "odd" && set != "layouts" && set != "skinny" &&
                   set != "few_tiles" && set != "thin" && set != "gemv")) {
    usage(argv[0]);
  }
  if (quick) types = "bf16";
  std::vector<std::string> type_list;
  std::stringstream list(types);
  for (std::string type; std::getline(list, type, ',');) {
    if (type != "bf16" && type != "fp16" && type != "bf16f32" && type != "fp16f32" && type != "f64" &&
        type != "tf32" && type != "tf32x3") {
      usage(argv[0]);
    }
    type_list.push_back(type);
  }

  int device = 0, l2_bytes = 0;
  TGEMM_CHECK_CUDA(cudaGetDevice(&device));
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  cudaDeviceProp prop{};
  TGEMM_CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("device: %s, sm_%d%d, %d SMs, L2 %d MiB; peak %.0f TFLOP/s; %d reps\n\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, l2_bytes >> 20, peak_tflops, reps);

  const std::vector<shape> shapes = make_shapes(set, quick);
  const std::string csv_path = out_dir + "/tensorop_results.csv";
  std::ofstream csv(csv_path);
  if (!csv) {
    std::fprintf(stderr, "cannot write %s\n", csv_path.c_str());
    return 2;
  }
  csv << "type,set,mxnxk,order_ops,implementation,median_ms,tflops,speed_vs_cublas,percent_of_peak\n";
  std::printf("%-8s %-8s %-18s %-7s %-7s %10s %9s %10s %7s\n", "type", "set", "m x n x k", "order", "impl",
              "median ms", "TFLOP/s", "vs cuBLAS", "% peak");

  for (const std::string& type : type_list) {
    if (type == "bf16") run_type<__nv_bfloat16, __nv_bfloat16>("bf16", shapes, size_t(l2_bytes), reps, csv);
    if (type == "fp16") run_type<__half, __half>("fp16", shapes, size_t(l2_bytes), reps, csv);
    if (type == "bf16f32") run_type<__nv_bfloat16, float>("bf16f32", shapes, size_t(l2_bytes), reps, csv);
    if (type == "fp16f32") run_type<__half, float>("fp16f32", shapes, size_t(l2_bytes), reps, csv);
    if (type == "f64") run_type<double, double>("f64", shapes, size_t(l2_bytes), reps, csv);
    if (type == "tf32" || type == "tf32x3") {
      float_math = type == "tf32" ? tgemm::math_mode::tf32 : tgemm::math_mode::tf32x3;
      float_compute = type == "tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      run_type<float, float>(type.c_str(), shapes, size_t(l2_bytes), reps, csv);
    }
  }
  // The same rows as JSON (an array of objects), for plots and scripts.
  const std::string json_path = out_dir + "/tensorop_results.json";
  std::ofstream json(json_path);
  json << "[\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const row& r = rows[i];
    json << "  {\"type\": \"" << r.type << "\", \"set\": \"" << r.set << "\", \"mxnxk\": \"" << r.dims
         << "\", \"order_ops\": \"" << r.order_ops << "\", \"implementation\": \"" << r.implementation
         << "\", \"median_ms\": " << r.ms << ", \"tflops\": " << r.tflops << ", \"speed_vs_cublas\": " << r.ratio
         << ", \"percent_of_peak\": " << r.percent << "}" << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  json << "]\n";
  std::printf("\nwrote %s and %s\n", csv_path.c_str(), json_path.c_str());
  return 0;
}
