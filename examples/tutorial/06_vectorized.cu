// Step 6: vector loads. tgemm::seed::vectorized moves 4 floats per instruction (float4) and computes 8 x 8 per thread.
//
// From here on the tutorial uses the library's rungs: each is a tgemm::policy type, run by tgemm::launch<Policy>().
// This one grows step 5's tiles (128 x 128 per block, 8 x 8 per thread: 64 FMAs per 16 shared-memory values) and
// moves data 16 bytes at a time: one float4 global load fetches what took four loads, and a thread reads its 8 A
// and 8 B values from shared memory as two float4 each. Fewer instructions per FMA means more of the issue slots
// go to arithmetic; the larger register tile means more reuse and more independent FMAs per thread.
//
// The price is alignment. A float4 access must be to an address that is a multiple of 16 bytes, and a matrix's
// rows (row-major) or columns (column-major) all start at base + i * ld floats. So every pointer must be 16-byte
// aligned (cudaMalloc returns 256-byte-aligned memory) and every leading dimension a multiple of 4.
// tgemm::can_implement<Policy>() checks this on the host before anything runs; when it fails it returns
// tgemm::status::misaligned_operand and tgemm::last_error() says which operand and why. tgemm::launch() refuses
// the same calls. tgemm::gemm(), which picks the policy itself, accepts them: it copies misaligned operands of a
// large problem into aligned scratch memory first, and reads those of a small one with scalar loads.
//
// Usage: tgemm_tutorial_06_vectorized [n]   (an n x n x n product, default 4096)
#include <tgemm/gemm.cuh>

#include "common.cuh"

int main(int argc, char** argv) {
  using tgemm::layout;
  using tgemm::op;
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem p(size, size, size);

  //! [check]
  // Three calls on the same buffers: aligned; A starting one float in (4 bytes off a 16-byte boundary); and A read
  // as an m x (k - 1) matrix with lda = k - 1, so its rows no longer start on 16-byte boundaries.
  struct call {
    const char* what;
    const float* a;
    int k, lda;
  };
  const call calls[] = {{"aligned", p.d_a.data(), p.k, p.k},
                        {"A one float in", p.d_a.data() + 1, p.k - 1, p.k},
                        {"lda = k - 1", p.d_a.data(), p.k - 1, p.k - 1}};
  for (const call& x : calls) {
    const tgemm::status s = tgemm::can_implement<tgemm::seed::vectorized>(
        layout::row_major, op::none, op::none, p.m, p.n, x.k, 1.0f, x.a, x.lda, p.d_b.data(), p.n, 0.0f, p.d_c.data(),
        p.n);
    std::printf("can_implement<seed::vectorized>, %-15s: %s\n", x.what, tgemm::to_string(s));
    if (s != tgemm::status::success) std::printf("    %s\n", tgemm::last_error().message.c_str());
  }
  //! [check]

  // tgemm::gemm() accepts the misaligned call (it repacks A, or uses scalar loads for a small problem).
  tgemm::status s = tgemm::gemm(layout::row_major, op::none, op::none, p.m, p.n, p.k - 1, 1.0f, p.d_a.data() + 1, p.k,
                                p.d_b.data(), p.n, 0.0f, p.d_c.data(), p.n);
  bool ok = s == tgemm::status::success;
  if (ok) {
    const std::vector<float> c = p.d_c.to_host();
    ok = tutorial::check_product("gemm, A one float in", p.m, p.n, p.k - 1, tutorial::host_view{p.a.data() + 1, p.k, 1},
                                 tutorial::host_view{p.b.data(), p.n, 1}, tutorial::host_view{c.data(), p.n, 1});
  }

  //! [launch]
  const auto run = [&](auto policy) {
    using Policy = decltype(policy);
    s = tgemm::launch<Policy>(layout::row_major, op::none, op::none, p.m, p.n, p.k, 1.0f, p.d_a.data(), p.k,
                              p.d_b.data(), p.n, 0.0f, p.d_c.data(), p.n);
    if (s != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::launch: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
      std::exit(EXIT_FAILURE);
    }
  };
  //! [launch]
  p.clear_c();
  run(tgemm::seed::vectorized{});
  ok = p.check("seed::vectorized") && ok;
  tutorial::print_time("seed::register_blocked", p.m, p.n, p.k,
                       tutorial::median_ms([&] { run(tgemm::seed::register_blocked{}); }));
  tutorial::print_time("seed::vectorized", p.m, p.n, p.k, tutorial::median_ms([&] { run(tgemm::seed::vectorized{}); }));
  return tutorial::finish(ok);
}
