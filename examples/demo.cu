// tgemm_demo: one square SGEMM with tgemm next to the same SGEMM with cuBLAS.
//
//   tgemm_demo [n]        (n defaults to 4096)
//
// Computes C = alpha * A * B + beta * C (column-major, no transposes) with tgemm::gemm() and with
// cublasSgemm() in strict FP32 (no TF32), checks tgemm's result against cuBLAS's and a few entries against a
// float64 dot product on the host, then times both. Exits with status 1 if anything fails or disagrees.
#include <tgemm/gemm.cuh>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

// ---- Error checks: every call is checked, and a failure names the call and its reason. ---------------------

void check_cuda(cudaError_t error, const char* call, int line) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "demo.cu:%d: %s failed: %s (%s)\n", line, call, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(EXIT_FAILURE);
}

void check_cublas(cublasStatus_t status, const char* call, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "demo.cu:%d: %s failed: %s (%s)\n", line, call, cublasGetStatusName(status),
               cublasGetStatusString(status));
  std::exit(EXIT_FAILURE);
}

void check_tgemm(tgemm::status status, const char* call, int line) {
  if (status == tgemm::status::success) return;
  // The status says what kind of failure; last_error() says which argument or CUDA call, and why.
  std::fprintf(stderr, "demo.cu:%d: %s failed: %s: %s\n", line, call, tgemm::to_string(status),
               tgemm::last_error().message.c_str());
  std::exit(EXIT_FAILURE);
}

#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)
#define CHECK_CUBLAS(call) check_cublas((call), #call, __LINE__)
#define CHECK_TGEMM(call) check_tgemm((call), #call, __LINE__)

// ---- Small helpers. ---------------------------------------------------------------------------------------

/// Device memory for `count` floats, freed when it goes out of scope.
class device_floats {
 public:
  explicit device_floats(size_t count) { CHECK_CUDA(cudaMalloc(&data_, count * sizeof(float))); }
  device_floats(const device_floats&) = delete;
  device_floats& operator=(const device_floats&) = delete;
  ~device_floats() { cudaFree(data_); }
  float* get() const { return data_; }

 private:
  float* data_ = nullptr;
};

/// Random values in [-1, -0.25] and [0.25, 1]: never zero, so no product term silently drops out and an
/// element the kernel forgets to write cannot pass for a correct one.
std::vector<float> random_matrix(size_t count, std::mt19937& generator) {
  std::uniform_real_distribution<float> magnitude(0.25f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> values(count);
  for (float& x : values) x = negative(generator) ? -magnitude(generator) : magnitude(generator);
  return values;
}

double frobenius_norm(const std::vector<float>& x) {
  double sum = 0.0;
  for (float v : x) sum += double(v) * double(v);
  return std::sqrt(sum);
}

double median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  const size_t half = values.size() / 2;
  return values.size() % 2 == 1 ? values[half] : 0.5 * (double(values[half - 1]) + double(values[half]));
}

