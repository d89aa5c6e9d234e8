// How tgemm::gemm() executes its plan: the caller's workspace, CUDA-graph capture from a process's first call,
// memory pressure, a stream of another device, and the device facts the dispatcher plans with. Several cases must
// make the process's first tgemm call: test/gpu/CMakeLists.txt runs each of those in a process of its own.
#include "gemm_case.hpp"
#include "pinned_facts.hpp"

#include <cstring>
#include <string>
#include <vector>

using namespace tgemm;
using namespace tgemm::test;

namespace {

/// A call's operands on the current device, with host copies for the float64 reference.
struct operands {
  gemm_case c;
  std::vector<float> a, b, c0;
  device_buffer<float> da, db, dc;
  explicit operands(const gemm_case& shape)
      : c(shape),
        a(random_values(stored_elements(shape.order, shape.op_a, shape.m, shape.k, shape.lda()) + shape.offset_a)),
        b(random_values(stored_elements(shape.order, shape.op_b, shape.k, shape.n, shape.ldb()) + shape.offset_b)),
        c0(random_values(stored_elements(shape.order, op::none, shape.m, shape.n, shape.ldc()) + shape.offset_c)),
        da(a.size()),
        db(b.size()),
        dc(c0.size()) {
    da.upload(a), db.upload(b), dc.upload(c0);
  }
  const float* A() const { return da.get() + c.offset_a; }
  const float* B() const { return db.get() + c.offset_b; }
  float* C() const { return dc.get() + c.offset_c; }
  status run(cudaStream_t stream) const {
    return gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, A(), c.lda(), B(), c.ldb(), c.beta, C(), c.ldc(),
                stream);
  }
  status run(cudaStream_t stream, workspace ws) const {
    return gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, A(), c.lda(), B(), c.ldb(), c.beta, C(), c.ldc(),
                stream, ws);
  }
  size_t workspace_bytes(cudaStream_t stream = nullptr) const;
  void reset_c() { dc.upload(c0); }
  /// C after the call(s) (synchronise first) against the float64 reference of one call on the original C.
  void check_result() const;
  bool c_untouched() const {
    const std::vector<float> out = dc.download();
    return std::memcmp(out.data(), c0.data(), c0.size() * sizeof(float)) == 0;
  }
};

// The members that use Catch2's assertion macros are defined outside the class: with Catch2 3.4 (Ubuntu 24.04's),
// CUDA 13.0's front end (cudafe++) never finished this file when such a member was defined in the class body
// with another member after it (reproduced with g++ 12 and 13; Catch2 2.13 is not affected).
size_t operands::workspace_bytes(cudaStream_t stream) const {
  size_t bytes = 0;
  REQUIRE(gemm_workspace_size(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, A(), c.lda(), B(), c.ldb(), c.beta,
                              C(), c.ldc(), bytes, stream) == status::success);
  return bytes;
}

void operands::check_result() const {
  INFO(c.describe());
  const std::vector<float> out = dc.download();
  const reference_result ref = reference_gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a.data() + c.offset_a,
                                              c.lda(), b.data() + c.offset_b, c.ldb(), c.beta,
                                              c0.data() + c.offset_c, c.ldc());
  const comparison cmp = compare(ref, out.data() + c.offset_c, c.order, c.m, c.n, c.k, c.ldc());
  INFO(cmp.describe());
  CHECK(cmp.passed());
}

gemm_case make_case(int64_t m, int64_t n, int64_t k, int64_t offset_a = 0, int64_t offset_c = 0, float beta = 0.5f) {
  gemm_case c;
  c.m = m, c.n = n, c.k = k, c.alpha = 1.25f, c.beta = beta, c.offset_a = offset_a, c.offset_c = offset_c;
  return c;
}

/// Calls that take each path that needs workspace, and a plain one.
std::vector<gemm_case> path_cases() {
  return {
      make_case(2048, 2048, 64, 1),       // A misaligned, 2mnk >= 2^27: A repacked into the workspace
      make_case(16, 2048, 4096),          // 16 rows: the tiny tile with split-K partials in the workspace
      make_case(2048, 1600, 40, 0, 1),    // C misaligned, m n >= 3 x 2^20: the product staged in the workspace
      make_case(300, 200, 40),            // nothing needs workspace (the small tile, k too shallow to split)
  };
}

/// Graph nodes of each type.
int count_nodes(cudaGraph_t graph, cudaGraphNodeType type) {
  size_t count = 0;
  TGEMM_CUDA_REQUIRE(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  if (count > 0) TGEMM_CUDA_REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count));
  int matching = 0;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType t;
    TGEMM_CUDA_REQUIRE(cudaGraphNodeGetType(node, &t));
    matching += t == type;
  }
  return matching;
}

