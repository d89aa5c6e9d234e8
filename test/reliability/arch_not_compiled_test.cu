// "Architecture not compiled": this executable is built for sm_75 machine code only, with no PTX
// (CUDA_ARCHITECTURES 75-real, i.e. nvcc --generate-code=arch=compute_75,code=[sm_75]), and runs on a GPU that
// cannot execute it (any GPU newer than Turing: sm_80, sm_90, ...). Every tgemm call that reaches the device must
// return status::arch_not_compiled, with a message that names the device's architecture and the compiled list,
// leave C untouched and leave no CUDA error behind.
//
// No Catch2 (one small main): exit status 0 when every check passed, 1 otherwise, also without a GPU.
#include <tgemm/gemm.cuh>

#include "require_gpu.hpp"

#include <cuda_runtime.h>

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

}  // namespace

int main() {
  if (!tgemm::test::usable_gpu_or_explain()) return 1;
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  const std::string device_sm = "sm_" + std::to_string(major * 10 + minor);
  const std::string compiled = tgemm::compiled_architectures();
  std::printf("device 0 is %s; this executable carries %s (machine code only, no PTX)\n", device_sm.c_str(),
              compiled.c_str());
  check(compiled == "sm_75", "compiled_architectures() is \"sm_75\" (got \"" + compiled + "\")");
  if (major * 10 + minor == 75) {
    std::fprintf(stderr, "FAILED: device 0 is sm_75 and can run this executable: the test needs a newer GPU\n");
    return 1;
  }

  const int64_t m = 64, n = 48, k = 32;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  if (cudaMalloc(&a, m * k * sizeof(float)) != cudaSuccess || cudaMalloc(&b, k * n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&c, m * n * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "FAILED: cudaMalloc\n");
    return 1;
  }
  std::vector<float> before(size_t(m * n));
  for (size_t i = 0; i < before.size(); ++i) before[i] = float(i) * 0.25f - 7.0f;
  cudaMemcpy(a, before.data(), m * k * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, before.data(), k * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(c, before.data(), m * n * sizeof(float), cudaMemcpyHostToDevice);

  using tgemm::layout;
  using tgemm::op;
  using tgemm::status;
  struct attempt {
    const char* what;
    status got;
  };
  // Each kind of device work tgemm does: the dispatcher (architecture probe first), C = beta C, the tiled and the
  // naive kernels of launch<P>() (which skip the probe and fail at the kernel's attributes or launch).
  const attempt attempts[] = {
      {"gemm()", tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m)},
      {"gemm() with alpha = 0",
       tgemm::gemm(layout::row_major, op::none, op::none, m, n, k, 0.0f, nullptr, k, nullptr, n, 2.0f, c, n)},
      {"launch<seed::vectorized>()", tgemm::launch<tgemm::seed::vectorized>(layout::col_major, op::none, op::transpose,
                                                                            m, n, k, 1.0f, a, m, b, n, 0.5f, c, m)},
      {"launch<seed::naive>()",
       tgemm::launch<tgemm::seed::naive>(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m)},
      {"launch<seed::naive>() with k = 0",
       tgemm::launch<tgemm::seed::naive>(layout::col_major, op::none, op::none, m, n, 0, 1.0f, nullptr, m, nullptr, 1,
                                         3.0f, c, m)},
  };
  for (const attempt& x : attempts) {
    check(x.got == status::arch_not_compiled,
          std::string(x.what) + " returned arch_not_compiled (got " + tgemm::to_string(x.got) + ")");
  }
  // last_error() holds only the latest failure: call again to read the messages of launch<P>() and gemm().
  const status again =
      tgemm::launch<tgemm::seed::vectorized>(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
  const tgemm::error_info e = tgemm::last_error();
  std::printf("last_error(): %s, %s: %s\n", tgemm::to_string(e.code), cudaGetErrorName(e.cuda), e.message.c_str());
  check(again == status::arch_not_compiled && e.code == status::arch_not_compiled, "last_error().code is arch_not_compiled");
  check(tgemm::detail::means_no_image(e.cuda),
        std::string("last_error().cuda says there is no image for the device (") + cudaGetErrorName(e.cuda) + ")");
  check(e.message.find(device_sm) != std::string::npos, "the message names the device's " + device_sm);
  check(e.message.find("sm_75") != std::string::npos, "the message names the compiled list (sm_75)");
  (void)tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m);
  const tgemm::error_info g = tgemm::last_error();
  std::printf("gemm()'s last_error(): %s, %s: %s\n", tgemm::to_string(g.code), cudaGetErrorName(g.cuda),
              g.message.c_str());
  check(g.message.find(device_sm) != std::string::npos && g.message.find("sm_75") != std::string::npos,
        "gemm()'s message names " + device_sm + " and sm_75 too");

  const cudaError_t pending = cudaGetLastError();
  check(pending == cudaSuccess, std::string("no CUDA error left pending (") + cudaGetErrorName(pending) + ")");
  const cudaError_t synced = cudaDeviceSynchronize();
  check(synced == cudaSuccess, std::string("the context is healthy (") + cudaGetErrorName(synced) + ")");
  std::vector<float> after(before.size());
  cudaMemcpy(after.data(), c, m * n * sizeof(float), cudaMemcpyDeviceToHost);
  check(std::memcmp(after.data(), before.data(), after.size() * sizeof(float)) == 0, "C is untouched");
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  std::printf("%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
