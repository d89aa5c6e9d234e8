// The operands of one batch of products as the batched benchmarks hold them (tgemm_bench_batched, tgemm_bench_sweep):
// A, B and C of every product back to back (tight strides), and device arrays of their pointers for the pointer-array
// calls.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <random>
#include <vector>

#include "check_cuda.hpp"
#include "element_values.hpp"

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

/// `sets` operand sets of `count` column-major m x n x k products: A and B random normal (mean 0, stddev 1) rounded to
/// T, drawn set after set from one engine seeded with `seed`; C filled with 0x3c bytes (finite, non-zero, not read
/// with beta = 0); with `pointers`, each set's pointer arrays too.
template <class T>
std::vector<operand_set<T>> make_operand_sets(int64_t m, int64_t n, int64_t k, int64_t count, int sets, bool pointers,
                                              uint64_t seed) {
  const size_t a_count = size_t(count * m * k), b_count = size_t(count * k * n), c_count = size_t(count * m * n);
  std::vector<T> host(a_count + b_count);
  std::mt19937_64 engine(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<operand_set<T>> operands(static_cast<size_t>(sets));
  for (operand_set<T>& o : operands) {
    for (T& x : host) x = tgemm::test::from_float<T>(normal(engine));
    TGEMM_CHECK_CUDA(cudaMalloc(&o.a, a_count * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMalloc(&o.b, b_count * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMalloc(&o.c, c_count * sizeof(T)));
    TGEMM_CHECK_CUDA(cudaMemcpy(o.a, host.data(), a_count * sizeof(T), cudaMemcpyHostToDevice));
    TGEMM_CHECK_CUDA(cudaMemcpy(o.b, host.data() + a_count, b_count * sizeof(T), cudaMemcpyHostToDevice));
    TGEMM_CHECK_CUDA(cudaMemset(o.c, 0x3c, c_count * sizeof(T)));
    if (pointers) make_pointer_arrays(m, n, k, count, o);
  }
  return operands;
}

/// Frees what a set holds.
template <class T>
void free_operands(operand_set<T>& o) {
  cudaFree(o.a), cudaFree(o.b), cudaFree(o.c), cudaFree(o.pa), cudaFree(o.pb), cudaFree(o.pc);
  o = operand_set<T>{};
}

}  // namespace tgemm::bench
