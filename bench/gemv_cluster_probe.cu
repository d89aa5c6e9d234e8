// GEMV along n split into k slices (kernel/gemv.cuh): the slices summed by a second launch (kernel::reduce_split_k)
// against the slices summed inside one launch in clusters of the slices (gemv_along_n's ClusterSlices, sm_90 and
// newer), beside cublasGemmEx, for 1 x 8192 x 8192 and 1 x 4096 x 4096 NT in bf16, fp16 and float: the measurement
// behind tuning::gemv_cluster_slices. Each time is the median of 9 batches of 20 queued calls per event pair, after 5
// warm-up calls; random normal data; the clustered C is checked bit for bit against split + reduce over the same
// slices. Usage: tgemm_gemv_cluster_probe (results: bench/results/h100-gemv-cluster-probe-6a95ffc.md).
#include <tgemm/kernel/gemv.cuh>
#include <tgemm/kernel/reduce_split_k.cuh>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x)                                                                           \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));              \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

template <class T> cudaDataType_t type_of();
template <> cudaDataType_t type_of<__nv_bfloat16>() { return CUDA_R_16BF; }
template <> cudaDataType_t type_of<__half>() { return CUDA_R_16F; }
template <> cudaDataType_t type_of<float>() { return CUDA_R_32F; }
template <class T> const char* name_of();
template <> const char* name_of<__nv_bfloat16>() { return "bf16"; }
template <> const char* name_of<__half>() { return "fp16"; }
template <> const char* name_of<float>() { return "float"; }

template <class F>
float batched_ms(F&& f) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> t;
  for (int r = 0; r < 9; ++r) {
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < 20; ++i) f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms / 20);
  }
  std::sort(t.begin(), t.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return t[4];
}

