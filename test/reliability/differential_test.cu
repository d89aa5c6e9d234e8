// Randomized differential test: tgemm against cuBLAS and, for small cases, against the float64 host loop.
//
// A run draws --cases N random cases (default 10,000) from a seed it prints: --seed N, else TGEMM_TEST_SEED,
// else a fresh one. Case i depends only on (seed, i), so `--case SEED:I` replays exactly that case. A case picks:
//   - m, n, k from 0 to a few thousand: small values, tile sizes +-1, powers of two, primes, uniform draws; 70 % of
//     the cases have dimensions up to 40, 24 % up to 200, 5 % up to 700, 1 % up to 3100, and every 500th is a
//     skinny or tall shape (256x256x16384, 16x8192x8192, 128x4096x4096, 8192x16x8192, ...) that the dispatcher
//     splits along k. 10,000 cases took 11 s on an H200 (with 0.3 % of them up to 3100);
//   - the storage order, both operations, leading dimensions padded (or not) by 1-40 elements, pointers offset by
//     0-3 elements (or everything 16-byte aligned, so that the vector policies accept it);
//   - alpha and beta in {0, 1, -1, random}; with beta == 0, C starts full of NaN; with alpha == 0 or k == 0,
//     half the cases pass null A and B;
//   - values uniform in [-1, 1), small integers, or scaled by powers of two.
// It runs on the dispatcher tgemm::gemm() always, and on launch<P>() for every policy P whose can_implement<P>()
// accepts the call (the test also checks that can_implement<P>() accepts exactly the calls the documented alignment
// rule allows, and that launch<P>() refuses the others with the same status).
//
// Checks of every run: status::success, no CUDA error; every element of C within
// error_factor(k) * (|alpha| (|A||B|)(i,j) + |beta| |C(i,j)|) of cuBLAS (|A||B| is computed by cuBLAS on |A| and
// |B|), and the same bound normwise; C's padding, the elements before C's pointer and a guard after C unchanged
// bit for bit. When m*n*k < 1e6, C (and cuBLAS itself) also against the float64 reference of reference.hpp.
// cuBLAS runs cublasSgemm with CUBLAS_DEFAULT_MATH set explicitly (FP32 throughout, no TF32); a row-major call
// is expressed as the column-major call C^T = op(B)^T op(A)^T.
//
// Options: --seed N, --cases N, --case SEED:INDEX (replay one case, verbosely), --small (small shapes only: for
// compute-sanitizer), --no-cublas (float64 reference only), --verbose. No Catch2: the exit status is 0 when every
// case passed and 1 otherwise (or without a GPU), and the last line reads "N passed, N failed".
#include "check_cuda.hpp"
#include "paths.hpp"
#include "reference.hpp"
#include "require_gpu.hpp"
#include "splitmix.hpp"

#include <tgemm/status.cuh>
#include <tgemm/types.cuh>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::reliability::gemm_path;

// ---------------------------------------------------------------------------------------------------------------
// Random numbers: splitmix64, so that a case is a pure function of (seed, index).

using rng = tgemm::test::splitmix_rng;

rng case_rng(uint64_t seed, int64_t index) {
  rng r{seed ^ (uint64_t(index) * 0xd1b54a32d192ed03ull)};
  r.next();
  return r;
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
  int64_t index = 0;
  const char* size_class = "";
  layout order = layout::col_major;
  op op_a = op::none, op_b = op::none;
  int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f, beta = 0.0f;
  int64_t lda = 1, ldb = 1, ldc = 1;
  int64_t offset_a = 0, offset_b = 0, offset_c = 0;
  bool null_operands = false;  // pass null A and B (only when the call does not read them)
  value_kind values = value_kind::uniform;
  int scale_a = 0, scale_b = 0, scale_c = 0;  // power-of-two exponents for value_kind::scaled
  uint64_t data_seed = 0;

  bool reads_operands() const { return m > 0 && n > 0 && k > 0 && alpha != 0.0f; }
  bool empty() const { return m == 0 || n == 0; }
  double work() const { return double(m) * double(n) * double(k); }

  std::string describe() const {
    std::ostringstream s;
    s.precision(9);
    s << "order=" << tgemm::to_string(order) << " op_a=" << tgemm::to_string(op_a)
      << " op_b=" << tgemm::to_string(op_b) << " m=" << m << " n=" << n << " k=" << k << " alpha=" << alpha
      << " beta=" << beta << " lda=" << lda << " ldb=" << ldb << " ldc=" << ldc << " offsets(a,b,c)=" << offset_a
      << "," << offset_b << "," << offset_c << " values=" << to_string(values) << (null_operands ? " A=B=null" : "")
      << " class=" << size_class;
    return s.str();
  }
};

