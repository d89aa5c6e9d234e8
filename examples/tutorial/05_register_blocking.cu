// Step 5: register blocking. Each thread computes a 4 x 4 tile of C in registers.
//
// In step 4 every multiply-add needed two shared-memory loads, and shared memory, not arithmetic, set the pace.
// Here a block of 256 threads computes a 64 x 64 tile of C, and each thread 16 elements of it: at every k it
// loads 4 values of A and 4 of B from shared memory into registers and does the 4 x 4 = 16 multiply-adds of their
// outer product. That is 8 loads for 16 FMAs (4x fewer per FMA than step 4), and the independent FMAs of one
// thread keep the pipelines busy (instruction-level parallelism). The bigger block tile also cuts global traffic
// by 4 again: each value a block loads now serves 64 FMAs instead of 16.
//
// Details that matter:
//   - a thread's rows are ty, ty + 16, ty + 32, ty + 48 (and its columns likewise), not four adjacent ones, so a
//     warp reads 16 consecutive words of b_tile and two words of a_tile at each k: no bank conflicts;
//   - the A slice is stored transposed (k-major) so that those reads are along a row of a_tile; the store that
//     transposes it would have 8 threads in the same bank (rows 64 floats apart), so each row of a_tile is padded
//     by 4 floats, which moves the 8 threads to 8 different banks.
//
// The library's tgemm::seed::register_blocked is this idea as a policy (64 x 64 x 8 block, 4 x 4 per thread); the
// program runs it too, on the same data.
//
// Usage: tgemm_tutorial_05_register_blocking [n]   (an n x n x n product, default 4096)
#include <tgemm/gemm.cuh>

#include "common.cuh"

//! [kernel]
constexpr int block_m = 64, block_n = 64, block_k = 8;  // C tile of a block, and the k depth of one slice
constexpr int thread_m = 4, thread_n = 4;                // C tile of a thread, held in registers
constexpr int threads_x = block_n / thread_n, threads_y = block_m / thread_m;  // 16 x 16
constexpr int threads = threads_x * threads_y;                                   // 256
constexpr int padding = 4;                                                       // see the header comment

/// C = A B for row-major A (m x k), B (k x n), C (m x n); any m, n, k. Launch with `threads` threads per block.
__global__ void __launch_bounds__(threads) register_blocked_kernel(int m, int n, int k, const float* a, const float* b,
                                                                 float* c) {
  __shared__ float a_tile[block_k][block_m + padding];  // a_tile[l][r] = A(row0 + r, l0 + l)
  __shared__ float b_tile[block_k][block_n];            // b_tile[l][j] = B(l0 + l, col0 + j)
  const int tx = threadIdx.x % threads_x, ty = threadIdx.x / threads_x;
  const int row0 = blockIdx.y * block_m, col0 = blockIdx.x * block_n;
  float acc[thread_m][thread_n] = {};

  for (int l0 = 0; l0 < k; l0 += block_k) {
    for (int e = threadIdx.x; e < block_m * block_k; e += threads) {  // 8 threads read one row's 8 values
      const int r = e / block_k, l = e % block_k;
      a_tile[l][r] = row0 + r < m && l0 + l < k ? a[size_t(row0 + r) * k + l0 + l] : 0.0f;
    }
    for (int e = threadIdx.x; e < block_k * block_n; e += threads) {  // a warp reads 32 consecutive columns
      const int l = e / block_n, j = e % block_n;
      b_tile[l][j] = l0 + l < k && col0 + j < n ? b[size_t(l0 + l) * n + col0 + j] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < block_k; ++l) {
      float a_frag[thread_m], b_frag[thread_n];
#pragma unroll
      for (int i = 0; i < thread_m; ++i) a_frag[i] = a_tile[l][ty + i * threads_y];
#pragma unroll
      for (int j = 0; j < thread_n; ++j) b_frag[j] = b_tile[l][tx + j * threads_x];
#pragma unroll
      for (int i = 0; i < thread_m; ++i) {
#pragma unroll
        for (int j = 0; j < thread_n; ++j) acc[i][j] += a_frag[i] * b_frag[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < thread_m; ++i) {
    const int row = row0 + ty + i * threads_y;
#pragma unroll
    for (int j = 0; j < thread_n; ++j) {
      const int col = col0 + tx + j * threads_x;
      if (row < m && col < n) c[size_t(row) * n + col] = acc[i][j];
    }
  }
}
//! [kernel]

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem odd(1000, 1003, 997), p(size, size, size);
  tutorial::device_buffer c_library(size_t(p.m) * p.n);

  const auto run = [](tutorial::problem& x) {
    const dim3 grid((x.n + block_n - 1) / block_n, (x.m + block_m - 1) / block_m);
    register_blocked_kernel<<<grid, threads>>>(x.m, x.n, x.k, x.d_a.data(), x.d_b.data(), x.d_c.data());
    TUTORIAL_CHECK(cudaGetLastError());
  };
  //! [library]
  // The same rung from the library: a policy type, launched on the same row-major data.
  const auto run_library = [&] {
    const tgemm::status s =
        tgemm::launch<tgemm::seed::register_blocked>(tgemm::layout::row_major, tgemm::op::none, tgemm::op::none, p.m,
                                                     p.n, p.k, 1.0f, p.d_a.data(), p.k, p.d_b.data(), p.n, 0.0f,
                                                     c_library.data(), p.n);
    if (s != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::launch: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
      std::exit(EXIT_FAILURE);
    }
  };
  //! [library]

  run(odd);
  run(p);
  run_library();
  bool ok = odd.check("register_blocked_kernel");
  ok = p.check("register_blocked_kernel") && ok;
  ok = p.check("seed::register_blocked", &c_library) && ok;

  // Both sum the same products in the same order with fused multiply-adds, so they usually agree bit for bit.
  const std::vector<float> mine = p.d_c.to_host(), library = c_library.to_host();
  size_t different = 0;
  for (size_t i = 0; i < mine.size(); ++i) different += mine[i] != library[i];
  std::printf("compare: %zu of %zu elements differ between this kernel and tgemm::seed::register_blocked\n",
              different, mine.size());

  tutorial::print_time("register_blocked_kernel", p.m, p.n, p.k, tutorial::median_ms([&] { run(p); }));
  tutorial::print_time("seed::register_blocked", p.m, p.n, p.k, tutorial::median_ms(run_library));
  return tutorial::finish(ok);
}
