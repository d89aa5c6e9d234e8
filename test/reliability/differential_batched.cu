// Randomized differential test of tgemm's batched, grouped, indirect (pointer arrays, device-side groups) and
// fused-epilogue entry points against cuBLAS and cuBLASLt and, for small cases, the float64 host loop on the same
// rounded inputs. The companion of differential_test.cu (tgemm::gemm(), float) and differential_tensorop.cu
// (tgemm::gemm(), tensor cores).
//
// Five APIs ("apis"), each on six type combinations ("types"), each on --cases N random cases (default 1,500 per
// API and type, 45,000 in all: 74.7 s on an H100 at dade5cf; the first three APIs' 27,000 took about 45 s on an
// H200; 200 with --small):
//   batched  tgemm::gemm_strided_batched()                   cuBLAS: cublasGemmStridedBatchedEx
//   grouped  tgemm::gemm_grouped() with tgemm::gemm_group     cuBLAS: cublasGemmEx per group; a group with a fused
//            epilogue (15 % of them): cublasGemmEx of op(A) op(B) into float (double), the epilogue on the host
//   fused    tgemm::gemm() (half the cases) or tgemm::gemm_strided_batched() with a tgemm::epilogue
//            cuBLAS ("plain"): cublasGemmStridedBatchedEx of op(A) op(B) into float (double), then the epilogue
//            applied on the host in double (long double for double); and, where cuBLASLt has the epilogue,
//            cublasLtMatmul too: no scales, no clamp, at most the one bias cuBLASLt has (a value per row of its
//            column-major D: tgemm's row bias for a column-major call, its column bias for a row-major one, which
//            cuBLAS sees transposed), activation none, ReLU or GELU (tanh form) = CUBLASLT_EPILOGUE_DEFAULT, RELU,
//            GELU, BIAS, RELU_BIAS or GELU_BIAS; C and D apart or not; batches with
//            CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE. Not with alpha = 0 (cuBLASLt 13.1 skipped its epilogue or returned
//            NaN there) nor with C read apart from D in another layout (an H200 run faulted with a misaligned address
//            in cuBLAS's or cuBLASLt's calls of such a case, ldc 68, ldd 75) nor with a bias batch stride that leaves
//            a product's bias off 16-byte alignment (a misaligned-address fault again: see lt_applies). Where
//            cuBLASLt finds no algorithm for a
//            call (counted in the summary), the plain comparison stands alone.
//   pointers tgemm::gemm_batched(): device arrays of the A, B and C pointers (as cublasGemmBatchedEx takes them)
//            of the batched API's cases, product i's a + offset_a + i stride_a and so on (a stride of 0 or an
//            overlapping one repeats or overlaps operands)   cuBLAS: cublasGemmStridedBatchedEx on those strides
//            (the same products)
//   device_groups  tgemm::gemm_grouped_device(): tgemm::gemm_group_device in device memory, tgemm::group_bounds on
//            the host, a group_status array; grouped's groups, but one op(A), op(B), alpha and beta for the call and
//            no epilogues                                    cuBLAS: cublasGemmEx per group
// Types: float (strict FP32; cuBLAS CUBLAS_COMPUTE_32F with its default math: no TF32), half_half, half_float,
// bf16_bf16, bf16_float (A and B 16-bit, C of their type or float; CUBLAS_COMPUTE_32F), f64 (CUBLAS_COMPUTE_64F).
// cuBLAS runs with CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, cuBLASLt with its
// reduction scheme limited to the compute type (no partial sums kept in a 16-bit C). A row-major call is expressed
// as the column-major call C^T = op(B)^T op(A)^T.
//
// A run draws its cases from a seed it prints: --seed N, else TGEMM_TEST_SEED, else a fresh one. Case i of an API
// and type depends only on (seed, API, type, i), so `--case SEED:API:TYPE:I` replays exactly that case. A case picks:
//   - the storage order, op(A) and op(B) (per group for grouped; one pair per call for device_groups);
//   - sizes: 2.5 % k = 0, 2.5 % m or n = 0, 10 % tile sizes +-1, most log-uniform in 1 .. 300 (groups: 1 .. 200),
//     2 % large (one dimension 300 .. 1500, the others up to 1500, m n k <= 2e8); --small: everything up to 48;
//   - batches (batched, pointers, fused): 3 % with no product, 27 % one, the rest 2 .. 40 (at most 3 for large
//     products); strides of A and B 0 (one operand for every product) 10 % of the time, overlapping 5 %, else the
//     operand's span plus a gap of 0 or 1 .. 17 elements; C's stride its tight span (the next product starting
//     right after the last element of this one, inside its last column's padding) 10 %, else its span plus a gap;
//   - groups (grouped, device_groups): 3 % no group, else 1 .. 12 groups, 12 % of them empty (m, n or k = 0), each
//     with its own ops (grouped), sizes, alpha and beta (grouped), leading dimensions and place (a gap, aligned or
//     not), 15 % with a fused epilogue (grouped); device_groups' bounds the groups' largest m, n and k, 30 % of the
//     time each raised by 0 .. 64 (a grid larger than every group, whose extra blocks must do nothing);
//   - 30 % 16-byte aligned (leading dimensions, strides and offsets rounded to 16 bytes); the others pad each
//     leading dimension by 0 .. 9 elements and offset the pointers by 1 .. 3 elements now and then;
//   - alpha and beta in {0, 1, -1, random in [-2, 2)}; with beta == 0, C starts full of NaN (it must not be read);
//   - values uniform in [-1, 1), small integers other than 0, or (not for __half) scaled by 2^-20 .. 2^20: never all
//     zero;
//   - fused epilogues (the fused API; 15 % of the groups): an activation (none, relu, gelu_tanh, gelu_erf, silu),
//     each of row bias, column bias (50 %), row scale, column scale (30 %), a clamp (30 %: both bounds, one, or a
//     range above 0), a separate D (40 %; padded, with C passed as a null pointer half the time when beta == 0),
//     batches' vectors per product (with 0 .. 3 elements between them) or shared (stride 0); 35 % of the fused
//     cases are shaped for cuBLASLt (see above), 5 % a default epilogue;
//   - 1.5 % bad arguments: a negative batch count, a stride_c (stride_d) that makes products overlap, a negative
//     stride, clamp bounds out of order, an ldd too small; for groups a group's lda too small, a group's null A,
//     null groups with group_count > 0, a negative group_count. Pointers: only a negative batch count (the arrays
//     have no strides to check); device_groups: only null groups and a negative group_count (the host's checks:
//     the GPU checks each group, its verdict in group_status). The call must return the named status
//     (status.cuh), with last_error() naming the group where one is at fault, no CUDA error, and C and D (and
//     device_groups' group_status) unchanged bit for bit.
// The operands' padding and gaps, and the vectors' gaps, hold NaN (a kernel reading them spreads NaN into the
// result); C's and D's padding, gaps and a guard after them hold a NaN pattern no kernel writes.
//
// Checks of every valid case: status::success and no CUDA error; for device_groups every group's status in
// group_status 0 (success), or, where the call has nothing to do (no group, or a bound of m or n of 0), group_status
// as it was (tgemm writes nothing then); every element of C, or D, that no product owns (padding, gaps between
// products, the guard after the last) unchanged bit for bit, and all of C when the result goes to a separate D; and
// per element, with M = |alpha rs cs| sum_l |a_il b_lj| + |beta c_ij| + |biases| (rs, cs the scales, 1 without), v
// the value before the activation and y the result:
//   tgemm:        slope (k + 4) u M + 4 u_acc M (epilogue) + act |v| + out |y| + floor, where u = 2^-23 (2^-52
//                 for double: error_bounds.hpp's accumulation_factor), u_acc the accumulator's unit roundoff (2^-24,
//                 2^-53), out C's rounding (2^-11 __half, 2^-8 bfloat16, else 0: output_roundoff), floor half the
//                 smallest subnormal of C (underflow_floor), slope 1.2 and act 2^-10 (16-bit C: tanh.approx) or
//                 16 u_acc for GELU and SiLU, else 1 and 0 (test/support/batch_check.hpp's bound for the fused
//                 epilogue, test/gpu/epilogue_test.cu);
//   cuBLAS:       (k + 4) u M + out (|y| + M) + floor: a 16-bit C may be rounded twice, alpha AB before beta C is
//                 added (differential_tensorop.cu);
//   plain:        slope (k + 4) u |alpha rs cs| Mp + 2^-50 M (its float products, the host epilogue exact);
//   cuBLASLt:     as cuBLAS plus 4 u_acc M, and 2^-10 |v| for its GELU (its accuracy is not documented).
// Against the float64 reference (every case with sum m n k < 1e6, or with --no-cublas) tgemm must be within its
// bound. Against cuBLAS tgemm must be within the sum of both bounds. When cuBLAS (or cuBLASLt) itself is outside its
// bound of the float64 reference where tgemm is inside its own, the case is NOT failed: the disagreement is printed
// as a NOTE (cuBLAS may reduce in bf16 despite the math mode) and counted in the summary. Without a float64
// reference (large cases) the plain cuBLAS result decides between tgemm and cuBLASLt, and M is bounded by
// ||row i of op(A)|| ||column j of op(B)|| (Cauchy-Schwarz: about 4/3 of M for random values, never below it).
//
// Options: --seed N, --cases N (per API and type), --case SEED:API:TYPE:INDEX (replay one case, verbosely), --apis
// a,b (batched, grouped, fused, pointers, device_groups), --types a,b (float, half_half, half_float, bf16_bf16,
// bf16_float, f64), --small (sizes up to 48: for compute-sanitizer), --no-cublas (float64 reference only, for every
// size), --no-cublaslt (cuBLAS's product + the host epilogue only), --verbose, --list (print the cases, no GPU),
// --self-test (the harness on the host without a GPU: case generation, the reference and the comparisons must
// accept correct data and catch planted errors; the pointer arrays and device groups built for the indirect calls
// must match their cases, within the bounds; bad-argument calls that tgemm refuses before any device work run
// against fake device pointers, arrays and groups; CUDA_VISIBLE_DEVICES is emptied first so nothing can reach a
// GPU). No Catch2: the exit status is 0 when every case passed and 1 otherwise (or without a GPU), and the last line
// reads "N passed, N failed".
#include "check_cublas.hpp"
#include "check_cuda.hpp"
#include "element_values.hpp"
#include "error_bounds.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "require_gpu.hpp"
#include "splitmix.hpp"

#include <tgemm/gemm.cuh>

#include <cublasLt.h>
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

using tgemm::activation;
using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::test::from_float;
using tgemm::test::index_of;
using tgemm::test::min_ld;
using tgemm::test::op_index_of;
using tgemm::test::same_bits;
using tgemm::test::sentinel;
using tgemm::test::stored_elements;
using tgemm::test::to_double;

constexpr double inf = std::numeric_limits<double>::infinity();
const float quiet_nan = std::numeric_limits<float>::quiet_NaN();

// ---------------------------------------------------------------------------------------------------------------
// Random numbers: splitmix64, so that a case is a pure function of (seed, API, type, index).

using rng = tgemm::test::splitmix_rng;

