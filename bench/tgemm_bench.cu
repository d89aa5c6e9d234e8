// tgemm's benchmark: cuBLAS SGEMM (strict FP32), tgemm::gemm() and every registered policy, timed in one process
// on the same buffers.
//
// Why a harness of its own rather than Google Benchmark: every row needs cuBLAS measured beside it on the same
// buffers (for the ratio), CUDA-event timing of single launches with a median, input rotation past the L2, and
// derived columns (TFLOP/s, ratio, % of peak) written as one table, JSON and CSV. That is this file's whole job.
//
// Method: random inputs (never zeros); for each case enough copies of A, B, C that one pass over them exceeds
// twice the L2, rotated launch by launch; warm-up launches; then at least --reps timed launches, each between
// two CUDA events; the median is reported. Peak = SMs x 128 FP32 lanes x 2 flops x the SM clock the device reports.
//
// Usage: tgemm_bench [--set all|square|odd|skinny|layouts|thin|gemv|narrow|unaligned|progression|candidates] [--reps N] [--out DIR] [--quick]
#include <tgemm/gemm.cuh>

#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "device_random.cuh"
#include "random.hpp"
#include "timing.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;

struct shape {
  int64_t m, n, k;
  layout order;
  op op_a, op_b;
  std::string set;
};

std::string ops_name(const shape& s) {
  return std::string(s.order == layout::col_major ? "col" : "row") + "/" + (s.op_a == op::none ? "N" : "T") +
         (s.op_b == op::none ? "N" : "T");
}

/// One set of operands; several are rotated so that inputs do not sit in L2 between launches.
struct operands {
  float *a = nullptr, *b = nullptr, *c = nullptr;
};

struct workspace {
  std::vector<operands> sets;
  int64_t lda = 0, ldb = 0, ldc = 0;
  ~workspace() {
    for (auto& s : sets) cudaFree(s.a), cudaFree(s.b), cudaFree(s.c);
  }
};

int64_t stored_lines(layout order, op operation, int64_t rows, int64_t cols) {
  const int64_t x_rows = operation == op::none ? rows : cols, x_cols = operation == op::none ? cols : rows;
  return order == layout::col_major ? x_cols : x_rows;
}
int64_t leading(layout order, op operation, int64_t rows, int64_t cols) {
  const int64_t x_rows = operation == op::none ? rows : cols, x_cols = operation == op::none ? cols : rows;
  return std::max<int64_t>(1, order == layout::col_major ? x_rows : x_cols);
}

void make_workspace(const shape& s, size_t l2_bytes, workspace& w) {
  w.lda = leading(s.order, s.op_a, s.m, s.k);
  w.ldb = leading(s.order, s.op_b, s.k, s.n);
  w.ldc = leading(s.order, op::none, s.m, s.n);
  const size_t a = size_t(w.lda * stored_lines(s.order, s.op_a, s.m, s.k));
  const size_t b = size_t(w.ldb * stored_lines(s.order, s.op_b, s.k, s.n));
  const size_t c = size_t(w.ldc * stored_lines(s.order, op::none, s.m, s.n));
  const size_t bytes = (a + b + c) * sizeof(float);
  const int copies = tgemm::test::rotation_sets(bytes, l2_bytes, 16);
  static uint64_t seed = tgemm::test::run_seed();  // printed, so a run's inputs can be generated again
  for (int i = 0; i < copies; ++i) {
    operands o;
    TGEMM_CHECK_CUDA(cudaMalloc(&o.a, a * sizeof(float)));
    TGEMM_CHECK_CUDA(cudaMalloc(&o.b, b * sizeof(float)));
    TGEMM_CHECK_CUDA(cudaMalloc(&o.c, c * sizeof(float)));
    tgemm::test::fill_uniform(o.a, a, ++seed * 7919);
    tgemm::test::fill_uniform(o.b, b, ++seed * 7919);
    tgemm::test::fill_uniform(o.c, c, ++seed * 7919);
    w.sets.push_back(o);
  }
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
}

