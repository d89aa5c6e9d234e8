// kernel::gemv_along_n launched in clusters of its k slices (ClusterSlices, sm_90 and newer): the slices' partial sums
// meet in C inside the one launch. Against the split launch and its reduction (kernel::reduce_split_k) on the same
// slices: bit for bit with beta = 0, within one unit of C's last place with beta != 0 (the two may contract
// alpha sum + beta C differently); columns past the last block's, C of a row with a stride (out_col > 1), 2 to 16
// slices. On a GPU older than sm_90 it checks nothing and says so.
#include <tgemm/gemm.cuh>
#include <tgemm/kernel/gemv.cuh>
#include <tgemm/kernel/reduce_split_k.cuh>

#include <cuda_bf16.h>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "element_values.hpp"
#include "random.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using tgemm::test::device_buffer;

/// C (one row of `ldc`-strided columns, cols long) = alpha x^T M + beta C for a k x cols matrix M stored row by row
/// (leading dimension ld), in `slices` slices: clustered into c_cluster, split then reduced into c_split.
template <class T>
void run_case(int64_t cols, int64_t k, int slices, float alpha, float beta) {
  using params = tgemm::kernel::gemv_params<T, T, float>;
  constexpr int V = tgemm::kernel::gemv_vector<T>;
  const int64_t ld = (cols + V - 1) / V * V + V, ldc = 3;  // padded, and whole 16-byte vectors as the plans send
  std::vector<T> matrix(static_cast<size_t>(k * ld)), x(static_cast<size_t>(k)), c(static_cast<size_t>(cols * ldc));
  const std::vector<float> rm = tgemm::test::random_values(int64_t(matrix.size()));
  const std::vector<float> rx = tgemm::test::random_values(k);
  const std::vector<float> rc = tgemm::test::random_values(int64_t(c.size()));
  for (size_t i = 0; i < matrix.size(); ++i) matrix[i] = tgemm::test::from_float<T>(rm[i]);
  for (size_t i = 0; i < x.size(); ++i) x[i] = tgemm::test::from_float<T>(rx[i]);
  for (size_t i = 0; i < c.size(); ++i) c[i] = beta != 0.0f ? tgemm::test::from_float<T>(rc[i]) : tgemm::test::sentinel<T>();
  device_buffer<T> d_matrix(matrix.size()), d_x(x.size()), c_cluster(c.size()), c_split(c.size());
  device_buffer<float> partials(static_cast<size_t>(slices * 4 * cols));
  d_matrix.upload(matrix);
  d_x.upload(x);
  c_cluster.upload(c);
  c_split.upload(c);
  params p{};
  p.matrix = d_matrix.get(), p.ld = ld, p.x = d_x.get(), p.x_row = 1, p.x_k = 1, p.x_vector = true;
  p.rows = 1, p.cols = cols, p.k = k, p.alpha = alpha, p.beta = beta;
  p.k_per_slice = ((k + slices - 1) / slices + V - 1) / V * V;
  const int used = int((k + p.k_per_slice - 1) / p.k_per_slice);
  const int64_t blocks = (cols + tgemm::kernel::gemv_block_columns<T>(false) - 1) /
                         tgemm::kernel::gemv_block_columns<T>(false);
  INFO("cols = " << cols << ", k = " << k << ", slices = " << used << ", beta = " << beta);
  // Split: partials in C's layout of a 4-row C (ld_out 4), then the reduction into c_split.
  params split = p;
  split.partials = partials.get(), split.slice_stride = 4 * cols, split.out_row = 1, split.out_col = 4;
  tgemm::kernel::gemv_along_n<T, T, float, 1><<<dim3(unsigned(blocks), 1, unsigned(used)), tgemm::kernel::gemv_threads>>>(split);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  tgemm::kernel::reduce_split_k<float, T, float><<<8, tgemm::kernel::reduce_threads>>>(
      partials.get(), 4, 4 * cols, used, 1, cols, alpha, beta, c_split.get(), ldc);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  // Clustered: compact partials, C's strides.
  params clustered = p;
  clustered.partials = partials.get(), clustered.slice_stride = cols, clustered.out = c_cluster.get();
  clustered.out_row = 1, clustered.out_col = ldc;
  constexpr auto kernel = &tgemm::kernel::gemv_along_n<T, T, float, 1, tgemm::tuning::gemv_along_n_unroll, true,
                                                       tgemm::tuning::gemv_along_n_staged, tgemm::device::no_user_op,
                                                       true>;
  TGEMM_CUDA_REQUIRE(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = 1, attribute.val.clusterDim.y = 1, attribute.val.clusterDim.z = unsigned(used);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(blocks), 1, unsigned(used));
  config.blockDim = dim3(tgemm::kernel::gemv_threads);
  config.attrs = &attribute, config.numAttrs = 1;
  TGEMM_CUDA_REQUIRE(cudaLaunchKernelEx(&config, kernel, clustered));
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<T> got = c_cluster.download(), want = c_split.download();
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (int64_t(i) % ldc != 0) {  // C's padding between its elements: untouched
      if (!tgemm::test::same_bits(got[i], c[i]) && ++bad <= 5) FAIL_CHECK("padding element " << i << " changed");
      continue;
    }
    const double g = tgemm::test::to_double(got[i]), w = tgemm::test::to_double(want[i]);
    const bool ok = beta == 0.0f ? tgemm::test::same_bits(got[i], want[i])
                                 : std::fabs(g - w) <= std::ldexp(std::fabs(w), -7) + 1e-30;
    if (!ok && ++bad <= 5) FAIL_CHECK("C(" << i / ldc << ") = " << g << ", split + reduce gave " << w);
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("GEMV along n in clusters of its slices: C as the split launch and its reduction give it", "[gemv]") {
  int device = 0, arch = 0;
  TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
  TGEMM_CUDA_REQUIRE(tgemm::detail::read_compute_capability(device, arch));
  if (arch < 900) {
    WARN("clusters need sm_90 or newer; device " << device << " is sm_" << arch / 10 << ": nothing checked");
    return;
  }
  for (const int slices : {2, 4, 8, 15, 16}) {
    run_case<__nv_bfloat16>(1000, 3000, slices, 1.5f, 0.0f);
    run_case<__nv_bfloat16>(8192, 8192, slices, 1.0f, 0.5f);
  }
  run_case<__nv_bfloat16>(37, 700, 3, -2.0f, 0.0f);  // one block, mostly past the columns
}