template <class T>
void run(cublasHandle_t handle, int64_t n) {
  const int64_t k = n;
  std::mt19937 engine(7);
  std::normal_distribution<float> normal;
  std::vector<T> hb(static_cast<size_t>(n * k)), ha(static_cast<size_t>(k));
  for (auto& v : hb) v = T(normal(engine));
  for (auto& v : ha) v = T(normal(engine));
  T *a, *b, *c, *ref;
  float* partials;
  CHECK(cudaMalloc(&a, ha.size() * sizeof(T)));
  CHECK(cudaMalloc(&b, hb.size() * sizeof(T)));
  CHECK(cudaMalloc(&c, n * sizeof(T)));
  CHECK(cudaMalloc(&ref, n * sizeof(T)));
  CHECK(cudaMalloc(&partials, 64 * 4 * n * sizeof(float)));
  CHECK(cudaMemcpy(a, ha.data(), ha.size() * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), hb.size() * sizeof(T), cudaMemcpyHostToDevice));
  const float one = 1, zero = 0;
  // C (1 x n) = A (1 x k) B^T, B column-major n x k: cuBLAS OP_N, OP_T.
  const auto cublas = [&] {
    if (cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_T, 1, int(n), int(k), &one, a, type_of<T>(), 1, b, type_of<T>(),
                     int(n), &zero, ref, type_of<T>(), 1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != 0) {
      std::printf("cublas failed\n");
      std::exit(1);
    }
  };
  const float t_cublas = batched_ms(cublas);
  std::vector<T> h_ref(static_cast<size_t>(n)), h_c(static_cast<size_t>(n));
  CHECK(cudaMemcpy(h_ref.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
  using params = tgemm::kernel::gemv_params<T, T, float>;
  constexpr auto kernel = &tgemm::kernel::gemv_along_n<T, T, float, 1>;
  constexpr int V = tgemm::kernel::gemv_vector<T>;
  constexpr int64_t columns = tgemm::kernel::gemv_block_columns<T>(false);
  const int64_t blocks = (n + columns - 1) / columns;
  const double bytes = double(n) * double(k) * sizeof(T);
  std::printf("%s 1 x %lld x %lld NT: cuBLAS %.4f ms (%.2f TB/s); %lld column blocks\n", name_of<T>(), (long long)n,
              (long long)k, t_cublas, bytes / t_cublas / 1e9, (long long)blocks);
  std::printf("| slices | blocks | kernel ms | + reduce ms | TB/s | vs cuBLAS | max diff |\n"
              "|---|---|---|---|---|---|---|\n");
  for (int s : {1, 4, 8, 11, 12, 13, 15, 16, 20, 24, 32, 33, 48, 64}) {
    params p{};
    p.matrix = b, p.ld = n, p.x = a, p.x_row = 1, p.x_k = 1, p.x_vector = true;
    p.rows = 1, p.cols = n, p.k = k;
    const int64_t k_per_slice = ((k + s - 1) / s + V - 1) / V * V;
    const int slices = int((k + k_per_slice - 1) / k_per_slice);
    if (slices > 1) {
      p.partials = partials, p.slice_stride = 4 * n, p.k_per_slice = k_per_slice, p.out_row = 1, p.out_col = 4;
    } else {
      p.out = c, p.out_row = 1, p.out_col = 1, p.alpha = 1, p.beta = 0;
    }
    const dim3 grid(unsigned(blocks), 1, unsigned(slices));
    const auto gemv = [&] { kernel<<<grid, tgemm::kernel::gemv_threads>>>(p); };
    const auto both = [&] {
      gemv();
      if (slices > 1) {
        tgemm::kernel::reduce_split_k<float, T, float><<<unsigned(std::min<int64_t>((n + 255) / 256, 1056)),
                                                         tgemm::kernel::reduce_threads>>>(
            partials, 4, 4 * n, slices, 1, n, 1.0f, 0.0f, c, 1);
      }
    };
    CHECK(cudaMemset(c, 0xff, n * sizeof(T)));
    both();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_c.data(), c, n * sizeof(T), cudaMemcpyDeviceToHost));
    double diff = 0;
    for (int64_t i = 0; i < n; ++i) diff = std::max(diff, std::abs(double(float(h_c[i])) - double(float(h_ref[i]))));
    const float t_kernel = batched_ms(gemv), t_both = batched_ms(both);
    std::printf("| %d | %lld | %.4f | %.4f | %.2f | %.3fx | %.3g |\n", slices, (long long)(blocks * slices), t_kernel,
                t_both, bytes / t_both / 1e9, t_cublas / t_both, diff);
  }
  // The slices reduced inside the launch: clusters of all the slices of a block of columns (sm_90).
  constexpr auto clustered = &tgemm::kernel::gemv_along_n<T, T, float, 1, tgemm::tuning::gemv_along_n_unroll, true,
                                                          tgemm::tuning::gemv_along_n_staged, tgemm::device::no_user_op,
                                                          true>;
  CHECK(cudaFuncSetAttribute(clustered, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  std::printf("| clustered slices | blocks | ms | TB/s | vs cuBLAS | max diff | same bits as split + reduce |\n"
              "|---|---|---|---|---|---|---|\n");
  for (int s : {2, 4, 8, 12, 16}) {
    params p{};
    p.matrix = b, p.ld = n, p.x = a, p.x_row = 1, p.x_k = 1, p.x_vector = true;
    p.rows = 1, p.cols = n, p.k = k;
    const int64_t k_per_slice = ((k + s - 1) / s + V - 1) / V * V;
    const int slices = int((k + k_per_slice - 1) / k_per_slice);
    // Compact partials (slice_stride rows x cols); C is 1 x n with ldc 1: out(r, j) at r + j.
    p.partials = partials, p.slice_stride = n, p.k_per_slice = k_per_slice, p.out_row = 1, p.out_col = 1;
    p.out = c, p.alpha = 1, p.beta = 0;
    // The split + reduce result of the same slices, for the bitwise check.
    {
      params q = p;
      q.out = nullptr, q.slice_stride = 4 * n, q.out_col = 4;
      kernel<<<dim3(unsigned(blocks), 1, unsigned(slices)), tgemm::kernel::gemv_threads>>>(q);
      tgemm::kernel::reduce_split_k<float, T, float><<<32, tgemm::kernel::reduce_threads>>>(
          partials, 4, 4 * n, slices, 1, n, 1.0f, 0.0f, ref, 1);
      CHECK(cudaDeviceSynchronize());
    }
    std::vector<T> split(static_cast<size_t>(n));
    CHECK(cudaMemcpy(split.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = 1, attribute.val.clusterDim.y = 1, attribute.val.clusterDim.z = unsigned(slices);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(blocks), 1, unsigned(slices));
    config.blockDim = dim3(tgemm::kernel::gemv_threads);
    config.attrs = &attribute, config.numAttrs = 1;
    const auto launch = [&] { CHECK(cudaLaunchKernelEx(&config, clustered, p)); };
    CHECK(cudaMemset(c, 0xff, n * sizeof(T)));
    if (const cudaError_t e = cudaLaunchKernelEx(&config, clustered, p); e != cudaSuccess) {
      std::printf("| %d | clusters refused: %s |\n", slices, cudaGetErrorString(e));
      (void)cudaGetLastError();
      continue;
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_c.data(), c, n * sizeof(T), cudaMemcpyDeviceToHost));
    double diff = 0;
    bool same = true;
    for (int64_t i = 0; i < n; ++i) {
      diff = std::max(diff, std::abs(double(float(h_c[i])) - double(float(h_ref[i]))));
      same = same && std::memcmp(&h_c[i], &split[i], sizeof(T)) == 0;
    }
    const float t = batched_ms(launch);
    std::printf("| %d | %lld | %.4f | %.2f | %.3fx | %.3g | %s |\n", slices, (long long)(blocks * slices), t,
                bytes / t / 1e9, t_cublas / t, diff, same ? "yes" : "NO");
  }
  std::printf("cuBLAS again: %.4f ms\n\n", batched_ms(cublas));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(ref));
  CHECK(cudaFree(partials));
}

int main() {
  cublasHandle_t handle;
  cublasCreate(&handle);
  for (int64_t n : {8192, 4096}) {
    run<__nv_bfloat16>(handle, n);
    run<__half>(handle, n);
    run<float>(handle, n);
  }
  cublasDestroy(handle);
  return 0;
}
