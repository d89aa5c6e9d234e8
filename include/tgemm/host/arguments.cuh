/// \file host/arguments.cuh
/// \brief Checks a BLAS-style call's arguments and turns it into the column-major problem the kernels solve.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "../device/epilogue_terms.cuh"
#include "../device/problem.cuh"
#include "../numeric.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "gemm.cuh"

namespace tgemm::detail {

/// The element types of one GEMM: A, B, C, and alpha and beta (declared with its defaults in host/gemm.cuh), and
/// the type of a caller's epilogue operation (tgemm::user_epilogue; device::no_user_op: none), which the fused
/// epilogue's terms carry.
template <class A, class B, class C, class Scalar, class User>
struct gemm_types {
  using element_a = A;       ///< A's elements.
  using element_b = B;       ///< B's elements.
  using element_c = C;       ///< C's elements.
  using scalar_type = Scalar;  ///< alpha and beta.
  using user_op = User;        ///< The caller's epilogue operation (device::no_user_op: none).
  /// A fused epilogue's terms in the kernels' form.
  using terms_type = device::epilogue_terms_t<C, Scalar, User>;
};

/// The types of a policy's GEMM.
template <class Policy>
using types_of = gemm_types<typename Policy::element_a, typename Policy::element_b, typename Policy::element_c,
                            typename Policy::scalar_type>;

/// A validated call in the kernels' column-major form (a row-major call is solved as C^T = op(B)^T op(A)^T).
template <class Types>
struct canonical_call {
  using types = Types;  ///< The call's element types.
  device::basic_problem<typename Types::element_a, typename Types::element_b> problem;  ///< m, n, k, A and B.
  device::basic_linear_combination<typename Types::element_c, typename Types::scalar_type> update;  ///< alpha, beta, C.
  op op_a = op::none;           ///< Operation on problem.a.
  op op_b = op::none;           ///< Operation on problem.b.
  bool reads_operands = false;  ///< False when k == 0 or alpha == 0: C = beta C without touching A or B.
  bool empty = false;           ///< True when m == 0, n == 0 or the batch is empty: nothing to do.
  batch_shape batch;            ///< The products of a strided batch (strides of problem.a and problem.b: swapped
                                ///< with them for a row-major call).
  const char* name_a = "A";     ///< The caller's name for problem.a ("B" after a row-major swap).
  const char* name_b = "B";     ///< The caller's name for problem.b.
  bool fused = false;           ///< The call has a tgemm::epilogue: its final writes go through `terms`.
  /// The fused epilogue's terms (with `fused`; update.c is then D, and terms.source C when D is separate).
  typename Types::terms_type terms;
};

/// The stored shape of an operand: `contiguous` elements along the leading dimension, `strided` lines of them.
struct stored_shape {
  int64_t contiguous;
  int64_t strided;
};

inline stored_shape stored_shape_of(layout order, op operation, int64_t rows, int64_t cols) {
  // op(X) is rows x cols. X is rows x cols (none) or cols x rows (transpose); column-major stores X's rows
  // contiguously along a column, row-major stores X's columns contiguously along a row.
  const int64_t x_rows = operation == op::none ? rows : cols;
  const int64_t x_cols = operation == op::none ? cols : rows;
  return order == layout::col_major ? stored_shape{x_rows, x_cols} : stored_shape{x_cols, x_rows};
}

inline status check_leading_dimension(const char* name, const char* matrix, layout order, op operation,
                                      int64_t rows, int64_t cols, int64_t ld) {
  const stored_shape shape = stored_shape_of(order, operation, rows, cols);
  const int64_t minimum = shape.contiguous > 1 ? shape.contiguous : 1;
  if (ld < minimum) {
    return fail(status::invalid_leading_dimension, cudaSuccess,
                "%s = %lld is too small: it must be at least %lld, the %s of %s as stored (%s, %lld x %lld after op)",
                name, (long long)ld, (long long)minimum, order == layout::col_major ? "rows" : "columns", matrix,
                to_string(order), (long long)rows, (long long)cols);
  }
  return status::success;
}

/// Fails with size_overflow when the bytes an operand spans (all `count` products of a batch `stride` elements
/// apart) do not fit in a 64-bit integer.
inline status check_extent(const char* matrix, layout order, op operation, int64_t rows, int64_t cols, int64_t ld,
                           int64_t bytes_per_element, int64_t count = 1, int64_t stride = 0) {
  const stored_shape shape = stored_shape_of(order, operation, rows, cols);
  int64_t elements = 0, bytes = 0, batch_elements = 0;
  if (__builtin_mul_overflow(ld, shape.strided, &elements) ||
      __builtin_mul_overflow(elements, bytes_per_element, &bytes)) {
    return fail(status::size_overflow, cudaSuccess,
                "%s spans %lld lines of leading dimension %lld: its size in bytes overflows a 64-bit integer", matrix,
                (long long)shape.strided, (long long)ld);
  }
  if (count > 1 && (__builtin_mul_overflow(count - 1, stride, &batch_elements) ||
                    __builtin_add_overflow(batch_elements, elements, &elements) ||
                    __builtin_mul_overflow(elements, bytes_per_element, &bytes))) {
    return fail(status::size_overflow, cudaSuccess,
                "the %lld products of %s, %lld elements apart, span more bytes than a 64-bit integer holds",
                (long long)count, matrix, (long long)stride);
  }
  return status::success;
}

/// The elements one stored operand spans: ld x (lines - 1) + the contiguous extent (0 when it is empty).
inline int64_t span_of(layout order, op operation, int64_t rows, int64_t cols, int64_t ld) {
  const stored_shape shape = stored_shape_of(order, operation, rows, cols);
  return shape.contiguous == 0 || shape.strided == 0 ? 0 : ld * (shape.strided - 1) + shape.contiguous;
}

/// Checks a strided batch's strides (its count is checked with the other sizes): with more than one product, strides
/// that are not negative and a C stride that keeps the products' C apart (A and B may overlap: they are only read).
inline status check_batch(const batch_shape& batch, layout order, int64_t m, int64_t n, int64_t ldc) {
  if (batch.count <= 1) return status::success;
  const struct {
    const char* name;
    int64_t stride;
  } strides[] = {{"stride_a", batch.stride_a}, {"stride_b", batch.stride_b}, {"stride_c", batch.stride_c}};
  for (const auto& x : strides) {
    if (x.stride < 0) {
      return fail(status::invalid_batch_stride, cudaSuccess,
                  "%s = %lld is negative (tgemm takes strides of 0 or more: 0 reads one matrix for every product)",
                  x.name, (long long)x.stride);
    }
  }
  const int64_t span = span_of(order, op::none, m, n, ldc);
  if (batch.stride_c < span) {
    return fail(status::invalid_batch_stride, cudaSuccess,
                "stride_c = %lld makes the products' C overlap: one C spans %lld elements (ldc = %lld), and %lld "
                "products write them",
                (long long)batch.stride_c, (long long)span, (long long)ldc, (long long)batch.count);
  }
  return status::success;
}

/// Validates a cblas_sgemm-style call (a strided batch of them: `batch`) and fills `out`. Checks, in order:
/// enumerations, negative sizes and batch count, leading dimensions (always, as CBLAS does), batch strides, byte
/// extents, then null pointers for the matrices the call touches. Alignment is the plan's business (see
/// check_alignment).
template <class Types>
status check_arguments(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                       typename Types::scalar_type alpha, const typename Types::element_a* a, int64_t lda,
                       const typename Types::element_b* b, int64_t ldb, typename Types::scalar_type beta,
                       typename Types::element_c* c, int64_t ldc, canonical_call<Types>& out,
                       const batch_shape& batch = batch_shape{}) {
  using scalar = typename Types::scalar_type;
  if (!is_valid(order)) {
    return fail(status::invalid_layout, cudaSuccess,
                "order = %d is not a tgemm::layout (row_major = 101, col_major = 102)", int(order));
  }
  if (!is_valid(op_a)) {
    return fail(status::invalid_op, cudaSuccess, "op_a = %d is not a tgemm::op (none = 111, transpose = 112)",
                int(op_a));
  }
  if (!is_valid(op_b)) {
    return fail(status::invalid_op, cudaSuccess, "op_b = %d is not a tgemm::op (none = 111, transpose = 112)",
                int(op_b));
  }
  if (m < 0) return fail(status::invalid_dimension, cudaSuccess, "m = %lld is negative", (long long)m);
  if (n < 0) return fail(status::invalid_dimension, cudaSuccess, "n = %lld is negative", (long long)n);
  if (k < 0) return fail(status::invalid_dimension, cudaSuccess, "k = %lld is negative", (long long)k);
  if (batch.count < 0) {
    return fail(status::invalid_dimension, cudaSuccess, "batch_count = %lld is negative", (long long)batch.count);
  }

  if (status s = check_leading_dimension("lda", "A", order, op_a, m, k, lda); s != status::success) return s;
  if (status s = check_leading_dimension("ldb", "B", order, op_b, k, n, ldb); s != status::success) return s;
  if (status s = check_leading_dimension("ldc", "C", order, op::none, m, n, ldc); s != status::success) return s;

  const bool empty = m == 0 || n == 0 || batch.count == 0;
  if (!empty) {
    if (status s = check_batch(batch, order, m, n, ldc); s != status::success) return s;
  }
  const bool reads_operands = !empty && k > 0 && alpha != scalar(0);
  if (reads_operands) {
    constexpr int a_bytes = element_bytes<typename Types::element_a>;
    constexpr int b_bytes = element_bytes<typename Types::element_b>;
    if (status s = check_extent("A", order, op_a, m, k, lda, a_bytes, batch.count, batch.stride_a);
        s != status::success) {
      return s;
    }
    if (status s = check_extent("B", order, op_b, k, n, ldb, b_bytes, batch.count, batch.stride_b);
        s != status::success) {
      return s;
    }
  }
  if (!empty) {
    constexpr int c_bytes = element_bytes<typename Types::element_c>;
    if (status s = check_extent("C", order, op::none, m, n, ldc, c_bytes, batch.count, batch.stride_c);
        s != status::success) {
      return s;
    }
  }
  if (reads_operands && a == nullptr) {
    return fail(status::null_pointer, cudaSuccess, "A is null, but the call reads it (m = %lld, k = %lld, alpha = %g)",
                (long long)m, (long long)k, double(alpha));
  }
  if (reads_operands && b == nullptr) {
    return fail(status::null_pointer, cudaSuccess, "B is null, but the call reads it (k = %lld, n = %lld, alpha = %g)",
                (long long)k, (long long)n, double(alpha));
  }
  if (!empty && c == nullptr) {
    return fail(status::null_pointer, cudaSuccess, "C is null, but the call writes it (m = %lld, n = %lld)",
                (long long)m, (long long)n);
  }

  out = canonical_call<Types>{};
  out.empty = empty;
  out.reads_operands = reads_operands;
  out.update = {alpha, beta, c, ldc};
  out.batch = batch;
  if (batch.count <= 1) out.batch = batch_shape{batch.count, 0, 0, 0};  // one product: strides unused
  if (order == layout::col_major) {
    out.problem = {m, n, k, a, lda, b, ldb};
    out.op_a = op_a;
    out.op_b = op_b;
  } else {
    std::swap(out.batch.stride_a, out.batch.stride_b);
    // Row-major C is column-major C^T; C^T = op(B)^T op(A)^T, and a row-major X read column-major is X^T,
    // so the operands swap places and keep their operations.
    static_assert(std::is_same<typename Types::element_a, typename Types::element_b>::value,
                  "a row-major call swaps A and B: they must have one element type");
    out.problem = {n, m, k, b, ldb, a, lda};
    out.op_a = op_b;
    out.op_b = op_a;
    out.name_a = "B";
    out.name_b = "A";
  }
  return status::success;
}

/// Calls f(std::integral_constant<op, A>, std::integral_constant<op, B>) for runtime operations: one
/// instantiation per combination, so kernels know their addressing at compile time.
template <class F>
decltype(auto) with_ops(op op_a, op op_b, F&& f) {
  using none = std::integral_constant<op, op::none>;
  using transpose = std::integral_constant<op, op::transpose>;
  if (op_a == op::none) return op_b == op::none ? f(none{}, none{}) : f(none{}, transpose{});
  return op_b == op::none ? f(transpose{}, none{}) : f(transpose{}, transpose{});
}

/// True when an operand at `pointer` with leading dimension `ld` can be read `vector_width` elements of
/// `bytes_per_element` bytes at a time (every product of a batch `stride` elements apart, when `count` > 1).
inline bool vectors_fit(const void* pointer, int64_t ld, int vector_width, int bytes_per_element, int64_t count = 1,
                        int64_t stride = 0) {
  return reinterpret_cast<uintptr_t>(pointer) % (uintptr_t(bytes_per_element) * vector_width) == 0 &&
         ld % vector_width == 0 && (count <= 1 || stride % vector_width == 0);
}

/// True when A and B (if the call reads them) are aligned to `vector_width` elements with leading dimensions that
/// are multiples of it: what a policy that loads vector_width elements at a time needs. C has no such need: the
/// epilogue checks its alignment itself and falls back to narrower stores.
template <class Types>
bool is_aligned(const canonical_call<Types>& call, int vector_width) {
  constexpr int a_bytes = element_bytes<typename Types::element_a>;
  constexpr int b_bytes = element_bytes<typename Types::element_b>;
  constexpr int c_bytes = element_bytes<typename Types::element_c>;
  const bool c_fits = call.empty || reinterpret_cast<uintptr_t>(call.update.c) % c_bytes == 0;
  const batch_shape& batch = call.batch;
  return c_fits &&
         (!call.reads_operands ||
          (vectors_fit(call.problem.a, call.problem.lda, vector_width, a_bytes, batch.count, batch.stride_a) &&
           vectors_fit(call.problem.b, call.problem.ldb, vector_width, b_bytes, batch.count, batch.stride_b)));
}

/// Fails with misaligned_operand naming the first operand (as the caller named it) that does not fit a policy
/// loading `vector_width` elements at a time; also checks that C is aligned to its element. `policy_name` goes
/// into the message.
template <class Types>
status check_alignment(const canonical_call<Types>& call, int vector_width, const char* policy_name) {
  struct operand {
    const char* name;
    const void* pointer;
    int64_t ld;
    int width;  // elements the kernel moves at a time from or to this operand
    int bytes;  // bytes of one element
    bool used;
  };
  const char* element_name = element_traits<typename Types::element_a>::name;
  const operand operands[] = {
      {call.name_a, call.problem.a, call.problem.lda, vector_width, element_bytes<typename Types::element_a>,
       call.reads_operands},
      {call.name_b, call.problem.b, call.problem.ldb, vector_width, element_bytes<typename Types::element_b>,
       call.reads_operands},
      {"C", call.update.c, call.update.ldc, 1, element_bytes<typename Types::element_c>, !call.empty},
  };
  for (const operand& x : operands) {
    if (!x.used) continue;
    const bool pointer_ok = reinterpret_cast<uintptr_t>(x.pointer) % (uintptr_t(x.bytes) * x.width) == 0;
    if (x.width == 1 && !pointer_ok) {
      return fail(status::misaligned_operand, cudaSuccess, "%s (at %p) is not aligned to %d bytes, as its elements must be",
                  x.name, x.pointer, x.bytes);
    }
    if (!pointer_ok || x.ld % x.width != 0) {
      return fail(status::misaligned_operand, cudaSuccess,
                  "policy %s loads %d %ss at a time, so %s (at %p, leading dimension %lld) must be %d-byte "
                  "aligned with a leading dimension that is a multiple of %d; tgemm::gemm() accepts any alignment",
                  policy_name, x.width, element_name, x.name, x.pointer, (long long)x.ld, x.bytes * x.width, x.width);
    }
  }
  return status::success;
}

}  // namespace tgemm::detail
