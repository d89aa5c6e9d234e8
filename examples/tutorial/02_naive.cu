// Step 2: the naive kernel. One GPU thread per element of C, operands read straight from global memory.
//
// The CPU loop of step 1 becomes a kernel by giving each (i, j) to its own thread: thread (x, y) of the grid
// computes C(row, col) = sum_l A(row, l) B(l, col). Millions of threads hide some of the memory latency, so this
// already beats the CPU by far. But the mapping below is the one most first attempts use, and it is slow:
//
//   threadIdx.x picks the ROW, so threadIdx.x runs DOWN a column of the row-major C.
//
// A warp is 32 threads with consecutive threadIdx.x (and here the same threadIdx.y). At every step l its 32
// loads of A(row .. row + 31, l) are k floats apart: 32 separate 32-byte memory sectors to deliver 128 useful
// bytes. B(l, col) is one address for the whole warp, and the final stores to C(row .. row + 31, col) are again
// n floats apart. The caches absorb part of it, but the memory system moves several times more data than the
// kernel uses. Step 3 changes two lines and nothing else.
//
// Usage: tgemm_tutorial_02_naive [n]   (an n x n x n product, default 4096)
#include "common.cuh"

//! [kernel]
/// C = A B for row-major A (m x k), B (k x n), C (m x n); one thread per element of C.
__global__ void naive_kernel(int m, int n, int k, const float* a, const float* b, float* c) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;  // consecutive threads: consecutive rows (uncoalesced)
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;  // the grid overhangs C when m or n is not a multiple of the block
  float sum = 0.0f;
  for (int l = 0; l < k; ++l) sum += a[size_t(row) * k + l] * b[size_t(l) * n + col];
  c[size_t(row) * n + col] = sum;
}
//! [kernel]

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem odd(1000, 1003, 997), p(size, size, size);  // odd: sizes that are not multiples of the block

  const auto run = [](tutorial::problem& x) {
    const dim3 block(32, 8);  // one warp per threadIdx.y
    const dim3 grid((x.m + block.x - 1) / block.x, (x.n + block.y - 1) / block.y);
    naive_kernel<<<grid, block>>>(x.m, x.n, x.k, x.d_a.data(), x.d_b.data(), x.d_c.data());
    TUTORIAL_CHECK(cudaGetLastError());  // a bad launch configuration shows up here
  };

  run(odd);
  run(p);
  bool ok = odd.check("naive_kernel");
  ok = p.check("naive_kernel") && ok;
  tutorial::print_time("naive_kernel", p.m, p.n, p.k, tutorial::median_ms([&] { run(p); }));
  return tutorial::finish(ok);
}
