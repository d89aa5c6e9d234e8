// A consumer's first calls: one include, tgemm::gemm() and tgemm::gemm_batched() (whose kernels live apart from
// gemm()'s in the compiled mode), each status checked.
#include <tgemm/gemm.cuh>

#include <cstdio>

int main() {
  const int n = 256;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  if (cudaMalloc(&a, n * n * sizeof(float)) != cudaSuccess || cudaMalloc(&b, n * n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&c, n * n * sizeof(float)) != cudaSuccess) {
    std::printf("no GPU memory: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;  // built, which is what CI checks; there is no GPU to run on
  }
  const tgemm::status s = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a,
                                      n, b, n, 0.0f, c, n);
  std::printf("tgemm %s: gemm %s %s\n", tgemm::version_string, tgemm::to_string(s),
              s == tgemm::status::success ? "" : tgemm::last_error().message.c_str());
  // The same product as a batch of one, its pointers in device memory.
  float** pointers = nullptr;
  tgemm::status batched = tgemm::status::cuda_error;
  if (cudaMalloc(&pointers, 3 * sizeof(float*)) == cudaSuccess) {
    float* const host[3] = {a, b, c};
    if (cudaMemcpy(pointers, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess) {
      batched = tgemm::gemm_batched(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f,
                                    pointers, n, pointers + 1, n, 0.0f, pointers + 2, n, 1);
    }
    if (cudaDeviceSynchronize() != cudaSuccess) batched = tgemm::status::cuda_error;
    cudaFree(pointers);
  }
  std::printf("gemm_batched %s %s\n", tgemm::to_string(batched),
              batched == tgemm::status::success ? "" : tgemm::last_error().message.c_str());
  cudaFree(a), cudaFree(b), cudaFree(c);
  return s == tgemm::status::success && batched == tgemm::status::success ? 0 : 1;
}
