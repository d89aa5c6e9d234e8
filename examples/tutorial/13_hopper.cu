// Step 13: Hopper. The same bf16 product on the instructions of sm_90a: TMA, mbarriers and wgmma.
//
// Step 12's kernel feeds mma.sync itself: every warp loads its fragments from shared memory with ldmatrix, and the
// 2048 multiply-adds of one instruction need a register round trip per operand. On an H200 that path tops out near
// half of cuBLAS (tgemm's tuned mma.sync tiles reach about 440 of the GPU's 989 TFLOP/s). Hopper's answer is three
// new pieces, and a fast kernel needs all of them:
//
//   - wgmma.mma_async: four warps together (a warpgroup) multiply a 64 x 16 tile of A by a 16 x N tile of B
//     (N up to 256) read *straight from shared memory*, through a 64-bit descriptor that says where the tile starts
//     and how it is swizzled; the products land in float registers, asynchronously. No ldmatrix, no fragments.
//     A descriptor describes a K-major tile (rows of k) or an MN-major one (rows of m or n, the "transpose" flag):
//     any storage order is read in place. (include/tgemm/arch/wgmma.cuh)
//   - TMA: one thread hands the copy engine a tensor map (the operand's shape, strides and a box size, encoded on the
//     host once) and box coordinates, and the whole box, say 64 x 256 bf16 = 32 KiB, arrives in shared memory
//     already in the 128-byte swizzle wgmma reads. Parts of a box outside the matrix arrive as zeros, so ragged
//     edges need no code. (include/tgemm/arch/tma.cuh)
//   - mbarriers: a copy signals its completion by counting bytes on a shared-memory barrier, and consumers wait on
//     the barrier's phase. A ring of stages gets two barriers each: "full" (the bytes arrived) and "empty" (the
//     consumers are done with it). (include/tgemm/arch/mbarrier.cuh)
//
// With those, the block is split by job (warp specialisation): one producer warpgroup, of which one thread issues
// the TMA copies, and two consumer warpgroups that each own 64 rows of a 128 x 256 tile and issue wgmmas. The
// producer gives most of its registers to the consumers (setmaxnreg), which hold 128 float accumulators each.
// (include/tgemm/kernel/gemm_tma_wgmma.cuh: about 150 lines.)
//
// This program measures those steps on your GPU:
//   1. mma.sync: tgemm's tuned sm_90 tensor-core tile (128 x 256 x 32, four stages), step 12's technique grown up;
//   2. TMA + wgmma, one block per tile of C, blocks in column order;
//   3. the same kernel with one persistent block per SM walking the tiles in groups of 16 tile rows: a tile's
//      epilogue (registers to C) overlaps the copies of the block's next tile, and the blocks running at once share
//      a few strips of A and B in L2 instead of streaming all of A once per two columns of tiles;
//   4. tgemm::gemm(), which on an sm_90a build plans exactly 3 for large problems (TGEMM_PRINT_PLAN=1 shows it);
//   5. cublasGemmEx.
// On an H200 at 4096^3 (bf16 in, float out), measured: see examples/README.md for the table of one run.
//
// It needs an sm_90 GPU and a build for sm_90a (CMAKE_CUDA_ARCHITECTURES containing 90a: the `a` target is the one
// with wgmma and setmaxnreg); elsewhere it says so and stops.
//
// Usage: tgemm_tutorial_13_hopper [n]   (an n x n x n product, default 4096)
#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <functional>

#include "common.cuh"
#include "cublas_check.cuh"

using tutorial::check_cublas;

using bf16 = __nv_bfloat16;

using tutorial::bf16_matrix;  // random bf16 values on the device, and their float values (common.cuh)