rng case_rng(uint64_t seed, int api, int type, int64_t index) {
  rng r{seed ^ (uint64_t(index) * 0xd1b54a32d192ed03ull) ^ (uint64_t(type + 1) * 0x8cb92ba72f3d8dd7ull) ^
        (uint64_t(api + 1) * 0x9fb21c651e98df25ull)};
  r.next();
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// APIs and types.

// New APIs go last: an API's index seeds its cases (case_rng), so the others' cases stay as they were.
enum api_id : int {
  api_batched = 0,
  api_grouped = 1,
  api_fused = 2,
  api_pointers = 3,
  api_device_groups = 4,
  api_count = 5
};

struct api_info {
  const char* name;
  const char* description;
};

const api_info apis[api_count] = {
    {"batched", "tgemm::gemm_strided_batched() vs cublasGemmStridedBatchedEx"},
    {"grouped", "tgemm::gemm_grouped() vs cublasGemmEx per group (epilogue groups: plain + host epilogue)"},
    {"fused", "tgemm::gemm() / gemm_strided_batched() with a tgemm::epilogue vs cuBLASLt's epilogues and "
              "cublasGemmStridedBatchedEx + the epilogue on the host"},
    {"pointers", "tgemm::gemm_batched() (device arrays of pointers) vs cublasGemmStridedBatchedEx (same products)"},
    {"device_groups", "tgemm::gemm_grouped_device() (groups in device memory) vs cublasGemmEx per group"},
};

/// The APIs whose cases are lists of groups (the others': one shape, batched or not).
bool grouped_api(int api) { return api == api_grouped || api == api_device_groups; }

struct type_info {
  const char* name;
  const char* description;
  const char* cublas_description;
  int ab_bytes, c_bytes;  // element sizes of A and B, and of C
  bool scaled_values;     // values scaled by 2^-20 .. 2^20 stay in range (not for __half)
};

enum type_id : int {
  type_float,
  type_half_half,
  type_half_float,
  type_bf16_bf16,
  type_bf16_float,
  type_f64,
  type_count
};

const type_info types[type_count] = {
    {"float", "A, B, C float (strict FP32)", "CUDA_R_32F, CUBLAS_COMPUTE_32F (default math: no TF32)", 4, 4, true},
    {"half_half", "A, B, C __half", "CUDA_R_16F, CUBLAS_COMPUTE_32F", 2, 2, false},
    {"half_float", "A, B __half, C float", "CUDA_R_16F (C CUDA_R_32F), CUBLAS_COMPUTE_32F", 2, 4, false},
    {"bf16_bf16", "A, B, C __nv_bfloat16", "CUDA_R_16BF, CUBLAS_COMPUTE_32F", 2, 2, true},
    {"bf16_float", "A, B __nv_bfloat16, C float", "CUDA_R_16BF (C CUDA_R_32F), CUBLAS_COMPUTE_32F", 2, 4, true},
    {"f64", "A, B, C double", "CUDA_R_64F, CUBLAS_COMPUTE_64F", 8, 8, true},
};

template <class Table, int Count>
int index_named(const Table (&table)[Count], const std::string& name) {
  for (int i = 0; i < Count; ++i) {
    if (name == table[i].name) return i;
  }
  return -1;
}

template <class Table, int Count>
std::string names_of(const Table (&table)[Count]) {
  std::string names;
  for (int i = 0; i < Count; ++i) names += std::string(i == 0 ? "" : ",") + table[i].name;
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

/// The bad arguments a case may carry (1.5 % of the cases), and the status each must return.
enum class bad_kind {
  none,
  negative_count,   // batch_count < 0
  overlapping_c,    // stride_c below one C's span (count >= 2)
  negative_stride,  // stride_a or stride_b < 0 (count >= 2)
  overlapping_d,    // epilogue.stride_d below one D's span
  bad_clamp,        // epilogue.clamp_min > clamp_max
  small_ldd,        // epilogue.ldd one less than D needs
  group_lda,        // one group's lda one less than it needs
  group_null_a,     // one group's A null although read
  null_groups,      // groups null with group_count > 0
  negative_groups,  // group_count < 0
};

const char* to_string(bad_kind b) {
  switch (b) {
    case bad_kind::none: return "none";
    case bad_kind::negative_count: return "negative_count";
    case bad_kind::overlapping_c: return "overlapping_c";
    case bad_kind::negative_stride: return "negative_stride";
    case bad_kind::overlapping_d: return "overlapping_d";
    case bad_kind::bad_clamp: return "bad_clamp";
    case bad_kind::small_ldd: return "small_ldd";
    case bad_kind::group_lda: return "group_lda";
    case bad_kind::group_null_a: return "group_null_a";
    case bad_kind::null_groups: return "null_groups";
    case bad_kind::negative_groups: return "negative_groups";
  }
  return "?";
}

status expected_status(bad_kind b) {
  switch (b) {
    case bad_kind::negative_count:
    case bad_kind::negative_groups: return status::invalid_dimension;
    case bad_kind::overlapping_c:
    case bad_kind::negative_stride:
    case bad_kind::overlapping_d: return status::invalid_batch_stride;
    case bad_kind::bad_clamp: return status::invalid_epilogue;
    case bad_kind::small_ldd:
    case bad_kind::group_lda: return status::invalid_leading_dimension;
    case bad_kind::group_null_a:
    case bad_kind::null_groups: return status::null_pointer;
    case bad_kind::none: break;
  }
  return status::success;
}

/// A fused epilogue as drawn: which members the call sets.
struct epilogue_spec {
  bool on = false;  // the call takes a tgemm::epilogue
  activation act = activation::none;
  bool row_bias = false, column_bias = false, row_scale = false, column_scale = false;
  bool shared = false;         // batches: one set of vectors for every product (strides 0)
  int64_t vector_pad = 0;      // batches: elements between one product's vector and the next's, past its end
  float clamp_min = -std::numeric_limits<float>::infinity(), clamp_max = std::numeric_limits<float>::infinity();
  bool separate_d = false;     // the result goes to D; C only read
  int64_t ldd = 0, stride_d = 0, offset_d = 0;
  bool null_c = false;         // separate D and beta == 0: C passed as a null pointer
  bool lt_shaped = false;      // drawn for cuBLASLt (whether it applies is decided by lt_applies())

  bool clamps() const {
    return clamp_min > -std::numeric_limits<float>::infinity() || clamp_max < std::numeric_limits<float>::infinity();
  }
  std::string describe() const {
    if (!on) return "";
    std::ostringstream s;
    s.precision(9);
    s << " epilogue{" << tgemm::to_string(act) << (row_bias ? " row_bias" : "") << (column_bias ? " column_bias" : "")
      << (row_scale ? " row_scale" : "") << (column_scale ? " column_scale" : "");
    if (clamps()) s << " clamp [" << clamp_min << ", " << clamp_max << "]";
    if (shared) s << " shared";
    if (vector_pad > 0) s << " vector_pad=" << vector_pad;
    if (separate_d) s << " D(ldd=" << ldd << " stride_d=" << stride_d << " offset=" << offset_d << ")";
    if (null_c) s << " C=null";
    s << "}";
    return s.str();
  }
};

/// One GEMM's shape as drawn: the batched and fused APIs' call, or one group.
struct gemm_spec {
  op op_a = op::none, op_b = op::none;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  int64_t lda = 1, ldb = 1, ldc = 1;
  // batched and fused: the pointers' offsets in their buffers; grouped: the gap before the group's A, B and C
  int64_t offset_a = 0, offset_b = 0, offset_c = 0;
  bool aligned = false;  // grouped: the group's pointers on 16 bytes
  epilogue_spec ep;
  double work() const { return double(m) * double(n) * double(k); }
  std::string describe() const {
    std::ostringstream s;
    s.precision(9);
    s << tgemm::to_string(op_a) << "/" << tgemm::to_string(op_b) << " m=" << m << " n=" << n << " k=" << k
      << " alpha=" << alpha << " beta=" << beta << " lda=" << lda << " ldb=" << ldb << " ldc=" << ldc;
    return s.str();
  }
};

struct case_spec {
  uint64_t seed = 0;
  int api = 0, type = 0;
  int64_t index = 0;
  const char* size_class = "";
  layout order = layout::col_major;
  gemm_spec g;              // batched, fused and pointers: the call's shape; device_groups: its ops, alpha, beta
  bool single = false;      // fused: tgemm::gemm() (no batch)
  int64_t count = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  std::vector<gemm_spec> groups;  // grouped and device_groups
  int64_t group_count = 0;        // grouped and device_groups: what the call passes
  tgemm::group_bounds bounds;     // device_groups: at least every group's m, n and k
  value_kind values = value_kind::uniform;
  int scale_a = 0, scale_b = 0, scale_c = 0;
  uint64_t data_seed = 0;
  bad_kind bad = bad_kind::none;
  int64_t bad_group = -1;

  std::string id() const {
    return std::to_string(seed) + ":" + apis[api].name + ":" + types[type].name + ":" + std::to_string(index);
  }
  std::string describe() const {
    std::ostringstream s;
    s.precision(9);
    s << "api=" << apis[api].name << " type=" << types[type].name << " order=" << tgemm::to_string(order);
    if (grouped_api(api)) {
      if (api == api_device_groups) {
        s << " call " << tgemm::to_string(g.op_a) << "/" << tgemm::to_string(g.op_b) << " alpha=" << g.alpha
          << " beta=" << g.beta << " bounds=" << bounds.max_m << "," << bounds.max_n << "," << bounds.max_k;
      }
      s << " groups=" << group_count << " [";
      for (size_t i = 0; i < groups.size(); ++i) {
        s << (i == 0 ? "" : "; ") << i << ": " << groups[i].describe() << (groups[i].aligned ? " aligned" : "")
          << " gaps " << groups[i].offset_a << "," << groups[i].offset_b << "," << groups[i].offset_c
          << groups[i].ep.describe();
      }
      s << "]";
    } else {
      s << " " << g.describe();
      if (single) {
        s << " single call";
      } else {
        s << " count=" << count << " strides(a,b,c)=" << stride_a << "," << stride_b << "," << stride_c;
      }
      s << " offsets(a,b,c)=" << g.offset_a << "," << g.offset_b << "," << g.offset_c << g.ep.describe();
    }
    s << " values=" << to_string(values);
    if (values == value_kind::scaled) s << " (2^" << scale_a << ", 2^" << scale_b << ", 2^" << scale_c << ")";
    s << " class=" << size_class;
    if (bad != bad_kind::none) {
      s << " BAD=" << to_string(bad);
      if (bad_group >= 0) s << " (group " << bad_group << ")";
    }
    return s.str();
  }
};

float pick_scalar(rng& r, const int64_t (&weights)[3]) {  // weights of 0, 1, -1 out of 20; the rest random
  int64_t u = r.below(20);
  if (u < weights[0]) return 0.0f;
  u -= weights[0];
  if (u < weights[1]) return 1.0f;
  u -= weights[1];
  if (u < weights[2]) return -1.0f;
  return 2.0f * r.unit();
}

/// A tile size +-1 (7 .. 257), or 1 .. 3; no larger than cap.
int64_t edge_dimension(rng& r, int64_t cap) {
  const int64_t d = r.chance(0.1) ? r.between(1, 3) : (int64_t(8) << r.below(6)) + r.between(-1, 1);
  return d <= cap ? d : cap;
}

/// m, n, k of one GEMM (see the top of the file); `large` allows the 2 % of products up to 1500.
void draw_dims(rng& r, int64_t cap, bool large, gemm_spec& g, const char*& size_class) {
  const int64_t u = r.below(1000);
  if (u < 25) {
    size_class = "k=0";
    g.m = r.log_uniform(1, cap), g.n = r.log_uniform(1, cap), g.k = 0;
  } else if (u < 50) {
    size_class = "empty";
    g.m = r.log_uniform(1, cap), g.n = r.log_uniform(1, cap), g.k = r.log_uniform(1, cap);
    (r.chance(0.5) ? g.m : g.n) = 0;
  } else if (u < 150) {
    size_class = "edge";
    g.m = edge_dimension(r, cap), g.n = edge_dimension(r, cap), g.k = edge_dimension(r, cap);
  } else if (!large || u < 980) {
    size_class = "log";
    g.m = r.log_uniform(1, cap), g.n = r.log_uniform(1, cap), g.k = r.log_uniform(1, cap);
  } else {
    size_class = "large";
    int64_t* dims[3] = {&g.m, &g.n, &g.k};
    for (int64_t* d : dims) *d = r.log_uniform(1, 1500);
    const int64_t big = r.below(3);
    *dims[big] = r.between(300, 1500);
    while (g.work() > 2e8 || double(g.m) * double(g.n) > 1.5e6) {
      int64_t* x = dims[(big + 1) % 3];
      int64_t* y = dims[(big + 2) % 3];
      int64_t* larger = *x >= *y ? x : y;
      *larger = (*larger + 1) / 2;
    }
  }
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/// Elements from the first element of a stored matrix to one past its last (its last line not padded): the least
/// batch stride that keeps two products apart.
int64_t tight_span(layout order, op operation, int64_t rows, int64_t cols, int64_t ld) {
  const int64_t x_rows = operation == op::none ? rows : cols, x_cols = operation == op::none ? cols : rows;
  const int64_t contiguous = order == layout::col_major ? x_rows : x_cols;
  const int64_t lines = order == layout::col_major ? x_cols : x_rows;
  return contiguous == 0 || lines == 0 ? 0 : ld * (lines - 1) + contiguous;
}

/// Leading dimensions of g: the least valid, 16-byte aligned (plus 0 or 16 bytes) or padded by 0 .. 9 elements.
void draw_leading_dimensions(rng& r, layout order, const type_info& info, bool aligned, gemm_spec& g) {
  const int64_t vec_ab = 16 / info.ab_bytes, vec_c = 16 / info.c_bytes;
  g.lda = min_ld(order, g.op_a, g.m, g.k);
  g.ldb = min_ld(order, g.op_b, g.k, g.n);
  g.ldc = min_ld(order, op::none, g.m, g.n);
  if (aligned) {
    g.lda = round_up(g.lda, vec_ab) + vec_ab * r.below(2);
    g.ldb = round_up(g.ldb, vec_ab) + vec_ab * r.below(2);
    g.ldc = round_up(g.ldc, vec_c) + vec_c * r.below(2);
  } else {
    g.lda += r.chance(0.5) ? 0 : r.between(1, 9);
    g.ldb += r.chance(0.5) ? 0 : r.between(1, 9);
    g.ldc += r.chance(0.5) ? 0 : r.between(1, 9);
  }
}

/// The size of a typical |result| (for clamp bounds that cut through the values).
double typical_value(const case_spec& c, const gemm_spec& g) {
  const double ab = c.values == value_kind::scaled ? std::ldexp(1.0, c.scale_a + c.scale_b) : 1.0;
  const double cv = c.values == value_kind::scaled ? std::ldexp(1.0, c.scale_c) : 1.0;
  const double unit = c.values == value_kind::integers ? 2.0 : 0.4;
  return std::fabs(g.alpha) * std::sqrt(double(std::max<int64_t>(g.k, 1))) * unit * ab + (std::fabs(g.beta) + 1) * cv;
}

/// A fused epilogue for g (the fused API's call, or a group); `batched` when the call is a strided batch.
void draw_epilogue(rng& r, const case_spec& c, gemm_spec& g, bool batched, bool aligned) {
  epilogue_spec& e = g.ep;
  e.on = true;
  const type_info& info = types[c.type];
  if (!r.chance(0.05)) {  // else a default epilogue: the plain product, through the fused kernels
    e.lt_shaped = r.chance(0.35);
    if (e.lt_shaped) {
      const activation lt_acts[3] = {activation::none, activation::relu, activation::gelu_tanh};
      e.act = lt_acts[r.below(3)];
      if (r.chance(0.75)) (c.order == layout::col_major ? e.row_bias : e.column_bias) = true;
    } else {
      e.act = activation(r.below(5));
      e.row_bias = r.chance(0.5), e.column_bias = r.chance(0.5);
      e.row_scale = r.chance(0.3), e.column_scale = r.chance(0.3);
      if (r.chance(0.3)) {
        const double t = typical_value(c, g);
        const double x1 = r.uniform(), x2 = r.uniform();
        switch (r.below(4)) {
          case 0: e.clamp_min = float(-t * x1), e.clamp_max = float(t * x2); break;
          case 1: e.clamp_min = float(-t * x1); break;
          case 2: e.clamp_max = float(t * x2); break;
          default: e.clamp_min = float(t * x1 * 0.5), e.clamp_max = float(t * (x1 * 0.5 + x2)); break;
        }
      }
    }
  }
  if (batched) {
    e.shared = r.chance(0.3);
    e.vector_pad = r.chance(0.5) ? 0 : r.between(1, 3);
  }
  if (r.chance(0.4)) {
    e.separate_d = true;
    const int64_t vec_c = 16 / info.c_bytes;
    const int64_t least = min_ld(c.order, op::none, g.m, g.n);
    e.ldd = aligned ? round_up(least, vec_c) + vec_c * r.below(2) : least + (r.chance(0.5) ? 0 : r.between(1, 9));
    e.offset_d = aligned || r.chance(0.7) ? 0 : r.between(1, 3);
    const int64_t span = stored_elements(c.order, op::none, g.m, g.n, e.ldd);
    e.stride_d = r.chance(0.1) ? tight_span(c.order, op::none, g.m, g.n, e.ldd)
                               : span + (r.chance(0.5) ? 0 : r.between(1, 17));
    if (aligned) e.stride_d = round_up(e.stride_d, vec_c);
    e.null_c = g.beta == 0.0f && r.chance(0.5);
  }
}

/// A batch stride for an operand spanning `span` elements with leading dimension ld: 0, overlapping, or the span
/// plus a gap.
int64_t draw_operand_stride(rng& r, int64_t span, int64_t vec, bool aligned) {
  const int64_t u = r.below(20);
  if (u < 2) return 0;
  int64_t s = u == 2 && span > 1 ? r.between(1, span - 1) : span + (r.chance(0.5) ? 0 : r.between(1, 17));
  if (aligned) s = round_up(s, vec);
  return s;
}

/// One group: the grouped API's (call null), or device_groups', whose ops, alpha and beta are the call's and which
/// has no epilogue. A call skips those draws, so that the grouped API's cases stay as they were.
gemm_spec draw_group(rng& r, const case_spec& c, bool small, const gemm_spec* call) {
  gemm_spec g;
  const type_info& info = types[c.type];
  if (call != nullptr) {
    g.op_a = call->op_a, g.op_b = call->op_b;
  } else {
    g.op_a = r.chance(0.5) ? op::none : op::transpose;
    g.op_b = r.chance(0.5) ? op::none : op::transpose;
  }
  const char* size_class = "";
  draw_dims(r, small ? 48 : 200, !small, g, size_class);
  if (r.chance(0.12)) {  // empty: m, n or k = 0
    const int64_t which = r.below(3);
    (which == 0 ? g.m : which == 1 ? g.n : g.k) = 0;
  }
  const int64_t alpha_weights[3] = {2, 6, 3}, beta_weights[3] = {7, 4, 2};
  if (call != nullptr) {
    g.alpha = call->alpha, g.beta = call->beta;
  } else {
    g.alpha = pick_scalar(r, alpha_weights);
    g.beta = pick_scalar(r, beta_weights);
  }
  g.aligned = r.chance(0.3);
  draw_leading_dimensions(r, c.order, info, g.aligned, g);
  // Gaps before the group's A, B and C (from the end of the previous group's): aligned groups start on 16 bytes.
  g.offset_a = r.chance(0.5) ? 0 : r.between(1, 7);
  g.offset_b = r.chance(0.5) ? 0 : r.between(1, 7);
  g.offset_c = r.chance(0.5) ? 0 : r.between(1, 7);
  if (call == nullptr && r.chance(0.15)) draw_epilogue(r, c, g, false, g.aligned);
  return g;
}

case_spec make_case(uint64_t seed, int api, int type, int64_t index, bool small) {
  rng r = case_rng(seed, api, type, index);
  case_spec c;
  c.seed = seed, c.api = api, c.type = type, c.index = index;
  const type_info& info = types[type];
  c.order = r.chance(0.5) ? layout::col_major : layout::row_major;
  const int64_t v = r.below(10);
  c.values = v < 8 ? value_kind::uniform : (v == 8 ? value_kind::integers : value_kind::scaled);
  if (c.values == value_kind::scaled && !info.scaled_values) c.values = value_kind::uniform;
  if (c.values == value_kind::scaled) {
    c.scale_a = int(r.between(-20, 20)), c.scale_b = int(r.between(-20, 20)), c.scale_c = int(r.between(-20, 20));
  }
  const int64_t alpha_weights[3] = {2, 6, 3}, beta_weights[3] = {7, 4, 2};
  const bool bad = r.chance(0.015);

  if (grouped_api(api)) {
    c.size_class = "groups";
    const gemm_spec* call = nullptr;  // device_groups: the ops, alpha and beta of every group
    if (api == api_device_groups) {
      c.g.op_a = r.chance(0.5) ? op::none : op::transpose;
      c.g.op_b = r.chance(0.5) ? op::none : op::transpose;
      c.g.alpha = pick_scalar(r, alpha_weights);
      c.g.beta = pick_scalar(r, beta_weights);
      call = &c.g;
    }
    const int64_t count = r.chance(0.03) && !bad ? 0 : r.between(1, 12);
    for (int64_t i = 0; i < count; ++i) c.groups.push_back(draw_group(r, c, small, call));
    c.group_count = count;
    if (bad) {
      // device_groups: only what the host checks (null or negative counts); the GPU checks each group, and a bad
      // one is that group's status, not the call's.
      const int64_t kind = api == api_device_groups ? 2 + r.below(2) : r.below(4);
      c.bad = kind == 0 ? bad_kind::group_lda
              : kind == 1 ? bad_kind::group_null_a
              : kind == 2 ? bad_kind::null_groups
                          : bad_kind::negative_groups;
      if (c.bad == bad_kind::group_lda || c.bad == bad_kind::group_null_a) {
        // The group at fault: the first a third of the time (then the host self-test can run the call: tgemm
        // refuses it before planning any group on a device).
        c.bad_group = r.chance(1.0 / 3) ? 0 : r.below(count);
        gemm_spec& g = c.groups[size_t(c.bad_group)];
        g.m = std::max<int64_t>(g.m, 2), g.n = std::max<int64_t>(g.n, 2), g.k = std::max<int64_t>(g.k, 2);
        if (g.alpha == 0.0f) g.alpha = 1.0f;  // A is read
        draw_leading_dimensions(r, c.order, info, g.aligned, g);
        if (g.ep.separate_d) g.ep.ldd = std::max(g.ep.ldd, min_ld(c.order, op::none, g.m, g.n));
      }
      if (c.bad == bad_kind::negative_groups) c.group_count = -r.between(1, 3);
    }
    if (api == api_device_groups) {
      tgemm::group_bounds& b = c.bounds;
      for (const gemm_spec& g : c.groups) {
        b.max_m = std::max(b.max_m, g.m), b.max_n = std::max(b.max_n, g.n), b.max_k = std::max(b.max_k, g.k);
      }
      // Now and then looser than the groups need: a grid larger than every group, whose extra blocks must write
      // nothing (and where every group has m or n 0, a launch whose groups all report success, touching nothing).
      if (r.chance(0.3)) b.max_m += r.between(0, 64), b.max_n += r.between(0, 64), b.max_k += r.between(0, 64);
    }
    c.data_seed = r.next();
    return c;
  }

  gemm_spec& g = c.g;
  g.op_a = r.chance(0.5) ? op::none : op::transpose;
  g.op_b = r.chance(0.5) ? op::none : op::transpose;
  draw_dims(r, small ? 48 : 300, !small, g, c.size_class);
  g.alpha = pick_scalar(r, alpha_weights);
  g.beta = pick_scalar(r, beta_weights);
  c.single = api == api_fused && r.chance(0.5);
  const bool large = std::string(c.size_class) == "large";
  if (c.single) {
    c.count = 1;
  } else {
    const int64_t u = r.below(100);
    c.count = u < 3 ? 0 : u < 30 ? 1 : (large ? r.between(2, 3) : r.log_uniform(2, 40));
    // Keep a case's memory and host work moderate: at most about 4 million elements of A, B and C together.
    while (c.count > 1 && double(c.count) * double(g.m * g.n + g.m * g.k + g.k * g.n) > 4e6) c.count /= 2;
  }
  const bool aligned = r.chance(0.3);
  draw_leading_dimensions(r, c.order, info, aligned, g);
  const int64_t vec_ab = 16 / info.ab_bytes, vec_c = 16 / info.c_bytes;
  if (!aligned) {
    g.offset_a = r.chance(0.4) ? r.between(1, 3) : 0;
    g.offset_b = r.chance(0.4) ? r.between(1, 3) : 0;
    g.offset_c = r.chance(0.25) ? r.between(1, 3) : 0;
  }
  const int64_t span_a = stored_elements(c.order, g.op_a, g.m, g.k, g.lda);
  const int64_t span_b = stored_elements(c.order, g.op_b, g.k, g.n, g.ldb);
  const int64_t span_c = stored_elements(c.order, op::none, g.m, g.n, g.ldc);
  if (!c.single) {
    c.stride_a = draw_operand_stride(r, span_a, vec_ab, aligned);
    c.stride_b = draw_operand_stride(r, span_b, vec_ab, aligned);
    c.stride_c = r.chance(0.1) ? tight_span(c.order, op::none, g.m, g.n, g.ldc)
                               : span_c + (r.chance(0.5) ? 0 : r.between(1, 17));
    if (aligned) c.stride_c = round_up(c.stride_c, vec_c);
  }
  if (api == api_fused) draw_epilogue(r, c, g, !c.single, aligned);

  if (bad) {
    // Pointers: only a negative count (the arrays carry no strides for the host to check, nor overlaps it could see).
    const int64_t kind = api == api_pointers ? 0 : r.below(api == api_fused ? 5 : 3);
    const bad_kind batched_kinds[3] = {bad_kind::negative_count, bad_kind::overlapping_c, bad_kind::negative_stride};
    const bad_kind fused_kinds[5] = {bad_kind::negative_count, bad_kind::overlapping_c, bad_kind::overlapping_d,
                                     bad_kind::bad_clamp, bad_kind::small_ldd};
    c.bad = api == api_fused ? fused_kinds[kind] : batched_kinds[kind];
    // Every bad case reads and writes something (m, n, k >= 2, alpha != 0) so that nothing else decides its status.
    g.m = std::max<int64_t>(g.m, 2), g.n = std::max<int64_t>(g.n, 2), g.k = std::max<int64_t>(g.k, 2);
    if (g.alpha == 0.0f) g.alpha = 1.0f;
    draw_leading_dimensions(r, c.order, info, aligned, g);
    // The products one after another (the leading dimensions changed); at least two where the batch is at fault.
    const bool batch = c.bad != bad_kind::bad_clamp && c.bad != bad_kind::small_ldd;
    if (batch) c.single = false;
    if (!c.single) {
      c.count = std::max<int64_t>(std::min<int64_t>(c.count, 8), batch ? 2 : 0);
      c.stride_a = stored_elements(c.order, g.op_a, g.m, g.k, g.lda);
      c.stride_b = stored_elements(c.order, g.op_b, g.k, g.n, g.ldb);
      c.stride_c = stored_elements(c.order, op::none, g.m, g.n, g.ldc);
    }
    epilogue_spec& e = g.ep;
    if (e.on) {
      e.ldd = std::max(e.ldd, min_ld(c.order, op::none, g.m, g.n));
      e.stride_d = stored_elements(c.order, op::none, g.m, g.n, e.ldd);
    }
    switch (c.bad) {
      case bad_kind::negative_count: c.count = -r.between(1, 5); break;
      case bad_kind::overlapping_c:
        e.separate_d = false, e.null_c = false;  // C is written
        c.stride_c = r.below(tight_span(c.order, op::none, g.m, g.n, g.ldc));
        break;
      case bad_kind::negative_stride: (r.chance(0.5) ? c.stride_a : c.stride_b) = -r.between(1, 100); break;
      case bad_kind::overlapping_d:
        e.separate_d = true;
        if (e.ldd == 0) e.ldd = min_ld(c.order, op::none, g.m, g.n);
        e.stride_d = r.below(tight_span(c.order, op::none, g.m, g.n, e.ldd));
        break;
      case bad_kind::bad_clamp: {
        const float x = 0.5f + 0.5f * std::fabs(r.unit());
        e.clamp_min = x, e.clamp_max = -x;
        break;
      }
      case bad_kind::small_ldd:
        e.separate_d = true;
        e.ldd = min_ld(c.order, op::none, g.m, g.n) - 1;  // m, n >= 2: at least 1
        break;
      default: break;
    }
  }
  c.data_seed = r.next();
  return c;
}

// ---------------------------------------------------------------------------------------------------------------
// The products of a case: where each one's operands, vectors and result lie in the case's buffers.

constexpr int64_t guard_elements = 64;

struct product {
  op op_a = op::none, op_b = op::none;
  int64_t m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;
  int64_t a = 0, lda = 1, b = 0, ldb = 1, c = 0, ldc = 1;  // offsets in the A, B and C buffers
  bool fused = false;
  activation act = activation::none;
  int64_t row_bias = -1, column_bias = -1, row_scale = -1, column_scale = -1;  // offsets in the vectors, or -1
  double clamp_min = -inf, clamp_max = inf;
  bool separate_d = false;  // the result goes to the D buffer
  int64_t d = 0, ldd = 1;
  int64_t plain = 0;        // offset of its op(A) op(B) in the plain cuBLAS products (m n elements, dense)
  int64_t out_index(layout order, int64_t i, int64_t j) const {
    return separate_d ? d + index_of(order, i, j, ldd) : c + index_of(order, i, j, ldc);
  }
};

struct case_layout {
  std::vector<product> products;
  int64_t a_size = 0, b_size = 0, c_size = 0, d_size = 0;
  int64_t row_bias_size = 0, column_bias_size = 0, row_scale_size = 0, column_scale_size = 0, plain_size = 0;
  double work = 0;  // sum of m n k
};

/// Calls f(index) for every stored element of op(X) (rows x cols) at `offset` with leading dimension ld.
template <class F>
void for_each_stored(layout order, op operation, int64_t rows, int64_t cols, int64_t ld, int64_t offset, F f) {
  const int64_t x_rows = operation == op::none ? rows : cols, x_cols = operation == op::none ? cols : rows;
  const int64_t contiguous = order == layout::col_major ? x_rows : x_cols;
  const int64_t lines = order == layout::col_major ? x_cols : x_rows;
  for (int64_t line = 0; line < lines; ++line) {
    for (int64_t i = 0; i < contiguous; ++i) f(offset + line * ld + i);
  }
}

/// The epilogue part of a product from its spec; vectors at the given offsets (or -1 where not set).
void set_epilogue(product& q, const epilogue_spec& e, int64_t rb, int64_t cb, int64_t rs, int64_t cs) {
  if (!e.on) return;
  q.fused = true;
  q.act = e.act;
  q.row_bias = e.row_bias ? rb : -1;
  q.column_bias = e.column_bias ? cb : -1;
  q.row_scale = e.row_scale ? rs : -1;
  q.column_scale = e.column_scale ? cs : -1;
  q.clamp_min = e.clamp_min, q.clamp_max = e.clamp_max;
  q.separate_d = e.separate_d;
}

case_layout layout_of(const case_spec& c) {
  case_layout l;
  const layout order = c.order;
  if (grouped_api(c.api)) {
    const type_info& info = types[c.type];
    const int64_t vec_ab = 16 / info.ab_bytes, vec_c = 16 / info.c_bytes;
    for (const gemm_spec& g : c.groups) {
      product q;
      q.op_a = g.op_a, q.op_b = g.op_b, q.m = g.m, q.n = g.n, q.k = g.k, q.alpha = g.alpha, q.beta = g.beta;
      q.lda = g.lda, q.ldb = g.ldb, q.ldc = g.ldc;
      const auto place = [&](int64_t& cursor, int64_t gap, int64_t vec, int64_t span) {
        int64_t at = cursor + gap;
        if (g.aligned) at = round_up(at, vec);
        cursor = at + span;
        return at;
      };
      q.a = place(l.a_size, g.offset_a, vec_ab, stored_elements(order, g.op_a, g.m, g.k, g.lda));
      q.b = place(l.b_size, g.offset_b, vec_ab, stored_elements(order, g.op_b, g.k, g.n, g.ldb));
      q.c = place(l.c_size, g.offset_c, vec_c, stored_elements(order, op::none, g.m, g.n, g.ldc));
      const epilogue_spec& e = g.ep;
      set_epilogue(q, e, l.row_bias_size, l.column_bias_size, l.row_scale_size, l.column_scale_size);
      if (e.on) {
        l.row_bias_size += e.row_bias ? g.m + 1 : 0;  // one NaN between the groups' vectors
        l.column_bias_size += e.column_bias ? g.n + 1 : 0;
        l.row_scale_size += e.row_scale ? g.m + 1 : 0;
        l.column_scale_size += e.column_scale ? g.n + 1 : 0;
        if (e.separate_d) {
          q.ldd = e.ldd;
          q.d = place(l.d_size, e.offset_d, vec_c, stored_elements(order, op::none, g.m, g.n, e.ldd));
        }
      }
      q.plain = l.plain_size;
      l.plain_size += g.m * g.n;
      l.work += g.work();
      l.products.push_back(q);
    }
  } else {
    const gemm_spec& g = c.g;
    const epilogue_spec& e = g.ep;
    // A bad count or stride still gets buffers for two products (every element of which must stay untouched).
    const int64_t count = c.count < 0 ? 2 : c.count;
    const int64_t sa = std::max<int64_t>(c.stride_a, 0), sb = std::max<int64_t>(c.stride_b, 0);
    const int64_t sc = std::max<int64_t>(c.stride_c, 0);
    const int64_t ldd = std::max(e.ldd, min_ld(order, op::none, g.m, g.n));  // a bad ldd: D laid out valid
    const int64_t sd = std::max<int64_t>(e.stride_d, 0);
    const int64_t row_step = e.shared ? 0 : g.m + e.vector_pad, column_step = e.shared ? 0 : g.n + e.vector_pad;
    for (int64_t p = 0; p < count; ++p) {
      product q;
      q.op_a = g.op_a, q.op_b = g.op_b, q.m = g.m, q.n = g.n, q.k = g.k, q.alpha = g.alpha, q.beta = g.beta;
      q.lda = g.lda, q.ldb = g.ldb, q.ldc = g.ldc;
      q.a = g.offset_a + p * sa, q.b = g.offset_b + p * sb, q.c = g.offset_c + p * sc;
      set_epilogue(q, e, p * row_step, p * column_step, p * row_step, p * column_step);
      q.ldd = ldd, q.d = e.offset_d + p * sd;
      q.plain = p * g.m * g.n;
      l.products.push_back(q);
    }
    const auto extent = [&](int64_t offset, int64_t stride, int64_t span) {
      return count == 0 ? offset : offset + (count - 1) * stride + span;
    };
    l.a_size = extent(g.offset_a, sa, stored_elements(order, g.op_a, g.m, g.k, g.lda));
    l.b_size = extent(g.offset_b, sb, stored_elements(order, g.op_b, g.k, g.n, g.ldb));
    l.c_size = extent(g.offset_c, sc, stored_elements(order, op::none, g.m, g.n, g.ldc));
    if (e.separate_d) l.d_size = extent(e.offset_d, sd, stored_elements(order, op::none, g.m, g.n, ldd));
    const int64_t sets = e.shared ? std::min<int64_t>(count, 1) : count;
    if (e.row_bias) l.row_bias_size = sets * (g.m + e.vector_pad);
    if (e.column_bias) l.column_bias_size = sets * (g.n + e.vector_pad);
    if (e.row_scale) l.row_scale_size = sets * (g.m + e.vector_pad);
    if (e.column_scale) l.column_scale_size = sets * (g.n + e.vector_pad);
    l.plain_size = count * g.m * g.n;
    l.work = double(count) * g.work();
  }
  for (int64_t* size : {&l.a_size, &l.b_size, &l.c_size, &l.d_size}) *size += guard_elements;
  for (int64_t* size : {&l.row_bias_size, &l.column_bias_size, &l.row_scale_size, &l.column_scale_size}) *size += 8;
  l.plain_size = std::max<int64_t>(l.plain_size, 1);
  return l;
}

/// C is read (beta != 0) from somewhere else than D is written.
bool reads_c_apart(const case_spec& c) { return c.g.ep.separate_d && c.g.beta != 0.0f; }

/// cuBLASLt has this case's epilogue (see the top of the file), and the call gives it something to do. Left out:
/// alpha = 0 (cuBLASLt 13.1 was seen to skip its epilogue or return NaN there), a C read apart from D in another
/// layout (an H200 run faulted with a misaligned address after such a call), and a bias whose batch stride leaves a
/// product's vector off 16-byte alignment (an H200 run faulted with a misaligned address in the case
/// 47255427222473240:fused:half_half:639, a __half bias of batch stride 11; every other operand of it was 16-byte
/// aligned, and tgemm reads the vectors one element at a time, so cuBLASLt's wider loads are the likely reader; not
/// yet confirmed under compute-sanitizer). Such cases are still checked against cuBLAS plus the host epilogue.
bool lt_applies(const case_spec& c) {
  if (c.api != api_fused || c.bad != bad_kind::none) return false;
  const gemm_spec& g = c.g;
  const epilogue_spec& e = g.ep;
  const bool col = c.order == layout::col_major;
  const bool one_layout =
      !reads_c_apart(c) || (e.ldd == g.ldc && (c.single || c.count <= 1 || e.stride_d == c.stride_c));
  const bool lt_bias = col ? e.row_bias : e.column_bias;  // cuBLASLt's bias: a value per row of its column-major D
  const int64_t bias_stride_bytes = ((col ? g.m : g.n) + e.vector_pad) * types[c.type].c_bytes;
  const bool bias_aligned = !lt_bias || e.shared || c.single || c.count <= 1 || bias_stride_bytes % 16 == 0;
  return e.on && g.m > 0 && g.n > 0 && g.k > 0 && c.count > 0 && g.alpha != 0.0f && one_layout && bias_aligned &&
         !e.row_scale &&
         !e.column_scale && !e.clamps() && !(col ? e.column_bias : e.row_bias) &&
         (e.act == activation::none || e.act == activation::relu || e.act == activation::gelu_tanh);
}

// ---------------------------------------------------------------------------------------------------------------
// Host data: every buffer with a double mirror of the same (rounded) values, which the reference reads.

/// -3 .. 3 but 0 (so that no operand is all zero).
int64_t nonzero_integer(rng& r) {
  const int64_t x = r.between(1, 3);
  return r.chance(0.5) ? x : -x;
}

float draw_value(rng& r, value_kind kind, int scale) {
  switch (kind) {
    case value_kind::integers: return float(nonzero_integer(r));
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
      case value_kind::integers: return double(nonzero_integer(r));
      case value_kind::scaled: return std::ldexp(r.unit53(), scale);
      case value_kind::uniform: break;
    }
    return r.unit53();
  } else {
    return from_float<T>(draw_value(r, kind, scale));
  }
}

/// A scale factor: [-1.5, 1.5), either sign.
template <class S>
S draw_scale(rng& r) {
  if constexpr (std::is_same<S, double>::value) {
    return 1.5 * r.unit53();
  } else {
    return 1.5f * r.unit();
  }
}

template <class T, class TC>
struct host_data {
  using S = typename tgemm::epilogue<TC>::scalar_type;
  std::vector<T> a, b;
  std::vector<TC> c0, d0, row_bias, column_bias;
  std::vector<S> row_scale, column_scale;
  std::vector<double> a_mirror, b_mirror, c_mirror, row_bias_mirror, column_bias_mirror;

  void fill(const case_spec& c, const case_layout& l) {
    rng r{c.data_seed};
    const auto fill_operand = [&](std::vector<T>& host, std::vector<double>& mirror, int64_t size, bool is_a,
                                  int scale) {
      std::vector<char> used(size_t(size), 0);
      for (const product& q : l.products) {
        if (is_a) {
          for_each_stored(c.order, q.op_a, q.m, q.k, q.lda, q.a, [&](int64_t at) { used[size_t(at)] = 1; });
        } else {
          for_each_stored(c.order, q.op_b, q.k, q.n, q.ldb, q.b, [&](int64_t at) { used[size_t(at)] = 1; });
        }
      }
      host.assign(size_t(size), from_float<T>(quiet_nan));
      mirror.assign(size_t(size), double(quiet_nan));
      for (size_t at = 0; at < used.size(); ++at) {
        if (used[at]) host[at] = draw_element<T>(r, c.values, scale), mirror[at] = to_double(host[at]);
      }
    };
    fill_operand(a, a_mirror, l.a_size, true, c.scale_a);
    fill_operand(b, b_mirror, l.b_size, false, c.scale_b);
    // C: the sentinel everywhere, each product's elements random, or NaN where its beta is 0 (never read).
    c0.assign(size_t(l.c_size), sentinel<TC>());
    c_mirror.assign(size_t(l.c_size), double(quiet_nan));
    std::vector<char> state(size_t(l.c_size), 0);  // 1: random, 2: NaN
    for (const product& q : l.products) {
      for_each_stored(c.order, op::none, q.m, q.n, q.ldc, q.c,
                      [&](int64_t at) { state[size_t(at)] = q.beta != 0 ? 1 : std::max<char>(state[size_t(at)], 2); });
    }
    for (size_t at = 0; at < state.size(); ++at) {
      if (state[at] == 1) c0[at] = draw_element<TC>(r, c.values, c.scale_c), c_mirror[at] = to_double(c0[at]);
      if (state[at] == 2) c0[at] = from_float<TC>(quiet_nan);
    }
    d0.assign(size_t(l.d_size), sentinel<TC>());
    // The vectors: NaN between the products' vectors, values inside.
    const auto fill_bias = [&](std::vector<TC>& host, std::vector<double>& mirror, int64_t size, bool rows) {
      std::vector<char> used(size_t(size), 0);
      for (const product& q : l.products) {
        const int64_t at = rows ? q.row_bias : q.column_bias, length = rows ? q.m : q.n;
        for (int64_t i = 0; at >= 0 && i < length; ++i) used[size_t(at + i)] = 1;
      }
      host.assign(size_t(size), from_float<TC>(quiet_nan));
      mirror.assign(size_t(size), double(quiet_nan));
      for (size_t at = 0; at < used.size(); ++at) {
        if (used[at]) host[at] = draw_element<TC>(r, c.values, c.scale_c), mirror[at] = to_double(host[at]);
      }
    };
    fill_bias(row_bias, row_bias_mirror, l.row_bias_size, true);
    fill_bias(column_bias, column_bias_mirror, l.column_bias_size, false);
    const auto fill_scale = [&](std::vector<S>& host, int64_t size, bool rows) {
      std::vector<char> used(size_t(size), 0);
      for (const product& q : l.products) {
        const int64_t at = rows ? q.row_scale : q.column_scale, length = rows ? q.m : q.n;
        for (int64_t i = 0; at >= 0 && i < length; ++i) used[size_t(at + i)] = 1;
      }
      host.assign(size_t(size), S(quiet_nan));
      for (size_t at = 0; at < used.size(); ++at) {
        if (used[at]) host[at] = draw_scale<S>(r);
      }
    };
    fill_scale(row_scale, l.row_scale_size, true);
    fill_scale(column_scale, l.column_scale_size, false);
  }
};

// ---------------------------------------------------------------------------------------------------------------
// The reference: per product, op(A) op(B) and its magnitude sum_l |a_il b_lj| in float64 (long double for double
// inputs), or for large cases only the row and column norms that bound the magnitude.

struct product_reference {
  bool exact = false;
  std::vector<double> sum, magnitude;            // exact: m x n, column-major, ld = m
  std::vector<double> row_norm, column_norm;     // otherwise: ||op(A)(i, :)||, ||op(B)(:, j)||
  double magnitude_at(const product& q, int64_t i, int64_t j) const {
    return exact ? magnitude[size_t(i + j * q.m)] : row_norm[size_t(i)] * column_norm[size_t(j)];
  }
};

template <class Sum>
product_reference reference_product(layout order, const product& q, const double* a, const double* b, bool exact) {
  product_reference r;
  r.exact = exact;
  const int64_t m = q.m, n = q.n, k = q.k;
  // op(A)'s rows and op(B)'s columns copied contiguous, so that every dot product reads two contiguous arrays.
  std::vector<double> pa(size_t(m * k)), pb(size_t(n * k));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t l = 0; l < k; ++l) pa[size_t(i * k + l)] = a[q.a + op_index_of(order, q.op_a, i, l, q.lda)];
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t l = 0; l < k; ++l) pb[size_t(j * k + l)] = b[q.b + op_index_of(order, q.op_b, l, j, q.ldb)];
  }
  if (!exact) {
    r.row_norm.assign(size_t(m), 0.0);
    r.column_norm.assign(size_t(n), 0.0);
    for (int64_t i = 0; i < m; ++i) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += pa[size_t(i * k + l)] * pa[size_t(i * k + l)];
      r.row_norm[size_t(i)] = std::sqrt(s) * (1 + 0x1p-40);  // rounded up: an upper bound
    }
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += pb[size_t(j * k + l)] * pb[size_t(j * k + l)];
      r.column_norm[size_t(j)] = std::sqrt(s) * (1 + 0x1p-40);
    }
    return r;
  }
  r.sum.assign(size_t(m * n), 0.0);
  r.magnitude.assign(size_t(m * n), 0.0);
  tgemm::test::for_row_ranges(m, 2.0 * double(n) * double(k), [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const double* x = pa.data() + i * k;
      for (int64_t j = 0; j < n; ++j) {
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
        r.sum[size_t(i + j * m)] = double((s[0] + s[1]) + (s[2] + s[3]));
        r.magnitude[size_t(i + j * m)] = (t[0] + t[1]) + (t[2] + t[3]);
      }
    }
  });
  return r;
}

