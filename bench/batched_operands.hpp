// The operands of one batch of products as the batched benchmarks hold them (tgemm_bench_batched, tgemm_bench_sweep):
// A, B and C of every product back to back (tight strides), and device arrays of their pointers for the pointer-array
// calls.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "check_cuda.hpp"

namespace tgemm::bench {

/// One operand set: a batch's A, B and C, and (for the pointer-array calls) device arrays of each product's.
template <class T>
struct operand_set {
  T *a = nullptr, *b = nullptr, *c = nullptr;
  const T** pa = nullptr;
  const T** pb = nullptr;
  T** pc = nullptr;
};

/// Fills a set's pointer arrays for `count` column-major m x n x k products at tight strides (as the strided calls read
/// them).
template <class T>
void make_pointer_arrays(int64_t m, int64_t n, int64_t k, int64_t count, operand_set<T>& o) {
  const size_t products = static_cast<size_t>(count);
  std::vector<const T*> a(products), b(products);
  std::vector<T*> c(products);
  for (size_t i = 0; i < products; ++i) {
    const int64_t at = int64_t(i);
    a[i] = o.a + at * m * k, b[i] = o.b + at * k * n, c[i] = o.c + at * m * n;
  }
  TGEMM_CHECK_CUDA(cudaMalloc(&o.pa, a.size() * sizeof(T*)));
  TGEMM_CHECK_CUDA(cudaMalloc(&o.pb, b.size() * sizeof(T*)));
  TGEMM_CHECK_CUDA(cudaMalloc(&o.pc, c.size() * sizeof(T*)));
  TGEMM_CHECK_CUDA(cudaMemcpy(o.pa, a.data(), a.size() * sizeof(T*), cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(o.pb, b.data(), b.size() * sizeof(T*), cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(o.pc, c.data(), c.size() * sizeof(T*), cudaMemcpyHostToDevice));
}

/// Frees what a set holds.
template <class T>
void free_operands(operand_set<T>& o) {
  cudaFree(o.a), cudaFree(o.b), cudaFree(o.c), cudaFree(o.pa), cudaFree(o.pb), cudaFree(o.pc);
  o = operand_set<T>{};
}

}  // namespace tgemm::bench
