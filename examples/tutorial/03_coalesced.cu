// Step 3: coalescing. The naive kernel with its thread mapping turned round, so a warp reads consecutive addresses.
//
// Global memory is read in 32-byte sectors, and the hardware merges ("coalesces") the 32 loads of a warp into as
// few sectors as their addresses allow. In step 2, threadIdx.x picked the row, so a warp's 32 loads of A were k
// floats apart: 32 sectors per load instruction. Here threadIdx.x picks the COLUMN:
//
//   - A(row, l) is the same address for the whole warp: one sector, broadcast to every thread;
//   - B(l, col .. col + 31) is 128 contiguous bytes: four sectors, the minimum for 32 floats;
//   - the stores to C(row, col .. col + 31) are contiguous as well.
//
// The arithmetic is identical and every thread still reads 2k floats; only which thread computes which element
// changed, and with it the traffic per useful byte. Each value of A and B is still fetched from memory (or cache)
// by every thread that needs it, n or m times over: step 4 stops that.
//
// (tgemm::seed::naive, the library's first rung, is this kernel for column-major storage: there threadIdx.x runs
// down a column of C, because in column-major order that is the contiguous direction.)
//
// Usage: tgemm_tutorial_03_coalesced [n]   (an n x n x n product, default 4096)
#include "common.cuh"

//! [kernel]
/// C = A B for row-major A (m x k), B (k x n), C (m x n); one thread per element, a warp along a row of C.
__global__ void coalesced_kernel(int m, int n, int k, const float* a, const float* b, float* c) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // consecutive threads: consecutive columns (coalesced)
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int l = 0; l < k; ++l) sum += a[size_t(row) * k + l] * b[size_t(l) * n + col];
  c[size_t(row) * n + col] = sum;
}
//! [kernel]

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem odd(1000, 1003, 997), p(size, size, size);

  const auto run = [](tutorial::problem& x) {
    const dim3 block(32, 8);  // one warp per threadIdx.y, now along a row of C
    const dim3 grid((x.n + block.x - 1) / block.x, (x.m + block.y - 1) / block.y);  // x covers columns now
    coalesced_kernel<<<grid, block>>>(x.m, x.n, x.k, x.d_a.data(), x.d_b.data(), x.d_c.data());
    TUTORIAL_CHECK(cudaGetLastError());
  };

  run(odd);
  run(p);
  bool ok = odd.check("coalesced_kernel");
  ok = p.check("coalesced_kernel") && ok;
  tutorial::print_time("coalesced_kernel", p.m, p.n, p.k, tutorial::median_ms([&] { run(p); }));
  return tutorial::finish(ok);
}
