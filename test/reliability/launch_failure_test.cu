// A launch that fails must surface as status::cuda_error, with the launch's own cudaError_t in last_error().cuda and
// its name in the message, leave C untouched, leave no CUDA error pending, and not harm the context: the next
// valid call succeeds and is right.
//
// How a launch is made to fail, without corrupting anything: while a blocking stream is being captured into a CUDA
// graph in cudaStreamCaptureModeGlobal, work submitted to the legacy default stream would join the capture
// implicitly, so the runtime refuses it (cudaErrorStreamCaptureImplicit) and invalidates the capture; ending the
// capture then reports cudaErrorStreamCaptureInvalidated, and the stream and context carry on normally. Each call
// is made once before (uncaptured) so that tgemm's per-device and per-kernel caches are warm and the launch itself
// is the first thing the capture refuses.
//
// Also: a policy whose shared memory exceeds the device's opt-in limit must fail the same way. tgemm's policies
// are static_assert-ed to at most 227 KiB, which is exactly Hopper's opt-in limit, so on an H100/H200 no such policy
// can be written; there the big policy below simply runs (and is checked), and on devices with less shared memory
// per block (A100: 163 KiB, sm_86/89: 99 KiB, sm_75: 64 KiB) it must fail with status::cuda_error.
//
// No Catch2 (one small main): exit status 0 when every check passed, 1 otherwise, also without a GPU.
#include <tgemm/gemm.cuh>

#include "require_gpu.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

/// 198 KiB of shared memory per block: more than any GPU before Hopper allows.
using big_policy = tgemm::policy<tgemm::block_shape<128, 128, 32>, tgemm::warp_shape<32, 64>, tgemm::thread_shape<8, 8>, 4, 6>;
static_assert(big_policy::shared_bytes == 202752, "the big policy's shared memory changed");

constexpr int64_t m = 96, n = 80, k = 64;  // small: no split-K, no repacking, so the launch is the only device work

struct problem {
  std::vector<float> a, b, c;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  problem() : a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * n)) {
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 37 % 11) - 5) * 0.125f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 53 % 13) - 6) * 0.25f;
    for (size_t i = 0; i < c.size(); ++i) c[i] = float(int(i * 29 % 7) - 3);
    cudaMalloc(&da, a.size() * sizeof(float));
    cudaMalloc(&db, b.size() * sizeof(float));
    cudaMalloc(&dc, c.size() * sizeof(float));
    cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice);
    reset_c();
  }
  ~problem() {
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
  }
  void reset_c() const { cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice); }
  std::vector<float> download_c() const {
    std::vector<float> out(c.size());
    cudaMemcpy(out.data(), dc, out.size() * sizeof(float), cudaMemcpyDeviceToHost);
    return out;
  }
  /// C = alpha A B + beta C (column-major, no transposes) checked exactly: every value here is a small multiple of
  /// 2^-5 and every sum is exact in float.
  bool right(const std::vector<float>& out, float alpha, float beta) const {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < m; ++i) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l) sum += double(a[size_t(i + l * m)]) * double(b[size_t(l + j * k)]);
        const double expected = double(alpha) * sum + double(beta) * double(c[size_t(i + j * m)]);
        if (std::fabs(double(out[size_t(i + j * m)]) - expected) > 1e-3) return false;
      }
    }
    return true;
  }
};

using call_type = std::function<status(const problem&, cudaStream_t)>;

