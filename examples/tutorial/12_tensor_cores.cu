// Step 12: tensor cores. The product in bf16, by a kernel that feeds mma.sync itself.
//
// Steps 2 to 11 computed with FP32 FMAs: one multiply-add per thread per instruction. A tensor-core instruction
// makes the whole warp compute a small matrix product: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 adds a
// 16 x 16 tile of A times a 16 x 8 tile of B to 16 x 8 float accumulators, 2048 multiply-adds in one instruction.
// The inputs are bf16 (float's 8-bit exponent, 8 significant bits). A product of two bf16 values is exact in float,
// so only the float sums round, as in the earlier steps.
//
// The operands live in registers spread over the 32 lanes, two bf16 per 32-bit register. With g = lane / 4 and
// t = lane % 4, each lane holds (row, columns):
//   A, 16 x 16 (m x k):  a0 = (g, 2t..2t+1)  a1 = (g+8, 2t..2t+1)  a2 = (g, 2t+8..2t+9)  a3 = (g+8, 2t+8..2t+9)
//   B, 16 x 8  (k x n):  b0 = (k 2t..2t+1, n g)  b1 = (k 2t+8..2t+9, n g)
//   C, 16 x 8  (floats): c0, c1 = (g, 2t..2t+1)  c2, c3 = (g+8, 2t..2t+1)
// ".row.col" says that both A's and B's registers run along k.
//
// ldmatrix.sync.aligned.m8n8.x4.shared.b16 builds those registers from shared memory in one instruction. It loads
// four 8 x 8 matrices of 16-bit values: lane L gives the address of row L % 8 of matrix L / 8 (16 contiguous
// bytes), and register j of every lane receives matrix j, lane L holding row L / 4, columns 2 (L % 4) and
// 2 (L % 4) + 1. That is the (g, 2t..2t+1) pattern above. With .trans lane L receives rows 2 (L % 4) and
// 2 (L % 4) + 1 of column L / 4 instead: the matrix as if stored the other way. The tutorial's matrices are
// row-major, so A (m x k) is contiguous along k and loads as it is; B (k x n) is contiguous along n, but its
// registers run along k, so B is loaded with .trans.
//
// Shared memory has 32 banks of 4 bytes. Each 8 x 8 matrix of an ldmatrix reads 8 rows of 16 bytes at the same
// column. Here the rows of a tile are 128 bytes (A: 64 values of k) or 256 bytes (B: 128 values of n), so those 8
// reads would all hit the same 4 banks: an 8-way conflict. Padding each row would fix that but waste memory. The
// kernel swizzles instead: 16-byte chunk c of row r is stored at chunk c ^ (r % 8). The 8 rows of one matrix now
// use 8 different groups of 4 banks, all 32 banks. Within a row the chunks are only permuted, so the copies that
// fill a row stay conflict-free too. Writers and readers go through the same function, swizzled().
//
// The kernel: a block computes a 128 x 128 tile of C with 8 warps, each 64 x 32 (4 x 4 mma tiles, 64 float
// accumulators per thread). k advances in slices of 64, so that a row of the A tile is 128 bytes, the 8 chunks the
// swizzle permutes. The slices are copied with cp.async into two shared-memory stages, as in step 7. That is 64 KiB
// of shared memory, above the 48 KiB a kernel gets by default, so main() raises the kernel's limit with
// cudaFuncSetAttribute. There is no edge handling: m and n must be multiples of 128, k of 64, and the program
// refuses other sizes.
//
// C is float, as cublasGemmEx gives it with CUBLAS_COMPUTE_32F. A bf16 C would round every result to 8 significant
// bits and hide accumulation errors from the float64 check. A float C is held to the other steps' bound,
// (k + 4) FLT_EPSILON sum |a b|. How the tensor core rounds inside one mma is not documented (it need not round to
// nearest), so the check keeps that generous bound rather than a tighter one.
//
// Needs sm_80 or newer (bf16 mma.sync and cp.async).
//
// Usage: tgemm_tutorial_12_tensor_cores [n]   (an n x n x n product, n a multiple of 128, default 4096)
#include <tgemm/gemm.cuh>

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "common.cuh"
#include "cublas_check.cuh"

using tutorial::check_cublas;

using bf16 = __nv_bfloat16;

//! [kernel]
constexpr int block_m = 128, block_n = 128, block_k = 64;  // C tile of a block, k depth of one slice
constexpr int warps_m = 2, warps_n = 4;                     // 8 warps...
constexpr int warp_m = block_m / warps_m, warp_n = block_n / warps_n;  // ...each computing 64 x 32 of C
constexpr int mmas_m = warp_m / 16, mmas_n = warp_n / 8;             // 4 x 4 mma tiles of 16 x 8 per warp
constexpr int threads = 32 * warps_m * warps_n;                      // 256
constexpr int a_stage = block_m * block_k, b_stage = block_k * block_n;  // bf16 values per stage
constexpr int shared_bytes = 2 * (a_stage + b_stage) * int(sizeof(bf16));  // two stages: 64 KiB

