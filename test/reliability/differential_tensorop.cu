// Randomized differential test of tgemm's tensor-core paths: tgemm::gemm() against cuBLAS (cublasGemmEx) and the
// float64 host reference on the same rounded inputs. The companion of differential_test.cu (float, strict FP32).
//
// Thirteen type combinations ("types"), each run on --cases N random cases (default 10,000 per type; 200 with --small):
//   half_half   A, B, C __half                            cuBLAS: CUDA_R_16F  A, B, C;      CUBLAS_COMPUTE_32F
//   half_float  A, B __half, C float                      cuBLAS: CUDA_R_16F  A, B, R_32F C; CUBLAS_COMPUTE_32F
//   bf16_bf16   A, B, C __nv_bfloat16                     cuBLAS: CUDA_R_16BF A, B, C;      CUBLAS_COMPUTE_32F
//   bf16_float  A, B __nv_bfloat16, C float               cuBLAS: CUDA_R_16BF A, B, R_32F C; CUBLAS_COMPUTE_32F
//   tf32        float, options.math = math_mode::tf32     cuBLAS: CUDA_R_32F; CUBLAS_COMPUTE_32F_FAST_TF32
//   tf32x3      float, options.math = math_mode::tf32x3   cuBLAS: CUDA_R_32F; CUBLAS_COMPUTE_32F_PEDANTIC (cuBLAS
//               has no 3xTF32: its FP32 result is what 3xTF32 must come close to)
//   f64         A, B, C double (DMMA)                     cuBLAS: CUDA_R_64F; CUBLAS_COMPUTE_64F
//   half_half_wgmma, half_float_wgmma, bf16_bf16_wgmma, bf16_float_wgmma: the four 16-bit combinations on the
//               Hopper kernel (tgemm::experimental::gemm_tma_wgmma with the tuning table's sm_90a policy, so that
//               every size runs it), A and B always TMA-aligned, C aligned or not; only on an sm_90 GPU running an
//               sm_90a build (left out of the default list elsewhere)
//   tf32_wgmma  float as TF32 on the Hopper kernel, likewise; the op pairs it reads (op(B) = B in column-major
//               form: the order and one op are drawn, the other follows), inputs rounded to TF32 by its TMA copies
//   tf32x3_wgmma float as 3xTF32 on the Hopper kernel: the operands split into big and small TF32 parts (any layout
//               and alignment: the split reads scalars), then the kernel, as gemm()'s plan runs it
// cuBLAS runs with CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION (its split-K partials of
// a 16-bit C stay in float); a row-major call is expressed as the column-major call C^T = op(B)^T op(A)^T.
//
// A run draws its cases from a seed it prints: --seed N, else TGEMM_TEST_SEED, else a fresh one. Case i of a type
// depends only on (seed, type, i), so `--case SEED:TYPE:I` replays exactly that case. A case picks:
//   - m, n, k: 2.5 % of the cases have k = 0; 10 % take tile sizes +-1 (7 .. 257); 86 % are drawn log-uniformly
//     from 1 .. 300; 1.5 % are large, one dimension 300 .. 1000 and the others log-uniform up to 1000, with
//     m n k <= 8e6 (--small: everything up to 64);
//   - the storage order and both operations;
//   - 30 % of the cases 16-byte aligned (leading dimensions rounded up to 16 bytes, plus 0 or 16 bytes, no pointer
//     offsets); the others pad each leading dimension by 0-9 elements and offset A's and B's pointers by 1-3
//     elements 40 % of the time each (C's 25 %), so that most are misaligned and take tgemm's repack path;
//   - alpha and beta in {0, 1, -1, random in [-2, 2)}; with beta == 0, C starts full of NaN;
//   - values uniform in [-1, 1) (multiples of 2^-23, then rounded to the element type; for double multiples of
//     2^-52, so that products are not exact), small integers, or (not for __half, whose range is small) scaled by
//     powers of two 2^-20 .. 2^20.
// The operands' padding, and the elements before and after them, hold NaN: a kernel that read them would spread
// NaN into C. C's padding, the elements before C and a guard after it hold a NaN pattern no kernel produces.
//
// Checks of every case: status::success and no CUDA error; C's padding and surroundings unchanged bit for bit; and,
// per element, with magnitude M = |alpha| sum_l |a_il b_lj| + |beta| |c_ij| and the float64 result ref on the
// rounded inputs, bound(M, ref) = (k + 4) 2^-23 M (float accumulation, as for FP32; reference.hpp's error_factor;
//                                 for double (k + 4) 2^-52 M, against a reference summed in long double)
//                                 + output rounding: 2^-11 |ref| for a __half C, 2^-8 |ref| for a bfloat16 C
//                                 + input rounding: (2 2^-11 + 2^-22) M for TF32, 4 2^-22 M for 3xTF32
//                                 + half the smallest subnormal of C's type (underflow);
//   - |tgemm - ref| <= bound_tgemm;
//   - |cuBLAS - ref| <= bound_cublas (a check of the harness: a failure here is reported as cuBLAS's). The same
//     formula, except that cuBLAS's TF32 may truncate its inputs instead of rounding them (the tensor cores ignore
//     the low 13 bits of a float): (2 2^-10 + 2^-20) M; and cuBLAS's FP32 of tf32x3 has no input term;
//   - |tgemm - cuBLAS| <= bound_tgemm + bound_cublas (for a 16-bit C, a 1-ulp difference of the outputs fits in the
//     two rounding terms).
//
// Options: --seed N, --cases N (per type), --case SEED:TYPE:INDEX (replay one case, verbosely), --types a,b,...
// (a subset of the types), --small (sizes up to 64: for compute-sanitizer), --no-cublas (float64 reference only),
// --verbose, --self-test (the harness on the host, no GPU), --list. No Catch2: the exit status is 0 when every case
// passed and 1 otherwise (or without a GPU), and the last line reads "N passed, N failed".
#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "element_values.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "require_gpu.hpp"
#include "splitmix.hpp"

#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::math_mode;
using tgemm::op;
using tgemm::status;

// ---------------------------------------------------------------------------------------------------------------
// Random numbers: splitmix64, so that a case is a pure function of (seed, type, index).

using rng = tgemm::test::splitmix_rng;

