/// \file epilogue.cuh
/// \brief tgemm::epilogue: what a caller asks tgemm::gemm() and tgemm::gemm_strided_batched() to fold into their
/// store (biases, scales, an activation, a clamp, a separate output D), like cuBLASLt's epilogues.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "types.cuh"

namespace tgemm {

/// What tgemm::gemm() folds into its store besides alpha and beta, like cuBLASLt's epilogues: for element (i, j)
/// of an m x n result (rows and columns as the caller's `order` has them),
///
///     v       = alpha * row_scale[i] * column_scale[j] * (op(A) op(B))(i, j) + beta * C(i, j)
///               + row_bias[i] + column_bias[j]
///     D(i, j) = min(max(act(v), clamp_min), clamp_max)
///
/// in float (double for double), rounded once to C's type. Every member is optional: a null vector is left out,
/// `act` defaults to none and the clamp bounds to -inf and +inf, so a default-constructed epilogue computes what
/// the call without one computes. D defaults to C (in place); with `d` set the result goes to D and C is only read
/// (and only when beta is not 0: then C may be null). For a strided batch, product p uses the vectors and D
/// advanced by p times their strides (0: one vector for every product).
template <class TC>
struct epilogue {
  /// The type of the scales and clamp bounds: double for a double C, float otherwise (alpha's type).
  using scalar_type = std::conditional_t<std::is_same<TC, double>::value, double, float>;

  activation act = activation::none;           ///< Applied after the biases.
  const TC* row_bias = nullptr;                ///< m values: row_bias[i] is added to row i (null: none).
  const TC* column_bias = nullptr;             ///< n values: column_bias[j] is added to column j (null: none).
  const scalar_type* row_scale = nullptr;      ///< m factors of the product's row i (null: none).
  const scalar_type* column_scale = nullptr;   ///< n factors of the product's column j (null: none).
  scalar_type clamp_min = -std::numeric_limits<scalar_type>::infinity();  ///< Lower bound of the result.
  scalar_type clamp_max = std::numeric_limits<scalar_type>::infinity();   ///< Upper bound of the result.
  TC* d = nullptr;                             ///< Where the result goes (null: C).
  int64_t ldd = 0;                             ///< D's leading dimension (with `d`).
  int64_t stride_d = 0;                        ///< Elements between products' D (strided batches, with `d`).
  int64_t stride_row_bias = 0;                 ///< Elements between products' row_bias (0: shared).
  int64_t stride_column_bias = 0;              ///< Elements between products' column_bias (0: shared).
  int64_t stride_row_scale = 0;                ///< Elements between products' row_scale (0: shared).
  int64_t stride_column_scale = 0;             ///< Elements between products' column_scale (0: shared).
};

/// A tgemm::epilogue with the caller's own operation applied last (made by tgemm::with_op()): for element (i, j) of
/// product `batch` (0 for one GEMM),
///
///     D(i, j) = op(v, i, j, batch)
///
/// where v is what the built-in epilogue would store, before its rounding to C's type (float, or double for a double
/// C), and i, j count rows and columns as the caller's `order` has them. What op returns is rounded to C's type and
/// stored. Op is a functor or lambda callable on the GPU as `op(float v, int64_t i, int64_t j, int64_t batch)`
/// (double v for double), copied to the GPU by value with each launch: it captures values and device pointers, never
/// references. A `__device__` lambda needs nvcc's `--extended-lambda` flag. The kernels of such a call compile where
/// it is made (a set per Op type), so it is available in header-only mode only (see config.cuh).
template <class TC, class Op>
struct user_epilogue : epilogue<TC> {
  Op op;  ///< The caller's operation.
};

/// The epilogue `ep` with the caller's operation `op` applied last (see tgemm::user_epilogue).
template <class TC, class Op>
user_epilogue<TC, Op> with_op(const epilogue<TC>& ep, Op op) {
  return user_epilogue<TC, Op>{ep, op};
}

}  // namespace tgemm
