// The planner's thresholds weighed without recompiling: the same calls planned with the tuning table's values and
// with variants of them (detail::tuning_hook, host/tuning_hook.cuh), each beside cuBLAS, interleaved in one process.
// What a tuning change is measured with before its number goes into a tuning file.
//
// Usage: tgemm_bench_sweep --type float|bf16|fp16|double --shapes "m,n,k[,count[,p]];..." [--ops NN|NT|TN|TT]
//                          [--variant "name=value,..."]... [--reps N]
//   --shapes   column-major products, tight leading dimensions; count > 1: a strided batch of that many
//              (tgemm::gemm_strided_batched() against cuBLAS's strided-batched GEMM), with `p` as fifth field the
//              same products through pointer arrays (tgemm::gemm_batched() against cublasGemmBatchedEx).
//   --ops      op(A) and op(B) of every shape (default NN).
//   --variant  one set of changed values (names as in tuning::tuning_values, e.g. wgmma_small_max_k=2048,
//              wgmma_split_small=1); each --variant adds a column. The table's own values always run first.
//   --reps     repetitions (default 30); each times one call of cuBLAS and of every variant, in a shuffled order.
//
// Timing rules (as the other benchmarks): normal random operands (mean 0, stddev 1) rounded to the type, enough
// operand sets that a pass over them exceeds twice the L2 (at most 8), consecutive calls on consecutive sets; every
// variant's C compared with cuBLAS's on set 0 (a WARNING when they differ); 3 warm-up rounds; each call between its
// own CUDA events, all enqueued before one synchronisation; medians. Printed per shape and implementation:
// milliseconds, TFLOP/s, speed against cuBLAS, and the plan each variant ran (TGEMM_PRINT_PLAN=1 prints whole plans).
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
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::tuning::tuning_values;

/// The thresholds a variant may set, by name (the planner's numbers that pick among compiled kernels; never a
/// policy's own numbers, which its kernels are compiled with).
#define TGEMM_SWEEP_FIELDS(X)                                                                                       \
  X(narrow_extent) X(tiny_extent) X(pack_min_flops) X(layout_pack_flops) X(layout_pack_min_extent)                  \
  X(max_partials_bytes) X(split_min_steps) X(split_small_below) X(split_small_min_steps) X(split_small_max_flops)  \
  X(staged_c_min_elements) X(peel_speed) X(medium_speed) X(small_speed)                                             \
  X(gemv) X(gemv_along_k_min_blocks) X(gemv_along_n_min_blocks) X(gemv_min_slice_k) X(gemv_cluster_slices)          \
  X(gemv_wide_cluster_slices)                                                                                       \
  X(wgmma_min_wave) X(wgmma_batch_min_use) X(wgmma_persistent) X(wgmma_group_m) X(wgmma_small_below_wave)           \
  X(wgmma_small_min_wave) X(wgmma_small_max_k) X(wgmma_small_max_waves) X(wgmma_split_small) X(wgmma_batch_small)   \
  X(wgmma_split_min_k) X(wgmma_split_min_slice_k) X(wgmma_max_partials_bytes) X(wgmma_batch_tile_max_k)

/// One changed value.
struct setting {
  std::string name;
  double value = 0;
};

/// Sets `name` in `v`; false for a name it does not know.
bool apply(tuning_values& v, const setting& s) {
#define TGEMM_SWEEP_SET(field)                                           \
  if (s.name == #field) {                                                \
    v.field = static_cast<std::remove_reference_t<decltype(v.field)>>(s.value); \
    return true;                                                         \
  }
  TGEMM_SWEEP_FIELDS(TGEMM_SWEEP_SET)
#undef TGEMM_SWEEP_SET
  return false;
}

/// The variants (index 0: the table's values) and the one the hook applies now.
std::vector<std::vector<setting>> variants(1);
int current_variant = 0;

void sweep_hook(tuning_values& v, const char*, const char*) {
  for (const setting& s : variants[size_t(current_variant)]) apply(v, s);
}

struct shape {
  int64_t m, n, k, count;
  bool pointers;
  op op_a = op::none, op_b = op::none;  ///< --ops
  /// Leading dimensions of A and B as stored (column-major, tight): op(A) is m x k, op(B) k x n.
  int64_t lda() const { return op_a == op::none ? m : k; }
  int64_t ldb() const { return op_b == op::none ? k : n; }
};

cublasOperation_t cublas_op(op o) { return o == op::none ? CUBLAS_OP_N : CUBLAS_OP_T; }