/// Times `launch` on `stream`: a few warm-up calls, then `runs` calls each bracketed by events. Returns the
/// median time in milliseconds.
template <class Launch>
double time_median_ms(cudaStream_t stream, int runs, Launch launch) {
  for (int i = 0; i < 3; ++i) launch();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<float> times(size_t(runs), 0.0f);
  for (float& ms : times) {
    CHECK_CUDA(cudaEventRecord(start, stream));
    launch();
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  }
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 4096;
  if (argc > 1) {
    char* end = nullptr;
    const long long value = std::strtoll(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || value < 1 || value > 32768) {
      std::fprintf(stderr, "usage: %s [n]   (1 <= n <= 32768, default 4096)\n", argv[0]);
      return EXIT_FAILURE;
    }
    n = value;
  }
  const int64_t m = n, k = n;
  const int64_t lda = m, ldb = k, ldc = m;  // column-major, tightly packed
  const float alpha = 0.75f, beta = 0.5f;   // both non-trivial, so the whole BLAS update is exercised
  const size_t elements = size_t(n) * size_t(n);

  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  CHECK_CUDA(cudaGetDeviceProperties(&properties, device));
  std::printf("device   : %s (sm_%d%d)\n", properties.name, properties.major, properties.minor);
  std::printf("tgemm    : %s, device code for %s\n", tgemm::version_string,
              tgemm::compiled_architectures().c_str());
  std::printf("problem  : C = %.2f * A * B + %.2f * C, m = n = k = %lld, column-major, FP32\n", double(alpha),
              double(beta), (long long)n);

  // ---- Inputs: the same A, B and C for both libraries. -----------------------------------------------------
  std::mt19937 generator(20260101u);
  const std::vector<float> a = random_matrix(elements, generator);
  const std::vector<float> b = random_matrix(elements, generator);
  const std::vector<float> c = random_matrix(elements, generator);

  device_floats d_a(elements), d_b(elements), d_c(elements), d_c_tgemm(elements), d_c_cublas(elements);
  CHECK_CUDA(cudaMemcpy(d_a.get(), a.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_b.get(), b.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_c.get(), c.data(), elements * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_c_tgemm.get(), d_c.get(), elements * sizeof(float), cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemcpy(d_c_cublas.get(), d_c.get(), elements * sizeof(float), cudaMemcpyDeviceToDevice));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  // ---- cuBLAS in strict FP32. ------------------------------------------------------------------------------
  // CUBLAS_DEFAULT_MATH computes single precision in single precision: TF32 tensor cores are only used when
  // a handle opts in with CUBLAS_TF32_TENSOR_OP_MATH. Set it explicitly and read it back, so nothing upstream
  // (a changed default, a shared handle) can slip reduced precision into the reference.
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, stream));
  CHECK_CUBLAS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  cublasMath_t math_mode = CUBLAS_TF32_TENSOR_OP_MATH;
  CHECK_CUBLAS(cublasGetMathMode(handle, &math_mode));
  if (math_mode != CUBLAS_DEFAULT_MATH) {
    std::fprintf(stderr, "cuBLAS math mode is %d, not CUBLAS_DEFAULT_MATH: refusing to compare\n", int(math_mode));
    return EXIT_FAILURE;
  }

  // ---- One call each, on identical inputs. -----------------------------------------------------------------
  const auto run_tgemm = [&](float* c_out) {
    //! [first_call]
    CHECK_TGEMM(tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, alpha,
                            d_a.get(), lda, d_b.get(), ldb, beta, c_out, ldc, stream));
    //! [first_call]
  };
  const auto run_cublas = [&](float* c_out) {
    CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n), int(k), &alpha, d_a.get(), int(lda),
                             d_b.get(), int(ldb), &beta, c_out, int(ldc)));
  };

  run_tgemm(d_c_tgemm.get());
  run_cublas(d_c_cublas.get());
  // Launch errors come back from the calls themselves; errors while the kernels run surface here.
  CHECK_CUDA(cudaStreamSynchronize(stream));

  std::vector<float> c_tgemm(elements), c_cublas(elements);
  CHECK_CUDA(cudaMemcpy(c_tgemm.data(), d_c_tgemm.get(), elements * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(c_cublas.data(), d_c_cublas.get(), elements * sizeof(float), cudaMemcpyDeviceToHost));

  // ---- Verification 1: normwise, tgemm against cuBLAS. -----------------------------------------------------
  // Each FP32 result differs from the exact one by at most about k * u * (|alpha| |A| |B| + |beta| |C|)
  // elementwise (u = FLT_EPSILON / 2), so in the Frobenius norm the two results are within
  // 2 * (k + 2) * u * (|alpha| ||A|| ||B|| + |beta| ||C||) of each other. That bound is rigorous, hence loose for
  // random data (errors grow like sqrt(k) in practice), but any indexing or synchronisation bug breaks it by
  // orders of magnitude.
  bool ok = true;
  double difference = 0.0;
  size_t non_finite = 0;
  for (size_t i = 0; i < elements; ++i) {
    if (!std::isfinite(c_tgemm[i])) ++non_finite;
    const double d = double(c_tgemm[i]) - double(c_cublas[i]);
    difference += d * d;
  }
  difference = std::sqrt(difference);
  const double scale = std::fabs(double(alpha)) * frobenius_norm(a) * frobenius_norm(b) +
                       std::fabs(double(beta)) * frobenius_norm(c);
  const double relative = difference / scale;
  const double bound = double(k + 2) * double(FLT_EPSILON);
  const bool normwise_ok = non_finite == 0 && relative <= bound;
  ok = ok && normwise_ok;
  std::printf("check    : ||C_tgemm - C_cublas|| / (|alpha| ||A|| ||B|| + |beta| ||C||) = %.3e (bound %.3e) %s\n",
              relative, bound, normwise_ok ? "ok" : "FAILED");
  if (non_finite != 0) std::printf("check    : %zu non-finite elements in tgemm's C: FAILED\n", non_finite);

  // ---- Verification 2: a few entries against a float64 dot product. ---------------------------------------
  const int64_t picks[][2] = {{0, 0}, {m - 1, n - 1}, {m - 1, 0}, {0, n - 1}, {m / 2, n / 3}, {m / 3, n / 2},
                              {(m * 7) / 11, (n * 5) / 13}, {m - 2 > 0 ? m - 2 : 0, 1 < n ? 1 : 0}};
  int spot_failures = 0;
  double worst = 0.0;
  for (const auto& pick : picks) {
    const int64_t i = pick[0], j = pick[1];
    double dot = 0.0, magnitude = 0.0;
    for (int64_t l = 0; l < k; ++l) {
      const double product = double(a[size_t(i + l * lda)]) * double(b[size_t(l + j * ldb)]);
      dot += product;
      magnitude += std::fabs(product);
    }
    const double c_old = double(c[size_t(i + j * ldc)]);
    const double exact = double(alpha) * dot + double(beta) * c_old;
    // Elementwise FP32 bound: (k + 2) * eps * (|alpha| sum |a||b| + |beta| |c|), twice the textbook gamma.
    const double tolerance =
        double(k + 2) * double(FLT_EPSILON) * (std::fabs(double(alpha)) * magnitude + std::fabs(double(beta) * c_old));
    for (const float got : {c_tgemm[size_t(i + j * ldc)], c_cublas[size_t(i + j * ldc)]}) {
      const double error = std::fabs(double(got) - exact);
      worst = std::max(worst, error / tolerance);
      if (!(error <= tolerance)) ++spot_failures;  // also catches NaN
    }
  }
  ok = ok && spot_failures == 0;
  std::printf("check    : %zu entries of each result against float64 dot products: worst error %.3f of its bound %s\n",
              sizeof picks / sizeof picks[0], worst, spot_failures == 0 ? "ok" : "FAILED");

  // ---- Timing: warm-up, then the median of 25 launches each. -----------------------------------------------
  // The timed calls write into the verified buffers again; with beta = 0.5 the values stay bounded.
  const int runs = 25;
  const double ms_tgemm = time_median_ms(stream, runs, [&] { run_tgemm(d_c_tgemm.get()); });
  const double ms_cublas = time_median_ms(stream, runs, [&] { run_cublas(d_c_cublas.get()); });
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const double tflops_tgemm = flops / (ms_tgemm * 1e-3) / 1e12;
  const double tflops_cublas = flops / (ms_cublas * 1e-3) / 1e12;
  std::printf("time     : tgemm  %9.3f ms  %7.2f TFLOP/s   (median of %d)\n", ms_tgemm, tflops_tgemm, runs);
  std::printf("time     : cuBLAS %9.3f ms  %7.2f TFLOP/s   (median of %d, CUBLAS_DEFAULT_MATH)\n", ms_cublas,
              tflops_cublas, runs);
  std::printf("ratio    : tgemm reaches %.1f%% of cuBLAS\n", 100.0 * tflops_tgemm / tflops_cublas);

  CHECK_CUBLAS(cublasDestroy(handle));
  CHECK_CUDA(cudaStreamDestroy(stream));

  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
