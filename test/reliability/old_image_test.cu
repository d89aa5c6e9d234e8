// "Unsupported device": this executable carries its kernels only as PTX for compute_75 (CUDA_ARCHITECTURES
// 75-virtual), which any newer GPU compiles at load time. The code that runs is then Turing's, without the tensor-core
// instructions of sm_80: tgemm::gemm() reads the running image's version (its architecture probe) and must refuse
// every call that needs them (half, bfloat16, TF32, 3xTF32, double) with status::unsupported_device and a message
// naming sm_80, leave C untouched and leave no CUDA error behind, while strict FP32 (SIMT) still computes C. This is
// how the named status is checked without a pre-sm_80 GPU: the decision is made on the image, not the device.
//
// No Catch2 (one small main): exit status 0 when every check passed, 1 otherwise, also without a GPU.
#include <tgemm/gemm.cuh>

#include "require_gpu.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

constexpr int64_t m = 64, n = 48, k = 32;

/// Device copies of A (m x k), B (k x n) and C (m x n), column-major, of type T: A and B hold small nonzero values,
/// C a pattern that a write would change.
template <class T>
struct operands {
  T *a = nullptr, *b = nullptr, *c = nullptr;
  std::vector<T> c_before;
  operands() {
    std::vector<T> host_a(size_t(m * k)), host_b(size_t(k * n));
    c_before.resize(size_t(m * n));
    for (size_t i = 0; i < host_a.size(); ++i) host_a[i] = T(float(int(i % 7) - 3) * 0.25f + 0.125f);
    for (size_t i = 0; i < host_b.size(); ++i) host_b[i] = T(float(int(i % 5) - 2) * 0.5f + 0.25f);
    for (size_t i = 0; i < c_before.size(); ++i) c_before[i] = T(float(i % 11) - 5.5f);
    const bool ok = cudaMalloc(&a, host_a.size() * sizeof(T)) == cudaSuccess &&
                    cudaMalloc(&b, host_b.size() * sizeof(T)) == cudaSuccess &&
                    cudaMalloc(&c, c_before.size() * sizeof(T)) == cudaSuccess &&
                    cudaMemcpy(a, host_a.data(), host_a.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess &&
                    cudaMemcpy(b, host_b.data(), host_b.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess &&
                    cudaMemcpy(c, c_before.data(), c_before.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess;
    check(ok, "allocating and filling the operands");
  }
  ~operands() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  bool c_untouched() const {
    std::vector<T> after(c_before.size());
    if (cudaMemcpy(after.data(), c, after.size() * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) return false;
    return std::memcmp(after.data(), c_before.data(), after.size() * sizeof(T)) == 0;
  }
};

/// One call that needs tensor cores: it must be refused as described above.
template <class T, class Scalar>
void expect_refused(const char* what, tgemm::math_mode math = tgemm::math_mode::strict) {
  operands<T> x;
  tgemm::options opts;
  opts.math = math;
  const tgemm::status got = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, Scalar(1),
                                        x.a, m, x.b, k, Scalar(0), x.c, m, nullptr, opts);
  const tgemm::error_info e = tgemm::last_error();
  std::printf("%s: %s: %s\n", what, tgemm::to_string(got), e.message.c_str());
  check(got == tgemm::status::unsupported_device,
        std::string(what) + " returned unsupported_device (got " + tgemm::to_string(got) + ")");
  check(e.code == tgemm::status::unsupported_device && e.message.find("sm_80") != std::string::npos,
        std::string(what) + ": last_error() names the sm_80 instructions it needs");
  const cudaError_t pending = cudaGetLastError();
  check(pending == cudaSuccess, std::string(what) + ": no CUDA error left pending (" + cudaGetErrorName(pending) + ")");
  check(cudaDeviceSynchronize() == cudaSuccess && x.c_untouched(), std::string(what) + ": C is untouched");
}

}  // namespace

int main() {
  if (!tgemm::test::usable_gpu_or_explain()) return 1;
  int major = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  std::printf("device 0 has compute capability %d.x; this executable carries %s as PTX only\n", major,
              tgemm::compiled_architectures().c_str());
  check(tgemm::compiled_architectures() == "sm_75", "the executable is built for compute_75 only");
  if (major < 8) {
    std::fprintf(stderr, "FAILED: device 0 is older than sm_80: the test needs a GPU that has what the image lacks\n");
    return 1;
  }

  expect_refused<__nv_bfloat16, float>("bfloat16 gemm()");
  expect_refused<__half, float>("half gemm()");
  expect_refused<float, float>("float gemm() with math_mode::tf32", tgemm::math_mode::tf32);
  expect_refused<float, float>("float gemm() with math_mode::tf32x3", tgemm::math_mode::tf32x3);
  expect_refused<double, double>("double gemm()");

  // Strict FP32 needs no tensor core: it runs on the same image, and C is right (integers and quarters: exact).
  operands<float> x;
  const tgemm::status got = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f, x.a,
                                        m, x.b, k, 0.0f, x.c, m);
  check(got == tgemm::status::success, std::string("strict float gemm() succeeds (got ") + tgemm::to_string(got) + ")");
  std::vector<float> host_a(size_t(m * k)), host_b(size_t(k * n)), c(size_t(m * n));
  cudaMemcpy(host_a.data(), x.a, host_a.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(host_b.data(), x.b, host_b.size() * sizeof(float), cudaMemcpyDeviceToHost);
  check(cudaMemcpy(c.data(), x.c, c.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess,
        "reading C back");
  int64_t wrong = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double expected = 0;
      for (int64_t l = 0; l < k; ++l) expected += double(host_a[size_t(i + l * m)]) * double(host_b[size_t(l + j * k)]);
      if (!(std::fabs(double(c[size_t(i + j * m)]) - expected) == 0.0)) ++wrong;
    }
  }
  check(wrong == 0, "strict float gemm()'s C equals the float64 loop exactly (" + std::to_string(wrong) + " differ)");
  std::printf("%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