rng case_rng(uint64_t seed, int type, int64_t index) {
  rng r{seed ^ (uint64_t(index) * 0xd1b54a32d192ed03ull) ^ (uint64_t(type + 1) * 0x8cb92ba72f3d8dd7ull)};
  r.next();
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// Type combinations and their error bounds.

/// The error allowed for one element of C against the float64 reference (see the top of the file).
struct error_bound {
  double input;   ///< Times the magnitude: rounding of the inputs (TF32, 3xTF32); 0 where products are exact.
  double output;  ///< Times |reference|: C's final rounding to a 16-bit type (0 for float C).
  double floor;   ///< Absolute: half the smallest subnormal of C's type.
  double unit = 0x1p-23;  ///< The accumulation's error per term, times the magnitude: (k + 4) unit (float: FLT_EPSILON).
  double allowed(int64_t k, double magnitude, double reference) const {
    return (double(k + 4) * unit + input) * magnitude + output * std::fabs(reference) + floor;
  }
};

struct type_info {
  const char* name;
  const char* description;
  int ab_bytes, c_bytes;  // element sizes of A and B, and of C
  math_mode math;         // options.math of the tgemm call
  cublasComputeType_t compute;
  const char* cublas_description;
  error_bound tgemm_bound;   // tgemm against the float64 reference
  error_bound cublas_bound;  // cuBLAS against the float64 reference
  bool scaled_values;        // values scaled by 2^-20 .. 2^20 stay in range (not for __half)
  bool sm90a_kernel;         // run through tgemm::experimental::gemm_tma_wgmma (the Hopper kernel), any size
};

constexpr double half_floor = 0x1p-25, bf16_floor = 0x1p-134, float_floor = 0x1p-149, double_floor = 0x1p-1074;
constexpr double tf32_rounded = 2 * 0x1p-11 + 0x1p-22;    // both inputs rounded to nearest TF32
constexpr double tf32_truncated = 2 * 0x1p-10 + 0x1p-20;  // both inputs truncated to TF32
constexpr double tf32x3_input = 4 * 0x1p-22;              // the small parts' rounding and the dropped small x small

const type_info types[] = {
    // With a 16-bit C and beta != 0, cuBLAS rounds alpha op(A) op(B) to C's type before adding beta C (seen on an
    // H200: k = 9, beta = 1, a cancelling sum off by 80x the single-rounding bound), so its bound adds a rounding
    // of the magnitude; tgemm rounds once.
    {"half_half", "A, B, C __half", 2, 2, math_mode::strict, CUBLAS_COMPUTE_32F, "CUDA_R_16F, CUBLAS_COMPUTE_32F",
     {0, 0x1p-11, half_floor}, {0x1p-11, 0x1p-11, half_floor}, false, false},
    {"half_float", "A, B __half, C float", 2, 4, math_mode::strict, CUBLAS_COMPUTE_32F,
     "CUDA_R_16F (C CUDA_R_32F), CUBLAS_COMPUTE_32F", {0, 0, float_floor}, {0, 0, float_floor}, false, false},
    {"bf16_bf16", "A, B, C __nv_bfloat16", 2, 2, math_mode::strict, CUBLAS_COMPUTE_32F,
     "CUDA_R_16BF, CUBLAS_COMPUTE_32F", {0, 0x1p-8, bf16_floor}, {0x1p-8, 0x1p-8, bf16_floor}, true, false},
    {"bf16_float", "A, B __nv_bfloat16, C float", 2, 4, math_mode::strict, CUBLAS_COMPUTE_32F,
     "CUDA_R_16BF (C CUDA_R_32F), CUBLAS_COMPUTE_32F", {0, 0, float_floor}, {0, 0, float_floor}, true, false},
    {"tf32", "A, B, C float, math_mode::tf32", 4, 4, math_mode::tf32, CUBLAS_COMPUTE_32F_FAST_TF32,
     "CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32", {tf32_rounded, 0, float_floor}, {tf32_truncated, 0, float_floor},
     true, false},
    {"tf32x3", "A, B, C float, math_mode::tf32x3", 4, 4, math_mode::tf32x3, CUBLAS_COMPUTE_32F_PEDANTIC,
     "CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC (FP32)", {tf32x3_input, 0, float_floor}, {0, 0, float_floor}, true,
     false},
    // Twice double's unit roundoff per term, for both (the DMMA units and cuBLAS's DGEMM accumulate in double).
    {"f64", "A, B, C double", 8, 8, math_mode::strict, CUBLAS_COMPUTE_64F, "CUDA_R_64F, CUBLAS_COMPUTE_64F",
     {0, 0, double_floor, 0x1p-52}, {0, 0, double_floor, 0x1p-52}, true, false},
    // The four 16-bit combinations again, on the Hopper kernel of tgemm::gemm()'s sm_90a plans, called through
    // tgemm::experimental::gemm_tma_wgmma with the tuning table's policy so that every size takes it (gemm() keeps
    // small problems on mma.sync). A and B are always TMA-aligned; C may be misaligned. Run only on an sm_90 GPU
    // with an sm_90a build (left out of the default list elsewhere).
    {"half_half_wgmma", "A, B, C __half, Hopper kernel", 2, 2, math_mode::strict, CUBLAS_COMPUTE_32F,
     "CUDA_R_16F, CUBLAS_COMPUTE_32F", {0, 0x1p-11, half_floor}, {0x1p-11, 0x1p-11, half_floor}, false, true},
    {"half_float_wgmma", "A, B __half, C float, Hopper kernel", 2, 4, math_mode::strict, CUBLAS_COMPUTE_32F,
     "CUDA_R_16F (C CUDA_R_32F), CUBLAS_COMPUTE_32F", {0, 0, float_floor}, {0, 0, float_floor}, false, true},
    {"bf16_bf16_wgmma", "A, B, C __nv_bfloat16, Hopper kernel", 2, 2, math_mode::strict, CUBLAS_COMPUTE_32F,
     "CUDA_R_16BF, CUBLAS_COMPUTE_32F", {0, 0x1p-8, bf16_floor}, {0x1p-8, 0x1p-8, bf16_floor}, true, true},
    {"bf16_float_wgmma", "A, B __nv_bfloat16, C float, Hopper kernel", 2, 4, math_mode::strict, CUBLAS_COMPUTE_32F,
     "CUDA_R_16BF (C CUDA_R_32F), CUBLAS_COMPUTE_32F", {0, 0, float_floor}, {0, 0, float_floor}, true, true},
    // TF32 on the Hopper kernel (the TF32 table's sm_90a policy): its TMA copies round the floats to TF32.
    {"tf32_wgmma", "A, B, C float, math_mode::tf32, Hopper kernel", 4, 4, math_mode::tf32,
     CUBLAS_COMPUTE_32F_FAST_TF32, "CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32", {tf32_rounded, 0, float_floor},
     {tf32_truncated, 0, float_floor}, true, true},
    // 3xTF32 on the Hopper kernel: the operands split into TF32 parts, then the kernel (as gemm()'s plan does).
    {"tf32x3_wgmma", "A, B, C float, math_mode::tf32x3, Hopper kernel", 4, 4, math_mode::tf32x3,
     CUBLAS_COMPUTE_32F_PEDANTIC, "CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC (FP32)", {tf32x3_input, 0, float_floor},
     {0, 0, float_floor}, true, true},
};
constexpr int type_count = int(sizeof types / sizeof types[0]);

/// The index of the type called `name`, or -1.
int type_named(const std::string& name) {
  for (int t = 0; t < type_count; ++t) {
    if (name == types[t].name) return t;
  }
  return -1;
}

std::string type_names() {
  std::string names;
  for (int t = 0; t < type_count; ++t) names += std::string(t == 0 ? "" : ",") + types[t].name;
  return names;
}

// ---------------------------------------------------------------------------------------------------------------
// Cases.

enum class value_kind { uniform, integers, scaled };

const char* to_string(value_kind v) {
  switch (v) {
    case value_kind::uniform: return "uniform";
    case value_kind::integers: return "integers";
    case value_kind::scaled: return "scaled";
  }
  return "?";
}

struct case_spec {
  uint64_t seed = 0;
  int type = 0;
  int64_t index = 0;
  const char* size_class = "";
  layout order = layout::col_major;
  op op_a = op::none, op_b = op::none;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  int64_t lda = 1, ldb = 1, ldc = 1;
  int64_t offset_a = 0, offset_b = 0, offset_c = 0;
  value_kind values = value_kind::uniform;
  int scale_a = 0, scale_b = 0, scale_c = 0;  // power-of-two exponents for value_kind::scaled
  uint64_t data_seed = 0;

  bool reads_operands() const { return m > 0 && n > 0 && k > 0 && alpha != 0.0f; }
  double work() const { return double(m) * double(n) * double(k); }
  /// A or B not 16-byte aligned (pointer or leading dimension): tgemm repacks it (cudaMalloc'd memory is aligned).
  bool misaligned() const {
    const int64_t bytes = types[type].ab_bytes;
    const auto fits = [&](int64_t offset, int64_t ld) { return (offset * bytes) % 16 == 0 && (ld * bytes) % 16 == 0; };
    return reads_operands() && !(fits(offset_a, lda) && fits(offset_b, ldb));
  }

  std::string id() const { return std::to_string(seed) + ":" + types[type].name + ":" + std::to_string(index); }

  std::string describe() const {
    std::ostringstream s;
    s.precision(9);
    s << "type=" << types[type].name << " order=" << tgemm::to_string(order) << " op_a=" << tgemm::to_string(op_a)
      << " op_b=" << tgemm::to_string(op_b) << " m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha
      << " beta=" << beta << " lda=" << lda << " ldb=" << ldb << " ldc=" << ldc << " offsets(a,b,c)=" << offset_a
      << "," << offset_b << "," << offset_c << " values=" << to_string(values) << " class=" << size_class
      << (misaligned() ? " (misaligned: repacked)" : "");
    return s.str();
  }
};

/// A tile size +-1 (7 .. 257), or 1 .. 3; no larger than cap.
int64_t edge_dimension(rng& r, int64_t cap) {
  const int64_t d = r.chance(0.1) ? r.between(1, 3) : (int64_t(8) << r.below(6)) + r.between(-1, 1);
  return d <= cap ? d : cap;
}

float pick_scalar(rng& r, const int64_t (&weights)[3]) {  // weights of 0, 1, -1 out of 20; the rest random
  int64_t u = r.below(20);
  if (u < weights[0]) return 0.0f;
  u -= weights[0];
  if (u < weights[1]) return 1.0f;
  u -= weights[1];
  if (u < weights[2]) return -1.0f;
  return 2.0f * r.unit();
}

case_spec make_case(uint64_t seed, int type, int64_t index, bool small) {
  rng r = case_rng(seed, type, index);
  case_spec c;
  c.seed = seed;
  c.type = type;
  c.index = index;
  c.order = r.chance(0.5) ? layout::col_major : layout::row_major;
  c.op_a = r.chance(0.5) ? op::none : op::transpose;
  c.op_b = r.chance(0.5) ? op::none : op::transpose;
  if (types[type].sm90a_kernel && types[type].math == math_mode::tf32) {
    // The TF32 Hopper kernel reads B along k (op(B) = B in column-major form; a row-major call's form has the
    // caller's A there); 3xTF32's split copies any layout.
    (c.order == layout::col_major ? c.op_b : c.op_a) = op::none;
  }

  const int64_t cap = small ? 64 : 300;
  const int64_t u = r.below(1000);
  if (u < 25) {
    c.size_class = "k=0";
    c.m = r.log_uniform(1, cap), c.n = r.log_uniform(1, cap), c.k = 0;
  } else if (u < 125) {
    c.size_class = "edge";
    c.m = edge_dimension(r, cap), c.n = edge_dimension(r, cap), c.k = edge_dimension(r, cap);
  } else if (small || u < 985) {
    c.size_class = "log";
    c.m = r.log_uniform(1, cap), c.n = r.log_uniform(1, cap), c.k = r.log_uniform(1, cap);
  } else {
    // One dimension 300 .. 1000; the others smaller where needed to keep the float64 loop cheap.
    c.size_class = "large";
    int64_t* dims[3] = {&c.m, &c.n, &c.k};
    for (int64_t* d : dims) *d = r.log_uniform(1, 1000);
    const int64_t big = r.below(3);
    *dims[big] = r.between(300, 1000);
    while (c.work() > 8e6) {
      int64_t* x = dims[(big + 1) % 3];
      int64_t* y = dims[(big + 2) % 3];
      int64_t* larger = *x >= *y ? x : y;
      *larger = (*larger + 1) / 2;
    }
  }

  const int64_t alpha_weights[3] = {2, 6, 3}, beta_weights[3] = {7, 4, 2};
  c.alpha = pick_scalar(r, alpha_weights);
  c.beta = pick_scalar(r, beta_weights);

  const type_info& info = types[type];
  const int64_t vec_ab = 16 / info.ab_bytes, vec_c = 16 / info.c_bytes;
  const auto round_up = [](int64_t x, int64_t to) { return (x + to - 1) / to * to; };
  c.lda = tgemm::test::min_ld(c.order, c.op_a, c.m, c.k);
  c.ldb = tgemm::test::min_ld(c.order, c.op_b, c.k, c.n);
  c.ldc = tgemm::test::min_ld(c.order, op::none, c.m, c.n);
  if (info.sm90a_kernel && info.math != math_mode::tf32x3) {
    // A and B as TMA needs them (16-byte aligned, ld a multiple of 16 bytes); C anyhow. (3xTF32 reads the copies
    // its split makes: its operands are drawn like the other types'.)
    c.lda = round_up(c.lda, vec_ab) + vec_ab * r.below(2);
    c.ldb = round_up(c.ldb, vec_ab) + vec_ab * r.below(2);
    c.ldc += r.between(0, 9);
    c.offset_c = r.chance(0.25) ? r.between(1, 3) : 0;
  } else if (r.chance(0.3)) {  // 16-byte aligned: the tensor-core tiles read the operands in place
    c.lda = round_up(c.lda, vec_ab) + vec_ab * r.below(2);
    c.ldb = round_up(c.ldb, vec_ab) + vec_ab * r.below(2);
    c.ldc = round_up(c.ldc, vec_c) + vec_c * r.below(2);
  } else {
    c.lda += r.between(0, 9);
    c.ldb += r.between(0, 9);
    c.ldc += r.between(0, 9);
    c.offset_a = r.chance(0.4) ? r.between(1, 3) : 0;
    c.offset_b = r.chance(0.4) ? r.between(1, 3) : 0;
    c.offset_c = r.chance(0.25) ? r.between(1, 3) : 0;
  }

  const int64_t v = r.below(10);
  c.values = v < 8 ? value_kind::uniform : (v == 8 ? value_kind::integers : value_kind::scaled);
  if (c.values == value_kind::scaled && !info.scaled_values) c.values = value_kind::uniform;
  if (c.values == value_kind::scaled) {
    c.scale_a = int(r.between(-20, 20)), c.scale_b = int(r.between(-20, 20)), c.scale_c = int(r.between(-20, 20));
  }
  c.data_seed = r.next();
  return c;
}

// ---------------------------------------------------------------------------------------------------------------
// Host data: each buffer is [offset elements][the stored operand, padding included][a guard]. Every buffer has a
// double mirror holding the same (rounded) values, which the reference reads.

constexpr int64_t guard_elements = 64;
const float quiet_nan = std::numeric_limits<float>::quiet_NaN();

using tgemm::test::from_float;
using tgemm::test::same_bits;
using tgemm::test::sentinel;
using tgemm::test::to_double;

float draw_value(rng& r, value_kind kind, int scale) {
  switch (kind) {
    case value_kind::integers: return float(r.between(-3, 3));
    case value_kind::scaled: return std::ldexp(r.unit(), scale);
    case value_kind::uniform: break;
  }
  return r.unit();
}

/// An element of type T: draw_value rounded to T, or for double the same kinds with 53-bit significands.
template <class T>
T draw_element(rng& r, value_kind kind, int scale) {
  if constexpr (std::is_same<T, double>::value) {
    switch (kind) {
      case value_kind::integers: return double(r.between(-3, 3));
      case value_kind::scaled: return std::ldexp(r.unit53(), scale);
      case value_kind::uniform: break;
    }
    return r.unit53();
  } else {
    return from_float<T>(draw_value(r, kind, scale));
  }
}

/// Stored lines of op(X) (rows x cols) in `order` and the elements of each line that belong to X.
void stored_extent(layout order, op operation, int64_t rows, int64_t cols, int64_t& contiguous, int64_t& lines) {
  const int64_t x_rows = operation == op::none ? rows : cols;
  const int64_t x_cols = operation == op::none ? cols : rows;
  contiguous = order == layout::col_major ? x_rows : x_cols;
  lines = order == layout::col_major ? x_cols : x_rows;
}

/// An operand: NaN before it, in its padding and after it (a kernel that used any of those would turn its result
/// into NaN), values rounded to T inside; `mirror` gets the same values as double.
template <class T>
void fill_operand(std::vector<T>& host, std::vector<double>& mirror, int64_t offset, layout order, op operation,
                  int64_t rows, int64_t cols, int64_t ld, rng& r, value_kind kind, int scale) {
  int64_t contiguous = 0, lines = 0;
  stored_extent(order, operation, rows, cols, contiguous, lines);
  const size_t size = size_t(offset + ld * lines + guard_elements);
  host.assign(size, from_float<T>(quiet_nan));
  mirror.assign(size, quiet_nan);
  for (int64_t line = 0; line < lines; ++line) {
    for (int64_t i = 0; i < contiguous; ++i) {
      const size_t at = size_t(offset + line * ld + i);
      host[at] = draw_element<T>(r, kind, scale);
      mirror[at] = to_double(host[at]);
    }
  }
}

/// C: the sentinel before it, in its padding and after it; NaN inside when beta == 0 (C must not be read).
template <class TC>
void fill_c(std::vector<TC>& host, std::vector<double>& mirror, const case_spec& c, rng& r) {
  int64_t contiguous = 0, lines = 0;
  stored_extent(c.order, op::none, c.m, c.n, contiguous, lines);
  const size_t size = size_t(c.offset_c + c.ldc * lines + guard_elements);
  host.assign(size, sentinel<TC>());
  mirror.assign(size, quiet_nan);
  for (int64_t line = 0; line < lines; ++line) {
    for (int64_t i = 0; i < contiguous; ++i) {
      const size_t at = size_t(c.offset_c + line * c.ldc + i);
      host[at] = c.beta == 0.0f ? from_float<TC>(quiet_nan) : draw_element<TC>(r, c.values, c.scale_c);
      mirror[at] = to_double(host[at]);
    }
  }
}

/// The float64 reference of reference.hpp's reference_gemm() (value and magnitude per element), with op(A) and
/// op(B) first copied so that every dot product reads two contiguous rows, in four independent partial sums: a run
/// computes 60,000 of them. The products of two floats are exact in double; double inputs (Sum = long double) are
/// multiplied and summed in long double (64-bit significand). `a`, `b` and `c0` point at the matrices (past the
/// offsets).
template <class Sum = double>
tgemm::test::reference_result reference_packed(const case_spec& c, const double* a, const double* b,
                                               const double* c0) {
  const int64_t m = c.m, n = c.n, k = c.k;
  tgemm::test::reference_result r;
  r.value.assign(size_t(m * n), 0.0);
  r.magnitude.assign(size_t(m * n), 0.0);
  std::vector<double> pa, pb;
  if (c.alpha != 0.0f && k > 0) {
    pa.resize(size_t(m * k));
    pb.resize(size_t(n * k));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t l = 0; l < k; ++l) pa[size_t(i * k + l)] = a[tgemm::test::op_index_of(c.order, c.op_a, i, l, c.lda)];
    }
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t l = 0; l < k; ++l) pb[size_t(j * k + l)] = b[tgemm::test::op_index_of(c.order, c.op_b, l, j, c.ldb)];
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      Sum sum = 0.0;
      double abs_sum = 0.0;
      if (!pa.empty()) {
        const double* x = pa.data() + i * k;
        const double* y = pb.data() + j * k;
        Sum s[4] = {0, 0, 0, 0};
        double t[4] = {0, 0, 0, 0};
        int64_t l = 0;
        for (; l + 4 <= k; l += 4) {
          for (int u = 0; u < 4; ++u) {
            const Sum p = Sum(x[l + u]) * Sum(y[l + u]);
            s[u] += p;
            t[u] += std::fabs(double(p));
          }
        }
        for (; l < k; ++l) {
          const Sum p = Sum(x[l]) * Sum(y[l]);
          s[0] += p;
          t[0] += std::fabs(double(p));
        }
        sum = (s[0] + s[1]) + (s[2] + s[3]);
        abs_sum = (t[0] + t[1]) + (t[2] + t[3]);
      }
      Sum value = Sum(c.alpha) * sum;
      double magnitude = std::fabs(double(c.alpha)) * abs_sum;
      if (c.beta != 0.0f) {
        const double cv = c0[tgemm::test::index_of(c.order, i, j, c.ldc)];
        value += Sum(c.beta) * Sum(cv);
        magnitude += std::fabs(double(c.beta)) * std::fabs(cv);
      }
      r.value[size_t(i + j * m)] = double(value);
      r.magnitude[size_t(i + j * m)] = magnitude;
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// Device side.