/// The process's first tgemm calls inside a capture in `mode`: every path, captured, instantiated, replayed and
/// checked; then the same calls with caller workspaces, captured again: no allocation node in that graph.
void capture_from_first_call(cudaStreamCaptureMode mode) {
  cudaStream_t stream;
  TGEMM_CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<operands*> calls;
  for (const gemm_case& c : path_cases()) calls.push_back(new operands(c));

  TGEMM_CUDA_REQUIRE(cudaStreamBeginCapture(stream, mode));
  std::vector<status> statuses;
  for (operands* o : calls) statuses.push_back(o->run(stream));
  cudaGraph_t graph = nullptr;
  TGEMM_CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  for (status s : statuses) REQUIRE(s == status::success);
  CHECK(count_nodes(graph, cudaGraphNodeTypeMemAlloc) > 0);  // the pool's allocations, captured
  cudaGraphExec_t exec = nullptr;
  TGEMM_CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  TGEMM_CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
  TGEMM_CUDA_REQUIRE(cudaStreamSynchronize(stream));
  for (operands* o : calls) o->check_result();
  TGEMM_CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  TGEMM_CUDA_REQUIRE(cudaGraphDestroy(graph));

  // With caller workspaces (asked for before the capture), the graph allocates nothing.
  std::vector<device_buffer<unsigned char>*> buffers;
  for (operands* o : calls) buffers.push_back(new device_buffer<unsigned char>(o->workspace_bytes(stream)));
  for (operands* o : calls) o->reset_c();
  TGEMM_CUDA_REQUIRE(cudaStreamBeginCapture(stream, mode));
  statuses.clear();
  for (size_t i = 0; i < calls.size(); ++i) {
    statuses.push_back(calls[i]->run(stream, workspace{buffers[i]->get(), buffers[i]->size()}));
  }
  TGEMM_CUDA_REQUIRE(cudaStreamEndCapture(stream, &graph));
  for (status s : statuses) REQUIRE(s == status::success);
  CHECK(count_nodes(graph, cudaGraphNodeTypeMemAlloc) == 0);
  CHECK(count_nodes(graph, cudaGraphNodeTypeMemFree) == 0);
  TGEMM_CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {  // a replay overwrites C with the same product
    for (operands* o : calls) o->reset_c();
    TGEMM_CUDA_REQUIRE(cudaGraphLaunch(exec, stream));
    TGEMM_CUDA_REQUIRE(cudaStreamSynchronize(stream));
    for (operands* o : calls) o->check_result();
  }
  TGEMM_CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  TGEMM_CUDA_REQUIRE(cudaGraphDestroy(graph));
  for (auto* b : buffers) delete b;
  for (operands* o : calls) delete o;
  TGEMM_CUDA_REQUIRE(cudaStreamDestroy(stream));
}

}  // namespace

