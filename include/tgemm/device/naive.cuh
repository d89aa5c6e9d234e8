/// \file device/naive.cuh
/// \brief The tutorial's first rung: one thread computes one element of C straight from global memory.
#pragma once

#include <cstdint>

#include "../types.cuh"
#include "problem.cuh"

namespace tgemm::device {

/// C(row, col) = alpha * sum_l op(A)(row, l) * op(B)(l, col) + beta * C(row, col), for one element.
/// Every operand value is fetched from global memory by every thread that needs it: no reuse at all.
template <op OpA, op OpB>
__device__ __forceinline__ void naive_element(const problem& p, const linear_combination& e, int64_t row, int64_t col) {
  float sum = 0.0f;
  for (int64_t l = 0; l < p.k; ++l) {
    const float a = OpA == op::none ? p.a[row + l * p.lda] : p.a[l + row * p.lda];
    const float b = OpB == op::none ? p.b[l + col * p.ldb] : p.b[col + l * p.ldb];
    sum = fmaf(a, b, sum);
  }
  float* c = e.c + row + col * e.ldc;
  *c = e.beta != 0.0f ? e.alpha * sum + e.beta * *c : e.alpha * sum;
}

}  // namespace tgemm::device
