// A consumer's first call: one include, one function, the status checked.
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
  std::printf("tgemm %s: %s %s\n", tgemm::version_string, tgemm::to_string(s),
              s == tgemm::status::success ? "" : tgemm::last_error().message.c_str());
  cudaFree(a), cudaFree(b), cudaFree(c);
  return s == tgemm::status::success ? 0 : 1;
}