/// Warm call (uncaptured, must succeed and be right), then the same call on the legacy stream while another
/// stream is being captured: it must fail with cuda_error and leave everything as it was.
void failing_launch(const char* what, const call_type& call) {
  std::printf("--- %s\n", what);
  const problem p;
  const status warm = call(p, nullptr);
  check(warm == status::success && cudaDeviceSynchronize() == cudaSuccess, std::string(what) + ": the warm-up call works");
  check(p.right(p.download_c(), 1.0f, 0.5f), std::string(what) + ": the warm-up result is right");
  p.reset_c();
  cudaDeviceSynchronize();

  cudaStream_t capturing = nullptr;
  cudaStreamCreate(&capturing);  // blocking: it synchronises with the legacy stream
  check(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal) == cudaSuccess,
        std::string(what) + ": capture begins");
  tgemm::detail::fail(status::success, cudaSuccess, "%s", "stale message from the test");
  const status s = call(p, nullptr);  // the legacy default stream
  const tgemm::error_info e = tgemm::last_error();
  const cudaError_t pending = cudaGetLastError();
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(capturing, &graph);
  if (graph != nullptr) cudaGraphDestroy(graph);
  (void)cudaGetLastError();  // ending an invalidated capture reports it: that error is the test's, not tgemm's
  std::printf("%s during the capture: %s; last_error(): %s, %s: %s; ending the capture: %s\n", what,
              tgemm::to_string(s), tgemm::to_string(e.code), cudaGetErrorName(e.cuda), e.message.c_str(),
              cudaGetErrorName(ended));
  check(s == status::cuda_error, std::string(what) + " returned cuda_error (got " + tgemm::to_string(s) + ")");
  check(e.code == status::cuda_error && e.cuda != cudaSuccess,
        std::string(what) + ": last_error() keeps the cudaError_t (" + cudaGetErrorName(e.cuda) + ")");
  check(e.message.find(cudaGetErrorName(e.cuda)) != std::string::npos,
        std::string(what) + ": the message names " + cudaGetErrorName(e.cuda));
  check(pending == cudaSuccess,
        std::string(what) + ": tgemm left no CUDA error pending (" + cudaGetErrorName(pending) + ")");
  check(cudaStreamDestroy(capturing) == cudaSuccess, std::string(what) + ": the captured stream is still healthy");
  check(cudaDeviceSynchronize() == cudaSuccess, std::string(what) + ": the context is healthy");
  std::vector<float> untouched = p.download_c();
  check(std::memcmp(untouched.data(), p.c.data(), p.c.size() * sizeof(float)) == 0, std::string(what) + ": C is untouched");

  const status next = call(p, nullptr);
  check(next == status::success && cudaDeviceSynchronize() == cudaSuccess,
        std::string(what) + ": the next call succeeds (" + tgemm::to_string(next) + ")");
  check(p.right(p.download_c(), 1.0f, 0.5f), std::string(what) + ": and its result is right");
}

}  // namespace

int main() {
  if (!tgemm::test::usable_gpu_or_explain()) return 1;

  failing_launch("gemm()", [](const problem& p, cudaStream_t stream) {
    return tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, p.da, m, p.db, k, 0.5f, p.dc, m, stream);
  });
  failing_launch("launch<seed::vectorized>()", [](const problem& p, cudaStream_t stream) {
    return tgemm::launch<tgemm::seed::vectorized>(layout::col_major, op::none, op::none, m, n, k, 1.0f, p.da, m, p.db,
                                                  k, 0.5f, p.dc, m, stream);
  });
  failing_launch("launch<seed::naive>()", [](const problem& p, cudaStream_t stream) {
    return tgemm::launch<tgemm::seed::naive>(layout::col_major, op::none, op::none, m, n, k, 1.0f, p.da, m, p.db, k,
                                             0.5f, p.dc, m, stream);
  });

  std::printf("--- a policy needing %d bytes of shared memory per block\n", big_policy::shared_bytes);
  int limit = 0;
  cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  {
    const problem p;
    tgemm::detail::fail(status::success, cudaSuccess, "%s", "stale message from the test");
    const status s = tgemm::launch<big_policy>(layout::col_major, op::none, op::none, m, n, k, 1.0f, p.da, m, p.db, k,
                                               0.5f, p.dc, m);
    const tgemm::error_info e = tgemm::last_error();
    const cudaError_t synced = cudaDeviceSynchronize();
    std::printf("device 0 allows %d bytes per block (opt-in); launch: %s; last_error(): %s, %s: %s\n", limit,
                tgemm::to_string(s), tgemm::to_string(e.code), cudaGetErrorName(e.cuda), e.message.c_str());
    if (limit >= big_policy::shared_bytes) {
      std::printf("note: this device allows every policy tgemm's static_asserts admit (227 KiB), so no launch can "
                  "fail for lack of shared memory here; the big policy must run instead\n");
      check(s == status::success && synced == cudaSuccess, "the big policy runs");
      check(p.right(p.download_c(), 1.0f, 0.5f), "and its result is right");
    } else {
      check(s == status::cuda_error && e.cuda != cudaSuccess, "the big policy fails with cuda_error");
      check(e.message.find(std::to_string(big_policy::shared_bytes)) != std::string::npos &&
                e.message.find(std::to_string(limit)) != std::string::npos,
            "the message names what the policy needs and what the device allows");
      check(cudaGetLastError() == cudaSuccess && synced == cudaSuccess, "no CUDA error left behind");
      std::vector<float> untouched = p.download_c();
      check(std::memcmp(untouched.data(), p.c.data(), p.c.size() * sizeof(float)) == 0, "C is untouched");
    }
  }
  std::printf("%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
