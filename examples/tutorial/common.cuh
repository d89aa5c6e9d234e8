// common.cuh: the few helpers every tutorial step shares. None of this is part of tgemm.
//
//   TUTORIAL_CHECK(call)   stops the program with the call's text when a CUDA call fails;
//   problem                random row-major A (m x k) and B (k x n) on the host and the device, and a device C;
//   check_product()        compares a result with a float64 dot product computed on the host;
//   median_ms()            times a launch with CUDA events: warm-up, then the median of several launches.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tutorial {

inline void check_cuda(cudaError_t error, const char* call, const char* file, int line) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(EXIT_FAILURE);
}
#define TUTORIAL_CHECK(call) ::tutorial::check_cuda((call), #call, __FILE__, __LINE__)

/// The problem size from the command line (`program [n]`), or `fallback`. Kept below 16384 so that the tutorial
/// kernels can index with plain int.
inline int size_argument(int argc, char** argv, int fallback) {
  if (argc < 2) return fallback;
  char* end = nullptr;
  const long value = std::strtol(argv[1], &end, 10);
  if (end == argv[1] || *end != '\0' || value < 1 || value > 16384) {
    std::fprintf(stderr, "usage: %s [n]   (1 <= n <= 16384, default %d)\n", argv[0], fallback);
    std::exit(EXIT_FAILURE);
  }
  return int(value);
}

/// `count` pseudo-random floats in [-1, 1), the same for a given seed on every run (a hash of the index).
inline std::vector<float> random_values(size_t count, uint64_t seed) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    values[i] = float(int64_t(x >> 40) - (int64_t(1) << 23)) / float(1 << 23);  // 24 random bits, signed
  }
  return values;
}