using tgemm::bench::operand_set;
using tgemm::test::cuda_type;
cublasHandle_t cublas() { return tgemm::test::cublas_handle(); }

template <class T>
using scalar_t = std::conditional_t<std::is_same<T, double>::value, double, float>;

template <class T>
void run_tgemm(const shape& s, const operand_set<T>& o) {
  const scalar_t<T> one = 1, zero = 0;
  tgemm::status st;
  if (s.pointers) {
    st = tgemm::gemm_batched(layout::col_major, s.op_a, s.op_b, s.m, s.n, s.k, one, o.pa, s.lda(), o.pb, s.ldb(),
                             zero, o.pc, s.m, s.count);
  } else if (s.count > 1) {
    st = tgemm::gemm_strided_batched(layout::col_major, s.op_a, s.op_b, s.m, s.n, s.k, one, o.a, s.lda(), s.m * s.k,
                                     o.b, s.ldb(), s.k * s.n, zero, o.c, s.m, s.m * s.n, s.count);
  } else {
    st = tgemm::gemm(layout::col_major, s.op_a, s.op_b, s.m, s.n, s.k, one, o.a, s.lda(), o.b, s.ldb(), zero, o.c,
                     s.m);
  }
  if (st != tgemm::status::success) {
    std::fprintf(stderr, "tgemm failed (variant %d): %s\n", current_variant, tgemm::last_error().message.c_str());
    std::exit(2);
  }
}

template <class T>
void run_cublas(const shape& s, const operand_set<T>& o) {
  const scalar_t<T> one = 1, zero = 0;
  const cublasComputeType_t compute = std::is_same<T, double>::value ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  if (s.pointers) {
    TGEMM_CHECK_CUBLAS(cublasGemmBatchedEx(cublas(), cublas_op(s.op_a), cublas_op(s.op_b), int(s.m), int(s.n),
                                           int(s.k), &one, reinterpret_cast<const void* const*>(o.pa), cuda_type<T>(),
                                           int(s.lda()), reinterpret_cast<const void* const*>(o.pb), cuda_type<T>(),
                                           int(s.ldb()), &zero,
                                           reinterpret_cast<void* const*>(o.pc), cuda_type<T>(), int(s.m),
                                           int(s.count), compute, CUBLAS_GEMM_DEFAULT));
  } else if (s.count == 1) {
    TGEMM_CHECK_CUBLAS(cublasGemmEx(cublas(), cublas_op(s.op_a), cublas_op(s.op_b), int(s.m), int(s.n), int(s.k), &one,
                                    o.a, cuda_type<T>(), int(s.lda()), o.b, cuda_type<T>(), int(s.ldb()), &zero, o.c,
                                    cuda_type<T>(), int(s.m), compute, CUBLAS_GEMM_DEFAULT));
  } else {
    TGEMM_CHECK_CUBLAS(cublasGemmStridedBatchedEx(cublas(), cublas_op(s.op_a), cublas_op(s.op_b), int(s.m), int(s.n),
                                                  int(s.k), &one, o.a, cuda_type<T>(), int(s.lda()), s.m * s.k, o.b,
                                                  cuda_type<T>(), int(s.ldb()), s.k * s.n, &zero, o.c, cuda_type<T>(),
                                                  int(s.m), s.m * s.n, int(s.count), compute, CUBLAS_GEMM_DEFAULT));
  }
}

/// A few words on the plan the last tgemm::gemm() or gemm_strided_batched() call ran (pointer arrays: their tile).
std::string plan_summary(const tgemm::detail::record_plans& plans, bool pointers) {
  if (pointers) {
    if (plans.grouped_hopper_groups() > 0) return "hopper";
    return plans.indirect_calls() > 0 ? tgemm::tuning::to_string(plans.indirect_slot()) : "?";
  }
  if (plans.calls() == 0) return "?";
  const tgemm::detail::plan& p = plans.last();
  std::string text;
  for (int i = 0; i < p.step_count; ++i) {
    const tgemm::detail::plan_step& st = p.steps[i];
    if (st.kind != tgemm::detail::step_kind::gemm) continue;
    if (!text.empty()) text += "+";
    text += st.gemv    ? "gemv"
            : st.wgmma ? (st.wgmma_small ? "hopper-small" : "hopper")
                       : tgemm::tuning::to_string(st.slot);
    if (st.slices > 1) text += "/" + std::to_string(st.slices);
  }
  if (p.repacked_a || p.repacked_b) text += " (repacked)";
  return text;
}

