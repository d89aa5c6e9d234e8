// Step 7: double buffering. tgemm::seed::double_buffered copies the next k slice while it multiplies this one.
//
// Until now every k slice went: load A and B slices into shared memory, __syncthreads(), multiply, __syncthreads().
// While the loads are in flight the block has nothing to compute, and while it computes no loads are in flight; only
// other resident blocks (occupancy) can fill the gaps. With two shared-memory stages the block overlaps the two:
//
//   before the loop:  start copying slice 0 into stage 0
//   iteration t:      wait for slice t, __syncthreads(), start copying slice t + 1 into the other stage,
//                     multiply slice t
//
// so the copies of slice t + 1 travel while the FMAs of slice t run, and one barrier per slice is enough (it both
// publishes slice t and tells everyone that slice t - 1's stage is free to be refilled).
//
// On sm_80 and newer the copies are cp.async instructions: global to shared memory directly, without passing
// through registers, issued now and completed later (cp.async.commit_group closes a batch, cp.async.wait_group N
// waits until at most N batches are still in flight). Operands whose layout needs a transpose on the way into
// shared memory are instead loaded into registers at the start of the slice and stored at its end, which overlaps
// just as well. More stages hide longer latencies at the cost of shared memory (stages x slice size), which may
// leave room for fewer resident blocks: `stages` is a tuning knob. The sm_90 entry of tuning/simt_f32.cuh uses 4
// for its large tile of 8-deep slices and 3 for its tiles of 16-deep slices.
//
// Usage: tgemm_tutorial_07_double_buffering [n]   (an n x n x n product, default 4096)
#include <tgemm/gemm.cuh>

#include "common.cuh"

//! [policies]
// seed::vectorized and seed::double_buffered differ only in their stages (1 and 2); a third stage is one number.
using one_stage = tgemm::seed::vectorized;
using two_stages = tgemm::seed::double_buffered;
using three_stages = tgemm::policy<tgemm::block_shape<128, 128, 8>, tgemm::warp_shape<32, 64>,
                                   tgemm::thread_shape<8, 8>, /*vector_width=*/4, /*stages=*/3>;
//! [policies]

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem p(size, size, size);

  bool ok = true;
  const auto measure = [&](auto policy) {
    using Policy = decltype(policy);
    const auto run = [&] {
      const tgemm::status s =
          tgemm::launch<Policy>(tgemm::layout::row_major, tgemm::op::none, tgemm::op::none, p.m, p.n, p.k, 1.0f,
                                p.d_a.data(), p.k, p.d_b.data(), p.n, 0.0f, p.d_c.data(), p.n);
      if (s != tgemm::status::success) {
        std::fprintf(stderr, "tgemm::launch: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
        std::exit(EXIT_FAILURE);
      }
    };
    char label[64];
    std::snprintf(label, sizeof label, "stages = %d (%.1f KiB smem)", Policy::stages, Policy::shared_bytes / 1024.0);
    p.clear_c();
    run();
    ok = p.check(label) && ok;
    tutorial::print_time(label, p.m, p.n, p.k, tutorial::median_ms(run));
  };
  std::printf("policy : %s (%d threads per block)\n", two_stages::name().c_str(), two_stages::threads);
  measure(one_stage{});
  measure(two_stages{});
  measure(three_stages{});
  return tutorial::finish(ok);
}