template <class T, class TC>
std::vector<product_reference> reference_of(const case_spec& c, const case_layout& l, const host_data<T, TC>& h,
                                            bool exact) {
  using Sum = std::conditional_t<std::is_same<T, double>::value, long double, double>;
  std::vector<product_reference> refs;
  refs.reserve(l.products.size());
  for (const product& q : l.products) {
    const bool reads = q.alpha != 0 && q.k > 0 && q.m > 0 && q.n > 0;
    product q_used = q;
    if (!reads) q_used.k = 0;  // alpha = 0: A and B are not part of the result
    refs.push_back(reference_product<Sum>(c.order, q_used, h.a_mirror.data(), h.b_mirror.data(), exact));
  }
  return refs;
}

/// An activation as PyTorch defines it (types.cuh), in R: long double for a double result, else double (a few
/// units of 2^-53, far below a float result's bounds; long double's transcendentals were most of the run time).
template <class R>
long double activate(activation act, long double value) {
  const R x = R(value);
  switch (act) {
    case activation::relu: return x < 0 ? R(0) : x;
    case activation::gelu_tanh:
      return R(0.5) * x * (R(1) + std::tanh(R(0.7978845608028654L) * (x + R(0.044715L) * x * x * x)));
    case activation::gelu_erf: return R(0.5) * x * (R(1) + std::erf(x / std::sqrt(R(2))));
    case activation::silu: return x / (R(1) + std::exp(-x));
    case activation::none: break;
  }
  return x;
}