template <class T>
void run_shape(const shape& s, const char* type, double peak_tflops, size_t l2_bytes, int reps) {
  const size_t a_count = size_t(s.count * s.m * s.k), b_count = size_t(s.count * s.k * s.n);
  const size_t c_count = size_t(s.count * s.m * s.n);
  const size_t bytes = (a_count + b_count + c_count) * sizeof(T);
  const int sets = tgemm::test::rotation_sets(bytes, l2_bytes, 8);
  std::vector<operand_set<T>> operands =
      tgemm::bench::make_operand_sets<T>(s.m, s.n, s.k, s.count, sets, s.pointers, 20261205);
  const int implementations = int(variants.size()) + 1;  // 0: cuBLAS, then the variants
  std::vector<std::string> plans_ran(variants.size());
  // Every variant's C against cuBLAS's on set 0, and the plan it ran.
  const std::vector<double> want = [&] {
    run_cublas(s, operands[0]);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    return tgemm::test::download_as_double(operands[0].c, c_count);
  }();
  for (size_t v = 0; v < variants.size(); ++v) {
    current_variant = int(v);
    TGEMM_CHECK_CUDA(cudaMemset(operands[0].c, 0x3c, c_count * sizeof(T)));
    tgemm::detail::record_plans plans;
    run_tgemm(s, operands[0]);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
    plans_ran[v] = plan_summary(plans, s.pointers);
    const std::vector<double> got = tgemm::test::download_as_double(operands[0].c, c_count);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < got.size(); ++i) diff += (got[i] - want[i]) * (got[i] - want[i]), norm += want[i] * want[i];
    const double relative = std::sqrt(diff / norm), tolerance = sizeof(T) == 2 ? 1e-2 : sizeof(T) == 4 ? 1e-4 : 1e-12;
    if (!(relative < tolerance)) {
      std::printf("WARNING: variant %zu differs from cuBLAS: relative Frobenius error %.3g\n", v, relative);
    }
  }
  // Rounds of one call each, in an order shuffled every round (a fixed seed), so that each implementation follows
  // each other one about as often: a rotation always put variant 0 right after cuBLAS, and at 2048 x 2048 x 256 that
  // alone made it 15 % slower than the same plan as variant 2 (H100). Each call between its own events; everything
  // is enqueued before the one synchronisation, so that the GPU does not wait for the host between calls.
  constexpr int warmup_rounds = 3;
  const int rounds = warmup_rounds + reps;
  std::vector<cudaEvent_t> events(2 * static_cast<size_t>(implementations) * static_cast<size_t>(rounds));
  for (cudaEvent_t& e : events) TGEMM_CHECK_CUDA(cudaEventCreate(&e));
  const auto event = [&](int round, int impl, int end) {
    return events[(size_t(round) * size_t(implementations) + size_t(impl)) * 2 + size_t(end)];
  };
  size_t rotation = 0;
  std::mt19937 shuffler(20261206);
  std::vector<int> order(static_cast<size_t>(implementations));
  std::iota(order.begin(), order.end(), 0);
  for (int round = 0; round < rounds; ++round) {
    std::shuffle(order.begin(), order.end(), shuffler);
    for (int j = 0; j < implementations; ++j) {
      const int impl = order[size_t(j)];
      const operand_set<T>& o = operands[rotation++ % operands.size()];
      TGEMM_CHECK_CUDA(cudaEventRecord(event(round, impl, 0)));
      if (impl == 0) {
        run_cublas(s, o);
      } else {
        current_variant = impl - 1;
        run_tgemm(s, o);
      }
      TGEMM_CHECK_CUDA(cudaEventRecord(event(round, impl, 1)));
    }
  }
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::vector<float>> times(static_cast<size_t>(implementations));
  for (int round = warmup_rounds; round < rounds; ++round) {
    for (int impl = 0; impl < implementations; ++impl) {
      float ms = 0;
      TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, event(round, impl, 0), event(round, impl, 1)));
      times[size_t(impl)].push_back(ms);
    }
  }
  for (cudaEvent_t e : events) TGEMM_CHECK_CUDA(cudaEventDestroy(e));
  for (operand_set<T>& o : operands) {
    tgemm::bench::free_operands(o);
  }
  std::vector<double> median(static_cast<size_t>(implementations));
  for (int impl = 0; impl < implementations; ++impl) {
    std::vector<float>& t = times[size_t(impl)];
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    median[size_t(impl)] = t[t.size() / 2];
  }
  const double flops = 2.0 * double(s.count) * double(s.m) * double(s.n) * double(s.k);
  char dims[80];
  std::snprintf(dims, sizeof dims, "%lldx(%lld,%lld,%lld) %s%s%s", (long long)s.count, (long long)s.m,
                (long long)s.n, (long long)s.k, s.op_a == op::none ? "N" : "T", s.op_b == op::none ? "N" : "T",
                s.pointers ? " pointers" : "");
  for (int impl = 0; impl < implementations; ++impl) {
    const double ms = median[size_t(impl)], tflops = flops / (ms * 1e-3) / 1e12;
    std::string name = impl == 0 ? "cublas" : "variant " + std::to_string(impl - 1);
    std::printf("%-7s %-28s %-10s %10.4f ms %9.2f TFLOP/s %7.3fx %6.1f%%  %s\n", type, dims, name.c_str(), ms, tflops,
                median[0] / ms, 100.0 * tflops / peak_tflops, impl == 0 ? "" : plans_ran[size_t(impl - 1)].c_str());
  }
  std::fflush(stdout);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

}  // namespace