/// A contender: launches one GEMM on the given operands (alpha = 1, beta = 0).
using launcher = std::function<bool(const shape&, const workspace&, const operands&)>;

struct contender {
  std::string name;
  std::string group;  // "cublas", "dispatch", "seed", "tuned", "candidate"
  launcher run;
};

template <class Policy>
contender policy_contender(const std::string& label, const std::string& group) {
  return {label, group, [](const shape& s, const workspace& w, const operands& o) {
            return tgemm::launch<Policy>(s.order, s.op_a, s.op_b, s.m, s.n, s.k, 1.0f, o.a, w.lda, o.b, w.ldb, 0.0f,
                                         o.c, w.ldc) == tgemm::status::success;
          }};
}

cublasHandle_t cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    TGEMM_CHECK_CUBLAS(cublasCreate(&h));
    TGEMM_CHECK_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));  // FP32 FFMA: no TF32 tensor cores
    return h;
  }();
  return handle;
}

bool run_cublas(const shape& s, const workspace& w, const operands& o) {
  const float alpha = 1.0f, beta = 0.0f;
  auto t = [](op x) { return x == op::none ? CUBLAS_OP_N : CUBLAS_OP_T; };
  // cuBLAS is column-major; a row-major call is C^T = op(B)^T op(A)^T, exactly as tgemm solves it.
  if (s.order == layout::col_major) {
    return cublasSgemm(cublas(), t(s.op_a), t(s.op_b), int(s.m), int(s.n), int(s.k), &alpha, o.a, int(w.lda), o.b,
                       int(w.ldb), &beta, o.c, int(w.ldc)) == CUBLAS_STATUS_SUCCESS;
  }
  return cublasSgemm(cublas(), t(s.op_b), t(s.op_a), int(s.n), int(s.m), int(s.k), &alpha, o.b, int(w.ldb), o.a,
                     int(w.lda), &beta, o.c, int(w.ldc)) == CUBLAS_STATUS_SUCCESS;
}

/// Median milliseconds of single launches (tgemm::test::median_event_ms), after 3 warm-up launches; the operand
/// sets rotate launch by launch. -1 when the contender refuses the shape.
double time_median_ms(const contender& c, const shape& s, const workspace& w, int reps, double budget_ms) {
  size_t rotation = 0;
  auto next = [&]() -> const operands& { return w.sets[rotation++ % w.sets.size()]; };
  for (int i = 0; i < 3; ++i) {
    if (!c.run(s, w, next())) {
      std::fprintf(stderr, "%s refused %lldx%lldx%lld: %s\n", c.name.c_str(), (long long)s.m, (long long)s.n,
                   (long long)s.k, tgemm::last_error().message.c_str());
      return -1;
    }
  }
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  return tgemm::test::median_event_ms([&] { c.run(s, w, next()); }, reps, budget_ms);
}

struct row {
  shape s;
  std::string name, group;
  double ms, tflops, ratio, peak_percent;
  int reps;
};

}  // namespace

#if TGEMM_BENCH_CANDIDATES
namespace candidates {
using tgemm::block_shape;
using tgemm::policy;
using tgemm::thread_shape;
using tgemm::warp_shape;
// Tuning candidates for sm_90 (timed with --set candidates; the winners go to tuning.cuh). g: 16 x 8 or 8 x 16
// per thread, one block per SM; m: 8 x 8 per thread, two blocks per SM; s: small tiles for small problems.
// _sN: pipeline stages; _uN: the k loop of a slice unrolled N times instead of fully. On the H200 (e1e116e) the
// winners were g256x128x8_s4 (A read along m), g256x128x16_s3 (TN), g128x256x16_s3 (TT), s64x64x32_s3 (small).
using g256x128x8_s4 = policy<block_shape<256, 128, 8>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 4, 8>;
using g256x128x8_s4_u4 = policy<block_shape<256, 128, 8>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 4, 4>;
using g256x128x16_s3 = policy<block_shape<256, 128, 16>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 3, 16>;
using g256x128x16_s3_u8 = policy<block_shape<256, 128, 16>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 3, 8>;
using g256x128x16_s3_u4 = policy<block_shape<256, 128, 16>, warp_shape<64, 64>, thread_shape<16, 8>, 4, 3, 4>;
using g128x256x8_s4 = policy<block_shape<128, 256, 8>, warp_shape<64, 64>, thread_shape<8, 16>, 4, 4, 8>;
using g128x256x16_s3 = policy<block_shape<128, 256, 16>, warp_shape<64, 64>, thread_shape<8, 16>, 4, 3, 16>;
using g128x256x16_s3_u8 = policy<block_shape<128, 256, 16>, warp_shape<64, 64>, thread_shape<8, 16>, 4, 3, 8>;
using m128x128x8_s4 = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 4, 8>;
using m128x128x16_s3 = policy<block_shape<128, 128, 16>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 3, 16>;
using s64x64x32_s3 = policy<block_shape<64, 64, 32>, warp_shape<32, 32>, thread_shape<4, 8>, 4, 3, 32>;
using s64x64x16_s3 = policy<block_shape<64, 64, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 4, 3, 16>;
}  // namespace candidates
#endif