bool smooth(activation act) {
  return act == activation::gelu_tanh || act == activation::gelu_erf || act == activation::silu;
}

/// One element of a product's result from its sum of products P = (op(A) op(B))(i, j) and that sum's magnitude:
/// tgemm::epilogue's formula (epilogue_terms.cuh: v = alpha rs cs P + beta C + row bias + column bias, then the
/// activation, then the clamp), or alpha P + beta C without one, in long double.
struct element_value {
  long double pre = 0;    // v, before the activation and the clamp
  long double value = 0;  // the result
  double magnitude = 0;   // |alpha rs cs| sum |a b| + |beta C| + |row bias| + |column bias|
  double scaled = 0;      // |alpha rs cs| sum |a b|
  double scale = 0;       // |alpha rs cs|
  double factor = 0;      // alpha rs cs
};

template <class T, class TC>
element_value finish(const product& q, const host_data<T, TC>& h, layout order, int64_t i, int64_t j,
                     long double sum, double sum_magnitude) {
  element_value e;
  long double factor = q.alpha;
  if (q.row_scale >= 0) factor *= (long double)h.row_scale[size_t(q.row_scale + i)];
  if (q.column_scale >= 0) factor *= (long double)h.column_scale[size_t(q.column_scale + j)];
  e.factor = double(factor);
  e.scale = std::fabs(e.factor);
  e.scaled = e.scale * sum_magnitude;
  e.magnitude = e.scaled;
  long double v = factor * sum;
  if (q.beta != 0) {
    const double old = h.c_mirror[size_t(q.c + index_of(order, i, j, q.ldc))];
    v += (long double)q.beta * old;
    e.magnitude += std::fabs(q.beta * old);
  }
  if (q.row_bias >= 0) {
    const double x = h.row_bias_mirror[size_t(q.row_bias + i)];
    v += x, e.magnitude += std::fabs(x);
  }
  if (q.column_bias >= 0) {
    const double x = h.column_bias_mirror[size_t(q.column_bias + j)];
    v += x, e.magnitude += std::fabs(x);
  }
  e.pre = v;
  if (q.fused) {
    v = activate<std::conditional_t<std::is_same<TC, double>::value, long double, double>>(q.act, v);
    if (v < (long double)q.clamp_min) v = q.clamp_min;
    if (v > (long double)q.clamp_max) v = q.clamp_max;
  }
  e.value = v;
  return e;
}

// ---------------------------------------------------------------------------------------------------------------
// Bounds (see the top of the file).

/// What a bound depends on beyond the product: the magnitudes of one element.
struct bound_context {
  double magnitude = 0;  // M
  double scaled = 0;     // |alpha rs cs| Mp
  double scale = 0;      // |alpha rs cs|
  double pre = 0;        // |v|
  double value = 0;      // |y|
};

