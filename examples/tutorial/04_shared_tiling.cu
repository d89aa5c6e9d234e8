// Step 4: shared-memory tiling. A block loads 16 x 16 tiles of A and B once and every thread reuses them.
//
// In step 3 each value of A was fetched by all n/32 warps that need it, each value of B by m/8 of them. Here a
// 16 x 16 block computes a 16 x 16 tile of C and walks k in slices of 16: the block copies A(rows, slice) and
// B(slice, cols) into shared memory (one element per thread, coalesced), waits, and each thread then reads 16 values
// of each tile to advance its dot product by 16 terms. Every global load now serves 16 multiply-adds instead of one.
//
// Shared memory is split into 32 banks of 4-byte words; a warp's accesses are served at once when they hit
// different banks or the same word (a broadcast). A warp here spans two rows of the block (ty, ty + 1) and 16
// columns: a_tile[ty][l] is two words 16 banks apart, b_tile[l][tx] sixteen consecutive words: no bank conflicts.
//
// Boundaries: when m, n or k is not a multiple of 16, the last tiles overhang the matrices. Threads load 0 for
// elements outside (so the inner loop needs no test) and only threads inside C store. No thread may return early:
// every thread must reach both __syncthreads() of every slice, and must help load the tiles.
//
// Two shared-memory loads per multiply-add remain; step 5 gives each thread more work per load.
//
// Usage: tgemm_tutorial_04_shared_tiling [n]   (an n x n x n product, default 4096; also checks 1000 x 1003 x 997)
#include "common.cuh"

//! [kernel]
constexpr int tile = 16;  // a tile x tile block computes a tile x tile piece of C, tile values of k at a time

/// C = A B for row-major A (m x k), B (k x n), C (m x n); any m, n, k.
__global__ void __launch_bounds__(tile * tile) shared_tiled_kernel(int m, int n, int k, const float* a, const float* b,
                                                                 float* c) {
  __shared__ float a_tile[tile][tile];  // A(block rows, l0 .. l0 + 15)
  __shared__ float b_tile[tile][tile];  // B(l0 .. l0 + 15, block columns)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * tile + ty;
  const int col = blockIdx.x * tile + tx;  // threadIdx.x along a row: coalesced, as in step 3
  float sum = 0.0f;
  for (int l0 = 0; l0 < k; l0 += tile) {
    a_tile[ty][tx] = row < m && l0 + tx < k ? a[size_t(row) * k + l0 + tx] : 0.0f;
    b_tile[ty][tx] = l0 + ty < k && col < n ? b[size_t(l0 + ty) * n + col] : 0.0f;
    __syncthreads();  // both tiles are complete
#pragma unroll
    for (int l = 0; l < tile; ++l) sum += a_tile[ty][l] * b_tile[l][tx];
    __syncthreads();  // nobody still reads them when the next slice overwrites them
  }
  if (row < m && col < n) c[size_t(row) * n + col] = sum;
}
//! [kernel]

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem odd(1000, 1003, 997), p(size, size, size);

  const auto run = [](tutorial::problem& x) {
    const dim3 block(tile, tile);
    const dim3 grid((x.n + tile - 1) / tile, (x.m + tile - 1) / tile);
    shared_tiled_kernel<<<grid, block>>>(x.m, x.n, x.k, x.d_a.data(), x.d_b.data(), x.d_c.data());
    TUTORIAL_CHECK(cudaGetLastError());
  };

  run(odd);
  run(p);
  bool ok = odd.check("shared_tiled_kernel");
  ok = p.check("shared_tiled_kernel") && ok;
  tutorial::print_time("shared_tiled_kernel", p.m, p.n, p.k, tutorial::median_ms([&] { run(p); }));
  return tutorial::finish(ok);
}
