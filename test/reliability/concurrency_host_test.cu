// Many host threads in tgemm's host code, without a GPU (ctest sets CUDA_VISIBLE_DEVICES to the empty string, so
// even a machine with a GPU shows none): the device query behind the per-device caches fails the same way on every
// thread, and last_error() is per thread (thread_local), so each thread reads its own failure's message.
//
// Built twice: as a plain host test, and with ThreadSanitizer (host code compiled with -fsanitize=thread) when
// the host compiler supports it; both run here, where races in tgemm's host code would be reported.
#include "catch.hpp"

#include <tgemm/gemm.cuh>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using tgemm::layout;
using tgemm::op;
using tgemm::status;

namespace {

constexpr int threads = 8;

float* fake(uintptr_t address) { return reinterpret_cast<float*>(address); }

/// Starts `threads` threads running body(t) at the same moment and joins them.
template <class Body>
void run_together(Body&& body) {
  std::atomic<int> arrived{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      arrived.fetch_add(1);
      while (arrived.load() < threads) std::this_thread::yield();
      body(t);
    });
  }
  for (std::thread& thread : pool) thread.join();
}

/// The premise of the no-device tests: the runtime sees no device.
void require_no_visible_device() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  INFO("CUDA_VISIBLE_DEVICES=" << (visible != nullptr ? visible : "(unset)")
                               << "; ctest sets it to the empty string for this test");
  int devices = -1;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  (void)cudaGetLastError();
  REQUIRE((error != cudaSuccess || devices == 0));
}

}  // namespace

TEST_CASE("8 threads calling gemm() and launch<P>() with valid arguments and no device all get no_cuda_device",
          "[host][concurrency][no-device]") {
  require_no_visible_device();
  constexpr int iterations = 200;
  std::vector<std::string> problems(threads);
  run_together([&](int t) {
    const int64_t m = 64 + t, n = 48, k = 32;  // valid for every call below, different on every thread
    float* const a = fake(0x100000);
    float* const b = fake(0x200000);
    float* const c = fake(0x300000);
    for (int i = 0; i < iterations && problems[size_t(t)].empty(); ++i) {
      status s = status::success;
      switch ((i + t) % 4) {
        case 0: s = tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m); break;
        case 1:  // alpha = 0: the C = beta C path asks for the device too
          s = tgemm::gemm(layout::row_major, op::none, op::transpose, m, n, k, 0.0f, nullptr, k, nullptr, k, 2.0f, c,
                          n);
          break;
        case 2:
          s = tgemm::launch<tgemm::seed::naive>(layout::col_major, op::transpose, op::none, m, n, k, 1.0f, a, k, b, k,
                                                0.5f, c, m);
          break;
        default:
          s = tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a + 1, m + 1, b, k, 0.0f, c, m);
          break;
      }
      const tgemm::error_info& e = tgemm::last_error();
      if (s != status::no_cuda_device || e.code != status::no_cuda_device || !tgemm::detail::means_no_device(e.cuda) ||
          e.message.find(cudaGetErrorName(e.cuda)) == std::string::npos) {
        problems[size_t(t)] = "iteration " + std::to_string(i) + ": " + tgemm::to_string(s) + ", last_error " +
                              tgemm::to_string(e.code) + " " + cudaGetErrorName(e.cuda) + ": " + e.message;
      }
    }
  });
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t << ": " << problems[size_t(t)]);
    CHECK(problems[size_t(t)].empty());
  }
}

TEST_CASE("last_error() is per thread: 8 threads failing in different ways each read their own message",
          "[host][concurrency]") {
  constexpr int iterations = 2000;
  std::vector<std::string> problems(threads);
  run_together([&](int t) {
    float* const a = fake(0x100000);
    float* const b = fake(0x200000);
    float* const c = fake(0x300000);
    const int64_t m = 100, n = 90, k = 80;
    for (int i = 0; i < iterations && problems[size_t(t)].empty(); ++i) {
      // Each thread's failure names a value only it uses, so a message from another thread cannot pass.
      const int64_t mine = 10 * t + i % 7 + 1;
      status expected = status::success, s = status::success;
      std::string needle;
      switch ((t + i) % 4) {
        case 0:
          expected = status::invalid_leading_dimension;
          needle = "lda = " + std::to_string(mine) + " is too small";
          s = tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, mine, b, k, 0.0f, c, m);
          break;
        case 1:
          expected = status::invalid_dimension;
          needle = "n = " + std::to_string(-mine) + " is negative";
          s = tgemm::can_implement<tgemm::seed::vectorized>(layout::row_major, op::none, op::none, m, -mine, k, 1.0f, a,
                                                            k, b, n, 0.0f, c, n);
          break;
        case 2:
          expected = status::invalid_layout;
          needle = "order = " + std::to_string(1000 + mine) + " is not a tgemm::layout";
          s = tgemm::launch<tgemm::seed::naive>(static_cast<layout>(1000 + mine), op::none, op::none, m, n, k, 1.0f, a,
                                                m, b, k, 0.0f, c, m);
          break;
        default:
          expected = status::invalid_leading_dimension;
          needle = "ldc = " + std::to_string(mine) + " is too small";
          s = tgemm::gemm(layout::row_major, op::transpose, op::none, m, n, k, 1.0f, a, m, b, n, 1.0f, c, mine);
          break;
      }
      const tgemm::error_info& e = tgemm::last_error();
      if (s != expected || e.code != expected || e.cuda != cudaSuccess || e.message.find(needle) == std::string::npos) {
        problems[size_t(t)] = "iteration " + std::to_string(i) + ": returned " + tgemm::to_string(s) + ", expected " +
                              tgemm::to_string(expected) + "; last_error: " + e.message + " (expected it to contain '" +
                              needle + "')";
      }
      if (i % 64 == 0) std::this_thread::yield();
    }
  });
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t << ": " << problems[size_t(t)]);
    CHECK(problems[size_t(t)].empty());
  }
}
