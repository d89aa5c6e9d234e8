// 8 host threads, each with its own stream, call tgemm::gemm() at the same moment with different shapes, orders
// and op pairs (one with misaligned operands, two skinny enough to split k), 4 rounds; every result is checked
// against the float64 reference on the main thread.
//
// ctest runs this test case in a process of its own (reliability.concurrency), so the first round's calls are the
// process's first tgemm calls: the per-device caches (architecture, multiprocessor count, kernel attributes,
// workspace pool) are filled by 8 threads racing for them.
#include "catch.hpp"
#include "cuda_check.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <tgemm/gemm.cuh>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace tgemm;
using namespace tgemm::test;

namespace {

struct job {
  layout order;
  op op_a, op_b;
  int64_t m, n, k;
  float alpha, beta;
  int64_t offset;  // floats past aligned addresses (and leading dimensions + offset)
};

const job jobs[] = {
    {layout::col_major, op::none, op::none, 300, 200, 100, 1.0f, 0.0f, 0},
    {layout::row_major, op::transpose, op::none, 128, 128, 128, -1.0f, 0.5f, 0},
    {layout::col_major, op::none, op::transpose, 1, 777, 333, 0.5f, 0.0f, 0},
    {layout::row_major, op::transpose, op::transpose, 513, 257, 129, 1.0f, 1.0f, 1},
    {layout::col_major, op::none, op::none, 64, 64, 8192, 1.0f, 0.0f, 0},
    {layout::row_major, op::none, op::none, 999, 31, 200, 2.0f, -1.0f, 0},
    {layout::col_major, op::transpose, op::none, 256, 256, 2048, 1.0f, 0.25f, 0},
    {layout::row_major, op::none, op::transpose, 37, 41, 43, -0.5f, 0.0f, 0},
};
constexpr int threads = 8;
constexpr int rounds = 4;

/// One thread's problem, inputs, reference and device memory.
struct workload {
  job j;
  int64_t lda = 0, ldb = 0, ldc = 0;
  std::vector<float> a, b, c0;
  reference_result ref;
  device_buffer<float>* da = nullptr;
  device_buffer<float>* db = nullptr;
  device_buffer<float>* dc0 = nullptr;
  device_buffer<float>* dc = nullptr;
  cudaStream_t stream = nullptr;
  // Written by the thread, read by the main thread after join().
  status result = status::success;
  std::string message;
  cudaError_t cuda = cudaSuccess;
  std::vector<float> out;
};

}  // namespace

TEST_CASE("8 threads with their own streams call gemm() at once; every result is right", "[gpu][concurrency]") {
  static_assert(sizeof jobs / sizeof jobs[0] == threads, "one job per thread");
  std::vector<workload> work(threads);
  std::vector<std::unique_ptr<device_buffer<float>>> buffers;
  const auto buffer = [&](size_t count) {
    buffers.push_back(std::make_unique<device_buffer<float>>(count));
    return buffers.back().get();
  };
  for (int t = 0; t < threads; ++t) {
    workload& w = work[size_t(t)];
    w.j = jobs[t];
    const job& j = w.j;
    w.lda = min_ld(j.order, j.op_a, j.m, j.k) + j.offset;
    w.ldb = min_ld(j.order, j.op_b, j.k, j.n) + j.offset;
    w.ldc = min_ld(j.order, op::none, j.m, j.n) + j.offset;
    w.a = random_values(stored_elements(j.order, j.op_a, j.m, j.k, w.lda));
    w.b = random_values(stored_elements(j.order, j.op_b, j.k, j.n, w.ldb));
    w.c0 = random_values(stored_elements(j.order, op::none, j.m, j.n, w.ldc));
    w.ref = reference_gemm(j.order, j.op_a, j.op_b, j.m, j.n, j.k, j.alpha, w.a.data(), w.lda, w.b.data(), w.ldb,
                           j.beta, w.c0.data(), w.ldc);
    w.da = buffer(w.a.size() + size_t(j.offset));
    w.db = buffer(w.b.size() + size_t(j.offset));
    w.dc0 = buffer(w.c0.size() + size_t(j.offset));
    w.dc = buffer(w.c0.size() + size_t(j.offset));
    TGEMM_CUDA_REQUIRE(cudaMemcpy(w.da->get() + j.offset, w.a.data(), w.a.size() * sizeof(float), cudaMemcpyHostToDevice));
    TGEMM_CUDA_REQUIRE(cudaMemcpy(w.db->get() + j.offset, w.b.data(), w.b.size() * sizeof(float), cudaMemcpyHostToDevice));
    TGEMM_CUDA_REQUIRE(
        cudaMemcpy(w.dc0->get() + j.offset, w.c0.data(), w.c0.size() * sizeof(float), cudaMemcpyHostToDevice));
    TGEMM_CUDA_REQUIRE(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
  }

  for (int round = 0; round < rounds; ++round) {
    std::atomic<int> arrived{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        workload& w = work[size_t(t)];
        const job& j = w.j;
        float* c = w.dc->get() + j.offset;
        const size_t bytes = w.c0.size() * sizeof(float);
        w.cuda = cudaMemcpyAsync(c, w.dc0->get() + j.offset, bytes, cudaMemcpyDeviceToDevice, w.stream);
        arrived.fetch_add(1);
        while (arrived.load() < threads) std::this_thread::yield();  // everyone calls gemm() at once
        w.result = gemm(j.order, j.op_a, j.op_b, j.m, j.n, j.k, j.alpha, w.da->get() + j.offset, w.lda,
                        w.db->get() + j.offset, w.ldb, j.beta, c, w.ldc, w.stream);
        w.message = w.result == status::success ? "" : last_error().message;
        const cudaError_t synced = cudaStreamSynchronize(w.stream);
        if (w.cuda == cudaSuccess) w.cuda = synced;
        w.out.resize(w.c0.size());
        const cudaError_t copied = cudaMemcpyAsync(w.out.data(), c, bytes, cudaMemcpyDeviceToHost, w.stream);
        if (w.cuda == cudaSuccess) w.cuda = copied;
        const cudaError_t done = cudaStreamSynchronize(w.stream);
        if (w.cuda == cudaSuccess) w.cuda = done;
      });
    }
    for (std::thread& thread : pool) thread.join();

    for (int t = 0; t < threads; ++t) {
      const workload& w = work[size_t(t)];
      const job& j = w.j;
      INFO("round " << round << ", thread " << t << ": " << to_string(j.order) << " op_a=" << to_string(j.op_a)
                    << " op_b=" << to_string(j.op_b) << " m=" << j.m << " n=" << j.n << " k=" << j.k
                    << " offset=" << j.offset);
      INFO("status " << to_string(w.result) << " " << w.message << "; CUDA " << cudaGetErrorName(w.cuda));
      REQUIRE(w.result == status::success);
      REQUIRE(w.cuda == cudaSuccess);
      const comparison cmp = compare(w.ref, w.out.data(), j.order, j.m, j.n, j.k, w.ldc);
      INFO(cmp.describe());
      CHECK(cmp.passed());
    }
  }
  for (workload& w : work) TGEMM_CUDA_REQUIRE(cudaStreamDestroy(w.stream));
}