TEST_CASE("a caller's workspace: sized by gemm_workspace_size(), used as given, refused when too small",
          "[gpu][workspace]") {
  for (const gemm_case& shape : path_cases()) {
    operands o(shape);
    INFO(shape.describe());
    const size_t bytes = o.workspace_bytes();
    detail::record_plans plans;
    if (bytes > 0) {
      // Too small, or misaligned: refused before any device work, C untouched.
      device_buffer<unsigned char> small(bytes - 1);
      REQUIRE(o.run(nullptr, workspace{small.get(), small.size()}) == status::workspace_too_small);
      REQUIRE(last_error().message.find(std::to_string(bytes)) != std::string::npos);
      REQUIRE(o.run(nullptr, workspace{}) == status::workspace_too_small);
      device_buffer<unsigned char> shifted(bytes + 256);
      REQUIRE(o.run(nullptr, workspace{shifted.get() + 16, bytes}) == status::misaligned_operand);
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
      REQUIRE(o.c_untouched());
      REQUIRE(plans.calls() == 0);
    }
    device_buffer<unsigned char> exact(bytes);
    REQUIRE(o.run(nullptr, workspace{exact.get(), bytes}) == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    o.check_result();
    REQUIRE(plans.calls() == 1);
    REQUIRE(plans.last().workspace_bytes == bytes);
    const detail::plan& p = plans.last();
    CHECK((bytes > 0) == (p.repacked_a || p.repacked_b || p.split_k || p.staged_c));
  }
}

TEST_CASE("the plan that runs is the one named: repack, split-K, staged C", "[gpu][workspace]") {
  const std::vector<gemm_case> cases = path_cases();
  detail::record_plans plans;
  for (size_t i = 0; i < cases.size(); ++i) {
    operands o(cases[i]);
    REQUIRE(o.run(nullptr) == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    o.check_result();
    const detail::plan& p = plans.last();
    CHECK(p.repacked_a == (i == 0));
    CHECK(p.split_k == (i == 1));
    CHECK(p.staged_c == (i == 2));
  }
  REQUIRE(plans.calls() == int(cases.size()));
}

TEST_CASE("a benchmark's tuning hook: calls are planned with the values it leaves, and stay right",
          "[gpu][tuning_hook]") {
  // One row of C: the GEMV kernel by the float table's values; with the hook turning GEMV off, the scalar-load tile
  // split over k (A's leading dimension of 1 is misaligned for the thin tiles), which uses the workspace too.
  operands o(make_case(1, 3000, 700));
  detail::record_plans plans;
  REQUIRE(o.run(nullptr) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  o.check_result();
  REQUIRE(plans.calls() == 1);
  CHECK(plans.last().gemv);
  static std::string seen;
  seen.clear();
  detail::tuning_hook() = [](tuning::tuning_values& values, const char* element_a, const char* element_c) {
    seen = std::string(element_a) + " " + element_c;
    values.gemv = false;
  };
  o.reset_c();  // each run is checked against one call on the original C
  const status hooked = o.run(nullptr);
  detail::tuning_hook() = nullptr;
  REQUIRE(hooked == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  o.check_result();
  REQUIRE(plans.calls() == 2);
  CHECK_FALSE(plans.last().gemv);
  CHECK(seen == "float float");
  // Unhooked again: the table's plan.
  o.reset_c();
  REQUIRE(o.run(nullptr) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  o.check_result();
  CHECK(plans.last().gemv);
}

TEST_CASE("a tuning hook's GEMV split in clusters of more than 8 slices (non-portable clusters)",
          "[gpu][tuning_hook]") {
  // One column of C, A streamed along its 4096 rows (32 blocks): slices of at least 128, at most 16 by the hook's
  // bound, make clusters of 9 to 16 blocks on an sm_90 GPU (15 with 132 multiprocessors), which the launcher allows
  // at run time (the table's bound is 8).
  operands o(make_case(4096, 1, 4096));
  detail::record_plans plans;
  detail::tuning_hook() = [](tuning::tuning_values& values, const char*, const char*) {
    values.gemv_cluster_slices = 16;
    values.gemv_min_slice_k = 128;
  };
  const status hooked = o.run(nullptr);
  detail::tuning_hook() = nullptr;
  REQUIRE(hooked == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  o.check_result();
  REQUIRE(plans.calls() == 1);
  const detail::plan& p = plans.last();
  REQUIRE(p.gemv);
  CHECK(p.split_k);
  if (runs_sm90a_kernels()) {
    CHECK(p.steps[0].gemv_cluster);
    CHECK(p.steps[0].slices > tgemm::kernel::portable_cluster_blocks);
  }
}

TEST_CASE("capture from the process's first call, global mode", "[gpu][capture_global]") {
  capture_from_first_call(cudaStreamCaptureModeGlobal);
}

TEST_CASE("capture from the process's first call, thread-local mode", "[gpu][capture_thread_local]") {
  capture_from_first_call(cudaStreamCaptureModeThreadLocal);
}

TEST_CASE("memory pressure: a named out-of-memory status, then full recovery", "[gpu][pressure]") {
  std::vector<operands*> calls;
  for (const gemm_case& c : path_cases()) calls.push_back(new operands(c));
  using small_policy = tuning::sm90::small;  // a fixed policy's kernel, also loaded for the first time under pressure
  operands fixed(make_case(256, 256, 64));

  // Fill the device to a few MiB free.
  std::vector<void*> filler;
  for (size_t chunk = size_t(1) << 30; chunk >= (size_t(64) << 10);) {
    void* p = nullptr;
    if (cudaMalloc(&p, chunk) == cudaSuccess) {
      filler.push_back(p);
    } else {
      (void)cudaGetLastError();
      chunk /= 2;
    }
  }
  size_t free_bytes = 0, total = 0;
  TGEMM_CUDA_REQUIRE(cudaMemGetInfo(&free_bytes, &total));
  INFO("free while filled: " << free_bytes << " bytes");

  int refused = 0;
  for (operands* o : calls) {
    const status s = o->run(nullptr);
    INFO(o->c.describe() << " under pressure: " << to_string(s) << ": " << last_error().message);
    CHECK((s == status::success || s == status::out_of_memory));
    if (s == status::out_of_memory) {
      ++refused;
      CHECK(o->c_untouched());
    }
    CHECK(cudaGetLastError() == cudaSuccess);  // nothing left pending
  }
  const status fixed_status = launch<small_policy>(fixed.c.order, fixed.c.op_a, fixed.c.op_b, fixed.c.m, fixed.c.n,
                                                   fixed.c.k, fixed.c.alpha, fixed.A(), fixed.c.lda(), fixed.B(),
                                                   fixed.c.ldb(), fixed.c.beta, fixed.C(), fixed.c.ldc());
  CHECK((fixed_status == status::success || fixed_status == status::out_of_memory));
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  SUCCEED(refused << " of " << calls.size() << " calls refused with out_of_memory");

  for (void* p : filler) TGEMM_CUDA_REQUIRE(cudaFree(p));
  // Everything works once memory is back, kernels loaded (or not) under pressure included.
  for (operands* o : calls) {
    o->reset_c();
    const status s = o->run(nullptr);
    INFO(o->c.describe() << " after: " << to_string(s) << ": " << last_error().message);
    REQUIRE(s == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    o->check_result();
  }
  fixed.reset_c();
  REQUIRE(launch<small_policy>(fixed.c.order, fixed.c.op_a, fixed.c.op_b, fixed.c.m, fixed.c.n, fixed.c.k,
                               fixed.c.alpha, fixed.A(), fixed.c.lda(), fixed.B(), fixed.c.ldb(), fixed.c.beta,
                               fixed.C(), fixed.c.ldc()) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  fixed.check_result();
  for (operands* o : calls) delete o;
}

TEST_CASE("a stream of another device: the call works there, and the current device is left alone",
          "[gpu][multi_gpu]") {
  int devices = 0;
  TGEMM_CUDA_REQUIRE(cudaGetDeviceCount(&devices));
  INFO("this test needs two GPUs (ctest label multi_gpu); this machine has " << devices);
  REQUIRE(devices >= 2);
  TGEMM_CUDA_REQUIRE(cudaSetDevice(1));
  cudaStream_t stream;
  TGEMM_CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<operands*> calls;
  for (const gemm_case& c : path_cases()) calls.push_back(new operands(c));  // on device 1
  TGEMM_CUDA_REQUIRE(cudaSetDevice(0));
  for (int round = 0; round < 2; ++round) {  // the first round reads device 1's facts, the second uses them
    for (operands* o : calls) {
      o->reset_c();
      REQUIRE(o->run(stream) == status::success);
      int current = -1;
      TGEMM_CUDA_REQUIRE(cudaGetDevice(&current));
      REQUIRE(current == 0);
    }
    TGEMM_CUDA_REQUIRE(cudaSetDevice(1));
    TGEMM_CUDA_REQUIRE(cudaStreamSynchronize(stream));
    TGEMM_CUDA_REQUIRE(cudaGetLastError());
    for (operands* o : calls) o->check_result();
    TGEMM_CUDA_REQUIRE(cudaSetDevice(0));
  }
  // Device 0 is healthy and tgemm still works there.
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  operands here(make_case(512, 512, 512, 1));
  REQUIRE(here.run(nullptr) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  here.check_result();
  TGEMM_CUDA_REQUIRE(cudaSetDevice(1));
  for (operands* o : calls) delete o;
  TGEMM_CUDA_REQUIRE(cudaStreamDestroy(stream));
  TGEMM_CUDA_REQUIRE(cudaSetDevice(0));
}

TEST_CASE("the H200 facts the host tests pin are the device's", "[gpu][facts]") {
  cudaDeviceProp properties{};
  TGEMM_CUDA_REQUIRE(cudaGetDeviceProperties(&properties, 0));
  INFO("device 0 is " << properties.name << " with " << properties.multiProcessorCount
                      << " SMs; this test pins an H200 running sm_90a code (test/support/pinned_facts.hpp), whose "
                         "planner facts an H100 SXM shares (132 SMs, 227 KiB of shared memory per block)");
  const std::string name = properties.name;
  REQUIRE((name.find("H200") != std::string::npos || name.find("H100") != std::string::npos));
  detail::device_facts facts;
  REQUIRE(detail::dispatcher_facts(0, facts) == status::success);
  const detail::device_facts pinned = pinned::h200();
  CHECK(facts.arch == pinned.arch);
  CHECK(facts.multiprocessors == pinned.multiprocessors);
  for (int p = 0; p < 4; ++p) {
    for (int s = 0; s < tuning::slot_count; ++s) {
      if (pinned.resident_blocks[p][s] == 0) continue;  // a kernel the planner never asks about
      INFO("op pair " << p << ", slot " << tuning::to_string(tuning::slot(s)));
      CHECK(facts.resident_blocks[p][s] == pinned.resident_blocks[p][s]);
    }
  }
}