int main(int argc, char** argv) {
  std::string set = "all", out_dir = ".";
  int reps = 25;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--set" && i + 1 < argc) set = argv[++i];
    else if (arg == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (arg == "--out" && i + 1 < argc) out_dir = argv[++i];
    else if (arg == "--quick") quick = true;
    else {
      std::fprintf(stderr, "usage: %s [--set all|square|odd|skinny|layouts|thin|gemv|narrow|unaligned|progression|candidates] [--reps N] "
                   "[--out DIR] [--quick]\n", argv[0]);
      return 2;
    }
  }

  int device = 0;
  TGEMM_CHECK_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  TGEMM_CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  int clock_khz = 0;
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  const double peak_tflops = double(prop.multiProcessorCount) * 128 * 2 * clock_khz * 1e3 / 1e12;
  std::printf("device: %s, sm_%d%d, %d SMs, %.0f MHz, L2 %d MB, FP32 peak %.1f TFLOP/s\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, clock_khz / 1e3, prop.l2CacheSize >> 20, peak_tflops);

  std::vector<shape> shapes;
  auto add = [&](int64_t m, int64_t n, int64_t k, const char* group, layout o = layout::col_major, op a = op::none,
                 op b = op::none) { shapes.push_back({m, n, k, o, a, b, group}); };
  const bool all = set == "all";
  if (all || set == "square") {
    for (int64_t s = 256; s <= 8192; s *= 2) add(s, s, s, "square");
  }
  if (all || set == "odd") {
    for (int64_t s : {1000, 4095, 4097}) add(s, s, s, "odd");
  }
  if (all || set == "skinny") {
    add(4096, 4096, 128, "skinny");
    add(128, 4096, 4096, "skinny");
    add(256, 256, 16384, "skinny");
    add(16, 8192, 8192, "skinny");
  }
  if (all || set == "layouts") {
    for (layout o : {layout::col_major, layout::row_major}) {
      for (op a : {op::none, op::transpose}) {
        for (op b : {op::none, op::transpose}) {
          if (!(o == layout::col_major && a == op::none && b == op::none)) add(4096, 4096, 4096, "layouts", o, a, b);
        }
      }
    }
  }
  // Column-major, once per op pair: the thin, narrow and unaligned sets, which time every kernel of their slots.
  auto add_every_op_pair = [&](int64_t m, int64_t n, int64_t k, const char* group) {
    for (op a : {op::none, op::transpose}) {
      for (op b : {op::none, op::transpose}) add(m, n, k, group, layout::col_major, a, b);
    }
  };
  if (set == "thin") {
    // m or n of at most 16 (the tiny tiles); not part of "all", which is the issue's shape set.
    const int64_t thin[][3] = {{16, 8192, 8192}, {8, 8192, 8192}, {8192, 16, 8192}, {8192, 8, 8192},
                               {12, 2048, 20000}, {20000, 12, 2048}, {1, 8192, 8192}};
    for (const auto& t : thin) add_every_op_pair(t[0], t[1], t[2], "thin");
  }
  if (set == "gemv") {
    // m or n of at most 8 (the GEMV kernels): one vector and eight, both roles, every op pair; not part of "all".
    const int64_t gemv[][3] = {{1, 8192, 8192}, {8192, 1, 8192}, {4, 8192, 8192}, {8, 8192, 8192},
                               {1, 4096, 4096}, {1, 2048, 65536}, {1, 65536, 2048}};
    for (const auto& t : gemv) add_every_op_pair(t[0], t[1], t[2], "gemv");
  }
  if (set == "narrow") {
    // 16 < m (or n) <= 32 (the narrow tiles); not part of "all".
    const int64_t narrow[][3] = {{32, 8192, 8192}, {8192, 32, 8192}, {24, 4096, 4096}, {4096, 24, 4096},
                                 {32, 2048, 2048}};
    for (const auto& t : narrow) add_every_op_pair(t[0], t[1], t[2], "narrow");
  }
  if (set == "unaligned") {
    // Odd sizes whose leading dimensions rule out vector loads, too small to repack (the unaligned slot); not part
    // of "all".
    for (int64_t e : {127, 255, 401}) add_every_op_pair(e, e, e, "unalign");
  }
  if (set == "progression") {
    for (int64_t s : {1024, 4096}) add(s, s, s, "progression");
  }
  if (set == "candidates") {
    for (int64_t s : {1024, 2048, 3072, 4096, 8192}) add(s, s, s, "candidates");
    add(4096, 4096, 4096, "candidates", layout::row_major);
    add(4096, 4096, 4096, "candidates", layout::col_major, op::transpose, op::none);
    add(4096, 4096, 4096, "candidates", layout::col_major, op::none, op::transpose);
    add(4096, 4096, 4096, "candidates", layout::col_major, op::transpose, op::transpose);
    add(128, 4096, 4096, "candidates");
    add(256, 256, 16384, "candidates");
  }
  if (quick) shapes.resize(std::min<size_t>(shapes.size(), 3));

  std::vector<contender> contenders = {
      {"cublas", "cublas", run_cublas},
      {"tgemm::gemm", "dispatch",
       [](const shape& s, const workspace& w, const operands& o) {
         return tgemm::gemm(s.order, s.op_a, s.op_b, s.m, s.n, s.k, 1.0f, o.a, w.lda, o.b, w.ldb, 0.0f, o.c, w.ldc) ==
                tgemm::status::success;
       }},
  };
  const bool progression = all || set == "progression";
  if (progression) {
    contenders.push_back(policy_contender<tgemm::seed::naive>("1 naive", "seed"));
    contenders.push_back(policy_contender<tgemm::seed::shared_tiled>("2 shared_tiled", "seed"));
    contenders.push_back(policy_contender<tgemm::seed::register_blocked>("3 register_blocked", "seed"));
    contenders.push_back(policy_contender<tgemm::seed::vectorized>("4 vectorized", "seed"));
    contenders.push_back(policy_contender<tgemm::seed::double_buffered>("5 double_buffered", "seed"));
  }
  if (set == "candidates") {
#if !TGEMM_BENCH_CANDIDATES
    std::fprintf(stderr, "--set candidates needs a build with -DTGEMM_BENCH_CANDIDATES=ON (48 more kernels)\n");
    return 2;
#else
    using namespace candidates;
    contenders.push_back(policy_contender<g256x128x8_s4>("g256x128x8_s4", "candidate"));
    contenders.push_back(policy_contender<g256x128x8_s4_u4>("g256x128x8_s4_u4", "candidate"));
    contenders.push_back(policy_contender<g256x128x16_s3>("g256x128x16_s3", "candidate"));
    contenders.push_back(policy_contender<g256x128x16_s3_u8>("g256x128x16_s3_u8", "candidate"));
    contenders.push_back(policy_contender<g256x128x16_s3_u4>("g256x128x16_s3_u4", "candidate"));
    contenders.push_back(policy_contender<g128x256x8_s4>("g128x256x8_s4", "candidate"));
    contenders.push_back(policy_contender<g128x256x16_s3>("g128x256x16_s3", "candidate"));
    contenders.push_back(policy_contender<g128x256x16_s3_u8>("g128x256x16_s3_u8", "candidate"));
    contenders.push_back(policy_contender<m128x128x8_s4>("m128x128x8_s4", "candidate"));
    contenders.push_back(policy_contender<m128x128x16_s3>("m128x128x16_s3", "candidate"));
    contenders.push_back(policy_contender<s64x64x32_s3>("s64x64x32_s3", "candidate"));
    contenders.push_back(policy_contender<s64x64x16_s3>("s64x64x16_s3", "candidate"));
#endif
  }

  std::vector<row> rows;
  std::printf("\n%-7s %-18s %-8s %-20s %10s %9s %8s %7s\n", "set", "m x n x k", "order", "implementation", "median ms",
              "TFLOP/s", "vs cuBLAS", "% peak");
  for (const shape& s : shapes) {
    workspace w;
    make_workspace(s, size_t(prop.l2CacheSize), w);
    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    double cublas_ms = 0;
    for (const contender& c : contenders) {
      // The progression is a tutorial: it is timed on square problems up to 4096^3, where each rung finishes
      // in reasonable time.
      if (c.group == "seed" && (s.set == "skinny" || s.set == "layouts" || s.set == "odd" ||
                                s.m * s.n * s.k > int64_t(4096) * 4096 * 4096)) {
        continue;
      }
      const double ms = time_median_ms(c, s, w, reps, 200.0);
      if (ms < 0) continue;
      if (c.group == "cublas") cublas_ms = ms;
      row r{s, c.name, c.group, ms, flops / (ms * 1e-3) / 1e12, cublas_ms > 0 ? cublas_ms / ms : 0, 0, reps};
      r.peak_percent = 100.0 * r.tflops / peak_tflops;
      rows.push_back(r);
      char dims[64];
      std::snprintf(dims, sizeof dims, "%lldx%lldx%lld", (long long)s.m, (long long)s.n, (long long)s.k);
      std::printf("%-7s %-18s %-8s %-20s %10.4f %9.2f %8.3fx %6.1f%%\n", s.set.c_str(), dims, ops_name(s).c_str(),
                  c.name.c_str(), ms, r.tflops, r.ratio, r.peak_percent);
      std::fflush(stdout);
    }
  }

  const std::string csv_path = out_dir + "/bench.csv", json_path = out_dir + "/bench.json";
  std::ofstream csv(csv_path), json(json_path);
  csv << "set,m,n,k,order,implementation,group,median_ms,tflops,ratio_to_cublas,percent_of_peak\n";
  json << "{\n  \"device\": \"" << prop.name << "\",\n  \"sms\": " << prop.multiProcessorCount
       << ",\n  \"clock_mhz\": " << clock_khz / 1000 << ",\n  \"peak_tflops\": " << peak_tflops
       << ",\n  \"reps\": " << reps << ",\n  \"results\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const row& r = rows[i];
    csv << r.s.set << ',' << r.s.m << ',' << r.s.n << ',' << r.s.k << ',' << ops_name(r.s) << ',' << r.name << ','
        << r.group << ',' << r.ms << ',' << r.tflops << ',' << r.ratio << ',' << r.peak_percent << '\n';
    json << "    {\"set\": \"" << r.s.set << "\", \"m\": " << r.s.m << ", \"n\": " << r.s.n << ", \"k\": " << r.s.k
         << ", \"order\": \"" << ops_name(r.s) << "\", \"implementation\": \"" << r.name << "\", \"group\": \""
         << r.group << "\", \"median_ms\": " << r.ms << ", \"tflops\": " << r.tflops
         << ", \"ratio_to_cublas\": " << r.ratio << ", \"percent_of_peak\": " << r.peak_percent << "}"
         << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  json << "  ]\n}\n";
  std::printf("\nwrote %s and %s\n", csv_path.c_str(), json_path.c_str());
  return 0;
}
