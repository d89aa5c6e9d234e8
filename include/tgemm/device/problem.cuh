/// \file device/problem.cuh
/// \brief What one block of a GEMM kernel is given: the operands in column-major (BLAS) form, and the epilogue.
#pragma once

#include <cstdint>

#include "../types.cuh"
#include "epilogue_terms.cuh"

/// The block-level building blocks, callable from any kernel: device::gemm(), its inputs and its epilogues.
namespace tgemm::device {

/// The operands of C = op(A) op(B) as the device layer sees them: column-major, 64-bit sizes and strides.
///
/// Element (i, l) of A is `a[i + l * lda]`, or `a[l + i * lda]` when the kernel's OpA is op::transpose;
/// likewise B. The host layer turns a row-major call into this form by computing C^T = op(B)^T op(A)^T.
template <class ElementA, class ElementB = ElementA>
struct basic_problem {
  int64_t m = 0;                   ///< Rows of op(A) and of C.
  int64_t n = 0;                   ///< Columns of op(B) and of C.
  int64_t k = 0;                   ///< Columns of op(A), rows of op(B).
  const ElementA* a = nullptr;     ///< A, column-major.
  int64_t lda = 0;                 ///< Leading dimension of A.
  const ElementB* b = nullptr;     ///< B, column-major.
  int64_t ldb = 0;                 ///< Leading dimension of B.
};

/// The operands of a float GEMM.
using problem = basic_problem<float>;

namespace detail {
/// A problem with the call's ops, for a mainloop compiled with op::at_run_time (the kernels of a
/// run_time_layouts policy): op(A) and op(B) as basic_problem describes them.
template <class Problem>
struct problem_with_ops : Problem {
  op op_a = op::none;  ///< The call's op(A).
  op op_b = op::none;  ///< The call's op(B).
};
}  // namespace detail

/// The BLAS epilogue C = alpha * accumulator + beta * C, on a column-major C. When beta is zero C is never
/// read, so whatever C held (NaN included) cannot reach the result.
template <class ElementC, class Scalar = ElementC>
struct basic_linear_combination {
  Scalar alpha = Scalar(1);  ///< Scale of the product.
  Scalar beta = Scalar(0);   ///< Scale of the old C; 0 means C is write-only.
  ElementC* c = nullptr;     ///< C, column-major, m x n.
  int64_t ldc = 0;           ///< Leading dimension of C.
};

/// The BLAS epilogue of a float GEMM.
using linear_combination = basic_linear_combination<float>;

/// The BLAS epilogue with fused terms (epilogue_terms: scales, biases, activation, clamp, C read from elsewhere):
/// what tgemm::gemm() with a tgemm::epilogue computes, and what a device::gemm() caller may hand its tiles too. User:
/// a caller's element-wise operation applied last (epilogue_terms).
template <class ElementC, class Scalar = ElementC, class User = no_user_op>
struct basic_fused_combination : basic_linear_combination<ElementC, Scalar> {
  epilogue_terms_t<ElementC, Scalar, User> terms;  ///< The terms folded into each element (all absent by default).
  /// The product of a strided batch this tile belongs to: its terms are terms.product(product), applied when the
  /// tile is stored (so the offset vectors are not held in registers through the main loop). -1: none (a split-K
  /// slice's partial product, whose terms the reduction applies).
  int64_t product = 0;
};

/// The problem type a policy's kernels read.
template <class Policy>
using problem_of = basic_problem<typename Policy::element_a, typename Policy::element_b>;

/// The BLAS epilogue type a policy's kernels write.
template <class Policy>
using linear_combination_of = basic_linear_combination<typename Policy::element_c, typename Policy::scalar_type>;

/// The fused epilogue type a policy's kernels write (tgemm::gemm() with a tgemm::epilogue).
template <class Policy>
using fused_combination_of = basic_fused_combination<typename Policy::element_c, typename Policy::scalar_type>;

}  // namespace tgemm::device