const int64_t primes[] = {2,   3,   5,   7,   11,  13,  17,  19,   23,   29,   31,   37,   41,   43,
                          47,  53,  61,  67,  71,  79,  89,  97,   101,  127,  131,  193,  251,  257,
                          379, 509, 521, 631, 773, 1021, 1031, 1543, 2039, 2053, 2593, 3067};

/// A dimension no larger than cap: tiny values (0 included), tile sizes +-1, primes, powers of two, or uniform.
int64_t pick_dimension(rng& r, int64_t cap) {
  int64_t d = 0;
  switch (r.below(6)) {
    case 0: d = r.between(0, 8); break;
    case 1: d = (int64_t(8) << r.below(9)) + r.between(-1, 1); break;  // 8 .. 2048, +-1
    case 2: d = primes[r.below(int64_t(sizeof primes / sizeof primes[0]))]; break;
    case 3: d = int64_t(1) << r.below(13); break;  // 1 .. 4096
    default: d = r.between(1, cap); break;
  }
  return d <= cap ? d : r.between(1, cap);
}

/// Extra leading-dimension elements: none, 1-3, a multiple of 4, or up to 40.
int64_t pick_padding(rng& r, bool aligned) {
  int64_t pad = 0;
  const int64_t u = r.below(10);
  if (u >= 5 && u <= 6) pad = r.between(1, 3);
  if (u >= 7 && u <= 8) pad = 4 * r.between(1, 4);
  if (u == 9) pad = r.between(1, 40);
  return aligned ? (pad + 3) / 4 * 4 : pad;
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

struct shape {
  int64_t m, n, k;
};

/// Skinny and tall shapes: what split-K and the narrow tiles are for (every 500th case of a full run).
const shape skinny_shapes[] = {{256, 256, 16384}, {16, 8192, 8192}, {128, 4096, 4096}, {8192, 16, 8192},
                               {1, 1, 100003},    {7, 13, 65536},   {64, 64, 30001},   {33, 47, 20000},
                               {4096, 128, 4096}, {2, 4096, 1}};

case_spec make_case(uint64_t seed, int64_t index, bool small) {
  rng r = case_rng(seed, index);
  case_spec c;
  c.seed = seed;
  c.index = index;
  c.order = r.chance(0.5) ? layout::col_major : layout::row_major;
  c.op_a = r.chance(0.5) ? op::none : op::transpose;
  c.op_b = r.chance(0.5) ? op::none : op::transpose;

  bool force_misaligned = false;
  if (!small && index % 500 == 499) {
    const shape& s = skinny_shapes[(index / 500) % int64_t(sizeof skinny_shapes / sizeof skinny_shapes[0])];
    c.m = s.m, c.n = s.n, c.k = s.k;
    c.size_class = "skinny";
  } else if (small && index % 8 == 7) {
    // Large enough for the dispatcher to repack misaligned operands (2 m n k >= 2^27 flops).
    c.m = r.between(400, 480), c.n = r.between(400, 480), c.k = r.between(420, 480);
    c.size_class = "repack";
    force_misaligned = true;
  } else {
    const int64_t u = r.below(1000);
    int64_t cap;
    if (small) {
      cap = u < 700 ? 24 : (u < 950 ? 70 : 300);
      c.size_class = u < 700 ? "tiny" : (u < 950 ? "small" : "deep");
    } else {
      cap = u < 700 ? 40 : (u < 940 ? 200 : (u < 990 ? 700 : 3100));
      c.size_class = u < 700 ? "tiny" : (u < 940 ? "medium" : (u < 990 ? "large" : "huge"));
    }
    c.m = pick_dimension(r, cap);
    c.n = pick_dimension(r, cap);
    c.k = pick_dimension(r, cap);
    if (small) {
      while (c.work() > 1e6) c.k /= 2;  // sanitizers run kernels 10-100x slower; keep the float64 loop cheap
    }
  }

  const int64_t alpha_weights[3] = {2, 6, 3}, beta_weights[3] = {7, 4, 2};
  c.alpha = pick_scalar(r, alpha_weights);
  c.beta = pick_scalar(r, beta_weights);

  const bool aligned = !force_misaligned && r.chance(0.4);
  const auto round4 = [](int64_t x) { return (x + 3) / 4 * 4; };
  c.lda = tgemm::test::min_ld(c.order, c.op_a, c.m, c.k);
  c.ldb = tgemm::test::min_ld(c.order, c.op_b, c.k, c.n);
  c.ldc = tgemm::test::min_ld(c.order, op::none, c.m, c.n);
  if (aligned) c.lda = round4(c.lda), c.ldb = round4(c.ldb), c.ldc = round4(c.ldc);
  c.lda += pick_padding(r, aligned);
  c.ldb += pick_padding(r, aligned);
  c.ldc += pick_padding(r, aligned);
  if (!aligned) {
    c.offset_a = r.chance(0.5) ? 0 : r.between(1, 3);
    c.offset_b = r.chance(0.5) ? 0 : r.between(1, 3);
    c.offset_c = r.chance(0.5) ? 0 : r.between(1, 3);
  }
  if (force_misaligned) c.offset_a = r.between(1, 3);

  c.null_operands = !c.reads_operands() && r.chance(0.5);
  const int64_t v = r.below(10);
  c.values = v < 8 ? value_kind::uniform : (v == 8 ? value_kind::integers : value_kind::scaled);
  if (c.values == value_kind::scaled) {
    c.scale_a = int(r.between(-20, 20)), c.scale_b = int(r.between(-20, 20)), c.scale_c = int(r.between(-20, 20));
  }
  c.data_seed = r.next();
  return c;
}

// ---------------------------------------------------------------------------------------------------------------
// Host data: each buffer is [offset elements][the stored operand, padding included][a guard].

constexpr int64_t guard_elements = 64;

float bits_to_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// What C's padding, the elements before C and the guard after it hold: a NaN no kernel produces.
const float sentinel = bits_to_float(0x7fa5a5a5u);
const float quiet_nan = std::numeric_limits<float>::quiet_NaN();

float draw_value(rng& r, value_kind kind, int scale) {
  switch (kind) {
    case value_kind::integers: return float(r.between(-3, 3));
    case value_kind::scaled: return std::ldexp(r.unit(), scale);
    case value_kind::uniform: break;
  }
  return r.unit();
}

/// Stored lines of op(X) (rows x cols) in `order` and the elements of each line that belong to X.
void stored_extent(layout order, op operation, int64_t rows, int64_t cols, int64_t& contiguous, int64_t& lines) {
  const int64_t x_rows = operation == op::none ? rows : cols;
  const int64_t x_cols = operation == op::none ? cols : rows;
  contiguous = order == layout::col_major ? x_rows : x_cols;
  lines = order == layout::col_major ? x_cols : x_rows;
}

/// Fills `host` with an operand: NaN before it, in its padding and after it (a kernel that used any of those
/// would turn its result into NaN), values inside.
void fill_operand(std::vector<float>& host, int64_t offset, layout order, op operation, int64_t rows, int64_t cols,
                  int64_t ld, rng& r, value_kind kind, int scale) {
  int64_t contiguous = 0, lines = 0;
  stored_extent(order, operation, rows, cols, contiguous, lines);
  host.assign(size_t(offset + ld * lines + guard_elements), quiet_nan);
  for (int64_t line = 0; line < lines; ++line) {
    float* x = host.data() + offset + line * ld;
    for (int64_t i = 0; i < contiguous; ++i) x[i] = draw_value(r, kind, scale);
  }
}

/// C: the sentinel before it, in its padding and after it; NaN inside when beta == 0 (C must not be read).
void fill_c(std::vector<float>& host, const case_spec& c, rng& r) {
  int64_t contiguous = 0, lines = 0;
  stored_extent(c.order, op::none, c.m, c.n, contiguous, lines);
  host.assign(size_t(c.offset_c + c.ldc * lines + guard_elements), sentinel);
  for (int64_t line = 0; line < lines; ++line) {
    float* x = host.data() + c.offset_c + line * c.ldc;
    for (int64_t i = 0; i < contiguous; ++i) x[i] = c.beta == 0.0f ? quiet_nan : draw_value(r, c.values, c.scale_c);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Device side.

std::string current_case;  // what a harness failure prints
std::string replay_flag;
int exit_code_on_harness_failure = 1;

[[noreturn]] void harness_failure(const std::string& what) {
  std::fprintf(stderr, "FAILED (harness): %s\n  while running: %s\n  replay: %s\n", what.c_str(), current_case.c_str(),
               replay_flag.c_str());
  std::fprintf(stdout, "0 passed, 1 failed\n");
  std::exit(exit_code_on_harness_failure);
}

/// A failed CUDA call is a harness failure (it prints the case and the replay flag), described as every test does.
#define DIFF_CUDA(call)                                                                         \
  do {                                                                                          \
    const cudaError_t diff_error_ = (call);                                                     \
    if (diff_error_ != cudaSuccess) harness_failure(tgemm::test::describe_cuda_error(diff_error_, #call)); \
  } while (0)

#define DIFF_CUBLAS(call)                                                                                        \
  do {                                                                                                           \
    const cublasStatus_t diff_status_ = (call);                                                                  \
    if (diff_status_ != CUBLAS_STATUS_SUCCESS) {                                                                 \
      harness_failure(std::string(#call) + " -> cuBLAS status " + std::to_string(int(diff_status_)));           \
    }                                                                                                            \
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
  float* reserve(size_t count) {
    if (count > capacity_) {
      if (data_ != nullptr) DIFF_CUDA(cudaFree(data_));
      data_ = nullptr;
      DIFF_CUDA(cudaMalloc(&data_, count * sizeof(float)));
      capacity_ = count;
    }
    return data_;
  }

 private:
  float* data_ = nullptr;
  size_t capacity_ = 0;
};

__global__ void absolute_values(const float* in, float* out, int64_t count) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    out[i] = fabsf(in[i]);
  }
}

void launch_absolute_values(const float* in, float* out, int64_t count) {
  if (count == 0) return;
  const int64_t blocks = (count + 255) / 256;
  absolute_values<<<unsigned(blocks < 4096 ? blocks : 4096), 256>>>(in, out, count);
  DIFF_CUDA(cudaGetLastError());
}

/// The case on cuBLAS. A row-major C is the column-major C^T = op(B)^T op(A)^T: the operands swap places and
/// keep their operations (a row-major X read column-major is X^T).
void cublas_gemm(cublasHandle_t handle, const case_spec& c, float alpha, const float* a, const float* b, float beta,
                 float* cc) {
  const cublasOperation_t op_a = c.op_a == op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_b = c.op_b == op::none ? CUBLAS_OP_N : CUBLAS_OP_T;
  if (c.order == layout::col_major) {
    DIFF_CUBLAS(cublasSgemm(handle, op_a, op_b, int(c.m), int(c.n), int(c.k), &alpha, a, int(c.lda), b, int(c.ldb),
                            &beta, cc, int(c.ldc)));
  } else {
    DIFF_CUBLAS(cublasSgemm(handle, op_b, op_a, int(c.n), int(c.m), int(c.k), &alpha, b, int(c.ldb), a, int(c.lda),
                            &beta, cc, int(c.ldc)));
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

/// C's padding, the elements before C and the guard after it must come back bit for bit.
void check_untouched(const case_spec& c, const std::vector<float>& out, const std::vector<float>& c0, verdict& v) {
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
    v.fail(std::to_string(changed) + " elements outside C (padding, before or after it) changed, first at buffer index " +
           std::to_string(first) + " (C starts at " + std::to_string(c.offset_c) + ")");
  }
}

/// C against cuBLAS: element by element and normwise, against error_factor(k) (|alpha| |A||B| + |beta| |C|).
void check_against_cublas(const case_spec& c, const std::vector<float>& out, const std::vector<float>& reference,
                          const std::vector<float>& abs_product, const std::vector<float>& c0, verdict& v) {
  // |A||B| is computed in float by cuBLAS: a sum of non-negative terms, low by at most k u relative, which the
  // 1 % slack covers up to k ~ 160,000.
  const double factor = tgemm::test::error_factor(c.k) * 1.01;
  const double floor = std::numeric_limits<float>::denorm_min();
  const bool reads = c.reads_operands();
  int64_t bad = 0, non_finite_reference = 0, worst_i = -1, worst_j = -1;
  double worst_ratio = 0, worst_got = 0, worst_expected = 0, worst_allowed = 0, error2 = 0, bound2 = 0;
  for (int64_t j = 0; j < c.n; ++j) {
    for (int64_t i = 0; i < c.m; ++i) {
      const size_t at = size_t(c.offset_c + tgemm::test::index_of(c.order, i, j, c.ldc));
      const double got = out[at], expected = reference[at];
      double magnitude = reads ? std::fabs(double(c.alpha)) * double(abs_product[at]) : 0.0;
      if (c.beta != 0.0f) magnitude += std::fabs(double(c.beta)) * std::fabs(double(c0[at]));
      if (!std::isfinite(expected)) {
        ++non_finite_reference;
        continue;
      }
      const double error = std::fabs(got - expected);
      const double allowed = factor * magnitude + floor;
      error2 += std::isfinite(error) ? error * error : std::numeric_limits<double>::infinity();
      bound2 += magnitude * magnitude;
      if (!std::isfinite(got) || !(error <= allowed)) {
        const double ratio = std::isfinite(error) ? error / allowed : std::numeric_limits<double>::infinity();
        if (bad++ == 0 || ratio > worst_ratio) {
          worst_ratio = ratio, worst_i = i, worst_j = j, worst_got = got, worst_expected = expected,
          worst_allowed = allowed;
        }
      }
    }
  }
  if (non_finite_reference > 0) {
    v.fail("cuBLAS produced " + std::to_string(non_finite_reference) + " non-finite elements (harness problem)");
  }
  if (bad > 0) {
    v.fail(std::to_string(bad) + " elements out of bound vs cuBLAS; worst C(" + std::to_string(worst_i) + ", " +
           std::to_string(worst_j) + ") = " + number(worst_got) + ", cuBLAS " + number(worst_expected) +
           ", allowed error " + number(worst_allowed) + " (" + number(worst_ratio) + "x)");
  }
  const double error_norm = std::sqrt(error2), bound_norm = factor * std::sqrt(bound2) + floor;
  if (!(error_norm <= bound_norm)) {
    v.fail("||C - cuBLAS||_F = " + number(error_norm) + " exceeds the normwise bound " + number(bound_norm));
  }
}

/// C against the float64 reference (reference.hpp: element by element and normwise).
void check_against_float64(const case_spec& c, const float* result, const tgemm::test::reference_result& ref,
                           const char* who, verdict& v) {
  const tgemm::test::comparison cmp = tgemm::test::compare(ref, result, c.order, c.m, c.n, c.k, c.ldc);
  if (!cmp.passed()) v.fail(std::string(who) + " vs the float64 reference: " + cmp.describe());
}

/// What can_implement<P>() must answer, by the documented rule: A and B (when read) aligned to the policy's
/// vector width with leading dimensions that are multiples of it; C only needs float alignment.
bool expected_to_accept(const case_spec& c, const gemm_path& path, const float* a, const float* b) {
  const auto fits = [&](const float* pointer, int64_t ld) {
    return reinterpret_cast<uintptr_t>(pointer) % (sizeof(float) * path.vector_width) == 0 &&
           ld % path.vector_width == 0;
  };
  return !c.reads_operands() || (fits(a, c.lda) && fits(b, c.ldb));
}

// ---------------------------------------------------------------------------------------------------------------
// The run.

struct options {
  uint64_t seed = 0;
  bool seed_given = false;
  int64_t cases = 10000;
  bool replay = false;
  int64_t replay_index = 0;
  bool small = false;
  bool use_cublas = true;
  bool verbose = false;
  bool self_test = false;
  bool list = false;
};

struct path_stats {
  int64_t runs = 0, refused = 0, failures = 0;
};

struct harness {
  options opt;
  std::string program;
  cublasHandle_t handle = nullptr;
  device_array d_a, d_b, d_abs_a, d_abs_b, d_c0, d_c, d_reference, d_abs_product;
  std::vector<float> h_a, h_b, h_c0, h_out, h_reference, h_abs_product;
  std::vector<path_stats> stats;
  int64_t printed_failures = 0, float64_checked = 0;

  std::string replay_of(const case_spec& c) const {
    return program + " --case " + std::to_string(c.seed) + ":" + std::to_string(c.index) +
           (opt.small ? " --small" : "") + (opt.use_cublas ? "" : " --no-cublas");
  }

  void report(const case_spec& c, const gemm_path* path, const std::string& why) {
    if (printed_failures++ >= 30 && !opt.replay) return;
    std::printf("FAILED case %llu:%lld, %s%s\n  reason: %s\n  case: %s\n  replay: %s\n",
                (unsigned long long)c.seed, (long long)c.index, path ? "path " : "reference",
                path ? (path->name + " [" + path->policy_name + "]").c_str() : "", why.c_str(), c.describe().c_str(),
                replay_of(c).c_str());
    std::fflush(stdout);
  }

  /// --self-test: the harness's own host logic, without a GPU. The float64 result rounded to float stands in for
  /// both tgemm and cuBLAS (and float64 |A||B| for cuBLAS's): every check must pass; then a wrong element, a
  /// changed padding element and a NaN must each be caught. Returns false (and says why) when the harness is wrong.
  bool self_test_case(const case_spec& c) {
    current_case = "case " + std::to_string(c.seed) + ":" + std::to_string(c.index) + " " + c.describe();
    rng data{c.data_seed};
    fill_operand(h_a, c.offset_a, c.order, c.op_a, c.m, c.k, c.lda, data, c.values, c.scale_a);
    fill_operand(h_b, c.offset_b, c.order, c.op_b, c.k, c.n, c.ldb, data, c.values, c.scale_b);
    fill_c(h_c0, c, data);
    if (c.empty() || c.work() > 4e6) return true;  // nothing to compare, or too slow for a host-only check
    const tgemm::test::reference_result ref =
        tgemm::test::reference_gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, h_a.data() + c.offset_a, c.lda,
                                    h_b.data() + c.offset_b, c.ldb, c.beta, h_c0.data() + c.offset_c, c.ldc);
    std::vector<float> abs_a(h_a.size()), abs_b(h_b.size());
    for (size_t i = 0; i < h_a.size(); ++i) abs_a[i] = std::fabs(h_a[i]);
    for (size_t i = 0; i < h_b.size(); ++i) abs_b[i] = std::fabs(h_b[i]);
    const tgemm::test::reference_result abs_ref =
        tgemm::test::reference_gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, 1.0f, abs_a.data() + c.offset_a, c.lda,
                                    abs_b.data() + c.offset_b, c.ldb, 0.0f, nullptr, c.ldc);
    h_out = h_c0;
    h_abs_product = h_c0;
    for (int64_t j = 0; j < c.n; ++j) {
      for (int64_t i = 0; i < c.m; ++i) {
        const size_t at = size_t(c.offset_c + tgemm::test::index_of(c.order, i, j, c.ldc));
        h_out[at] = float(ref.value[size_t(i + j * c.m)]);
        h_abs_product[at] = float(abs_ref.value[size_t(i + j * c.m)]);
      }
    }
    h_reference = h_out;
    const auto all_checks = [&](verdict& v) {
      check_untouched(c, h_out, h_c0, v);
      check_against_cublas(c, h_out, h_reference, h_abs_product, h_c0, v);
      check_against_float64(c, h_out.data() + c.offset_c, ref, "tgemm", v);
    };
    verdict clean;
    all_checks(clean);
    if (!clean.ok) {
      std::printf("SELF-TEST FAILED: correct data rejected: %s\n  %s\n", clean.why.c_str(), current_case.c_str());
      return false;
    }
    rng pick{c.data_seed ^ 0x5555u};
    const int64_t wi = pick.below(c.m), wj = pick.below(c.n);
    const size_t element = size_t(c.offset_c + tgemm::test::index_of(c.order, wi, wj, c.ldc));
    const float saved = h_out[element];
    // Off by far more than any bound allows (error factors stay below 0.02 for k <= 160,000).
    const float off = 1.0f + 0.1f * (std::fabs(saved) + float(ref.magnitude[size_t(wi + wj * c.m)]));
    bool caught = true;
    for (const float wrong : {saved + off, quiet_nan}) {
      h_out[element] = wrong;
      verdict v;
      all_checks(v);
      caught = caught && !v.ok;
    }
    h_out[element] = saved;
    const size_t outside = c.offset_c > 0 ? 0 : h_out.size() - 1;  // before C, or its guard
    h_out[outside] = 0.0f;
    {
      verdict v;
      all_checks(v);
      caught = caught && !v.ok;
    }
    if (!caught) std::printf("SELF-TEST FAILED: a planted error went unnoticed\n  %s\n", current_case.c_str());
    return caught;
  }

  /// Runs one case on every path; true when everything passed.
  bool run_case(const case_spec& c) {
    current_case = "case " + std::to_string(c.seed) + ":" + std::to_string(c.index) + " " + c.describe();
    replay_flag = replay_of(c);
    rng data{c.data_seed};
    fill_operand(h_a, c.offset_a, c.order, c.op_a, c.m, c.k, c.lda, data, c.values, c.scale_a);
    fill_operand(h_b, c.offset_b, c.order, c.op_b, c.k, c.n, c.ldb, data, c.values, c.scale_b);
    fill_c(h_c0, c, data);

    float* a = d_a.reserve(h_a.size());
    float* b = d_b.reserve(h_b.size());
    float* c0 = d_c0.reserve(h_c0.size());
    float* cc = d_c.reserve(h_c0.size());
    DIFF_CUDA(cudaMemcpy(a, h_a.data(), h_a.size() * sizeof(float), cudaMemcpyHostToDevice));
    DIFF_CUDA(cudaMemcpy(b, h_b.data(), h_b.size() * sizeof(float), cudaMemcpyHostToDevice));
    DIFF_CUDA(cudaMemcpy(c0, h_c0.data(), h_c0.size() * sizeof(float), cudaMemcpyHostToDevice));
    const size_t c_bytes = h_c0.size() * sizeof(float);
    bool passed = true;

    // cuBLAS: the result, and |A||B| for the error bound.
    if (opt.use_cublas && !c.empty()) {
      float* reference = d_reference.reserve(h_c0.size());
      DIFF_CUDA(cudaMemcpy(reference, c0, c_bytes, cudaMemcpyDeviceToDevice));
      cublas_gemm(handle, c, c.alpha, a + c.offset_a, b + c.offset_b, c.beta, reference + c.offset_c);
      h_reference.resize(h_c0.size());
      DIFF_CUDA(cudaMemcpy(h_reference.data(), reference, c_bytes, cudaMemcpyDeviceToHost));
      if (c.reads_operands()) {
        float* abs_a = d_abs_a.reserve(h_a.size());
        float* abs_b = d_abs_b.reserve(h_b.size());
        float* abs_product = d_abs_product.reserve(h_c0.size());
        launch_absolute_values(a, abs_a, int64_t(h_a.size()));
        launch_absolute_values(b, abs_b, int64_t(h_b.size()));
        DIFF_CUDA(cudaMemcpy(abs_product, c0, c_bytes, cudaMemcpyDeviceToDevice));  // beta = 0: never read
        cublas_gemm(handle, c, 1.0f, abs_a + c.offset_a, abs_b + c.offset_b, 0.0f, abs_product + c.offset_c);
        h_abs_product.resize(h_c0.size());
        DIFF_CUDA(cudaMemcpy(h_abs_product.data(), abs_product, c_bytes, cudaMemcpyDeviceToHost));
      }
    }

    // The float64 reference, for small cases (and always without cuBLAS).
    const bool use_float64 = !c.empty() && (!opt.use_cublas || c.work() < 1e6);
    tgemm::test::reference_result ref;
    if (use_float64) {
      ++float64_checked;
      ref = tgemm::test::reference_gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, h_a.data() + c.offset_a, c.lda,
                                        h_b.data() + c.offset_b, c.ldb, c.beta, h_c0.data() + c.offset_c, c.ldc);
      if (opt.use_cublas) {
        verdict v;
        check_against_float64(c, h_reference.data() + c.offset_c, ref, "cuBLAS", v);
        if (!v.ok) {
          report(c, nullptr, v.why + " (cuBLAS itself disagrees: a harness problem, not tgemm's)");
          passed = false;
        }
      }
    }

    const std::vector<gemm_path>& paths = tgemm::reliability::all_paths();
    for (size_t p = 0; p < paths.size(); ++p) {
      const gemm_path& path = paths[p];
      const float* pa = c.null_operands ? nullptr : a + c.offset_a;
      const float* pb = c.null_operands ? nullptr : b + c.offset_b;
      float* pc = cc + c.offset_c;
      verdict v;
      if (!path.dispatcher) {
        tgemm::detail::fail(status::success, cudaSuccess, "%s", "reset by the differential test");
        const status can = path.can_implement(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, pa, c.lda, pb, c.ldb,
                                              c.beta, pc, c.ldc);
        const bool expected = expected_to_accept(c, path, pa, pb);
        if ((can == status::success) != expected) {
          v.fail(std::string("can_implement returned ") + tgemm::to_string(can) + " (" + tgemm::last_error().message +
                 "), but the alignment rule says it should " + (expected ? "accept" : "refuse"));
        }
        if (can != status::success) {
          const status launched = path.run(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, pa, c.lda, pb, c.ldb,
                                           c.beta, pc, c.ldc, nullptr);
          if (launched != can) {
            v.fail(std::string("launch returned ") + tgemm::to_string(launched) + " where can_implement returned " +
                   tgemm::to_string(can));
          }
          ++stats[p].refused;
          if (!v.ok) {
            ++stats[p].failures;
            report(c, &path, v.why);
            passed = false;
          }
          continue;
        }
      }

      DIFF_CUDA(cudaMemcpy(cc, c0, c_bytes, cudaMemcpyDeviceToDevice));
      const status s =
          path.run(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, pa, c.lda, pb, c.ldb, c.beta, pc, c.ldc, nullptr);
      ++stats[p].runs;
      if (s != status::success) {
        v.fail(std::string("returned ") + tgemm::to_string(s) + ": " + tgemm::last_error().message);
      }
      const cudaError_t launch_error = cudaGetLastError();
      if (launch_error != cudaSuccess) {
        v.fail(std::string("cudaGetLastError() after the call: ") + cudaGetErrorName(launch_error));
      }
      const cudaError_t sync_error = cudaDeviceSynchronize();
      if (sync_error != cudaSuccess) {
        // A kernel fault is sticky: nothing after it can run in this process.
        report(c, &path, std::string("the kernel failed: ") + cudaGetErrorName(sync_error) + ": " +
                             cudaGetErrorString(sync_error));
        std::printf("0 passed, 1 failed\n");
        std::exit(1);
      }
      h_out.resize(h_c0.size());
      DIFF_CUDA(cudaMemcpy(h_out.data(), cc, c_bytes, cudaMemcpyDeviceToHost));
      if (s == status::success) {
        check_untouched(c, h_out, h_c0, v);
        if (opt.use_cublas && !c.empty()) check_against_cublas(c, h_out, h_reference, h_abs_product, h_c0, v);
        if (use_float64) check_against_float64(c, h_out.data() + c.offset_c, ref, "tgemm", v);
      }
      if (!v.ok) {
        ++stats[p].failures;
        report(c, &path, v.why);
        passed = false;
      } else if (opt.verbose) {
        std::printf("  ok: %s\n", path.name.c_str());
      }
    }
    return passed;
  }
};

void usage(const char* program) {
  std::printf(
      "usage: %s [--seed N] [--cases N] [--case SEED:INDEX] [--small] [--no-cublas] [--verbose] [--self-test] [--list]\n"
      "  --seed N          the run's seed (default: TGEMM_TEST_SEED, else a fresh one)\n"
      "  --cases N         number of random cases (default 10000)\n"
      "  --case SEED:INDEX replay one case of a run, printing every path\n"
      "  --small           small shapes only (for compute-sanitizer)\n"
      "  --no-cublas       compare with the float64 host reference only\n"
      "  --verbose         print every case\n"
      "  --self-test       check the harness itself on the host (no GPU): generation, reference, comparisons\n"
      "  --list            print the run's cases without running them (no GPU needed)\n",
      program);
}

bool parse_unsigned(const char* text, uint64_t& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  out = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0';
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
      h.opt.cases = int64_t(value), ++i;
    } else if (arg == "--case" && i + 1 < argc) {
      const std::string text = argv[++i];
      const size_t colon = text.find(':');
      uint64_t index = 0;
      if (colon == std::string::npos || !parse_unsigned(text.substr(0, colon).c_str(), value) ||
          !parse_unsigned(text.substr(colon + 1).c_str(), index)) {
        usage(argv[0]);
        return 2;
      }
      h.opt.seed = value, h.opt.seed_given = true, h.opt.replay = true, h.opt.replay_index = int64_t(index);
      h.opt.verbose = true;
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
  if (!h.opt.seed_given) {
    if (const char* text = std::getenv("TGEMM_TEST_SEED"); text != nullptr && parse_unsigned(text, h.opt.seed)) {
      h.opt.seed_given = true;
    } else {
      std::random_device device;
      h.opt.seed = (uint64_t(device()) << 32) ^ device();
    }
  }

  if (h.opt.list) {
    for (int64_t index = 0; index < h.opt.cases; ++index) {
      const case_spec c = make_case(h.opt.seed, index, h.opt.small);
      std::printf("%llu:%lld %s\n", (unsigned long long)c.seed, (long long)index, c.describe().c_str());
    }
    return 0;
  }
  if (h.opt.self_test) {
    int64_t passed = 0, failed = 0;
    for (int64_t index = 0; index < h.opt.cases; ++index) {
      if (h.self_test_case(make_case(h.opt.seed, index, h.opt.small))) ++passed;
      else ++failed;
    }
    std::printf("self-test: seed %llu, %lld cases\n%lld passed, %lld failed\n", (unsigned long long)h.opt.seed,
                (long long)h.opt.cases, (long long)passed, (long long)failed);
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

  if (h.opt.use_cublas) {
    DIFF_CUBLAS(cublasCreate(&h.handle));
    // FP32 inputs, FP32 products and sums: no TF32 (CUBLAS_TF32_TENSOR_OP_MATH), whatever the defaults become.
    DIFF_CUBLAS(cublasSetMathMode(h.handle, CUBLAS_DEFAULT_MATH));
  }
  const std::vector<gemm_path>& paths = tgemm::reliability::all_paths();
  h.stats.assign(paths.size(), path_stats{});
  std::printf("differential: seed %llu, %s; reference: %s; %zu paths:\n", (unsigned long long)h.opt.seed,
              h.opt.replay ? ("replaying case " + std::to_string(h.opt.replay_index)).c_str()
                           : (std::to_string(h.opt.cases) + " cases").c_str(),
              h.opt.use_cublas ? "cuBLAS cublasSgemm (CUBLAS_DEFAULT_MATH) + float64 for m*n*k < 1e6" : "float64",
              paths.size());
  for (const gemm_path& path : paths) std::printf("  %s  [%s]\n", path.name.c_str(), path.policy_name.c_str());
  std::printf("replay this run with: %s --seed %llu --cases %lld%s%s\n", argv[0], (unsigned long long)h.opt.seed,
              (long long)h.opt.cases, h.opt.small ? " --small" : "", h.opt.use_cublas ? "" : " --no-cublas");
  std::fflush(stdout);

  const auto start = std::chrono::steady_clock::now();
  int64_t passed = 0, failed = 0;
  const int64_t first = h.opt.replay ? h.opt.replay_index : 0;
  const int64_t last = h.opt.replay ? h.opt.replay_index + 1 : h.opt.cases;
  for (int64_t index = first; index < last; ++index) {
    const case_spec c = make_case(h.opt.seed, index, h.opt.small);
    if (h.opt.verbose) std::printf("case %llu:%lld: %s\n", (unsigned long long)c.seed, (long long)index, c.describe().c_str());
    if (h.run_case(c)) ++passed;
    else ++failed;
    if (!h.opt.replay && (index + 1) % 1000 == 0) {
      std::printf("  %lld cases, %lld failed, %.1f s\n", (long long)(index + 1), (long long)failed,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::fflush(stdout);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("per path (runs, refused by can_implement, failures):\n");
  bool every_path_ran = true;
  for (size_t p = 0; p < paths.size(); ++p) {
    std::printf("  %-60s %7lld %7lld %5lld\n", paths[p].name.c_str(), (long long)h.stats[p].runs,
                (long long)h.stats[p].refused, (long long)h.stats[p].failures);
    every_path_ran = every_path_ran && h.stats[p].runs > 0;
  }
  if (!h.opt.replay && h.opt.cases >= 20 && !every_path_ran) {
    std::printf("FAILED: some path never ran (every policy must accept some of the cases)\n");
    ++failed;
  }
  std::printf("differential: seed %llu, %lld cases in %.1f s, %lld of them also against float64\n",
              (unsigned long long)h.opt.seed, (long long)(last - first), seconds, (long long)h.float64_checked);
  if (h.handle != nullptr) cublasDestroy(h.handle);
  std::printf("%lld passed, %lld failed\n", (long long)passed, (long long)failed);
  return failed == 0 ? 0 : 1;
}