int main(int argc, char** argv) {
  std::string type = "bf16", shapes_text, ops = "NN";
  int reps = 30;
  bool usage = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--type" && i + 1 < argc) {
      type = argv[++i];
    } else if (arg == "--shapes" && i + 1 < argc) {
      shapes_text = argv[++i];
    } else if (arg == "--ops" && i + 1 < argc) {
      ops = argv[++i];
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--variant" && i + 1 < argc) {
      std::vector<setting> variant;
      for (const std::string& item : split(argv[++i], ',')) {
        const size_t equals = item.find('=');
        setting s{item.substr(0, equals), equals == std::string::npos ? 0.0 : std::atof(item.c_str() + equals + 1)};
        tuning_values probe;
        if (equals == std::string::npos || !apply(probe, s)) {
          std::fprintf(stderr, "unknown setting '%s' (a tuning_values threshold, name=value)\n", item.c_str());
          return 1;
        }
        variant.push_back(s);
      }
      variants.push_back(variant);
    } else {
      usage = true;
    }
  }
  std::vector<shape> shapes;
  for (const std::string& text : split(shapes_text, ';')) {
    const std::vector<std::string> f = split(text, ',');
    if (f.size() < 3 || f.size() > 5) usage = true;
    if (usage) break;
    shape s{std::atoll(f[0].c_str()), std::atoll(f[1].c_str()), std::atoll(f[2].c_str()),
            f.size() > 3 ? std::atoll(f[3].c_str()) : 1, f.size() > 4 && f[4] == "p"};
    if (s.m < 1 || s.n < 1 || s.k < 1 || s.count < 1) usage = true;
    s.op_a = ops.size() == 2 && ops[0] == 'T' ? op::transpose : op::none;
    s.op_b = ops.size() == 2 && ops[1] == 'T' ? op::transpose : op::none;
    shapes.push_back(s);
  }
  const bool ops_known = ops == "NN" || ops == "NT" || ops == "TN" || ops == "TT";
  if (usage || shapes.empty() || !ops_known ||
      (type != "float" && type != "bf16" && type != "fp16" && type != "double")) {
    std::fprintf(stderr,
                 "usage: %s --type float|bf16|fp16|double --shapes \"m,n,k[,count[,p]];...\" [--ops NN|NT|TN|TT] "
                 "[--variant \"name=value,...\"]... [--reps N]\n",
                 argv[0]);
    return 1;
  }
  const cudaDeviceProp prop = tgemm::test::current_device_properties();
  std::printf("device: %s, sm_%d%d, %d SMs, L2 %d MB\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  for (size_t v = 0; v < variants.size(); ++v) {
    std::printf("variant %zu:", v);
    if (variants[v].empty()) std::printf(" the tuning table's values");
    for (const setting& s : variants[v]) std::printf(" %s=%g", s.name.c_str(), s.value);
    std::printf("\n");
  }
  tgemm::detail::tuning_hook() = sweep_hook;
  // Dense peaks of the H200 (TFLOP/s): FP32 SIMT 66.9, FP64 tensor cores 66.9, bf16/fp16 989.
  for (const shape& s : shapes) {
    if (type == "float") run_shape<float>(s, "float", 66.9, size_t(prop.l2CacheSize), reps);
    if (type == "double") run_shape<double>(s, "double", 66.9, size_t(prop.l2CacheSize), reps);
    if (type == "bf16") run_shape<__nv_bfloat16>(s, "bf16", 989.0, size_t(prop.l2CacheSize), reps);
    if (type == "fp16") run_shape<__half>(s, "fp16", 989.0, size_t(prop.l2CacheSize), reps);
  }
  tgemm::detail::tuning_hook() = nullptr;
  return 0;
}
