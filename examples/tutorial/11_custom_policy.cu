// Step 11: a policy of your own. Every number of the kernel is a template argument; change them and measure.
//
// tgemm::policy<Block, Warp, Thread, VectorWidth, Stages, Unroll, Accumulator> describes a kernel completely:
//
//   block_shape<m, n, k>   the C tile of a thread block, and the k depth of one shared-memory stage;
//   warp_shape<m, n>       the C tile of one warp (the block holds (block / warp) warps, so this sets the block size);
//   thread_shape<m, n>     the C tile each thread keeps in registers (a warp is 32 threads: warp / thread = 32);
//   VectorWidth            floats per global load: 4 needs 16-byte alignment (step 6), 1 works for anything;
//   Stages                 shared-memory stages of the k pipeline (step 7);
//   Unroll                 unroll factor of the loop over one stage's k slice (must divide block k);
//   Accumulator            float, or double for a more accurate sum at the price of FP64 throughput.
//
// What trades against what: a bigger block tile reuses each loaded value more but leaves fewer blocks for small
// problems; a bigger thread tile gives more FMAs per shared-memory load but uses more registers, so fewer warps fit
// on an SM (occupancy); more stages hide more latency but use more shared memory.
//
// A policy that cannot work does not compile, and the message says what to change. For example
//
//   using bad = tgemm::policy<tgemm::block_shape<128, 128, 8>, tgemm::warp_shape<32, 32>, tgemm::thread_shape<8, 8>,
//                             4, 2>;
//
// stops the compilation (nvcc 13, this file with -DTUTORIAL_SHOW_BAD_POLICY) with, first of three errors:
//
//   tgemm/policy/policy.cuh(...): error: static assertion failed with "a warp must hold exactly 32 threads:
//   (warp_m / thread_m) * (warp_n / thread_n) == 32"
//
// because 32 / 8 times 32 / 8 is 16 threads. Run-time requirements (alignment, leading dimensions) are what
// tgemm::can_implement<Policy>() checks on the host, before a launch.
//
// Usage: tgemm_tutorial_11_custom_policy [n]   (an n x n x n product, default 4096)
#include <tgemm/gemm.cuh>

#include "common.cuh"

//! [policy]
using my_policy = tgemm::policy<tgemm::block_shape<128, 128, 16>,  // 128 x 128 tile per block, 16 k per stage
                                tgemm::warp_shape<64, 32>,          // 2 x 4 warps: 256 threads
                                tgemm::thread_shape<8, 8>,          // 64 accumulators per thread
                                /*vector_width=*/4, /*stages=*/4, /*unroll=*/16, /*accumulator=*/float>;
// Every policy is its own set of kernels (one per transposition pair and per compiled architecture), so each one
// adds compile time: a library keeps the list short. Changing `float` to `double` above would sum the exact
// products in double (a result within about one rounding of the exact value) at FP64 speed.
//! [policy]

#if defined(TUTORIAL_SHOW_BAD_POLICY)
using bad = tgemm::policy<tgemm::block_shape<128, 128, 8>, tgemm::warp_shape<32, 32>, tgemm::thread_shape<8, 8>, 4, 2>;
static_assert(bad::threads > 0, "using a member instantiates the policy and runs its checks");
#endif

int main(int argc, char** argv) {
  using tgemm::layout;
  using tgemm::op;
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem p(size, size, size);
  bool ok = true;

  //! [run]
  const auto measure = [&](auto policy, const char* label) {
    using Policy = decltype(policy);
    const auto run = [&] {
      const tgemm::status s = tgemm::launch<Policy>(layout::row_major, op::none, op::none, p.m, p.n, p.k, 1.0f,
                                                    p.d_a.data(), p.k, p.d_b.data(), p.n, 0.0f, p.d_c.data(), p.n);
      if (s != tgemm::status::success) {  // after can_implement's yes, only the device can say no (e.g. no image)
        std::fprintf(stderr, "tgemm::launch: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
        std::exit(EXIT_FAILURE);
      }
    };
    const tgemm::status s = tgemm::can_implement<Policy>(layout::row_major, op::none, op::none, p.m, p.n, p.k, 1.0f,
                                                         p.d_a.data(), p.k, p.d_b.data(), p.n, 0.0f, p.d_c.data(), p.n);
    std::printf("policy : %-26s %s, %d threads, %d bytes of shared memory: %s\n", label, Policy::name().c_str(),
                Policy::threads, Policy::shared_bytes, tgemm::to_string(s));
    if (s != tgemm::status::success) {
      std::printf("    %s\n", tgemm::last_error().message.c_str());
      ok = false;
      return;
    }
    p.clear_c();
    run();
    ok = p.check(label) && ok;
    tutorial::print_time(label, p.m, p.n, p.k, tutorial::median_ms(run));
  };
  measure(my_policy{}, "my_policy");
  //! [run]

  // The library's own choice for this GPU, through the dispatching call (its policy for large aligned problems).
  const std::string chosen = tgemm::tuning::with_tuning<tgemm::tuning::default_chain>(
      tutorial::device_arch(), [](auto entry) { return decltype(entry)::general::name(); });
  std::printf("policy : %-26s %s\n", "tgemm::gemm (default)", chosen.c_str());
  const auto run_default = [&] {
    const tgemm::status s = tgemm::gemm(layout::row_major, op::none, op::none, p.m, p.n, p.k, 1.0f, p.d_a.data(), p.k,
                                        p.d_b.data(), p.n, 0.0f, p.d_c.data(), p.n);
    if (s != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
      std::exit(EXIT_FAILURE);
    }
  };
  p.clear_c();
  run_default();
  ok = p.check("tgemm::gemm (default)") && ok;
  tutorial::print_time("tgemm::gemm (default)", p.m, p.n, p.k, tutorial::median_ms(run_default));
  return tutorial::finish(ok);
}