template <class T, class TC>
struct bounds {
  double factor, u_acc, roundoff, floor, plain_floor;
  bool fused;
  activation act;
  bounds(const product& q)
      : factor(tgemm::test::accumulation_factor<T>(q.k)),
        u_acc(std::is_same<T, double>::value ? 0x1p-53 : 0x1p-24),
        roundoff(tgemm::test::output_roundoff<TC>()),
        floor(tgemm::test::underflow_floor<TC>()),
        plain_floor(double(q.k + 1) * (std::is_same<T, double>::value ? 0x1p-1074 : 0x1p-149)),
        fused(q.fused),
        act(q.act) {}
  double slope() const { return fused && smooth(act) ? 1.2 : 1.0; }
  double tgemm(const bound_context& x) const {
    const double act_error = fused && smooth(act) ? (sizeof(TC) == 2 ? 0x1p-10 : 16 * u_acc) : 0.0;
    return slope() * (factor + (fused ? 4 * u_acc : 0.0)) * x.magnitude + act_error * x.pre + roundoff * x.value +
           floor;
  }
  double direct(const bound_context& x) const {  // cuBLAS on the whole call (no epilogue)
    return factor * x.magnitude + roundoff * (x.magnitude + x.value) + floor;
  }
  double plain(const bound_context& x) const {  // cuBLAS's op(A) op(B) in float (double), the epilogue exact
    return slope() * factor * x.scaled + 0x1p-50 * x.magnitude + x.scale * plain_floor;
  }
  double lt(const bound_context& x) const {  // cuBLASLt with its epilogue
    return slope() * (factor + 4 * u_acc) * x.magnitude + (smooth(act) ? 0x1p-10 : 0.0) * x.pre +
           roundoff * (x.magnitude + x.value) + floor;
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Comparison.

struct verdict {
  bool ok = true;
  std::string why;
  std::vector<std::string> notes;  // cuBLAS's own disagreements with the float64 reference (not failures)
  double worst_reference = 0, worst_cublas = 0;  // tgemm's largest error / bound against each
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
  int64_t bad = 0, worst_p = -1, worst_i = -1, worst_j = -1;
  double worst_ratio = -1, worst_got = 0, worst_expected = 0, worst_allowed = 0;
  void see(int64_t p, int64_t i, int64_t j, double got, double expected, double allowed) {
    const double error = std::fabs(got - expected);
    const bool out = !std::isfinite(got) || !std::isfinite(expected) || !(error <= allowed);
    const double ratio = out && !std::isfinite(error) ? inf : error / allowed;
    if (out) ++bad;
    if (ratio > worst_ratio || (out && bad == 1)) {
      worst_ratio = ratio, worst_p = p, worst_i = i, worst_j = j, worst_got = got, worst_expected = expected,
      worst_allowed = allowed;
    }
  }
  std::string describe(const std::string& what, const char* got_name, const char* expected_name) const {
    return what + ": " + std::to_string(bad) + " elements out of bound; worst: product " + std::to_string(worst_p) +
           " (" + std::to_string(worst_i) + ", " + std::to_string(worst_j) + "): " + got_name + " " +
           number(worst_got) + ", " + expected_name + " " + number(worst_expected) + ", allowed error " +
           number(worst_allowed) + ", " + number(worst_ratio) + "x the bound";
  }
};

/// One case's results on the host, each a whole buffer as the call left it (null where not run).
template <class TC, class PT>
struct results {
  const std::vector<TC>* c = nullptr;         // tgemm: the C buffer
  const std::vector<TC>* d = nullptr;         // tgemm: the D buffer
  const std::vector<TC>* direct_c = nullptr;  // cuBLAS on the calls without an epilogue: the C buffer
  const std::vector<PT>* plain = nullptr;     // cuBLAS's op(A) op(B) of the products with one (case_layout's plain)
  const std::vector<TC>* lt_c = nullptr;      // cuBLASLt: the C and D buffers
  const std::vector<TC>* lt_d = nullptr;
};

template <class TC>
double value_at(const product& q, layout order, const std::vector<TC>* c, const std::vector<TC>* d, int64_t i,
                int64_t j) {
  return to_double((q.separate_d ? *d : *c)[size_t(q.out_index(order, i, j))]);
}

/// Every element no product writes unchanged bit for bit: all of C but the in-place products' results, all of D but
/// the others'.
template <class TC>
void check_untouched(const case_layout& l, layout order, const std::vector<TC>& c0, const std::vector<TC>& d0,
                     const std::vector<TC>& c, const std::vector<TC>& d, verdict& v) {
  std::vector<char> owned_c(c0.size(), 0), owned_d(d0.size(), 0);
  for (const product& q : l.products) {
    std::vector<char>& owned = q.separate_d ? owned_d : owned_c;
    for_each_stored(order, op::none, q.m, q.n, q.separate_d ? q.ldd : q.ldc, q.separate_d ? q.d : q.c,
                    [&](int64_t at) { owned[size_t(at)] = 1; });
  }
  const auto scan = [&](const char* name, const std::vector<TC>& before, const std::vector<TC>& after,
                        const std::vector<char>& owned) {
    int64_t changed = 0, first = -1;
    for (size_t at = 0; at < before.size(); ++at) {
      if (!owned[at] && !same_bits(before[at], after[at]) && changed++ == 0) first = int64_t(at);
    }
    if (changed > 0) {
      v.fail(std::to_string(changed) + " elements of " + name + " that no product writes changed (padding, gaps, " +
             "guard" + (name[0] == 'C' ? ", or C only read" : "") + "), the first at buffer index " +
             std::to_string(first) + " of " + std::to_string(before.size()));
    }
  };
  scan("C", c0, c, owned_c);
  scan("D", d0, d, owned_d);
}

/// Every element against the float64 reference (where exact) and against cuBLAS (direct or plain, and cuBLASLt
/// where run); see the top of the file for the arbitration.
template <class T, class TC, class PT>
void check_values(const case_spec& c, const case_layout& l, const host_data<T, TC>& h,
                  const std::vector<product_reference>& refs, const results<TC, PT>& got, verdict& v) {
  element_tally t64, primary64, lt64, t_primary, t_lt, lt_primary;
  const layout order = c.order;
  bool exact = false;
  for (size_t p = 0; p < l.products.size(); ++p) {
    const product& q = l.products[p];
    const product_reference& ref = refs[p];
    exact = exact || ref.exact;
    const bounds<T, TC> bound(q);
    const bool plain = q.fused && got.plain != nullptr, direct = !q.fused && got.direct_c != nullptr;
    const int64_t ldp = min_ld(order, op::none, q.m, q.n);
    for (int64_t j = 0; j < q.n; ++j) {
      for (int64_t i = 0; i < q.m; ++i) {
        const double t = value_at(q, order, got.c, got.d, i, j);
        const double mp = ref.magnitude_at(q, i, j);
        bound_context x;
        element_value exact_value, plain_value;
        if (ref.exact) exact_value = finish(q, h, order, i, j, ref.sum[size_t(i + j * q.m)], mp);
        if (plain) {
          const long double sum = (*got.plain)[size_t(q.plain + index_of(order, i, j, ldp))];
          plain_value = finish(q, h, order, i, j, sum, mp);
        }
        const element_value& shape = ref.exact ? exact_value : plain_value;  // the magnitudes (same for both)
        if (ref.exact || plain) {
          x.magnitude = shape.magnitude, x.scaled = shape.scaled, x.scale = shape.scale;
          x.pre = std::fabs(double(shape.pre)), x.value = std::fabs(double(shape.value));
        } else {  // a large case without an epilogue: M from the norms, |y| from the results
          const double old = q.beta != 0 ? h.c_mirror[size_t(q.c + index_of(order, i, j, q.ldc))] : 0.0;
          const double beta_c = std::fabs(q.beta * old);
          x.scale = std::fabs(q.alpha), x.scaled = x.scale * mp, x.magnitude = x.scaled + beta_c;
        }
        double primary = 0;
        if (plain) primary = double(plain_value.value);
        if (direct) primary = to_double((*got.direct_c)[size_t(q.c + index_of(order, i, j, q.ldc))]);
        if (!ref.exact && !plain) {
          const double y =
              std::max(std::isfinite(t) ? std::fabs(t) : 0.0, std::isfinite(primary) ? std::fabs(primary) : 0.0);
          x.pre = x.value = y;
        }
        const double allowed_t = bound.tgemm(x);
        const double allowed_primary = plain ? bound.plain(x) : bound.direct(x);
        const bool lt = got.lt_c != nullptr;
        const double lt_value = lt ? value_at(q, order, got.lt_c, got.lt_d, i, j) : 0.0;
        if (ref.exact) {
          const double want = double(exact_value.value);
          t64.see(int64_t(p), i, j, t, want, allowed_t);
          if (plain || direct) primary64.see(int64_t(p), i, j, primary, want, allowed_primary);
          if (lt) lt64.see(int64_t(p), i, j, lt_value, want, bound.lt(x));
        }
        if (plain || direct) t_primary.see(int64_t(p), i, j, t, primary, allowed_t + allowed_primary);
        if (lt) {
          t_lt.see(int64_t(p), i, j, t, lt_value, allowed_t + bound.lt(x));
          if (plain) lt_primary.see(int64_t(p), i, j, lt_value, primary, bound.lt(x) + allowed_primary);
        }
      }
    }
  }
  const bool direct_run = got.direct_c != nullptr || got.plain != nullptr;
  const char* primary_name = c.api == api_fused ? "cuBLAS (plain + host epilogue)" : "cuBLAS";
  if (t64.bad > 0) v.fail(t64.describe("tgemm vs the float64 reference", "tgemm", "reference"));
  v.worst_reference = std::max(v.worst_reference, t64.worst_ratio);
  if (direct_run) v.worst_cublas = std::max(v.worst_cublas, t_primary.worst_ratio);
  if (got.lt_c != nullptr) v.worst_cublas = std::max(v.worst_cublas, t_lt.worst_ratio);
  // cuBLAS's result against tgemm's: a failure of tgemm's unless cuBLAS itself is off the float64 reference.
  if (t_primary.bad > 0) {
    if (exact && primary64.bad > 0 && t64.bad == 0) {
      v.notes.push_back(t_primary.describe(std::string("tgemm vs ") + primary_name, "tgemm", "cuBLAS") +
                        " (cuBLAS is off the float64 reference there, tgemm is not)");
    } else {
      v.fail(t_primary.describe(std::string("tgemm vs ") + primary_name, "tgemm", "cuBLAS"));
    }
  }
  if (primary64.bad > 0) {
    v.notes.push_back(
        primary64.describe(std::string(primary_name) + " vs the float64 reference", "cuBLAS", "reference"));
  }
  if (t_lt.bad > 0) {
    if ((exact && lt64.bad > 0 && t64.bad == 0) || (!exact && lt_primary.bad > 0 && t_primary.bad == 0)) {
      v.notes.push_back(t_lt.describe("tgemm vs cuBLASLt", "tgemm", "cuBLASLt") +
                        (exact ? " (cuBLASLt is off the float64 reference there, tgemm is not)"
                               : " (cuBLASLt is off the plain cuBLAS result there, tgemm is not)"));
    } else {
      v.fail(t_lt.describe("tgemm vs cuBLASLt", "tgemm", "cuBLASLt"));
    }
  }
  if (lt64.bad > 0) v.notes.push_back(lt64.describe("cuBLASLt vs the float64 reference", "cuBLASLt", "reference"));
}

// ---------------------------------------------------------------------------------------------------------------
// The calls.

/// Where a case's buffers are (device memory, or fake addresses for the host self-test's refused calls).
template <class T, class TC>
struct buffers {
  using S = typename tgemm::epilogue<TC>::scalar_type;
  T *a = nullptr, *b = nullptr;
  TC *c = nullptr, *d = nullptr, *row_bias = nullptr, *column_bias = nullptr;
  S *row_scale = nullptr, *column_scale = nullptr;
  // pointers: the device arrays of every product's A, B and C (pointer_arrays_of, uploaded)
  const T* const* a_array = nullptr;
  const T* const* b_array = nullptr;
  TC* const* c_array = nullptr;
  // device_groups: the groups (device_groups_of, uploaded) and group_count statuses
  const tgemm::gemm_group_device<T, T, TC>* groups = nullptr;
  int32_t* group_status = nullptr;
};

/// The pointers API's arrays on the host: product i's A, B and C in the buffers `at`, at the batched layout's places
/// (a + offset_a + i stride_a, and so on; a bad count's two products too, which the call never reads).
template <class T, class TC>
struct pointer_arrays {
  std::vector<const T*> a, b;
  std::vector<TC*> c;
};

template <class T, class TC>
pointer_arrays<T, TC> pointer_arrays_of(const case_layout& l, const buffers<T, TC>& at) {
  pointer_arrays<T, TC> p;
  for (const product& q : l.products) p.a.push_back(at.a + q.a), p.b.push_back(at.b + q.b), p.c.push_back(at.c + q.c);
  return p;
}

/// device_groups' groups on the host, to be copied to device memory: each group's sizes, leading dimensions and
/// places in the buffers `at` (the call's ops, alpha and beta are the call's arguments).
template <class T, class TC>
std::vector<tgemm::gemm_group_device<T, T, TC>> device_groups_of(const case_layout& l, const buffers<T, TC>& at) {
  std::vector<tgemm::gemm_group_device<T, T, TC>> groups(l.products.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    const product& q = l.products[i];
    tgemm::gemm_group_device<T, T, TC>& x = groups[i];
    x.m = q.m, x.n = q.n, x.k = q.k;
    x.a = at.a + q.a, x.lda = q.lda, x.b = at.b + q.b, x.ldb = q.ldb, x.c = at.c + q.c, x.ldc = q.ldc;
  }
  return groups;
}

/// What device_groups' group_status holds before the call: no tgemm::status (they are 0 and up).
constexpr int32_t group_status_unwritten = -1;

/// Whether a device_groups call has something to do: else tgemm writes nothing, group_status included.
bool device_groups_run(const case_spec& c) {
  return c.group_count > 0 && c.bounds.max_m > 0 && c.bounds.max_n > 0;
}

/// The call's epilogue for the fused API or a group.
template <class T, class TC>
tgemm::epilogue<TC> epilogue_of(const case_spec& c, const gemm_spec& g, const product& first,
                                const buffers<T, TC>& at) {
  const epilogue_spec& e = g.ep;
  tgemm::epilogue<TC> ep;
  ep.act = e.act;
  // (An empty batch has no first product: its vectors start at 0.)
  ep.row_bias = e.row_bias ? at.row_bias + std::max<int64_t>(first.row_bias, 0) : nullptr;
  ep.column_bias = e.column_bias ? at.column_bias + std::max<int64_t>(first.column_bias, 0) : nullptr;
  ep.row_scale = e.row_scale ? at.row_scale + std::max<int64_t>(first.row_scale, 0) : nullptr;
  ep.column_scale = e.column_scale ? at.column_scale + std::max<int64_t>(first.column_scale, 0) : nullptr;
  ep.clamp_min = e.clamp_min, ep.clamp_max = e.clamp_max;
  if (c.api == api_fused && !c.single && !e.shared) {
    ep.stride_row_bias = ep.stride_row_scale = g.m + e.vector_pad;
    ep.stride_column_bias = ep.stride_column_scale = g.n + e.vector_pad;
  }
  if (e.separate_d) {
    ep.d = at.d + (c.api == api_grouped ? first.d : e.offset_d);
    ep.ldd = e.ldd;  // as drawn (too small for small_ldd)
    ep.stride_d = c.api == api_fused && !c.single ? e.stride_d : 0;
  }
  return ep;
}

/// The tgemm call of a case, on the buffers `at`.
template <class T, class TC>
status call_tgemm(const case_spec& c, const case_layout& l, const buffers<T, TC>& at) {
  using S = typename tgemm::epilogue<TC>::scalar_type;
  const tgemm::options opts;
  if (c.api == api_grouped) {
    std::vector<tgemm::gemm_group<T, T, TC>> groups(c.groups.size());
    std::vector<tgemm::epilogue<TC>> epilogues(c.groups.size());
    for (size_t i = 0; i < c.groups.size(); ++i) {
      const gemm_spec& g = c.groups[i];
      const product& q = l.products[i];
      tgemm::gemm_group<T, T, TC>& x = groups[i];
      x.op_a = g.op_a, x.op_b = g.op_b, x.m = g.m, x.n = g.n, x.k = g.k, x.alpha = S(g.alpha), x.beta = S(g.beta);
      x.a = at.a + q.a, x.lda = g.lda, x.b = at.b + q.b, x.ldb = g.ldb, x.c = at.c + q.c, x.ldc = g.ldc;
      if (g.ep.on) {
        epilogues[i] = epilogue_of(c, g, q, at);
        x.ep = &epilogues[i];
        if (g.ep.null_c) x.c = nullptr;
      }
      // One less than the least valid lda (m, n, k >= 2: at least 1), whatever the group's padding.
      if (int64_t(i) == c.bad_group && c.bad == bad_kind::group_lda) x.lda = min_ld(c.order, g.op_a, g.m, g.k) - 1;
      if (int64_t(i) == c.bad_group && c.bad == bad_kind::group_null_a) x.a = nullptr;
    }
    const tgemm::gemm_group<T, T, TC>* array = c.bad == bad_kind::null_groups ? nullptr : groups.data();
    return tgemm::gemm_grouped(c.order, array, c.group_count, nullptr, opts);
  }
  const gemm_spec& g = c.g;
  if (c.api == api_device_groups) {
    const tgemm::gemm_group_device<T, T, TC>* groups = c.bad == bad_kind::null_groups ? nullptr : at.groups;
    return tgemm::gemm_grouped_device(c.order, g.op_a, g.op_b, S(g.alpha), groups, c.group_count, c.bounds,
                                      S(g.beta), at.group_status, nullptr, opts);
  }
  if (c.api == api_pointers) {
    return tgemm::gemm_batched(c.order, g.op_a, g.op_b, g.m, g.n, g.k, S(g.alpha), at.a_array, g.lda, at.b_array,
                               g.ldb, S(g.beta), at.c_array, g.ldc, c.count, nullptr, opts);
  }
  const T* a = at.a + g.offset_a;
  const T* b = at.b + g.offset_b;
  TC* cc = g.ep.null_c ? nullptr : at.c + g.offset_c;
  if (!g.ep.on) {
    return tgemm::gemm_strided_batched(c.order, g.op_a, g.op_b, g.m, g.n, g.k, S(g.alpha), a, g.lda, c.stride_a, b,
                                       g.ldb, c.stride_b, S(g.beta), cc, g.ldc, c.stride_c, c.count, nullptr, opts);
  }
  const product first = l.products.empty() ? product{} : l.products.front();
  const tgemm::epilogue<TC> ep = epilogue_of(c, g, first, at);
  if (c.single) {
    return tgemm::gemm(c.order, g.op_a, g.op_b, g.m, g.n, g.k, S(g.alpha), a, g.lda, b, g.ldb, S(g.beta), cc, g.ldc,
                       ep, nullptr, opts);
  }
  return tgemm::gemm_strided_batched(c.order, g.op_a, g.op_b, g.m, g.n, g.k, S(g.alpha), a, g.lda, c.stride_a, b,
                                     g.ldb, c.stride_b, S(g.beta), cc, g.ldc, c.stride_c, c.count, ep, nullptr, opts);
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

/// Likewise a failed cuBLAS or cuBLASLt call.
#define DIFF_CUBLAS(call)                                                                                      \
  do {                                                                                                         \
    const cublasStatus_t diff_status_ = (call);                                                                \
    if (diff_status_ != CUBLAS_STATUS_SUCCESS) {                                                               \
      harness_failure(std::string(#call) + " -> " + cublasGetStatusName(diff_status_) + " (" +                 \
                      std::to_string(int(diff_status_)) + ")");                                                \
    }                                                                                                          \
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
    const size_t bytes = std::max<size_t>(count * sizeof(T), 1);
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

template <class T>
void upload(T* device, const std::vector<T>& host) {
  if (!host.empty()) DIFF_CUDA(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <class T>
std::vector<T> download(const T* device, size_t count) {
  std::vector<T> host(count);
  if (count > 0) DIFF_CUDA(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

using tgemm::test::cuda_type;

/// A call as cuBLAS (column-major) sees it: C' (m' x n') = op(X) op(Y); for a row-major call X = B, Y = A, m' = n
/// and n' = m (C^T = op(B)^T op(A)^T: a row-major matrix read column-major is its transpose).
template <class T>
struct column_major_call {
  cublasOperation_t op_x, op_y;
  int64_t m, n, k;
  const T *x, *y;
  int64_t ldx, ldy, stride_x, stride_y;
  column_major_call(layout order, op op_a, op op_b, int64_t m_, int64_t n_, int64_t k_, const T* a, int64_t lda,
                    int64_t stride_a, const T* b, int64_t ldb, int64_t stride_b) {
    const bool col = order == layout::col_major;
    op_x = (col ? op_a : op_b) == op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
    op_y = (col ? op_b : op_a) == op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
    m = col ? m_ : n_, n = col ? n_ : m_, k = k_;
    x = col ? a : b, y = col ? b : a;
    ldx = col ? lda : ldb, ldy = col ? ldb : lda;
    stride_x = col ? stride_a : stride_b, stride_y = col ? stride_b : stride_a;
  }
};

template <class T>
using scalar_of = std::conditional_t<std::is_same<T, double>::value, double, float>;

template <class T>
cublasComputeType_t compute_of() {
  return std::is_same<T, double>::value ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
}

/// cublasGemmStridedBatchedEx of the call (A, B of type T, C of type TO).
template <class T, class TO>
void cublas_strided(cublasHandle_t handle, const column_major_call<T>& call, double alpha, double beta, TO* out,
                    int64_t ldc, int64_t stride_c, int64_t count) {
  const scalar_of<T> al = scalar_of<T>(alpha), be = scalar_of<T>(beta);
  DIFF_CUBLAS(cublasGemmStridedBatchedEx(handle, call.op_x, call.op_y, int(call.m), int(call.n), int(call.k), &al,
                                         call.x, cuda_type<T>(), int(call.ldx), (long long)call.stride_x, call.y,
                                         cuda_type<T>(), int(call.ldy), (long long)call.stride_y, &be, out,
                                         cuda_type<TO>(), int(ldc), (long long)stride_c, int(count), compute_of<T>(),
                                         CUBLAS_GEMM_DEFAULT));
}

/// Descriptors of one cublasLtMatmul, destroyed with it.
struct lt_descriptors {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t x = nullptr, y = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  lt_descriptors() = default;
  lt_descriptors(const lt_descriptors&) = delete;
  lt_descriptors& operator=(const lt_descriptors&) = delete;
  ~lt_descriptors() {
    if (preference != nullptr) cublasLtMatmulPreferenceDestroy(preference);
    for (cublasLtMatrixLayout_t l : {x, y, c, d}) {
      if (l != nullptr) cublasLtMatrixLayoutDestroy(l);
    }
    if (op != nullptr) cublasLtMatmulDescDestroy(op);
  }
};

/// The alignment in bytes (at most 256) of every product's pointer: `pointer` + p stride elements of `bytes` each.
uint32_t alignment_of(const void* pointer, int64_t stride, int64_t count, size_t bytes) {
  uint64_t x = uint64_t(reinterpret_cast<uintptr_t>(pointer)) | 256u;
  if (count > 1 && stride != 0) x |= uint64_t(stride) * bytes;
  return uint32_t(x & (~x + 1));  // the lowest set bit
}

cublasLtMatrixLayout_t lt_layout(cudaDataType type, int64_t rows, int64_t cols, int64_t ld, int64_t count,
                                 int64_t stride) {
  cublasLtMatrixLayout_t l = nullptr;
  DIFF_CUBLAS(cublasLtMatrixLayoutCreate(&l, type, uint64_t(rows), uint64_t(cols), ld));
  if (count > 1) {
    const int32_t batches = int32_t(count);
    DIFF_CUBLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batches, sizeof batches));
    DIFF_CUBLAS(
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  return l;
}

struct type_stats {
  int64_t cases = 0, exact = 0, lt = 0, lt_unsupported = 0, bad = 0, failed = 0, noted = 0;
  double seconds = 0;
  double worst_reference = 0, worst_cublas = 0;  // tgemm's largest error / bound against each
};

struct options {
  uint64_t seed = 0;
  bool seed_given = false;
  int64_t cases = 1500;
  bool cases_given = false;
  bool replay = false;
  int replay_api = 0, replay_type = 0;
  int64_t replay_index = 0;
  std::vector<int> apis, types;  // empty: all
  bool small = false;
  bool use_cublas = true;
  bool use_cublaslt = true;
  bool verbose = false;
  bool self_test = false;
  bool list = false;
};

struct harness {
  options opt;
  std::string program;
  cublasHandle_t handle = nullptr;
  cublasLtHandle_t lt_handle = nullptr;
  device_array d_a, d_b, d_c, d_d, d_row_bias, d_column_bias, d_row_scale, d_column_scale;
  device_array d_direct, d_plain, d_lt_c, d_lt_d, d_lt_workspace;
  device_array d_a_array, d_b_array, d_c_array, d_groups, d_group_status;  // pointers, device_groups
  static constexpr size_t lt_workspace_bytes = size_t(32) << 20;
  type_stats stats[api_count][type_count];
  int64_t printed_failures = 0, printed_notes = 0;

  std::string replay_of(const case_spec& c) const {
    return program + " --case " + c.id() + (opt.small ? " --small" : "") + (opt.use_cublas ? "" : " --no-cublas") +
           (opt.use_cublaslt ? "" : " --no-cublaslt");
  }

  void report(const case_spec& c, const std::string& why) {
    if (printed_failures++ >= 30 && !opt.replay) return;
    std::printf("FAILED case %s\n  reason: %s\n  case: %s\n  replay: %s\n", c.id().c_str(), why.c_str(),
                c.describe().c_str(), replay_of(c).c_str());
    std::fflush(stdout);
  }

  void note(const case_spec& c, const std::vector<std::string>& notes) {
    if (notes.empty() || (printed_notes++ >= 20 && !opt.replay)) return;
    std::printf("NOTE case %s (not a failure: cuBLAS disagrees with the float64 reference where tgemm does not)\n",
                c.id().c_str());
    for (const std::string& n : notes) std::printf("  %s\n", n.c_str());
    std::printf("  case: %s\n  replay: %s\n", c.describe().c_str(), replay_of(c).c_str());
    std::fflush(stdout);
  }

  /// cublasLtMatmul with the case's epilogue on the copies lt_c and lt_d of C and D; false when cuBLASLt has no
  /// algorithm for it.
  template <class T, class TC>
  bool run_lt(const case_spec& c, const buffers<T, TC>& at, TC* lt_c, TC* lt_d) {
    const gemm_spec& g = c.g;
    const epilogue_spec& e = g.ep;
    const bool col = c.order == layout::col_major;
    const int64_t count = c.single ? 1 : c.count;
    const column_major_call<T> call(c.order, g.op_a, g.op_b, g.m, g.n, g.k, at.a + g.offset_a, g.lda, c.stride_a,
                                    at.b + g.offset_b, g.ldb, c.stride_b);
    // cuBLASLt's bias: one value per row of its (column-major) D.
    const TC* bias = col ? (e.row_bias ? at.row_bias : nullptr) : (e.column_bias ? at.column_bias : nullptr);
    const int64_t bias_stride = e.shared ? 0 : call.m + e.vector_pad;
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    if (e.act == activation::relu) epilogue = bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
    else if (e.act == activation::gelu_tanh) epilogue = bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
    else if (bias) epilogue = CUBLASLT_EPILOGUE_BIAS;

    lt_descriptors x;
    const cudaDataType scale_type = std::is_same<T, double>::value ? CUDA_R_64F : CUDA_R_32F;
    DIFF_CUBLAS(cublasLtMatmulDescCreate(&x.op, compute_of<T>(), scale_type));
    DIFF_CUBLAS(cublasLtMatmulDescSetAttribute(x.op, CUBLASLT_MATMUL_DESC_TRANSA, &call.op_x, sizeof call.op_x));
    DIFF_CUBLAS(cublasLtMatmulDescSetAttribute(x.op, CUBLASLT_MATMUL_DESC_TRANSB, &call.op_y, sizeof call.op_y));
    DIFF_CUBLAS(cublasLtMatmulDescSetAttribute(x.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    if (bias != nullptr) {
      DIFF_CUBLAS(cublasLtMatmulDescSetAttribute(x.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
      DIFF_CUBLAS(cublasLtMatmulDescSetAttribute(x.op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &bias_stride,
                                                 sizeof bias_stride));
    }
    const bool x_none = call.op_x == CUBLAS_OP_N, y_none = call.op_y == CUBLAS_OP_N;
    x.x = lt_layout(cuda_type<T>(), x_none ? call.m : call.k, x_none ? call.k : call.m, call.ldx, count, call.stride_x);
    x.y = lt_layout(cuda_type<T>(), y_none ? call.k : call.n, y_none ? call.n : call.k, call.ldy, count, call.stride_y);
    x.c = lt_layout(cuda_type<TC>(), call.m, call.n, g.ldc, count, c.stride_c);
    x.d = e.separate_d ? lt_layout(cuda_type<TC>(), call.m, call.n, e.ldd, count, e.stride_d) : nullptr;
    TC* d = e.separate_d ? lt_d + e.offset_d : lt_c + g.offset_c;
    const TC* source = reads_c_apart(c) ? lt_c + g.offset_c : d;  // beta = 0: C is not read, D stands for it
    cublasLtMatrixLayout_t d_layout = e.separate_d ? x.d : x.c;
    cublasLtMatrixLayout_t source_layout = reads_c_apart(c) ? x.c : d_layout;
    DIFF_CUBLAS(cublasLtMatmulPreferenceCreate(&x.preference));
    const size_t workspace_bytes = lt_workspace_bytes;
    DIFF_CUBLAS(cublasLtMatmulPreferenceSetAttribute(x.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                     &workspace_bytes, sizeof workspace_bytes));
    // Split-k partial sums in the compute type only (not in a 16-bit D).
    const uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    DIFF_CUBLAS(cublasLtMatmulPreferenceSetAttribute(x.preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                                                     &schemes, sizeof schemes));
    // The pointers' alignment (offsets and strides make most cases misaligned): the heuristic sees only the layouts.
    const uint32_t alignments[4] = {alignment_of(call.x, call.stride_x, count, sizeof(T)),
                                    alignment_of(call.y, call.stride_y, count, sizeof(T)),
                                    alignment_of(source, reads_c_apart(c) || !e.separate_d ? c.stride_c : e.stride_d,
                                                 count, sizeof(TC)),
                                    alignment_of(d, e.separate_d ? e.stride_d : c.stride_c, count, sizeof(TC))};
    const cublasLtMatmulPreferenceAttributes_t alignment_preferences[4] = {
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
    for (int i = 0; i < 4; ++i) {
      DIFF_CUBLAS(cublasLtMatmulPreferenceSetAttribute(x.preference, alignment_preferences[i], &alignments[i],
                                                       sizeof alignments[i]));
    }
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t heuristic = cublasLtMatmulAlgoGetHeuristic(lt_handle, x.op, x.x, x.y, source_layout, d_layout,
                                                                    x.preference, 1, &result, &found);
    if (heuristic != CUBLAS_STATUS_SUCCESS || found == 0) return false;
    const scalar_of<T> alpha = scalar_of<T>(g.alpha), beta = scalar_of<T>(g.beta);
    void* workspace = d_lt_workspace.reserve<char>(lt_workspace_bytes);
    const cublasStatus_t done = cublasLtMatmul(lt_handle, x.op, &alpha, call.x, x.x, call.y, x.y, &beta, source,
                                               source_layout, d, d_layout, &result.algo, workspace,
                                               lt_workspace_bytes, nullptr);
    if (done == CUBLAS_STATUS_NOT_SUPPORTED) return false;  // what the heuristic could not know (nothing written)
    DIFF_CUBLAS(done);
    return true;
  }

  /// Runs one case; true when everything passed.
  template <class T, class TC>
  bool run_typed(const case_spec& c) {
    using S = typename tgemm::epilogue<TC>::scalar_type;
    using PT = scalar_of<T>;  // cuBLAS's plain products: float, or double for double
    type_stats& st = stats[c.api][c.type];
    const case_layout l = layout_of(c);
    host_data<T, TC> h;
    h.fill(c, l);

    buffers<T, TC> at;
    at.a = d_a.reserve<T>(h.a.size()), at.b = d_b.reserve<T>(h.b.size());
    at.c = d_c.reserve<TC>(h.c0.size()), at.d = d_d.reserve<TC>(h.d0.size());
    at.row_bias = d_row_bias.reserve<TC>(h.row_bias.size());
    at.column_bias = d_column_bias.reserve<TC>(h.column_bias.size());
    at.row_scale = d_row_scale.reserve<S>(h.row_scale.size());
    at.column_scale = d_column_scale.reserve<S>(h.column_scale.size());
    upload(at.a, h.a), upload(at.b, h.b), upload(at.c, h.c0), upload(at.d, h.d0);
    upload(at.row_bias, h.row_bias), upload(at.column_bias, h.column_bias);
    upload(at.row_scale, h.row_scale), upload(at.column_scale, h.column_scale);
    // The indirect calls' arrays and groups, in device memory before the call; they stay until the next case (the
    // call is synchronized below).
    std::vector<int32_t> status0;  // device_groups: group_status before the call
    if (c.api == api_pointers) {
      const pointer_arrays<T, TC> p = pointer_arrays_of(l, at);
      const T** a_array = d_a_array.reserve<const T*>(p.a.size());
      const T** b_array = d_b_array.reserve<const T*>(p.b.size());
      TC** c_array = d_c_array.reserve<TC*>(p.c.size());
      upload(a_array, p.a), upload(b_array, p.b), upload(c_array, p.c);
      at.a_array = a_array, at.b_array = b_array, at.c_array = c_array;
    }
    if (c.api == api_device_groups) {
      const std::vector<tgemm::gemm_group_device<T, T, TC>> groups = device_groups_of(l, at);
      tgemm::gemm_group_device<T, T, TC>* device_groups = d_groups.reserve<tgemm::gemm_group_device<T, T, TC>>(
          groups.size());
      upload(device_groups, groups);
      at.groups = device_groups;
      status0.assign(c.groups.size(), group_status_unwritten);
      at.group_status = d_group_status.reserve<int32_t>(status0.size());
      upload(at.group_status, status0);
    }

    verdict v;
    const status s = call_tgemm(c, l, at);
    const std::string message = s == status::success ? "" : tgemm::last_error().message;
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
    const std::vector<TC> out_c = download(at.c, h.c0.size()), out_d = download(at.d, h.d0.size());
    const std::vector<int32_t> statuses = download(at.group_status, status0.size());

    if (c.bad != bad_kind::none) {
      ++st.bad;
      check_refusal(c, s, message, v);
      // Refused: nothing written anywhere.
      if (!std::equal(out_c.begin(), out_c.end(), h.c0.begin(), same_bits<TC>)) v.fail("C changed by a refused call");
      if (!std::equal(out_d.begin(), out_d.end(), h.d0.begin(), same_bits<TC>)) v.fail("D changed by a refused call");
      if (statuses != status0) v.fail("group_status changed by a refused call");
      if (!v.ok) report(c, v.why);
      else if (opt.verbose) std::printf("  ok: refused with %s: %s\n", tgemm::to_string(s), message.c_str());
      return v.ok;
    }
    if (s != status::success) {
      v.fail(std::string("the call returned ") + tgemm::to_string(s) + ": " + message);
      report(c, v.why);
      return false;
    }
    if (c.api == api_device_groups) check_group_statuses(c, statuses, v);

    const bool exact = l.work < 1e6 || !opt.use_cublas;
    if (exact) ++st.exact;
    const std::vector<product_reference> refs = reference_of(c, l, h, exact);

    results<TC, PT> got;
    got.c = &out_c, got.d = &out_d;
    std::vector<TC> direct_c, lt_c, lt_d;
    std::vector<PT> plain;
    if (opt.use_cublas) {
      bool any_plain = false, any_direct = false;
      for (const product& q : l.products) (q.fused ? any_plain : any_direct) = true;
      TC* direct = nullptr;
      PT* plain_out = nullptr;
      if (any_direct) {
        direct = d_direct.reserve<TC>(h.c0.size());
        upload(direct, h.c0);
      }
      if (any_plain) {
        plain_out = d_plain.reserve<PT>(size_t(l.plain_size));
        DIFF_CUDA(cudaMemset(plain_out, 0, size_t(l.plain_size) * sizeof(PT)));
      }
      if (grouped_api(c.api)) {
        for (size_t i = 0; i < c.groups.size(); ++i) {
          const product& q = l.products[i];
          if (q.m == 0 || q.n == 0) continue;
          const column_major_call<T> call(c.order, q.op_a, q.op_b, q.m, q.n, q.k, at.a + q.a, q.lda, 0, at.b + q.b,
                                          q.ldb, 0);
          if (q.fused) {
            cublas_strided(handle, call, 1.0, 0.0, plain_out + q.plain, min_ld(c.order, op::none, q.m, q.n), 0, 1);
          } else {
            cublas_strided(handle, call, q.alpha, q.beta, direct + q.c, q.ldc, 0, 1);
          }
        }
      } else if (!l.products.empty() && c.g.m > 0 && c.g.n > 0) {  // pointers: the strides its arrays follow
        const gemm_spec& g = c.g;
        const column_major_call<T> call(c.order, g.op_a, g.op_b, g.m, g.n, g.k, at.a + g.offset_a, g.lda, c.stride_a,
                                        at.b + g.offset_b, g.ldb, c.stride_b);
        const int64_t count = int64_t(l.products.size());
        if (c.api == api_fused) {
          cublas_strided(handle, call, 1.0, 0.0, plain_out, min_ld(c.order, op::none, g.m, g.n), g.m * g.n, count);
        } else {
          cublas_strided(handle, call, g.alpha, g.beta, direct + g.offset_c, g.ldc, c.stride_c, count);
        }
      }
      if (opt.use_cublaslt && lt_applies(c)) {
        TC* lt_c_device = d_lt_c.reserve<TC>(h.c0.size());
        TC* lt_d_device = d_lt_d.reserve<TC>(h.d0.size());
        upload(lt_c_device, h.c0), upload(lt_d_device, h.d0);
        if (run_lt(c, at, lt_c_device, lt_d_device)) {
          ++st.lt;
          DIFF_CUDA(cudaDeviceSynchronize());
          lt_c = download(lt_c_device, h.c0.size()), lt_d = download(lt_d_device, h.d0.size());
          got.lt_c = &lt_c, got.lt_d = &lt_d;
        } else {
          ++st.lt_unsupported;
        }
      }
      DIFF_CUDA(cudaDeviceSynchronize());
      if (any_direct) direct_c = download(direct, h.c0.size()), got.direct_c = &direct_c;
      if (any_plain) plain = download(plain_out, size_t(l.plain_size)), got.plain = &plain;
    }

    check_untouched(l, c.order, h.c0, h.d0, out_c, out_d, v);
    check_values(c, l, h, refs, got, v);
    st.worst_reference = std::max(st.worst_reference, v.worst_reference);
    st.worst_cublas = std::max(st.worst_cublas, v.worst_cublas);
    if (!v.notes.empty()) ++st.noted, note(c, v.notes);
    if (!v.ok) {
      report(c, v.why);
    } else if (opt.verbose) {
      std::printf("  ok: %s; worst error / bound: tgemm vs float64 %.3g, tgemm vs cuBLAS %.3g%s\n",
                  exact ? "float64 reference" : "no float64 reference (large)", v.worst_reference, v.worst_cublas,
                  got.lt_c != nullptr ? " (cuBLASLt run)" : (lt_applies(c) ? " (cuBLASLt: no algorithm)" : ""));
    }
    return v.ok;
  }

  /// device_groups: every group's status after a successful call, success, or unwritten where the call had nothing to
  /// do.
  static void check_group_statuses(const case_spec& c, const std::vector<int32_t>& statuses, verdict& v) {
    const int32_t expected = device_groups_run(c) ? int32_t(status::success) : group_status_unwritten;
    int64_t wrong = 0, first = -1;
    for (size_t i = 0; i < statuses.size(); ++i) {
      if (statuses[i] != expected && wrong++ == 0) first = int64_t(i);
    }
    if (wrong > 0) {
      const int32_t got = statuses[size_t(first)];
      const std::string name = got == group_status_unwritten ? "unwritten" : tgemm::to_string(status(got));
      v.fail(std::to_string(wrong) + " groups' group_status not " +
             (expected == group_status_unwritten ? std::string("left unwritten") : std::string("success")) +
             ", the first group " + std::to_string(first) + "'s " + std::to_string(got) + " (" + name + ")");
    }
  }

  /// A bad case's status and message.
  static void check_refusal(const case_spec& c, status s, const std::string& message, verdict& v) {
    const status expected = expected_status(c.bad);
    if (s != expected) {
      v.fail(std::string("expected status ") + tgemm::to_string(expected) + ", got " + tgemm::to_string(s) +
             (s == status::success ? "" : ": " + message));
      return;
    }
    if (c.bad_group >= 0) {
      const std::string prefix = "groups[" + std::to_string(c.bad_group) + "]: ";
      if (message.rfind(prefix, 0) != 0) v.fail("the message does not start with \"" + prefix + "\": " + message);
    }
    if (message.empty()) v.fail("last_error() has no message");
  }

  /// --self-test, for one case: the harness's own host logic, without a GPU. The generator's layout must be sound;
  /// the float64 result (rounded as each side would round it) stands in for tgemm, cuBLAS and cuBLASLt and must
  /// pass every check; then a wrong element, a NaN, a changed padding element (and, with a separate D, a changed
  /// C) must each fail the case, and a wrong cuBLAS element must be noted, not failed. Bad cases that tgemm refuses
  /// before any device work are called with fake device pointers.
  template <class T, class TC>
  bool self_test_typed(const case_spec& c) {
    using PT = scalar_of<T>;
    const case_layout l = layout_of(c);
    // Pure function of (seed, API, type, index).
    if (make_case(c.seed, c.api, c.type, c.index, opt.small).describe() != c.describe()) {
      std::printf("SELF-TEST FAILED: the case is not reproducible\n  case %s\n", c.describe().c_str());
      return false;
    }
    if (!layout_sound(c, l)) return false;
    if (c.bad != bad_kind::none) return self_test_refusal<T, TC>(c, l);
    if (!indirect_sound<T, TC>(c, l)) return false;
    if (l.work > 2e6) return true;  // too slow for a host-only check

    host_data<T, TC> h;
    h.fill(c, l);
    const std::vector<product_reference> refs = reference_of(c, l, h, true);
    std::vector<TC> out_c = h.c0, out_d = h.d0, direct_c = h.c0;
    std::vector<PT> plain(size_t(l.plain_size), PT(0));
    for (size_t p = 0; p < l.products.size(); ++p) {
      const product& q = l.products[p];
      const int64_t ldp = min_ld(c.order, op::none, q.m, q.n);
      for (int64_t j = 0; j < q.n; ++j) {
        for (int64_t i = 0; i < q.m; ++i) {
          const long double sum = refs[p].sum[size_t(i + j * q.m)];
          const element_value e = finish(q, h, c.order, i, j, sum, refs[p].magnitude[size_t(i + j * q.m)]);
          const TC rounded = tgemm::convert<TC>(scalar_of<TC>(e.value));
          (q.separate_d ? out_d : out_c)[size_t(q.out_index(c.order, i, j))] = rounded;
          if (!q.fused) direct_c[size_t(q.c + index_of(c.order, i, j, q.ldc))] = rounded;
          plain[size_t(q.plain + index_of(c.order, i, j, ldp))] = PT(sum);
        }
      }
    }
    std::vector<TC> lt_c = out_c, lt_d = out_d;
    results<TC, PT> got;
    got.c = &out_c, got.d = &out_d, got.direct_c = &direct_c, got.plain = &plain;
    if (lt_applies(c)) got.lt_c = &lt_c, got.lt_d = &lt_d;
    const auto all_checks = [&](verdict& v) {
      check_untouched(l, c.order, h.c0, h.d0, out_c, out_d, v);
      check_values(c, l, h, refs, got, v);
    };
    verdict clean;
    all_checks(clean);
    if (!clean.ok || !clean.notes.empty()) {
      std::printf("SELF-TEST FAILED: correct data %s: %s%s\n  case %s\n", clean.ok ? "noted" : "rejected",
                  clean.why.c_str(), clean.notes.empty() ? "" : clean.notes.front().c_str(), c.describe().c_str());
      return false;
    }
    bool caught = true;
    std::string missed;
    // A wrong element and a NaN in one product's result.
    rng pick{c.data_seed ^ 0x5555u};
    std::vector<size_t> nonempty;
    for (size_t p = 0; p < l.products.size(); ++p) {
      if (l.products[p].m > 0 && l.products[p].n > 0) nonempty.push_back(p);
    }
    if (!nonempty.empty()) {
      const size_t p = nonempty[size_t(pick.below(int64_t(nonempty.size())))];
      const product& q = l.products[p];
      const int64_t wi = pick.below(q.m), wj = pick.below(q.n);
      std::vector<TC>& target = q.separate_d ? out_d : out_c;
      const size_t at = size_t(q.out_index(c.order, wi, wj));
      const TC saved = target[at];
      const element_value e = finish(q, h, c.order, wi, wj, refs[p].sum[size_t(wi + wj * q.m)],
                                     refs[p].magnitude[size_t(wi + wj * q.m)]);
      // Off by far more than any bound allows (bounds stay below 0.01 M + 0.01 |v| + 0.004 |y| for k <= 1500).
      const double off = 1.0 + 0.1 * (std::fabs(to_double(saved)) + e.magnitude + std::fabs(double(e.pre)));
      for (const double wrong : {to_double(saved) + off, double(quiet_nan)}) {
        target[at] = tgemm::convert<TC>(scalar_of<TC>(wrong));
        verdict v;
        all_checks(v);
        if (v.ok) caught = false, missed += " wrong element;";
      }
      target[at] = saved;
      // cuBLAS wrong (tgemm right): noted, not failed. A wrong plain product moves v up by 1 + 2 |v| + M, which
      // every activation passes on (not a clamp: left out there, as is a product the factors cancel).
      if (q.fused && !(q.clamp_min > -inf || q.clamp_max < inf) && e.scale > 1e-6) {
        const int64_t ldp = min_ld(c.order, op::none, q.m, q.n);
        PT& x = plain[size_t(q.plain + index_of(c.order, wi, wj, ldp))];
        const PT kept = x;
        x = PT(double(x) + (1 + 2 * std::fabs(double(e.pre)) + e.magnitude) / e.factor);
        verdict v;
        all_checks(v);
        if (!v.ok || v.notes.empty()) caught = false, missed += " cuBLAS plain error not noted;";
        x = kept;
      } else if (!q.fused) {
        TC& x = direct_c[size_t(q.c + index_of(c.order, wi, wj, q.ldc))];
        const TC kept = x;
        x = tgemm::convert<TC>(scalar_of<TC>(to_double(x) + off));
        verdict v;
        all_checks(v);
        if (!v.ok || v.notes.empty()) caught = false, missed += " cuBLAS error not noted;";
        x = kept;
      }
    }
    // An element no product owns: the guard after C (or D).
    for (std::vector<TC>* buffer : {&out_c, &out_d}) {
      if (buffer->empty()) continue;
      const TC saved = buffer->back();
      buffer->back() = tgemm::convert<TC>(scalar_of<TC>(0.0));
      verdict v;
      all_checks(v);
      if (v.ok) caught = false, missed += " changed guard;";
      buffer->back() = saved;
    }
    // C only read (a separate D): any change of it fails.
    for (const product& q : l.products) {
      if (!q.separate_d || q.m == 0 || q.n == 0) continue;
      TC& x = out_c[size_t(q.c)];
      const TC saved = x;
      x = tgemm::convert<TC>(scalar_of<TC>(to_double(saved) == 2.0 ? 3.0 : 2.0));
      verdict v;
      all_checks(v);
      if (v.ok) caught = false, missed += " C changed under a separate D;";
      x = saved;
      break;
    }
    if (!caught) {
      std::printf("SELF-TEST FAILED: planted errors went unnoticed:%s\n  case %s\n", missed.c_str(),
                  c.describe().c_str());
    }
    return caught;
  }

  /// The generator's layout: products inside their buffers, results that do not overlap (but in a bad case).
  static bool layout_sound(const case_spec& c, const case_layout& l) {
    std::vector<int> written_c(size_t(l.c_size), 0), written_d(size_t(l.d_size), 0);
    bool inside = true;
    const auto within = [&](int64_t first, int64_t last_plus_one, int64_t size) {
      inside = inside && first >= 0 && last_plus_one <= size - (size >= guard_elements ? guard_elements : 0);
    };
    for (const product& q : l.products) {
      within(q.a, q.a + stored_elements(c.order, q.op_a, q.m, q.k, q.lda), l.a_size);
      within(q.b, q.b + stored_elements(c.order, q.op_b, q.k, q.n, q.ldb), l.b_size);
      within(q.c, q.c + stored_elements(c.order, op::none, q.m, q.n, q.ldc), l.c_size);
      if (q.separate_d) within(q.d, q.d + stored_elements(c.order, op::none, q.m, q.n, q.ldd), l.d_size);
      std::vector<int>& written = q.separate_d ? written_d : written_c;
      for_each_stored(c.order, op::none, q.m, q.n, q.separate_d ? q.ldd : q.ldc, q.separate_d ? q.d : q.c,
                      [&](int64_t at) { ++written[size_t(at)]; });
    }
    int most = 0;
    for (int x : written_c) most = std::max(most, x);
    for (int x : written_d) most = std::max(most, x);
    // A stride below the tight span is refused even where the products' elements only interleave in padding.
    const bool overlap_allowed = c.bad == bad_kind::overlapping_c || c.bad == bad_kind::overlapping_d;
    if (!inside || (most > 1 && !overlap_allowed)) {
      std::printf("SELF-TEST FAILED: the case's layout is unsound (%s)\n  case %s\n",
                  !inside ? "a product outside its buffer" : "results overlap", c.describe().c_str());
      return false;
    }
    return true;
  }

  /// Fake device addresses for a case's buffers, and for the indirect calls' arrays, groups and statuses: 256-byte
  /// aligned like cudaMalloc's, never dereferenced.
  template <class T, class TC>
  static buffers<T, TC> fake_buffers(const case_spec& c, const case_layout& l) {
    using S = typename tgemm::epilogue<TC>::scalar_type;
    using group = tgemm::gemm_group_device<T, T, TC>;
    uintptr_t next = uintptr_t(1) << 40;
    const auto fake = [&](int64_t elements, size_t bytes) {
      const uintptr_t at = next;
      next += (uintptr_t(elements) * bytes + 4096) / 256 * 256;
      return at;
    };
    buffers<T, TC> at;
    at.a = reinterpret_cast<T*>(fake(l.a_size, sizeof(T)));
    at.b = reinterpret_cast<T*>(fake(l.b_size, sizeof(T)));
    at.c = reinterpret_cast<TC*>(fake(l.c_size, sizeof(TC)));
    at.d = reinterpret_cast<TC*>(fake(l.d_size, sizeof(TC)));
    at.row_bias = reinterpret_cast<TC*>(fake(l.row_bias_size, sizeof(TC)));
    at.column_bias = reinterpret_cast<TC*>(fake(l.column_bias_size, sizeof(TC)));
    at.row_scale = reinterpret_cast<S*>(fake(l.row_scale_size, sizeof(S)));
    at.column_scale = reinterpret_cast<S*>(fake(l.column_scale_size, sizeof(S)));
    const int64_t products = int64_t(l.products.size()), groups = int64_t(c.groups.size());
    at.a_array = reinterpret_cast<const T* const*>(fake(products, sizeof(const T*)));
    at.b_array = reinterpret_cast<const T* const*>(fake(products, sizeof(const T*)));
    at.c_array = reinterpret_cast<TC* const*>(fake(products, sizeof(TC*)));
    at.groups = reinterpret_cast<const group*>(fake(groups, sizeof(group)));
    at.group_status = reinterpret_cast<int32_t*>(fake(groups, sizeof(int32_t)));
    return at;
  }

  /// A valid case's pointer arrays and device groups as run_typed builds them (on fake buffers): product i's pointers
  /// at the case's offsets and strides (a + offset_a + i stride_a, ...); each group as drawn, with the call's ops,
  /// alpha and beta, within the bounds and with the leading dimensions the GPU checks
  /// (kernel::indirect_products::read), so that a generator's slip shows here, not as a skipped group on a GPU.
  template <class T, class TC>
  static bool indirect_sound(const case_spec& c, const case_layout& l) {
    const buffers<T, TC> at = fake_buffers<T, TC>(c, l);
    const gemm_spec& call = c.g;
    std::string wrong;
    if (c.api == api_pointers) {
      const pointer_arrays<T, TC> p = pointer_arrays_of(l, at);
      if (int64_t(p.a.size()) != c.count || p.b.size() != p.a.size() || p.c.size() != p.a.size()) {
        wrong = "pointer arrays of " + std::to_string(p.a.size()) + " products for a count of " +
                std::to_string(c.count);
      }
      for (int64_t i = 0; wrong.empty() && i < c.count; ++i) {
        if (p.a[size_t(i)] != at.a + call.offset_a + i * c.stride_a ||
            p.b[size_t(i)] != at.b + call.offset_b + i * c.stride_b ||
            p.c[size_t(i)] != at.c + call.offset_c + i * c.stride_c) {
          wrong = "product " + std::to_string(i) + "'s pointers are not at the case's offsets and strides";
        }
      }
    }
    if (c.api == api_device_groups) {
      const std::vector<tgemm::gemm_group_device<T, T, TC>> groups = device_groups_of(l, at);
      const tgemm::group_bounds& b = c.bounds;
      if (int64_t(groups.size()) != c.group_count || groups.size() != c.groups.size()) {
        wrong = std::to_string(groups.size()) + " groups for a group_count of " + std::to_string(c.group_count);
      }
      for (size_t i = 0; wrong.empty() && i < groups.size(); ++i) {
        const tgemm::gemm_group_device<T, T, TC>& x = groups[i];
        const gemm_spec& g = c.groups[i];
        const std::string name = "group " + std::to_string(i);
        if (g.op_a != call.op_a || g.op_b != call.op_b || g.alpha != call.alpha || g.beta != call.beta || g.ep.on) {
          wrong = name + " has its own ops, alpha, beta or epilogue";
        } else if (x.m != g.m || x.n != g.n || x.k != g.k || x.lda != g.lda || x.ldb != g.ldb || x.ldc != g.ldc) {
          wrong = name + " is not the group drawn";
        } else if (x.m > b.max_m || x.n > b.max_n || x.k > b.max_k) {
          wrong = name + " exceeds the bounds";
        } else if (x.lda < min_ld(c.order, call.op_a, x.m, x.k) || x.ldb < min_ld(c.order, call.op_b, x.k, x.n) ||
                   x.ldc < min_ld(c.order, op::none, x.m, x.n)) {
          wrong = name + " has a leading dimension below its least";
        } else if (x.a != at.a + l.products[i].a || x.b != at.b + l.products[i].b || x.c != at.c + l.products[i].c) {
          wrong = name + "'s pointers are not at its places";
        }
      }
    }
    if (!wrong.empty()) {
      std::printf("SELF-TEST FAILED: the indirect call's arguments: %s\n  case %s\n", wrong.c_str(),
                  c.describe().c_str());
      return false;
    }
    return true;
  }

  /// A bad case on the host: tgemm refuses what it checks before any device work (every batched, fused and pointers
  /// bad case; for groups null or negative counts, and a bad first group; device_groups draws only null and negative
  /// counts) given fake device pointers.
  template <class T, class TC>
  bool self_test_refusal(const case_spec& c, const case_layout& l) {
    const bool host_decides = c.api != api_grouped || c.bad == bad_kind::null_groups ||
                              c.bad == bad_kind::negative_groups || c.bad_group == 0;
    if (!host_decides) return true;
    const buffers<T, TC> at = fake_buffers<T, TC>(c, l);
    const status s = call_tgemm(c, l, at);
    verdict v;
    check_refusal(c, s, s == status::success ? "" : tgemm::last_error().message, v);
    if (!v.ok) std::printf("SELF-TEST FAILED: a bad call: %s\n  case %s\n", v.why.c_str(), c.describe().c_str());
    return v.ok;
  }

  /// One case (on the GPU, or with self_test checked on the host).
  bool run_case(const case_spec& c, bool self_test) {
    current_case = "case " + c.id() + " " + c.describe();
    replay_flag = replay_of(c);
    switch (c.type) {
      case type_half_half: return run_as<__half, __half>(c, self_test);
      case type_half_float: return run_as<__half, float>(c, self_test);
      case type_bf16_bf16: return run_as<__nv_bfloat16, __nv_bfloat16>(c, self_test);
      case type_bf16_float: return run_as<__nv_bfloat16, float>(c, self_test);
      case type_f64: return run_as<double, double>(c, self_test);
      default: return run_as<float, float>(c, self_test);
    }
  }

  template <class T, class TC>
  bool run_as(const case_spec& c, bool self_test) {
    return self_test ? self_test_typed<T, TC>(c) : run_typed<T, TC>(c);
  }
};

void usage(const char* program) {
  std::printf(
      "usage: %s [--seed N] [--cases N] [--case SEED:API:TYPE:INDEX] [--apis LIST] [--types LIST] [--small]\n"
      "          [--no-cublas] [--no-cublaslt] [--verbose] [--self-test] [--list]\n"
      "  --seed N                    the run's seed (default: TGEMM_TEST_SEED, else a fresh one)\n"
      "  --cases N                   random cases per API and type (default 1500; 200 with --small)\n"
      "  --case SEED:API:TYPE:INDEX  replay one case of a run, verbosely\n"
      "  --apis LIST                 comma-separated subset of: %s\n"
      "  --types LIST                comma-separated subset of: %s\n"
      "  --small                     sizes up to 48 only (for compute-sanitizer)\n"
      "  --no-cublas                 compare with the float64 host reference only (computed for every size)\n"
      "  --no-cublaslt               leave cuBLASLt out (cuBLAS's product + the epilogue on the host only)\n"
      "  --verbose                   print every case\n"
      "  --self-test                 check the harness itself on the host (no GPU): generation, reference,\n"
      "                              comparisons, and the bad calls tgemm refuses before any device work\n"
      "  --list                      print the run's cases without running them (no GPU needed)\n",
      program, names_of(apis).c_str(), names_of(types).c_str());
}

bool parse_unsigned(const char* text, uint64_t& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  out = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0';
}

/// "a,b,c" into indices of `table`; false on an unknown name.
template <class Table, int Count>
bool parse_names(const Table (&table)[Count], const std::string& text, std::vector<int>& out) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t length = comma == std::string::npos ? std::string::npos : comma - start;
    const int i = index_named(table, text.substr(start, length));
    if (i < 0) return false;
    out.push_back(i);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !out.empty();
}

std::string joined(const std::vector<int>& picked, bool api) {
  std::string s;
  for (const int i : picked) s += std::string(s.empty() ? "" : ",") + (api ? apis[i].name : types[i].name);
  return s;
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
      std::vector<std::string> parts;
      for (size_t start = 0;;) {
        const size_t colon = text.find(':', start);
        parts.push_back(text.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
      uint64_t index = 0;
      const int api = parts.size() == 4 ? index_named(apis, parts[1]) : -1;
      const int type = parts.size() == 4 ? index_named(types, parts[2]) : -1;
      if (api < 0 || type < 0 || !parse_unsigned(parts[0].c_str(), value) || !parse_unsigned(parts[3].c_str(), index)) {
        std::fprintf(stderr, "--case wants SEED:API:TYPE:INDEX (API one of %s, TYPE one of %s), not %s\n",
                     names_of(apis).c_str(), names_of(types).c_str(), text.c_str());
        usage(argv[0]);
        return 2;
      }
      h.opt.seed = value, h.opt.seed_given = true, h.opt.replay = true, h.opt.replay_api = api;
      h.opt.replay_type = type, h.opt.replay_index = int64_t(index), h.opt.verbose = true;
    } else if (arg == "--apis" && i + 1 < argc) {
      if (!parse_names(apis, argv[++i], h.opt.apis)) {
        std::fprintf(stderr, "--apis wants a comma-separated subset of %s, not %s\n", names_of(apis).c_str(), argv[i]);
        usage(argv[0]);
        return 2;
      }
    } else if (arg == "--types" && i + 1 < argc) {
      if (!parse_names(types, argv[++i], h.opt.types)) {
        std::fprintf(stderr, "--types wants a comma-separated subset of %s, not %s\n", names_of(types).c_str(),
                     argv[i]);
        usage(argv[0]);
        return 2;
      }
    } else if (arg == "--small") {
      h.opt.small = true;
    } else if (arg == "--no-cublas") {
      h.opt.use_cublas = false;
    } else if (arg == "--no-cublaslt") {
      h.opt.use_cublaslt = false;
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
  if (h.opt.replay) h.opt.apis.assign(1, h.opt.replay_api), h.opt.types.assign(1, h.opt.replay_type);
  if (h.opt.apis.empty()) {
    for (int a = 0; a < api_count; ++a) h.opt.apis.push_back(a);
  }
  if (h.opt.types.empty()) {
    for (int t = 0; t < type_count; ++t) h.opt.types.push_back(t);
  }
  const std::string selected_apis = joined(h.opt.apis, true), selected_types = joined(h.opt.types, false);
  const int64_t first = h.opt.replay ? h.opt.replay_index : 0;
  const int64_t last = h.opt.replay ? h.opt.replay_index + 1 : h.opt.cases;

  if (h.opt.list) {
    for (const int a : h.opt.apis) {
      for (const int t : h.opt.types) {
        for (int64_t index = first; index < last; ++index) {
          const case_spec c = make_case(h.opt.seed, a, t, index, h.opt.small);
          std::printf("%s %s\n", c.id().c_str(), c.describe().c_str());
        }
      }
    }
    return 0;
  }
  if (h.opt.self_test) {
    // No device may be reached: the refused calls get fake device pointers (a call that wrongly passed validation
    // then fails with no_cuda_device instead of touching a GPU).
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    int64_t passed = 0, failed = 0;
    for (const int a : h.opt.apis) {
      for (const int t : h.opt.types) {
        for (int64_t index = first; index < last; ++index) {
          if (h.run_case(make_case(h.opt.seed, a, t, index, h.opt.small), true)) ++passed;
          else ++failed;
        }
      }
    }
    std::printf("self-test: seed %llu, %lld cases per API and type (APIs %s; types %s)\n%lld passed, %lld failed\n",
                (unsigned long long)h.opt.seed, (long long)(last - first), selected_apis.c_str(),
                selected_types.c_str(), (long long)passed, (long long)failed);
    return failed == 0 ? 0 : 1;
  }

  if (!tgemm::test::usable_gpu_or_explain()) {
    std::printf("0 passed, 1 failed\n");
    return 1;
  }
  cudaDeviceProp properties{};
  DIFF_CUDA(cudaGetDeviceProperties(&properties, 0));
  std::printf("GPU: %s (sm_%d%d, %d SMs); cuBLAS %d, cuBLASLt %zu\n", properties.name, properties.major,
              properties.minor, properties.multiProcessorCount, CUBLAS_VERSION, cublasLtGetVersion());
  if (h.opt.use_cublas) {
    DIFF_CUBLAS(cublasCreate(&h.handle));
    // Default math (no TF32 for float), and a 16-bit C's split-K partials kept in float.
    DIFF_CUBLAS(cublasSetMathMode(
        h.handle, cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
    DIFF_CUBLAS(cublasLtCreate(&h.lt_handle));
  }
  std::printf("differential (batched, grouped, fused, indirect): seed %llu, %s; reference: %s\n",
              (unsigned long long)h.opt.seed,
              h.opt.replay ? ("replaying case " + std::to_string(h.opt.replay_index)).c_str()
                           : (std::to_string(h.opt.cases) + " cases per API and type").c_str(),
              h.opt.use_cublas ? "cuBLAS / cuBLASLt + float64 (small cases)" : "float64");
  for (const int a : h.opt.apis) std::printf("  %-13s %s\n", apis[a].name, apis[a].description);
  for (const int t : h.opt.types) {
    std::printf("  %-10s  %-30s cuBLAS: %s\n", types[t].name, types[t].description, types[t].cublas_description);
  }
  if (!h.opt.replay) {
    std::printf("replay this run with: %s --seed %llu --cases %lld --apis %s --types %s%s%s%s\n", argv[0],
                (unsigned long long)h.opt.seed, (long long)h.opt.cases, selected_apis.c_str(), selected_types.c_str(),
                h.opt.small ? " --small" : "", h.opt.use_cublas ? "" : " --no-cublas",
                h.opt.use_cublaslt ? "" : " --no-cublaslt");
  }
  std::fflush(stdout);

  const auto start = std::chrono::steady_clock::now();
  int64_t passed = 0, failed = 0;
  for (const int a : h.opt.apis) {
    for (const int t : h.opt.types) {
      type_stats& stats = h.stats[a][t];
      const auto type_start = std::chrono::steady_clock::now();
      for (int64_t index = first; index < last; ++index) {
        const case_spec c = make_case(h.opt.seed, a, t, index, h.opt.small);
        if (h.opt.verbose) std::printf("case %s: %s\n", c.id().c_str(), c.describe().c_str());
        ++stats.cases;
        if (h.run_case(c, false)) {
          ++passed;
        } else {
          ++failed;
          ++stats.failed;
        }
      }
      stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - type_start).count();
      if (!h.opt.replay) {
        std::printf("  %s %s: %lld cases, %lld failed, %.1f s\n", apis[a].name, types[t].name,
                    (long long)stats.cases, (long long)stats.failed, stats.seconds);
        std::fflush(stdout);
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("per API and type: cases, float64-checked, bad arguments, cuBLASLt run, cuBLASLt without an algorithm, "
              "cuBLAS notes, failures, seconds; worst error / bound of tgemm vs float64 and vs cuBLAS:\n");
  for (const int a : h.opt.apis) {
    for (const int t : h.opt.types) {
      const type_stats& s = h.stats[a][t];
      std::printf("  %-13s %-10s %6lld %6lld %4lld %5lld %5lld %4lld %4lld %6.1f   %8.3g %8.3g\n", apis[a].name,
                  types[t].name, (long long)s.cases, (long long)s.exact, (long long)s.bad, (long long)s.lt,
                  (long long)s.lt_unsupported, (long long)s.noted, (long long)s.failed, s.seconds, s.worst_reference,
                  s.worst_cublas);
    }
  }
  std::printf("differential (batched, grouped, fused, indirect): seed %llu, %lld cases in %.1f s\n",
              (unsigned long long)h.opt.seed, (long long)(passed + failed), seconds);
  if (h.lt_handle != nullptr) cublasLtDestroy(h.lt_handle);
  if (h.handle != nullptr) cublasDestroy(h.handle);
  std::printf("%lld passed, %lld failed\n", (long long)passed, (long long)failed);
  return failed == 0 ? 0 : 1;
}
