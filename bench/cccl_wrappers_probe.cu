// tgemm's inline-PTX wrappers (arch/) against CCCL's where CCCL 3.0 has one: the same sequence of instructions written
// both ways, one per compile (-DUSE_CCCL for CCCL's). scripts/cccl_sass_compare.sh compiles both and diffs their SASS
// (docs/architecture.md, "Inline PTX and CCCL"). Not built by CMake: a compile-only check, no GPU.
//   hopper: mbarrier init / fence / arrive.expect_tx / try_wait.parity, a TMA 3-D load and store, fence.proxy.async,
//           bulk commit and wait (arch/mbarrier.cuh, arch/tma.cuh against cuda::ptx).
//   copy:   a whole 16-byte cp.async with commit and wait (arch/cp_async.cuh against cuda::memcpy_async on a
//           cuda::pipeline). CCCL has no form of the zero-filling copy (cp.async's source-size operand) that tgemm's
//           edge tiles use, nor wrappers for ldmatrix, stmatrix, mma.sync (DMMA included) or wgmma.
#include <cuda/pipeline>
#include <cuda/ptx>
#include <tgemm/arch/cp_async.cuh>
#include <tgemm/arch/mbarrier.cuh>
#include <tgemm/arch/tma.cuh>

__global__ void hopper(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out, int a, int b,
                       int c) {
  __shared__ alignas(128) float tile[64 * 64];
  __shared__ uint64_t barrier;
#if defined(USE_CCCL)
  namespace ptx = cuda::ptx;
  const int32_t at[3] = {a, b, c};
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&barrier, 1u);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &barrier,
                                         uint32_t(sizeof tile));
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in, at, &barrier);
  }
  while (!ptx::mbarrier_try_wait_parity(&barrier, 0u)) {
  }
  tile[threadIdx.x] *= 2.0f;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out, at, tile);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
#else
  namespace arch = tgemm::arch;
  if (threadIdx.x == 0) {
    arch::mbarrier_init(&barrier, 1);
    arch::mbarrier_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::mbarrier_arrive_expect_bytes(&barrier, uint32_t(sizeof tile));
    arch::tma_load_3d(tile, &in, a, b, c, &barrier);
  }
  arch::mbarrier_wait(&barrier, 0);
  tile[threadIdx.x] *= 2.0f;
  arch::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::tma_store_3d(&out, tile, a, b, c);
    arch::tma_store_commit();
    arch::tma_store_wait_read<0>();
  }
#endif
}

__global__ void copy(const float4* __restrict__ source, float* out) {
  __shared__ float4 staged[256];
  const unsigned i = blockIdx.x * 256 + threadIdx.x;
#if defined(USE_CCCL)
  auto pipeline = cuda::make_pipeline();
  pipeline.producer_acquire();
  cuda::memcpy_async(&staged[threadIdx.x], &source[i], cuda::aligned_size_t<16>(16), pipeline);
  pipeline.producer_commit();
  pipeline.consumer_wait();
#else
  tgemm::arch::copy_16_bytes(&staged[threadIdx.x], &source[i]);
  tgemm::arch::copy_commit();
  tgemm::arch::copy_wait<0>();
#endif
  __syncthreads();
  out[i] = staged[255 - threadIdx.x].x;
}