static void check_status(tgemm::status s, const char* call) {
  if (s == tgemm::status::success) return;
  std::fprintf(stderr, "%s: %s: %s\n", call, tgemm::to_string(s), tgemm::last_error().message.c_str());
  std::exit(EXIT_FAILURE);
}

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  if (tutorial::device_arch() != 900) {
    std::printf("wgmma and TMA need an sm_90 GPU (H100, H200); this one is not: nothing to show\n");
    return EXIT_SUCCESS;
  }
  // The Hopper kernel's tile and the mma.sync tile, as tgemm's tuning table names them for bf16 in, float out.
  using entry = tgemm::tuning::tensorop_f16_sm90<bf16, float>;
  using hopper = entry::wgmma;
  using mma_sync = entry::general;
  int device = 0, sms = 0;
  TUTORIAL_CHECK(cudaGetDevice(&device));
  TUTORIAL_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (tgemm::detail::check_tma_wgmma_image(device) != tgemm::status::success) {
    std::printf("%s\n", tgemm::last_error().message.c_str());
    return EXIT_SUCCESS;
  }

  // Row-major C (m x n, float) = A (m x k) B (k x n), bf16 inputs.
  const int m = size, n = size, k = size;
  const bf16_matrix a(size_t(m) * k, 1), b(size_t(k) * n, 2);
  const size_t count = size_t(m) * n;
  const tutorial::device_buffer c[5] = {tutorial::device_buffer(count), tutorial::device_buffer(count),
                                        tutorial::device_buffer(count), tutorial::device_buffer(count),
                                        tutorial::device_buffer(count)};
  for (const auto& x : c) TUTORIAL_CHECK(cudaMemset(x.data(), 0xFF, count * sizeof(float)));  // NaN until written

  // The Hopper kernel's own launcher works on the column-major form: row-major C = A B is column-major
  // C^T (n x m) = B^T A^T, and B^T is B's row-major storage read as a column-major n x k array (n contiguous: an
  // MN-major operand), A^T likewise a k x m array (k contiguous: K-major). tgemm::gemm() does this for you.
  using kernels = tgemm::detail::wgmma_kernels<hopper>;
  check_status(kernels::prepare(tgemm::op::none, tgemm::op::none, device), "preparing the Hopper kernel");
  const auto run_hopper = [&](const tutorial::device_buffer& out, int blocks, int group_m) {
    check_status(kernels::launch(tgemm::op::none, tgemm::op::none, n, m, k, 1.0f, b.device, n, a.device, k, 0.0f,
                                 out.data(), n, blocks, group_m, nullptr, device),
                 "the Hopper kernel");
  };
  const int tile_rows = int(kernels::tiles_m(n));  // tile rows of the column-major form: one group = column order
  cublasHandle_t handle;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  const float alpha = 1.0f, beta = 0.0f;
  struct step {
    const char* label;
    std::function<void()> run;
  };
  const step steps[] = {
      {"1 mma.sync (tuned)",
       [&] {
         check_status(tgemm::launch<mma_sync>(tgemm::layout::row_major, tgemm::op::none, tgemm::op::none, m, n, k,
                                              1.0f, a.device, k, b.device, n, 0.0f, c[0].data(), n),
                      "tgemm::launch");
       }},
      {"2 TMA + wgmma", [&] { run_hopper(c[1], 0, tile_rows); }},
      {"3 + persistent, grouped", [&] { run_hopper(c[2], sms, 16); }},
      {"4 tgemm::gemm", [&] {
         check_status(tgemm::gemm(tgemm::layout::row_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f,
                                  a.device, k, b.device, n, 0.0f, c[3].data(), n),
                      "tgemm::gemm");
       }},
      {"5 cublasGemmEx", [&] {
         // Column-major C^T = B^T A^T, as in step 8: B first, n and m trade places.
         check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.device, CUDA_R_16BF, n,
                                   a.device, CUDA_R_16BF, k, &beta, c[4].data(), CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT),
                      "cublasGemmEx");
       }},
  };
  std::printf("kernel : %s (%d threads, %d KiB of shared memory) beside %s\n", hopper::name().c_str(),
              hopper::threads, hopper::shared_bytes / 1024, mma_sync::name().c_str());

  bool ok = true;
  for (int i = 0; i < 5; ++i) {
    steps[i].run();
    const std::vector<float> result = c[i].to_host();
    ok = tutorial::check_product(steps[i].label, m, n, k, tutorial::host_view{a.values.data(), k, 1},
                                 tutorial::host_view{b.values.data(), n, 1},
                                 tutorial::host_view{result.data(), n, 1}) &&
         ok;
  }
  double ms[5];
  for (int i = 0; i < 5; ++i) ms[i] = tutorial::median_ms(steps[i].run, 20);
  for (int i = 0; i < 5; ++i) tutorial::print_time(steps[i].label, m, n, k, ms[i], 20);
  std::printf("ratio  : of cuBLAS, mma.sync %.1f%%, TMA + wgmma %.1f%%, persistent %.1f%%, tgemm::gemm %.1f%%\n",
              100.0 * ms[4] / ms[0], 100.0 * ms[4] / ms[1], 100.0 * ms[4] / ms[2], 100.0 * ms[4] / ms[3]);
  check_cublas(cublasDestroy(handle), "cublasDestroy");
  return tutorial::finish(ok);
}

// Where next (issue 14 of tgemm): an epilogue that stages C through shared memory (stmatrix) and stores it with TMA,
// so C leaves in whole lines and the consumers move on sooner; two-block clusters that multicast one TMA copy of A
// (or B) to both blocks, halving its L2 traffic; TF32 on wgmma (its operands must be K-major: the other layouts
// need a transposing copy first).