/// Device memory for `count` floats, freed at the end of its scope.
class device_buffer {
 public:
  explicit device_buffer(size_t count) : count_(count) { TUTORIAL_CHECK(cudaMalloc(&data_, count * sizeof(float))); }
  explicit device_buffer(const std::vector<float>& host) : device_buffer(host.size()) {
    TUTORIAL_CHECK(cudaMemcpy(data_, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { cudaFree(data_); }

  float* data() const { return data_; }
  std::vector<float> to_host() const {  // waits for the work that writes the buffer
    std::vector<float> host(count_);
    TUTORIAL_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(float), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  size_t count_;
  float* data_ = nullptr;
};

/// Where element (i, j) of a host matrix lives: data[i * row_stride + j * col_stride]. A row-major matrix with
/// leading dimension ld is {data, ld, 1}; a column-major one is {data, 1, ld}.
struct host_view {
  const float* data;
  int64_t row_stride;
  int64_t col_stride;
  double operator()(int64_t i, int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

/// What a step computes from the exact dot product: by default the plain product C = A B. `magnitude` is
/// sum_l |a_il b_lj|, the scale of the rounding error; an epilogue that adds terms adds their size to it.
struct expected_value {
  double value;
  double magnitude;
};
struct plain_product {
  expected_value operator()(int64_t, int64_t, double dot, double magnitude) const { return {dot, magnitude}; }
};

/// Checks an m x n result against float64 dot products on the host. Up to 512 rows (columns) every row (column)
/// is checked; beyond that 64 rows and 64 columns spread over the matrix, first and last included.
///
/// k FP32 multiply-adds round k times, so each element may differ from the exact value by about k * FLT_EPSILON / 2
/// times its magnitude. The bound used is twice that, with room for the epilogue: (k + 4) * FLT_EPSILON, element by
/// element and in the Frobenius norm over the checked elements. An indexing or synchronisation bug misses it by
/// orders of magnitude.
template <class Epilogue = plain_product>
bool check_product(const char* label, int64_t m, int64_t n, int64_t k, host_view a, host_view b, host_view c,
                   Epilogue epilogue = {}) {
  const auto spread = [](int64_t extent) {
    std::vector<int64_t> picks;
    const int64_t count = extent <= 512 ? extent : 64;
    for (int64_t s = 0; s < count; ++s) picks.push_back(count == extent ? s : s * (extent - 1) / (count - 1));
    return picks;
  };
  const std::vector<int64_t> rows = spread(m), cols = spread(n);
  // Copy the sampled columns of B once, so the dot products below read memory in order.
  std::vector<double> b_cols(cols.size() * size_t(k));
  for (size_t j = 0; j < cols.size(); ++j) {
    for (int64_t l = 0; l < k; ++l) b_cols[j * size_t(k) + size_t(l)] = b(l, cols[j]);
  }
  const double factor = double(k + 4) * double(FLT_EPSILON);
  double error2 = 0.0, magnitude2 = 0.0, worst = 0.0;
  int64_t bad = 0;
  std::vector<double> a_row(static_cast<size_t>(k));
  for (const int64_t i : rows) {
    for (int64_t l = 0; l < k; ++l) a_row[size_t(l)] = a(i, l);
    for (size_t j = 0; j < cols.size(); ++j) {
      double dot = 0.0, magnitude = 0.0;
      for (int64_t l = 0; l < k; ++l) {
        const double product = a_row[size_t(l)] * b_cols[j * size_t(k) + size_t(l)];
        dot += product;
        magnitude += std::fabs(product);
      }
      const expected_value expected = epilogue(i, cols[j], dot, magnitude);
      const double got = c(i, cols[j]);
      const double error = std::fabs(got - expected.value);
      const double allowed = factor * expected.magnitude + double(FLT_MIN);
      if (!(error <= allowed)) {  // NaN fails too
        if (bad < 3) std::printf("  C(%lld, %lld) = %.8g, expected %.8g\n", (long long)i, (long long)cols[j], got,
                                 expected.value);
        ++bad;
      }
      worst = std::max(worst, error / allowed);
      error2 += error * error;
      magnitude2 += expected.magnitude * expected.magnitude;
    }
  }
  const double normwise = std::sqrt(error2) / std::max(std::sqrt(magnitude2), double(FLT_MIN));
  const bool ok = bad == 0 && normwise <= factor;
  std::printf("check  : %-26s %lld x %lld x %lld, %zu elements vs float64: worst %.3f of bound, "
              "normwise %.2e (bound %.2e) %s\n",
              label, (long long)m, (long long)n, (long long)k, rows.size() * cols.size(), worst, normwise, factor,
              ok ? "ok" : "FAILED");
  return ok;
}

/// A GEMM problem: random row-major A (m x k) and B (k x n) on the host and the device, and a device C (m x n).
struct problem {
  int m, n, k;
  std::vector<float> a, b;
  device_buffer d_a, d_b, d_c;

  problem(int rows, int cols, int depth)
      : m(rows), n(cols), k(depth),
        a(random_values(size_t(m) * size_t(k), 1)), b(random_values(size_t(k) * size_t(n), 2)),
        d_a(a), d_b(b), d_c(size_t(m) * size_t(n)) {
    clear_c();
  }

  /// Fills C with NaN (every byte 0xFF), so an element a kernel forgets to write cannot pass the check.
  void clear_c() { TUTORIAL_CHECK(cudaMemset(d_c.data(), 0xFF, size_t(m) * size_t(n) * sizeof(float))); }

  /// Checks that `c` (row-major, m x n; d_c by default) holds A B.
  bool check(const char* label, const device_buffer* c = nullptr) const {
    const std::vector<float> result = (c != nullptr ? c : &d_c)->to_host();
    return check_product(label, m, n, k, host_view{a.data(), k, 1}, host_view{b.data(), n, 1},
                         host_view{result.data(), n, 1});
  }
};

/// Runs `launch` twice to warm up, then `runs` times, each between two CUDA events recorded on `stream`.
/// Returns the median time in milliseconds.
template <class Launch>
double median_ms(Launch&& launch, int runs = 10, cudaStream_t stream = nullptr) {
  for (int i = 0; i < 2; ++i) launch();
  TUTORIAL_CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  TUTORIAL_CHECK(cudaEventCreate(&start));
  TUTORIAL_CHECK(cudaEventCreate(&stop));
  std::vector<float> times(static_cast<size_t>(runs));
  for (float& ms : times) {
    TUTORIAL_CHECK(cudaEventRecord(start, stream));
    launch();
    TUTORIAL_CHECK(cudaEventRecord(stop, stream));
    TUTORIAL_CHECK(cudaEventSynchronize(stop));
    TUTORIAL_CHECK(cudaEventElapsedTime(&ms, start, stop));
  }
  TUTORIAL_CHECK(cudaEventDestroy(start));
  TUTORIAL_CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return runs % 2 == 1 ? times[size_t(runs / 2)] : 0.5 * (double(times[size_t(runs / 2 - 1)]) + times[size_t(runs / 2)]);
}

/// Prints one timing line: milliseconds and TFLOP/s (2 m n k floating-point operations per GEMM).
inline void print_time(const char* label, int64_t m, int64_t n, int64_t k, double ms, int runs = 10) {
  const double tflops = 2.0 * double(m) * double(n) * double(k) / (ms * 1e-3) / 1e12;
  std::printf("time   : %-26s %10.3f ms %8.3f TFLOP/s   (median of %d)\n", label, ms, tflops, runs);
}

/// Prints PASS or FAIL and gives the exit status.
inline int finish(bool ok) {
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

/// Prints the GPU's name and compute capability.
inline void print_device() {
  int device = 0;
  TUTORIAL_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  TUTORIAL_CHECK(cudaGetDeviceProperties(&properties, device));
  std::printf("device : %s (sm_%d%d, %d SMs)\n", properties.name, properties.major, properties.minor,
              properties.multiProcessorCount);
}

/// The current GPU's architecture as __CUDA_ARCH__ spells it: 900 for sm_90, 860 for sm_86.
inline int device_arch() {
  int device = 0, major = 0, minor = 0;
  TUTORIAL_CHECK(cudaGetDevice(&device));
  TUTORIAL_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  TUTORIAL_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 100 + minor * 10;
}

/// Random values in [-1, 1) rounded to bf16 on the device (steps 12 and 13), and widened back to float for the host
/// check (exactly: a bf16 is a float with its low 16 bits zero).
struct bf16_matrix {
  std::vector<float> values;
  __nv_bfloat16* device = nullptr;

  bf16_matrix(size_t count, uint64_t seed) : values(random_values(count, seed)) {
    std::vector<__nv_bfloat16> rounded(count);
    for (size_t i = 0; i < count; ++i) {
      rounded[i] = __float2bfloat16(values[i]);
      values[i] = __bfloat162float(rounded[i]);
    }
    TUTORIAL_CHECK(cudaMalloc(&device, count * sizeof(__nv_bfloat16)));
    TUTORIAL_CHECK(cudaMemcpy(device, rounded.data(), count * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  }
  bf16_matrix(const bf16_matrix&) = delete;
  bf16_matrix& operator=(const bf16_matrix&) = delete;
  ~bf16_matrix() { cudaFree(device); }
};

}  // namespace tutorial