/// Offset, in bf16 values, of 16-byte chunk `chunk` of row `row` in a tile with `row_chunks` chunks per row.
__device__ __forceinline__ int swizzled(int row, int chunk, int row_chunks) {
  return (row * row_chunks + (chunk ^ (row % 8))) * 8;
}

__device__ __forceinline__ uint32_t shared_address(const void* pointer) {
  return uint32_t(__cvta_generic_to_shared(pointer));
}

// The instructions, one wrapper each (sm_80 and newer; only the kernel's guarded body calls them).

/// Starts a 16-byte copy from global to shared memory. .cg keeps it out of L1: each tile is read once per block.
__device__ __forceinline__ void cp_async_16(bf16* shared, const bf16* global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(shared)),
               "l"(__cvta_generic_to_global(global)));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

/// Four 8 x 8 matrices; this lane gives the address of row lane % 8 of matrix lane / 8.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const bf16* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const bf16* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}

/// c (16 x 8) += a (16 x 16) b (16 x 8), in the register layouts of the header comment.
__device__ __forceinline__ void mma_16x8x16(float (&c)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// Starts copying one slice into one stage. Thread x copies chunk x % 8 of A's rows x / 8 + 32 i (8 neighbouring
/// threads read one 128-byte row) and chunk x % 16 of B's rows x / 16 + 16 i (16 threads per 256-byte row):
/// coalesced. Rows 32 or 16 apart have the same r % 8, so one swizzled offset, computed once, serves all four.
/// `a` and `b` point at the thread's first chunk in global memory, `a_tile` and `b_tile` at its place in the stage.
__device__ __forceinline__ void load_slice(const bf16* a, int lda, const bf16* b, int ldb, bf16* a_tile, bf16* b_tile) {
  constexpr int a_rows = threads / (block_k / 8), b_rows = threads / (block_n / 8);  // rows per pass: 32, 16
#pragma unroll
  for (int i = 0; i < block_m / a_rows; ++i) cp_async_16(a_tile + i * a_rows * block_k, a + i * a_rows * lda);
#pragma unroll
  for (int i = 0; i < block_k / b_rows; ++i) cp_async_16(b_tile + i * b_rows * block_n, b + i * b_rows * ldb);
  cp_async_commit();
}

/// The warp's 64 x 32 tile of C += its rows of the A slice times its columns of the B slice, 16 values of k at a time.
__device__ __forceinline__ void multiply_slice(const bf16* a_tile, const bf16* b_tile, int warp_row, int warp_col,
                                               int lane, float (&acc)[mmas_m][mmas_n][4]) {
#pragma unroll
  for (int kk = 0; kk < block_k / 16; ++kk) {
    uint32_t a[mmas_m][4], b[mmas_n][2];
    // A: lanes 0-15 address rows 0-15 at k 0-7 (matrices a0, a1), lanes 16-31 the same rows at k 8-15 (a2, a3).
#pragma unroll
    for (int i = 0; i < mmas_m; ++i) {
      ldmatrix_x4(a[i], a_tile + swizzled(warp_row + i * 16 + lane % 16, kk * 2 + lane / 16, block_k / 8));
    }
    // B, transposed: lanes 0-15 address k rows 0-15 at columns 0-7 (b0, b1 of one 8-wide tile), lanes 16-31 the
    // same rows at columns 8-15 (b0, b1 of the next tile).
#pragma unroll
    for (int j = 0; j < mmas_n; j += 2) {
      uint32_t r[4];
      ldmatrix_x4_trans(r, b_tile + swizzled(kk * 16 + lane % 16, (warp_col + j * 8) / 8 + lane / 16, block_n / 8));
      b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
    }
#pragma unroll
    for (int i = 0; i < mmas_m; ++i) {
#pragma unroll
      for (int j = 0; j < mmas_n; ++j) mma_16x8x16(acc[i][j], a[i], b[j]);
    }
  }
}

/// C = A B for row-major bf16 A (m x k), B (k x n) and float C (m x n), summed in float. Launch a grid of
/// (n / block_n, m / block_m) blocks of `threads` threads with `shared_bytes` of dynamic shared memory; m and n must
/// be multiples of 128, k of 64, the leading dimensions multiples of 8 and the pointers 16-byte aligned.
/// __launch_bounds__: at most 128 registers a thread, so that two blocks fit on an SM (with 2 x 64 KiB of shared
/// memory), and one block's loads can overlap the other's mmas.
__global__ void __launch_bounds__(threads, 2)
    tensor_core_kernel(int k, const bf16* a, int lda, const bf16* b, int ldb, float* c, int ldc) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // so that the file still builds for older GPUs
  extern __shared__ __align__(128) unsigned char shared[];
  bf16* const a_tiles = reinterpret_cast<bf16*>(shared);  // [2][block_m][block_k], swizzled
  bf16* const b_tiles = a_tiles + 2 * a_stage;            // [2][block_k][block_n], swizzled
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int warp_row = warp / warps_n * warp_m, warp_col = warp % warps_n * warp_n;  // within the block tile
  a += int(blockIdx.y) * block_m * lda;  // the block's rows of A
  b += int(blockIdx.x) * block_n;        // the block's columns of B
  float acc[mmas_m][mmas_n][4] = {};

  // This thread's chunks for load_slice(): where they come from, and where they go in a stage.
  const int a_row = int(threadIdx.x) / (block_k / 8), a_chunk = int(threadIdx.x) % (block_k / 8);
  const int b_row = int(threadIdx.x) / (block_n / 8), b_chunk = int(threadIdx.x) % (block_n / 8);
  const bf16* a_from = a + a_row * lda + a_chunk * 8;
  const bf16* b_from = b + b_row * ldb + b_chunk * 8;
  const int a_to = swizzled(a_row, a_chunk, block_k / 8), b_to = swizzled(b_row, b_chunk, block_n / 8);

  // Two stages, as in step 7: slice s + 1 travels while slice s is multiplied.
  const int slices = k / block_k;
  load_slice(a_from, lda, b_from, ldb, a_tiles + a_to, b_tiles + b_to);
  for (int s = 0; s < slices; ++s) {
    cp_async_wait_all();  // this thread's copies of slice s have landed...
    __syncthreads();      // ...and everyone's; also, everyone is done with slice s - 1, whose stage is refilled next
    if (s + 1 < slices) {
      const int next = (s + 1) % 2;
      a_from += block_k;        // one slice along A's rows...
      b_from += block_k * ldb;  // ...and down B's columns
      load_slice(a_from, lda, b_from, ldb, a_tiles + next * a_stage + a_to, b_tiles + next * b_stage + b_to);
    }
    multiply_slice(a_tiles + s % 2 * a_stage, b_tiles + s % 2 * b_stage, warp_row, warp_col, lane, acc);
  }

  // Each lane writes its c0, c1 and c2, c3 as two float2: rows g and g + 8, columns 2t and 2t + 1.
  const int g = lane / 4, t = lane % 4;
  c += (int(blockIdx.y) * block_m + warp_row + g) * ldc + int(blockIdx.x) * block_n + warp_col + 2 * t;
#pragma unroll
  for (int i = 0; i < mmas_m; ++i) {
#pragma unroll
    for (int j = 0; j < mmas_n; ++j) {
      *reinterpret_cast<float2*>(c + (i * 16) * ldc + j * 8) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(c + (i * 16 + 8) * ldc + j * 8) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
  }
#endif  // older GPUs: main() does not launch the kernel there
}

/// Launches the kernel for row-major A (m x k), B (k x n) and C (m x n), without padding: lda = k, ldb = ldc = n.
static void tensor_core_gemm(int m, int n, int k, const bf16* a, const bf16* b, float* c) {
  const dim3 grid(unsigned(n / block_n), unsigned(m / block_m));
  tensor_core_kernel<<<grid, threads, shared_bytes>>>(k, a, k, b, n, c, n);
  TUTORIAL_CHECK(cudaGetLastError());
}
//! [kernel]

using tutorial::bf16_matrix;  // random bf16 values on the device, and their float values (common.cuh)

/// Checks the row-major m x n float result in `c` against float64 products of the bf16 inputs.
static bool check(const char* label, int m, int n, int k, const bf16_matrix& a, const bf16_matrix& b,
                  const tutorial::device_buffer& c) {
  const std::vector<float> result = c.to_host();
  return tutorial::check_product(label, m, n, k, tutorial::host_view{a.values.data(), k, 1},
                                 tutorial::host_view{b.values.data(), n, 1}, tutorial::host_view{result.data(), n, 1});
}

static void fill_nan(const tutorial::device_buffer& c, size_t count) {  // unwritten elements then fail the check
  TUTORIAL_CHECK(cudaMemset(c.data(), 0xFF, count * sizeof(float)));
}

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  if (size % block_m != 0) {
    std::fprintf(stderr, "this kernel has no edge handling: n must be a multiple of %d (got %d)\n", block_m, size);
    return EXIT_FAILURE;
  }
  tutorial::print_device();
  if (tutorial::device_arch() < 800) {
    std::fprintf(stderr, "bf16 mma.sync and cp.async need sm_80 or newer\n");
    return EXIT_FAILURE;
  }
  // 64 KiB of dynamic shared memory is more than a kernel may use unless it asks.
  TUTORIAL_CHECK(cudaFuncSetAttribute(tensor_core_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  std::printf("kernel : %d x %d x %d block tile, %d warps of %d x %d, 2 stages, %d KiB shared memory\n", block_m,
              block_n, block_k, threads / 32, warp_m, warp_n, shared_bytes / 1024);

  // First a small product whose every element is checked (check_product checks all rows and columns up to 512);
  // m, n and k differ, so that a mixed-up index shows.
  bool ok = true;
  {
    const int m = 384, n = 256, k = 192;
    const bf16_matrix a(size_t(m) * k, 3), b(size_t(k) * n, 4);
    const tutorial::device_buffer c(size_t(m) * n);
    fill_nan(c, size_t(m) * n);
    tensor_core_gemm(m, n, k, a.device, b.device, c.data());
    ok = check("mma.sync kernel (full)", m, n, k, a, b, c) && ok;
  }

  // Then the n x n x n product, checked on 64 x 64 elements spread over C, beside tgemm::gemm and cuBLAS.
  const int m = size, n = size, k = size;
  const bf16_matrix a(size_t(m) * k, 1), b(size_t(k) * n, 2);
  const size_t count = size_t(m) * n;
  const tutorial::device_buffer c_mine(count), c_tgemm(count), c_cublas(count);
  for (const tutorial::device_buffer* c : {&c_mine, &c_tgemm, &c_cublas}) fill_nan(*c, count);

  const auto run_mine = [&] { tensor_core_gemm(m, n, k, a.device, b.device, c_mine.data()); };
  const auto run_tgemm = [&] {
    const tgemm::status s = tgemm::gemm(tgemm::layout::row_major, tgemm::op::none, tgemm::op::none, m, n, k, 1.0f,
                                        a.device, k, b.device, n, 0.0f, c_tgemm.data(), n);
    if (s != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
      std::exit(EXIT_FAILURE);
    }
  };
  cublasHandle_t handle;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  const float alpha = 1.0f, beta = 0.0f;
  const auto run_cublas = [&] {
    // Row-major C = A B is column-major C^T = B^T A^T (step 8): B first, n and m trade places.
    check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.device, CUDA_R_16BF, n, a.device,
                              CUDA_R_16BF, k, &beta, c_cublas.data(), CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  };

  run_mine();
  run_tgemm();
  run_cublas();
  ok = check("mma.sync kernel", m, n, k, a, b, c_mine) && ok;
  ok = check("tgemm::gemm (bf16)", m, n, k, a, b, c_tgemm) && ok;
  ok = check("cublasGemmEx (bf16)", m, n, k, a, b, c_cublas) && ok;

  const double ms_mine = tutorial::median_ms(run_mine, 20);
  const double ms_tgemm = tutorial::median_ms(run_tgemm, 20);
  const double ms_cublas = tutorial::median_ms(run_cublas, 20);
  tutorial::print_time("mma.sync kernel", m, n, k, ms_mine, 20);
  tutorial::print_time("tgemm::gemm (bf16)", m, n, k, ms_tgemm, 20);
  tutorial::print_time("cublasGemmEx (bf16)", m, n, k, ms_cublas, 20);
  std::printf("ratio  : of cuBLAS, the mma.sync kernel reaches %.1f%%, tgemm::gemm %.1f%%\n",
              100.0 * ms_cublas / ms_mine, 100.0 * ms_cublas / ms_tgemm);
  check_cublas(cublasDestroy(handle), "cublasDestroy");
  return tutorial::finish(ok);
}

// Where next. This kernel is the skeleton of a fast tensor-core GEMM, not the fast one; run it beside cuBLAS to see
// the gap. The usual next steps:
//   - more stages (3 or 4), so that global memory latency hides behind more than one slice of work;
//   - double-buffered fragments: ldmatrix the registers of step kk + 1 while the mmas of step kk run;
//   - larger warp tiles (64 x 64 per warp), so that each ldmatrix feeds more mmas;
//   - an epilogue through shared memory, so that C leaves in full 128-byte rows rather than 8-byte pieces;
//   - block order along the grid that keeps the tiles of A and B in the L2 cache longer.
// On Hopper (sm_90a) the big step is different instructions: wgmma.mma_async lets four warps multiply operands read
// straight from (swizzled) shared memory, asynchronously, and TMA copies whole tiles with one instruction, swizzle
// included. mma.sync still runs there, but it cannot reach Hopper's peak.