std::string current_case;  // what a harness failure prints
std::string replay_flag;

[[noreturn]] void harness_failure(const std::string& what) {
  std::fprintf(stderr, "FAILED (harness): %s\n  while running: %s\n  replay: %s\n", what.c_str(), current_case.c_str(),
               replay_flag.c_str());
  std::fprintf(stdout, "0 passed, 1 failed\n");
  std::exit(1);
}

/// A failed CUDA call is a harness failure (it prints the case and the replay flag), described as every test does.
#define DIFF_CUDA(call)                                                                                   \
  do {                                                                                                    \
    const cudaError_t diff_error_ = (call);                                                               \
    if (diff_error_ != cudaSuccess) harness_failure(tgemm::test::describe_cuda_error(diff_error_, #call)); \
  } while (0)

#define DIFF_CUBLAS(call)                                                                              \
  do {                                                                                                 \
    const cublasStatus_t diff_status_ = (call);                                                        \
    if (diff_status_ != CUBLAS_STATUS_SUCCESS) {                                                       \
      harness_failure(std::string(#call) + " -> cuBLAS status " + std::to_string(int(diff_status_))); \
    }                                                                                                  \
  } while (0)

/// A device array that only grows.
class device_array {
 public:
  device_array() = default;
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array() {
    if (data_ != nullptr) cudaFree(data_);
  }
  template <class T>
  T* reserve(size_t count) {
    const size_t bytes = count * sizeof(T);
    if (bytes > capacity_) {
      if (data_ != nullptr) DIFF_CUDA(cudaFree(data_));
      data_ = nullptr;
      DIFF_CUDA(cudaMalloc(&data_, bytes));
      capacity_ = bytes;
    }
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

using tgemm::test::cuda_type;

/// The case on cuBLAS. A row-major C is the column-major C^T = op(B)^T op(A)^T: the operands swap places and
/// keep their operations (a row-major X read column-major is X^T).
template <class T, class TC>
void cublas_gemm(cublasHandle_t handle, const case_spec& c, const T* a, const T* b, TC* cc) {
  const cublasOperation_t op_a = c.op_a == op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_b = c.op_b == op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasComputeType_t compute = types[c.type].compute;
  using scalar = std::conditional_t<std::is_same<T, double>::value, double, float>;  // CUBLAS_COMPUTE_64F: double
  const scalar alpha = c.alpha, beta = c.beta;
  if (c.order == layout::col_major) {
    DIFF_CUBLAS(cublasGemmEx(handle, op_a, op_b, int(c.m), int(c.n), int(c.k), &alpha, a, cuda_type<T>(), int(c.lda),
                             b, cuda_type<T>(), int(c.ldb), &beta, cc, cuda_type<TC>(), int(c.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  } else {
    DIFF_CUBLAS(cublasGemmEx(handle, op_b, op_a, int(c.n), int(c.m), int(c.k), &alpha, b, cuda_type<T>(), int(c.ldb),
                             a, cuda_type<T>(), int(c.lda), &beta, cc, cuda_type<TC>(), int(c.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison.

struct verdict {
  bool ok = true;
  std::string why;
  void fail(const std::string& reason) {
    if (ok) why = reason;
    else why += "; " + reason;
    ok = false;
  }
};

std::string number(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

/// The elements out of bound in one comparison, and the worst of them (or, when none is, the closest call).
struct element_tally {
  int64_t bad = 0, worst_i = -1, worst_j = -1;
  double worst_ratio = -1, worst_got = 0, worst_expected = 0, worst_allowed = 0, worst_magnitude = 0;
  void see(int64_t i, int64_t j, double got, double expected, double allowed, double magnitude) {
    const double error = std::fabs(got - expected);
    const bool out = !std::isfinite(got) || !(error <= allowed);
    const double ratio = std::isfinite(error) ? error / allowed : std::numeric_limits<double>::infinity();
    if (out) ++bad;
    if (ratio > worst_ratio || (out && bad == 1)) {
      worst_ratio = ratio, worst_i = i, worst_j = j, worst_got = got, worst_expected = expected,
      worst_allowed = allowed, worst_magnitude = magnitude;
    }
  }
  std::string worst(const char* got_name, const char* expected_name) const {
    return "C(" + std::to_string(worst_i) + ", " + std::to_string(worst_j) + "): " + got_name + " " +
           number(worst_got) + ", " + expected_name + " " + number(worst_expected) + ", allowed error " +
           number(worst_allowed) + " (magnitude " + number(worst_magnitude) + "), " + number(worst_ratio) +
           "x the bound";
  }
};

/// C's padding, the elements before C and the guard after it must come back bit for bit.
template <class TC>
void check_untouched(const case_spec& c, const std::vector<TC>& out, const std::vector<TC>& c0, verdict& v) {
  int64_t contiguous = 0, lines = 0;
  stored_extent(c.order, op::none, c.m, c.n, contiguous, lines);
  int64_t changed = 0, first = -1;
  const auto check = [&](int64_t i) {
    if (!same_bits(out[size_t(i)], c0[size_t(i)])) {
      if (changed++ == 0) first = i;
    }
  };
  for (int64_t i = 0; i < c.offset_c; ++i) check(i);
  for (int64_t line = 0; line < lines; ++line) {
    for (int64_t i = contiguous; i < c.ldc; ++i) check(c.offset_c + line * c.ldc + i);
  }
  const int64_t end = c.offset_c + c.ldc * lines;
  for (int64_t i = end; i < end + guard_elements; ++i) check(i);
  if (changed > 0) {
    v.fail(std::to_string(changed) + " elements outside C (padding, before or after it) changed, first at buffer " +
           "index " + std::to_string(first) + " (C starts at " + std::to_string(c.offset_c) + ")");
  }
}

/// A result (`out` points at C) against the float64 reference, element by element; returns the worst ratio of
/// error to bound.
template <class TC>
double check_against_float64(const case_spec& c, const TC* out, const tgemm::test::reference_result& ref,
                             const error_bound& bound, const char* who, verdict& v) {
  element_tally tally;
  for (int64_t j = 0; j < c.n; ++j) {
    for (int64_t i = 0; i < c.m; ++i) {
      const size_t at = size_t(i + j * c.m);
      const double expected = ref.value[at], magnitude = ref.magnitude[at];
      tally.see(i, j, to_double(out[tgemm::test::index_of(c.order, i, j, c.ldc)]), expected,
                bound.allowed(c.k, magnitude, expected), magnitude);
    }
  }
  if (tally.bad > 0) {
    v.fail(std::string(who) + " vs the float64 reference: " + std::to_string(tally.bad) +
           " elements out of bound; worst " + tally.worst(who, "reference"));
  }
  return tally.worst_ratio;
}

/// tgemm against cuBLAS (both pointing at C), element by element: within the sum of both sides' bounds against
/// the reference. Returns the worst ratio of difference to bound.
template <class TC>
double check_against_cublas(const case_spec& c, const TC* out, const TC* cublas,
                            const tgemm::test::reference_result& ref, verdict& v) {
  const type_info& info = types[c.type];
  element_tally tally;
  int64_t non_finite = 0;
  for (int64_t j = 0; j < c.n; ++j) {
    for (int64_t i = 0; i < c.m; ++i) {
      const size_t at = size_t(i + j * c.m);
      const int64_t stored = tgemm::test::index_of(c.order, i, j, c.ldc);
      const double expected = to_double(cublas[stored]);
      if (!std::isfinite(expected)) {
        ++non_finite;
        continue;
      }
      const double magnitude = ref.magnitude[at], reference = ref.value[at];
      const double allowed = info.tgemm_bound.allowed(c.k, magnitude, reference) +
                             info.cublas_bound.allowed(c.k, magnitude, reference);
      tally.see(i, j, to_double(out[stored]), expected, allowed, magnitude);
    }
  }
  if (non_finite > 0) {
    v.fail("cuBLAS produced " + std::to_string(non_finite) + " non-finite elements (a harness problem)");
  }
  if (tally.bad > 0) {
    v.fail("tgemm vs cuBLAS: " + std::to_string(tally.bad) + " elements out of bound; worst " +
           tally.worst("tgemm", "cuBLAS"));
  }
  return tally.worst_ratio;
}

// ---------------------------------------------------------------------------------------------------------------
// The run.

struct options {
  uint64_t seed = 0;
  bool seed_given = false;
  int64_t cases = 10000;
  bool cases_given = false;
  bool replay = false;
  int replay_type = 0;
  int64_t replay_index = 0;
  std::vector<int> types;  // empty: all
  bool types_given = false;  // --types or --case named them
  bool small = false;
  bool use_cublas = true;
  bool verbose = false;
  bool self_test = false;
  bool list = false;
};

struct type_stats {
  int64_t cases = 0, misaligned = 0, failed = 0;
  double seconds = 0;
  // The largest error / bound seen (how much room the bounds leave): tgemm and cuBLAS against the float64
  // reference, tgemm against cuBLAS.
  double worst_tgemm = 0, worst_cublas = 0, worst_pair = 0;
};

/// The host copies of one case's data, for A and B of type T and C of type TC.
template <class T, class TC>
struct host_data {
  std::vector<T> a, b;
  std::vector<TC> c0, out, cublas;
  std::vector<double> a_mirror, b_mirror, c0_mirror;

  void fill(const case_spec& c) {
    rng data{c.data_seed};
    fill_operand(a, a_mirror, c.offset_a, c.order, c.op_a, c.m, c.k, c.lda, data, c.values, c.scale_a);
    fill_operand(b, b_mirror, c.offset_b, c.order, c.op_b, c.k, c.n, c.ldb, data, c.values, c.scale_b);
    fill_c(c0, c0_mirror, c, data);
  }
  tgemm::test::reference_result reference(const case_spec& c) const {
    using sum = std::conditional_t<std::is_same<T, double>::value, long double, double>;
    return reference_packed<sum>(c, a_mirror.data() + c.offset_a, b_mirror.data() + c.offset_b,
                                 c0_mirror.data() + c.offset_c);
  }
};

struct harness {
  options opt;
  std::string program;
  cublasHandle_t handle = nullptr;
  device_array d_a, d_b, d_c, d_cublas, d_split;

  /// The 3xTF32 Hopper kernel on one case, as tgemm::gemm()'s plan runs it for large problems: both operands split
  /// into big and small TF32 parts (K-major), then the kernel on the split copies, persistent blocks. Called here
  /// directly so that every size takes it (gemm() keeps small problems on mma.sync).
  status run_split_hopper(const case_spec& c, const float* a, const float* b, float* out) {
    using policy = tgemm::tuning::tensorop_tf32_sm90<math_mode::tf32x3>::wgmma;
    using kernels = tgemm::detail::wgmma_kernels<policy>;
    tgemm::detail::canonical_call<tgemm::detail::types_of<policy>> call;
    if (status s = tgemm::detail::check_arguments(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a, c.lda, b, c.ldb,
                                                  c.beta, out, c.ldc, call);
        s != status::success || call.empty) {
      return s;
    }
    const int64_t m = call.problem.m, n = call.problem.n, k = call.reads_operands ? call.problem.k : 0;
    const int64_t ld = (k + 3) / 4 * 4;
    float* split = d_split.reserve<float>(size_t(2 * (m + n) * (ld > 0 ? ld : 1)));
    float *a_parts = split, *b_parts = split + 2 * m * ld;
    int device = 0, sms = 0;
    DIFF_CUDA(cudaGetDevice(&device));
    DIFF_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (k > 0) {
      const bool a_along_k = call.op_a == op::transpose, b_along_k = call.op_b == op::none;
      const auto grid_y = [](int64_t lines) { return std::min<int64_t>((lines + 31) / 32, 65535); };
      for (status s : {kernels::prepare_split(a_along_k, device), kernels::prepare_split(b_along_k, device),
                       kernels::launch_split(a_along_k, call.problem.a, call.problem.lda, m, k, a_parts, ld,
                                             (ld + 31) / 32, grid_y(m), nullptr, device),
                       kernels::launch_split(b_along_k, call.problem.b, call.problem.ldb, n, k, b_parts, ld,
                                             (ld + 31) / 32, grid_y(n), nullptr, device)}) {
        if (s != status::success) return s;
      }
    }
    if (status s = kernels::prepare(op::transpose, op::none, device); s != status::success) return s;
    return kernels::launch(op::transpose, op::none, m, n, k, call.update.alpha, a_parts, ld, b_parts, ld,
                           call.update.beta, call.update.c, call.update.ldc, sms, 16, nullptr, device);
  }
  type_stats stats[type_count];
  int64_t printed_failures = 0;

  std::string replay_of(const case_spec& c) const {
    return program + " --case " + c.id() + (opt.small ? " --small" : "") + (opt.use_cublas ? "" : " --no-cublas");
  }

  void report(const case_spec& c, const std::string& why) {
    if (printed_failures++ >= 30 && !opt.replay) return;
    std::printf("FAILED case %s\n  reason: %s\n  case: %s\n  replay: %s\n", c.id().c_str(), why.c_str(),
                c.describe().c_str(), replay_of(c).c_str());
    std::fflush(stdout);
  }

  /// Runs one case; true when everything passed.
  template <class T, class TC>
  bool run_typed(const case_spec& c) {
    const type_info& info = types[c.type];
    host_data<T, TC> h;
    h.fill(c);
    const tgemm::test::reference_result ref = h.reference(c);

    T* a = d_a.reserve<T>(h.a.size());
    T* b = d_b.reserve<T>(h.b.size());
    TC* cc = d_c.reserve<TC>(h.c0.size());
    const size_t c_bytes = h.c0.size() * sizeof(TC);
    DIFF_CUDA(cudaMemcpy(a, h.a.data(), h.a.size() * sizeof(T), cudaMemcpyHostToDevice));
    DIFF_CUDA(cudaMemcpy(b, h.b.data(), h.b.size() * sizeof(T), cudaMemcpyHostToDevice));
    DIFF_CUDA(cudaMemcpy(cc, h.c0.data(), c_bytes, cudaMemcpyHostToDevice));

    verdict v;
    tgemm::options tgemm_options;
    tgemm_options.math = info.math;
    status s = status::success;
    if constexpr (sizeof(T) == 2) {
      if (info.sm90a_kernel) {
        using policy = typename tgemm::tuning::tensorop_f16_sm90<T, TC>::wgmma;
        s = tgemm::experimental::gemm_tma_wgmma<policy>(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha,
                                                        a + c.offset_a, c.lda, b + c.offset_b, c.ldb, c.beta,
                                                        cc + c.offset_c, c.ldc);
      }
    } else if constexpr (std::is_same<T, float>::value) {
      if (info.sm90a_kernel && info.math == math_mode::tf32x3) {
        s = run_split_hopper(c, a + c.offset_a, b + c.offset_b, cc + c.offset_c);
      } else if (info.sm90a_kernel) {
        using policy = tgemm::tuning::tensorop_tf32_sm90<math_mode::tf32>::wgmma;
        s = tgemm::experimental::gemm_tma_wgmma<policy>(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha,
                                                        a + c.offset_a, c.lda, b + c.offset_b, c.ldb, c.beta,
                                                        cc + c.offset_c, c.ldc);
      }
    }
    if (!info.sm90a_kernel) {
      s = tgemm::gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a + c.offset_a, c.lda, b + c.offset_b, c.ldb,
                      c.beta, cc + c.offset_c, c.ldc, nullptr, tgemm_options);
    }
    if (s != status::success) {
      v.fail(std::string(info.sm90a_kernel ? "gemm_tma_wgmma() returned " : "tgemm::gemm() returned ") +
             tgemm::to_string(s) + ": " + tgemm::last_error().message);
    }
    const cudaError_t launch_error = cudaGetLastError();
    if (launch_error != cudaSuccess) {
      v.fail(std::string("cudaGetLastError() after the call: ") + cudaGetErrorName(launch_error));
    }
    const cudaError_t sync_error = cudaDeviceSynchronize();
    if (sync_error != cudaSuccess) {
      // A kernel fault is sticky: nothing after it can run in this process.
      report(c, std::string("the kernel failed: ") + cudaGetErrorName(sync_error) + ": " +
                    cudaGetErrorString(sync_error));
      std::printf("0 passed, 1 failed\n");
      std::exit(1);
    }
    h.out.resize(h.c0.size());
    DIFF_CUDA(cudaMemcpy(h.out.data(), cc, c_bytes, cudaMemcpyDeviceToHost));

    if (opt.use_cublas) {
      TC* reference = d_cublas.reserve<TC>(h.c0.size());
      DIFF_CUDA(cudaMemcpy(reference, h.c0.data(), c_bytes, cudaMemcpyHostToDevice));
      cublas_gemm(handle, c, a + c.offset_a, b + c.offset_b, reference + c.offset_c);
      h.cublas.resize(h.c0.size());
      DIFF_CUDA(cudaMemcpy(h.cublas.data(), reference, c_bytes, cudaMemcpyDeviceToHost));
    }

    double tgemm_ratio = 0, cublas_ratio = 0, pair_ratio = 0;
    if (s == status::success) {
      check_untouched(c, h.out, h.c0, v);
      tgemm_ratio = check_against_float64(c, h.out.data() + c.offset_c, ref, info.tgemm_bound, "tgemm", v);
      if (opt.use_cublas) {
        pair_ratio = check_against_cublas(c, h.out.data() + c.offset_c, h.cublas.data() + c.offset_c, ref, v);
      }
    }
    if (opt.use_cublas) {
      verdict cv;
      cublas_ratio = check_against_float64(c, h.cublas.data() + c.offset_c, ref, info.cublas_bound, "cuBLAS", cv);
      if (!cv.ok) v.fail(cv.why + " (cuBLAS itself disagrees: a harness problem, not tgemm's)");
    }
    type_stats& stats = this->stats[c.type];
    stats.worst_tgemm = std::max(stats.worst_tgemm, tgemm_ratio);
    stats.worst_cublas = std::max(stats.worst_cublas, cublas_ratio);
    stats.worst_pair = std::max(stats.worst_pair, pair_ratio);
    if (!v.ok) {
      report(c, v.why);
    } else if (opt.verbose) {
      std::printf("  ok: worst error / bound: tgemm vs float64 %.3g", tgemm_ratio);
      if (opt.use_cublas) std::printf(", cuBLAS vs float64 %.3g, tgemm vs cuBLAS %.3g", cublas_ratio, pair_ratio);
      std::printf("\n");
    }
    return v.ok;
  }

  /// --self-test, for one case: the harness's own host logic, without a GPU. The packed reference must agree with
  /// reference.hpp's reference_gemm(); the float64 result rounded to C's type stands in for both tgemm and cuBLAS
  /// and must pass every check; then a wrong element, a NaN and a changed padding element must each be caught.
  template <class T, class TC>
  bool self_test_typed(const case_spec& c) {
    const type_info& info = types[c.type];
    host_data<T, TC> h;
    h.fill(c);
    if (c.work() > 4e6) return true;  // too slow for a host-only check
    const tgemm::test::reference_result ref = h.reference(c);
    // reference_gemm() reads floats: the packed reference is checked against it for the types whose values are
    // floats; for double, whose reference sums in long double, only the planted errors below are checked.
    const std::vector<float> fa(h.a_mirror.begin(), h.a_mirror.end()), fb(h.b_mirror.begin(), h.b_mirror.end()),
        fc(h.c0_mirror.begin(), h.c0_mirror.end());
    const tgemm::test::reference_result loop =
        tgemm::test::reference_gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, fa.data() + c.offset_a, c.lda,
                                    fb.data() + c.offset_b, c.ldb, c.beta, fc.data() + c.offset_c, c.ldc);
    for (size_t at = 0; at < ref.value.size() && !std::is_same<T, double>::value; ++at) {
      const double tolerance = 1e-12 * loop.magnitude[at] + 1e-300;
      if (!(std::fabs(ref.value[at] - loop.value[at]) <= tolerance) ||
          !(std::fabs(ref.magnitude[at] - loop.magnitude[at]) <= tolerance)) {
        std::printf("SELF-TEST FAILED: the packed reference disagrees with reference_gemm() at element %zu: %.17g "
                    "(magnitude %.17g) against %.17g (%.17g)\n  case %s\n",
                    at, ref.value[at], ref.magnitude[at], loop.value[at], loop.magnitude[at], c.describe().c_str());
        return false;
      }
    }
    h.out = h.c0;
    for (int64_t j = 0; j < c.n; ++j) {
      for (int64_t i = 0; i < c.m; ++i) {
        h.out[size_t(c.offset_c + tgemm::test::index_of(c.order, i, j, c.ldc))] =
            tgemm::convert<TC>(ref.value[size_t(i + j * c.m)]);
      }
    }
    h.cublas = h.out;
    const auto all_checks = [&](verdict& v) {
      check_untouched(c, h.out, h.c0, v);
      check_against_float64(c, h.out.data() + c.offset_c, ref, info.tgemm_bound, "tgemm", v);
      check_against_float64(c, h.cublas.data() + c.offset_c, ref, info.cublas_bound, "cuBLAS", v);
      check_against_cublas(c, h.out.data() + c.offset_c, h.cublas.data() + c.offset_c, ref, v);
    };
    verdict clean;
    all_checks(clean);
    if (!clean.ok) {
      std::printf("SELF-TEST FAILED: correct data rejected: %s\n  case %s\n", clean.why.c_str(), c.describe().c_str());
      return false;
    }
    rng pick{c.data_seed ^ 0x5555u};
    const int64_t wi = pick.below(c.m), wj = pick.below(c.n);
    const size_t element = size_t(c.offset_c + tgemm::test::index_of(c.order, wi, wj, c.ldc));
    const TC saved = h.out[element];
    // Off by far more than any bound allows (below 0.01 of the magnitude, for every type, for k <= 1000).
    const double off = 1.0 + 0.1 * (std::fabs(to_double(saved)) + ref.magnitude[size_t(wi + wj * c.m)]);
    bool caught = true;
    for (const TC wrong : {from_float<TC>(float(to_double(saved) + off)), from_float<TC>(quiet_nan)}) {
      h.out[element] = wrong;
      verdict v;
      all_checks(v);
      caught = caught && !v.ok;
    }
    h.out[element] = saved;
    const size_t outside = c.offset_c > 0 ? 0 : h.out.size() - 1;  // before C, or its guard
    h.out[outside] = from_float<TC>(0.0f);
    {
      verdict v;
      all_checks(v);
      caught = caught && !v.ok;
    }
    if (!caught) std::printf("SELF-TEST FAILED: a planted error went unnoticed\n  case %s\n", c.describe().c_str());
    return caught;
  }

  /// One case of its type, run on the GPU (or, with self_test, checked on the host).
  bool run_case(const case_spec& c, bool self_test) {
    current_case = "case " + c.id() + " " + c.describe();
    replay_flag = replay_of(c);
    switch (c.type) {
      case 0: return run_as<__half, __half>(c, self_test);
      case 1: return run_as<__half, float>(c, self_test);
      case 2: return run_as<__nv_bfloat16, __nv_bfloat16>(c, self_test);
      case 3: return run_as<__nv_bfloat16, float>(c, self_test);
      case 6: return run_as<double, double>(c, self_test);
      case 7: return run_as<__half, __half>(c, self_test);
      case 8: return run_as<__half, float>(c, self_test);
      case 9: return run_as<__nv_bfloat16, __nv_bfloat16>(c, self_test);
      case 10: return run_as<__nv_bfloat16, float>(c, self_test);
      default: return run_as<float, float>(c, self_test);  // tf32, tf32x3, tf32_wgmma
    }
  }

  template <class T, class TC>
  bool run_as(const case_spec& c, bool self_test) {
    return self_test ? self_test_typed<T, TC>(c) : run_typed<T, TC>(c);
  }
};

void usage(const char* program) {
  std::printf(
      "usage: %s [--seed N] [--cases N] [--case SEED:TYPE:INDEX] [--types LIST] [--small] [--no-cublas] [--verbose]\n"
      "          [--self-test] [--list]\n"
      "  --seed N                the run's seed (default: TGEMM_TEST_SEED, else a fresh one)\n"
      "  --cases N               random cases per type (default 10000; 200 with --small)\n"
      "  --case SEED:TYPE:INDEX  replay one case of a run, verbosely\n"
      "  --types LIST            comma-separated subset of: %s\n"
      "  --small                 sizes up to 64 only (for compute-sanitizer)\n"
      "  --no-cublas             compare with the float64 host reference only\n"
      "  --verbose               print every case\n"
      "  --self-test             check the harness itself on the host (no GPU): generation, reference, comparisons\n"
      "  --list                  print the run's cases without running them (no GPU needed)\n",
      program, type_names().c_str());
}

bool parse_unsigned(const char* text, uint64_t& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  out = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0';
}

/// "a,b,c" into type indices; false on an unknown name.
bool parse_types(const std::string& text, std::vector<int>& out) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const int t = type_named(name);
    if (t < 0) return false;
    out.push_back(t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !out.empty();
}

}  // namespace

int main(int argc, char* argv[]) {
  harness h;
  h.program = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    uint64_t value = 0;
    if (arg == "--seed" && i + 1 < argc && parse_unsigned(argv[i + 1], value)) {
      h.opt.seed = value, h.opt.seed_given = true, ++i;
    } else if (arg == "--cases" && i + 1 < argc && parse_unsigned(argv[i + 1], value)) {
      h.opt.cases = int64_t(value), h.opt.cases_given = true, ++i;
    } else if (arg == "--case" && i + 1 < argc) {
      const std::string text = argv[++i];
      const size_t first = text.find(':'), second = first == std::string::npos ? first : text.find(':', first + 1);
      uint64_t index = 0;
      const int type = second == std::string::npos ? -1 : type_named(text.substr(first + 1, second - first - 1));
      if (type < 0 || !parse_unsigned(text.substr(0, first).c_str(), value) ||
          !parse_unsigned(text.substr(second + 1).c_str(), index)) {
        std::fprintf(stderr, "--case wants SEED:TYPE:INDEX (TYPE one of %s), not %s\n", type_names().c_str(),
                     text.c_str());
        usage(argv[0]);
        return 2;
      }
      h.opt.seed = value, h.opt.seed_given = true, h.opt.replay = true, h.opt.replay_type = type;
      h.opt.replay_index = int64_t(index), h.opt.verbose = true;
    } else if (arg == "--types" && i + 1 < argc) {
      if (!parse_types(argv[++i], h.opt.types)) {
        std::fprintf(stderr, "--types wants a comma-separated subset of %s, not %s\n", type_names().c_str(), argv[i]);
        usage(argv[0]);
        return 2;
      }
    } else if (arg == "--small") {
      h.opt.small = true;
    } else if (arg == "--no-cublas") {
      h.opt.use_cublas = false;
    } else if (arg == "--verbose") {
      h.opt.verbose = true;
    } else if (arg == "--self-test") {
      h.opt.self_test = true;
    } else if (arg == "--list") {
      h.opt.list = true;
    } else if (arg == "--help" || arg == "-h") {
      usage(argv[0]);
      return 0;
    } else {
      std::fprintf(stderr, "unknown or incomplete argument: %s\n", arg.c_str());
      usage(argv[0]);
      return 2;
    }
  }
  if (!h.opt.seed_given) h.opt.seed = tgemm::test::run_seed();  // TGEMM_TEST_SEED, else fresh; printed
  if (h.opt.small && !h.opt.cases_given) h.opt.cases = 200;
  if (h.opt.replay) h.opt.types.assign(1, h.opt.replay_type);
  h.opt.types_given = !h.opt.types.empty();
  if (h.opt.types.empty()) {
    for (int t = 0; t < type_count; ++t) h.opt.types.push_back(t);
  }
  std::string selected;
  for (const int t : h.opt.types) selected += std::string(selected.empty() ? "" : ",") + types[t].name;
  const int64_t first = h.opt.replay ? h.opt.replay_index : 0;
  const int64_t last = h.opt.replay ? h.opt.replay_index + 1 : h.opt.cases;

  if (h.opt.list) {
    for (const int t : h.opt.types) {
      for (int64_t index = first; index < last; ++index) {
        const case_spec c = make_case(h.opt.seed, t, index, h.opt.small);
        std::printf("%s %s\n", c.id().c_str(), c.describe().c_str());
      }
    }
    return 0;
  }
  if (h.opt.self_test) {
    int64_t passed = 0, failed = 0;
    for (const int t : h.opt.types) {
      for (int64_t index = first; index < last; ++index) {
        if (h.run_case(make_case(h.opt.seed, t, index, h.opt.small), true)) ++passed;
        else ++failed;
      }
    }
    std::printf("self-test: seed %llu, %lld cases per type (%s)\n%lld passed, %lld failed\n",
                (unsigned long long)h.opt.seed, (long long)(last - first), selected.c_str(), (long long)passed,
                (long long)failed);
    return failed == 0 ? 0 : 1;
  }

  if (!tgemm::test::usable_gpu_or_explain()) {
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  cudaDeviceProp properties{};
  DIFF_CUDA(cudaGetDeviceProperties(&properties, 0));
  std::printf("GPU: %s (sm_%d%d, %d SMs)\n", properties.name, properties.major, properties.minor,
              properties.multiProcessorCount);
  if (const char* override_tf32 = std::getenv("NVIDIA_TF32_OVERRIDE")) {
    std::printf("NVIDIA_TF32_OVERRIDE=%s (=0 makes tgemm's and cuBLAS's TF32 strict FP32: the bounds still hold)\n",
                override_tf32);
  }

  // The Hopper kernel's types need an sm_90 GPU running this build's sm_90a image: left out of the default list
  // elsewhere (and failed, with the reason, when asked for by name).
  if (tgemm::detail::check_tma_wgmma_image(0) != status::success) {
    const std::string reason = tgemm::last_error().message;
    if (h.opt.types_given) {
      for (const int t : h.opt.types) {
        if (types[t].sm90a_kernel) {
          std::printf("type %s cannot run here: %s\n0 passed, 1 failed\n", types[t].name, reason.c_str());
          return 1;
        }
      }
    } else {
      std::vector<int> kept;
      for (const int t : h.opt.types) {
        if (!types[t].sm90a_kernel) kept.push_back(t);
      }
      h.opt.types = kept;
      selected.clear();
      for (const int t : h.opt.types) selected += std::string(selected.empty() ? "" : ",") + types[t].name;
      std::printf("the Hopper kernel's types are left out: %s\n", reason.c_str());
    }
  }

  if (h.opt.use_cublas) {
    DIFF_CUBLAS(cublasCreate(&h.handle));
    // The compute type of each call decides TF32; a 16-bit C's split-K partials stay in float.
    DIFF_CUBLAS(cublasSetMathMode(
        h.handle, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  }
  std::printf("differential (tensor cores): seed %llu, %s; reference: %s; types:\n", (unsigned long long)h.opt.seed,
              h.opt.replay ? ("replaying case " + std::to_string(h.opt.replay_index)).c_str()
                           : (std::to_string(h.opt.cases) + " cases per type").c_str(),
              h.opt.use_cublas ? "cuBLAS cublasGemmEx + float64" : "float64");
  for (const int t : h.opt.types) {
    std::printf("  %-10s  %-34s cuBLAS: %s\n", types[t].name, types[t].description, types[t].cublas_description);
  }
  if (!h.opt.replay) {
    std::printf("replay this run with: %s --seed %llu --cases %lld --types %s%s%s\n", argv[0],
                (unsigned long long)h.opt.seed, (long long)h.opt.cases, selected.c_str(),
                h.opt.small ? " --small" : "", h.opt.use_cublas ? "" : " --no-cublas");
  }
  std::fflush(stdout);

  const auto start = std::chrono::steady_clock::now();
  int64_t passed = 0, failed = 0;
  for (const int t : h.opt.types) {
    type_stats& stats = h.stats[t];
    const auto type_start = std::chrono::steady_clock::now();
    for (int64_t index = first; index < last; ++index) {
      const case_spec c = make_case(h.opt.seed, t, index, h.opt.small);
      if (h.opt.verbose) std::printf("case %s: %s\n", c.id().c_str(), c.describe().c_str());
      ++stats.cases;
      stats.misaligned += c.misaligned() ? 1 : 0;
      if (h.run_case(c, false)) {
        ++passed;
      } else {
        ++failed;
        ++stats.failed;
      }
      if (!h.opt.replay && (index + 1) % 2000 == 0) {
        std::printf("  %s: %lld cases, %lld failed, %.1f s\n", types[t].name, (long long)(index + 1),
                    (long long)stats.failed,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - type_start).count());
        std::fflush(stdout);
      }
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - type_start).count();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("per type: cases, of them misaligned (repacked), failures, seconds; worst error / bound of tgemm vs "
              "float64, cuBLAS vs float64, tgemm vs cuBLAS:\n");
  for (const int t : h.opt.types) {
    const type_stats& s = h.stats[t];
    std::printf("  %-10s %7lld %7lld %5lld %7.1f   %8.3g %8.3g %8.3g\n", types[t].name, (long long)s.cases,
                (long long)s.misaligned, (long long)s.failed, s.seconds, s.worst_tgemm, s.worst_cublas, s.worst_pair);
  }
  std::printf("differential (tensor cores): seed %llu, %lld cases in %.1f s\n", (unsigned long long)h.opt.seed,
              (long long)(passed + failed), seconds);
  if (h.handle != nullptr) cublasDestroy(h.handle);
  std::printf("%lld passed, %lld failed\n", (long long)passed, (long long)failed);
  return failed == 0 ? 0 : 1;
}
