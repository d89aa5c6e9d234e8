/// \file device/epilogue_terms.cuh
/// \brief The built-in terms an epilogue folds into the store of C: per-row and per-column scales and biases, an
/// activation, a clamp, and a C read from somewhere other than where the result goes (D). Shared by every kernel
/// that writes a final result (the tile kernels, the sm_90a kernel, GEMV, the split-K reduction, C = beta C).
#pragma once

#include <cstdint>
#include <new>
#include <type_traits>

#include "../numeric.cuh"
#include "../types.cuh"

namespace tgemm::device {

/// No user operation: an epilogue of built-in terms only.
struct no_user_op {};

/// What a fused epilogue adds to alpha acc + beta C, in the kernels' column-major terms (a row-major call's rows are
/// the kernels' columns: the host swaps the row and column members). For one element (row i, column j):
///
///     v = alpha * row_scale[i] * column_scale[j] * acc + beta * C(i, j) + row_bias[i] + column_bias[j]
///     D(i, j) = clamp(act(v), lower, upper)
///
/// A null vector is left out of the formula. The arithmetic is in the accumulator's type (float, or double for
/// double), rounded once to C's type at the end.
template <class ElementC, class Scalar>
struct epilogue_terms {
  /// Whether the terms carry a caller's operation (user_epilogue_terms).
  static constexpr bool has_user_op = false;

  const Scalar* row_scale = nullptr;       ///< One factor per row of C (null: none).
  const Scalar* column_scale = nullptr;    ///< One factor per column of C (null: none).
  const ElementC* row_bias = nullptr;      ///< Added to every element of row i (null: none).
  const ElementC* column_bias = nullptr;   ///< Added to every element of column j (null: none).
  activation act = activation::none;       ///< Applied after the biases.
  Scalar lower = Scalar(0);                ///< Clamp's lower bound (used when `clamp` is set).
  Scalar upper = Scalar(0);                ///< Clamp's upper bound (used when `clamp` is set).
  bool clamp = false;                      ///< Clamp the activation's result to [lower, upper] (NaN stays NaN).
  const ElementC* source = nullptr;        ///< C to read when the result goes elsewhere (null: read where it goes).
  int64_t ld_source = 0;                   ///< Leading dimension of `source`.
  int64_t stride_row_scale = 0;            ///< Elements from one product's row_scale to the next (batches).
  int64_t stride_column_scale = 0;         ///< Likewise for column_scale.
  int64_t stride_row_bias = 0;             ///< Likewise for row_bias.
  int64_t stride_column_bias = 0;          ///< Likewise for column_bias.
  int64_t stride_source = 0;               ///< Likewise for source.

  /// The terms of the block of C that starts at (row, col): what a kernel given that block as its whole C uses.
  __host__ __device__ epilogue_terms at(int64_t row, int64_t col) const {
    epilogue_terms t = *this;
    if (t.row_scale) t.row_scale += row;
    if (t.column_scale) t.column_scale += col;
    if (t.row_bias) t.row_bias += row;
    if (t.column_bias) t.column_bias += col;
    if (t.source) t.source += row + col * ld_source;
    return t;
  }

  /// The terms of product `z` of a strided batch.
  __host__ __device__ epilogue_terms product(int64_t z) const {
    epilogue_terms t = *this;
    if (t.row_scale) t.row_scale += z * stride_row_scale;
    if (t.column_scale) t.column_scale += z * stride_column_scale;
    if (t.row_bias) t.row_bias += z * stride_row_bias;
    if (t.column_bias) t.column_bias += z * stride_column_bias;
    if (t.source) t.source += z * stride_source;
    return t;
  }
};

/// A caller's element-wise operation as the terms hold it: in a union, so that the terms have a default constructor
/// and an assignment (a lambda has neither); copied bit for bit to the kernels, as any argument.
template <class User>
struct user_operation {
  union {
    User op;    ///< Called as op(value, row, col, batch) on each result; returns the value stored.
    char none;  ///< What a default-constructed one holds.
  };
  /// No operation (terms that apply none: inactive).
  __host__ __device__ user_operation() : none() {}
  /// A copy of the caller's operation.
  __host__ __device__ explicit user_operation(const User& u) : op(u) {}
  /// Copies bit for bit (the operation is trivially copyable).
  user_operation(const user_operation&) = default;
  /// Copies the other's operation in place of this one's.
  __host__ __device__ user_operation& operator=(const user_operation& other) {
    new (&op) User(other.op);  // the operation is trivially copyable: nothing to destroy first
    return *this;
  }
};

/// The built-in terms with a caller's element-wise operation (a functor or `__device__` lambda given to
/// tgemm::gemm()), applied last: D(i, j) = op(clamp(act(v)), i, j, batch), and what turns a kernel's (row, col) into
/// the caller's (row, col, batch): the kernels see a column-major C that may be a block of the caller's (a peeled
/// call's strips), one product of a batch, or the transpose (a row-major call). A separate type, so that the
/// built-in terms and the kernels that take them stay as they were. Default-constructed (no terms: a split-K slice's
/// partial product), the operation is inactive: then no value goes through it.
template <class ElementC, class Scalar, class User>
struct user_epilogue_terms : epilogue_terms<ElementC, Scalar> {
  static_assert(std::is_trivially_copyable<User>::value,
                "a user epilogue's operation travels to the GPU as a kernel argument: it must be trivially copyable "
                "(capture values and device pointers, not references)");
  user_operation<User> user;  ///< The operation.
  int64_t row0 = 0;      ///< The kernel's row 0 within the caller's column-major C (the kernels' terms).
  int64_t col0 = 0;      ///< Likewise for column 0.
  int64_t batch = 0;     ///< The product (group) the kernel writes.
  bool swapped = false;  ///< A row-major call: the kernels' rows are the caller's columns.
  bool active = false;   ///< Whether values go through the operation (the host sets it; partial products: no).
  /// Whether the terms carry a caller's operation.
  static constexpr bool has_user_op = true;

  /// The terms, the built-in ones replaced by `terms` (their offsets kept).
  __host__ __device__ user_epilogue_terms with(const epilogue_terms<ElementC, Scalar>& terms) const {
    user_epilogue_terms t = *this;
    static_cast<epilogue_terms<ElementC, Scalar>&>(t) = terms;
    return t;
  }
  /// See epilogue_terms::at(); the operation's coordinates move too.
  __host__ __device__ user_epilogue_terms at(int64_t row, int64_t col) const {
    user_epilogue_terms t = with(epilogue_terms<ElementC, Scalar>::at(row, col));
    t.row0 += row, t.col0 += col;
    return t;
  }
  /// See epilogue_terms::product().
  __host__ __device__ user_epilogue_terms product(int64_t z) const {
    user_epilogue_terms t = with(epilogue_terms<ElementC, Scalar>::product(z));
    t.batch += z;
    return t;
  }
  /// The user's operation on the value of the kernel's (row, col), in the caller's indices (the terms active).
  template <class T>
  __device__ __forceinline__ T call_user(T value, int64_t row, int64_t col) const {
    const int64_t r = row0 + row, c = col0 + col;
    // One call, the swap choosing its indices: a call per branch compiled the operation twice into every kernel.
    return T(user.op(value, swapped ? c : r, swapped ? r : c, batch));
  }
  /// The value stored for the kernel's (row, col): the user's operation on it (when active).
  template <class T>
  __device__ __forceinline__ T apply_user(T value, int64_t row, int64_t col) const {
    return active ? call_user(value, row, col) : value;
  }
};

/// The terms type of a fused epilogue: the built-in terms, or with a user's operation (User not no_user_op).
template <class ElementC, class Scalar, class User = no_user_op>
using epilogue_terms_t = std::conditional_t<std::is_same<User, no_user_op>::value, epilogue_terms<ElementC, Scalar>,
                                            user_epilogue_terms<ElementC, Scalar, User>>;

namespace detail {

/// tanh for the activations. Approximate (the result is rounded to a 16-bit type, whose unit roundoff is 2^-11 or
/// 2^-8): sm_75's one-instruction tanh.approx.f32 (relative error about 2^-11); otherwise the exact tanh.
template <bool Approximate, class T>
__device__ __forceinline__ T tanh_of(T x) {
  if constexpr (Approximate && sizeof(T) == 4) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return tanhf(x);
#endif
  } else {
    return tanh(x);
  }
}

/// The activation Act of x, chosen at compile time. Approximate: the result is rounded to a 16-bit type (see
/// tanh_of).
template <activation Act, bool Approximate, class T>
__device__ __forceinline__ T activate_as(T x) {
  if constexpr (Act == activation::relu) {
    return x < T(0) ? T(0) : x;  // NaN stays NaN
  } else if constexpr (Act == activation::gelu_tanh) {
    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    const T inner = T(0.7978845608028654) * (x + T(0.044715) * x * x * x);
    return T(0.5) * x * (T(1) + tanh_of<Approximate>(inner));
  } else if constexpr (Act == activation::gelu_erf) {
    return T(0.5) * x * (T(1) + erf(x * T(0.7071067811865476)));
  } else if constexpr (Act == activation::silu) {
    // x sigmoid(x) = 0.5 x (1 + tanh(x / 2)): no overflow for any x, one tanh
    return T(0.5) * x * (T(1) + tanh_of<Approximate>(T(0.5) * x));
  } else {
    return x;
  }
}

/// The activation `act` of x, chosen at run time (a branch per value: for kernels that write one value at a time).
template <bool Approximate, class T>
__device__ __forceinline__ T activate(activation act, T x) {
  switch (act) {
    case activation::relu: return activate_as<activation::relu, Approximate>(x);
    case activation::gelu_tanh: return activate_as<activation::gelu_tanh, Approximate>(x);
    case activation::gelu_erf: return activate_as<activation::gelu_erf, Approximate>(x);
    case activation::silu: return activate_as<activation::silu, Approximate>(x);
    case activation::none: break;
  }
  return x;
}

}  // namespace detail

/// The value a fused epilogue activates: alpha row_scale column_scale acc + beta c + row_bias + column_bias for
/// (row, col) of the kernel's C, in the accumulator's type (`c`, the old C, is read by the caller only when read_c).
/// Written without branches (a missing vector reads as a factor 1 or a bias -0, which change no value, not even a
/// zero's sign). For the kernels that write one value at a time (through finish()); the tile kernels read each row's
/// and column's terms once instead (store_fused_combination).
template <class ElementC, class Scalar, class Accumulator>
__device__ __forceinline__ Accumulator fused_value(const epilogue_terms<ElementC, Scalar>& t, Accumulator acc,
                                                   Scalar alpha, Scalar beta, ElementC c, bool read_c, int64_t row,
                                                   int64_t col) {
  using T = Accumulator;
  const T row_scale = t.row_scale ? T(t.row_scale[row]) : T(1);
  const T column_scale = t.column_scale ? T(t.column_scale[col]) : T(1);
  const T row_bias = t.row_bias ? convert<T>(t.row_bias[row]) : T(-0.0);
  const T column_bias = t.column_bias ? convert<T>(t.column_bias[col]) : T(-0.0);
  T v = T(alpha) * acc * row_scale * column_scale;
  v = read_c ? v + T(beta) * convert<T>(c) : v;
  return (v + row_bias) + column_bias;
}

/// An activated value clamped (when the terms say so) and rounded to C's type.
template <class ElementC, class Scalar, class T>
__device__ __forceinline__ ElementC fused_output(const epilogue_terms<ElementC, Scalar>& t, T v) {
  const T clamped = v < T(t.lower) ? T(t.lower) : (v > T(t.upper) ? T(t.upper) : v);
  return convert<ElementC>(t.clamp ? clamped : v);
}

/// fused_output() for terms with a user's operation: the clamped value of (row, col) through it, then rounded.
template <class ElementC, class Scalar, class User, class T>
__device__ __forceinline__ ElementC fused_output(const user_epilogue_terms<ElementC, Scalar, User>& t, T v,
                                                 int64_t row, int64_t col) {
  const T clamped = v < T(t.lower) ? T(t.lower) : (v > T(t.upper) ? T(t.upper) : v);
  return convert<ElementC>(t.apply_user(t.clamp ? clamped : v, row, col));
}

/// Applies `act` to `count` values in place, in a loop: the tile kernels gather a thread's values into a local
/// array and call this once, so each kernel holds one copy of the activations' code (erf and tanh inlined for each
/// of a thread's 64 to 128 results made the fused kernels' compile several times slower). ElementC is C's type
/// (tanh.approx where it is 16-bit).
template <class ElementC, class T>
__device__ __noinline__ void activate_values(activation act, T* values, int count) {
  // Eight at a time: eight independent local loads in flight rather than one load-compute-store chain per value.
  constexpr int batch = 8;
  int i = 0;
  for (; i + batch <= count; i += batch) {
    T v[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j) v[j] = values[i + j];
#pragma unroll
    for (int j = 0; j < batch; ++j) values[i + j] = detail::activate<(sizeof(ElementC) < 4)>(act, v[j]);
  }
  for (; i < count; ++i) values[i] = detail::activate<(sizeof(ElementC) < 4)>(act, values[i]);
}

/// One result of a fused epilogue, whole: fused_value, the activation, fused_output (for kernels that write one
/// element at a time: GEMV, the split-K reduction, C = beta C).
template <class ElementC, class Scalar, class Accumulator>
__device__ __forceinline__ ElementC finish(const epilogue_terms<ElementC, Scalar>& t, Accumulator acc, Scalar alpha,
                                           Scalar beta, ElementC c, bool read_c, int64_t row, int64_t col) {
  const Accumulator v = fused_value(t, acc, alpha, beta, c, read_c, row, col);
  return fused_output(t, detail::activate<(sizeof(ElementC) < 4)>(t.act, v));
}

/// finish() for terms with a user's operation (applied last, to the clamped value).
template <class ElementC, class Scalar, class User, class Accumulator>
__device__ __forceinline__ ElementC finish(const user_epilogue_terms<ElementC, Scalar, User>& t, Accumulator acc,
                                           Scalar alpha, Scalar beta, ElementC c, bool read_c, int64_t row,
                                           int64_t col) {
  const Accumulator v = fused_value(t, acc, alpha, beta, c, read_c, row, col);
  return fused_output(t, detail::activate<(sizeof(ElementC) < 4)>(t.act, v), row, col);
}

/// The activations in three families whose members differ only in constants, so that a tile's values are activated
/// by one loop per family, with no branch per value: piecewise linear (none, relu), the tanh form 0.5 x (1 +
/// tanh(a x + b x^3)) (gelu_tanh: a = sqrt(2 / pi), b = 0.044715 a; silu: a = 1/2, b = 0), and erf (gelu_erf).
enum class activation_family : int { linear, tanh_form, erf };

/// The family of an activation.
__host__ __device__ constexpr activation_family family_of(activation act) {
  return act == activation::gelu_tanh || act == activation::silu ? activation_family::tanh_form
         : act == activation::gelu_erf                           ? activation_family::erf
                                                                 : activation_family::linear;
}

/// An activation's constants within its family (see activation_family).
template <class T>
struct activation_constants {
  bool relu = false;  ///< linear: max(x, 0) (NaN stays NaN), else x.
  T a = T(0);         ///< tanh_form: the coefficient of x.
  T b = T(0);         ///< tanh_form: the coefficient of x^3.
  /// The constants of `act`.
  __device__ __forceinline__ explicit activation_constants(activation act) {
    relu = act == activation::relu;
    a = act == activation::silu ? T(0.5) : T(0.7978845608028654);
    b = act == activation::silu ? T(0) : T(0.7978845608028654 * 0.044715);
  }
};

namespace detail {
/// An activation of family Family with its constants (Approximate as for activate()); the linear family's relu is
/// the caller's (preloaded_bounds folds it into the clamp).
template <activation_family Family, bool Approximate, class T>
__device__ __forceinline__ T activate_family(const activation_constants<T>& k, T x) {
  if constexpr (Family == activation_family::tanh_form) {
    const T half = T(0.5) * x;  // a x + b x^3 as x (a + b x^2): three operations
    return half + half * tanh_of<Approximate>(x * (k.a + k.b * (x * x)));
  } else if constexpr (Family == activation_family::erf) {
    return activate_as<activation::gelu_erf, Approximate>(x);
  } else {
    return x;
  }
}

/// min(max(x, lower), upper) for lower <= upper, NaN staying NaN (fminf and fmaxf would drop it): two instructions
/// on sm_80 and newer.
__device__ __forceinline__ float clamp_keeping_nan(float x, float lower, float upper) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float y;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(x), "f"(lower));
  asm("min.NaN.f32 %0, %0, %1;" : "+f"(y) : "f"(upper));
  return y;
#else
  return x < lower ? lower : (x > upper ? upper : x);
#endif
}
}  // namespace detail

/// a b + c rounded once, in T (float or double).
template <class T>
__device__ __forceinline__ T fused_fma(T a, T b, T c) {
  if constexpr (sizeof(T) == 4) {
    return fmaf(a, b, c);
  } else {
    return fma(a, b, c);
  }
}

/// The bounds a fused epilogue clamps its activated values to: the terms' clamp, else the whole line (infinities),
/// so that every value takes the same two instructions (NaN stays NaN).
template <class T>
struct clamp_bounds {
  T lower;  ///< Results below become lower.
  T upper;  ///< Results above become upper.
  /// The bounds of `t`.
  template <class ElementC, class Scalar>
  __device__ __forceinline__ explicit clamp_bounds(const epilogue_terms<ElementC, Scalar>& t) {
    const T infinity = T(__int_as_float(0x7f800000));
    lower = t.clamp ? T(t.lower) : -infinity;
    upper = t.clamp ? T(t.upper) : infinity;
  }
  /// x clamped to [lower, upper]; NaN stays NaN.
  __device__ __forceinline__ T apply(T x) const {
    if constexpr (sizeof(T) == 4) {
      return detail::clamp_keeping_nan(x, lower, upper);
    } else {
      return x < lower ? lower : (x > upper ? upper : x);  // NaN fails both comparisons and stays
    }
  }
};

/// A row's or column's factor and bias, read once for the many elements that use them (the sm_90a kernel's stores):
/// a missing vector, or a row (column) outside C, reads as factor 1 and bias -0, which change no value.
template <class T>
struct preloaded_terms {
  T scale = T(1);    ///< The row's (column's) factor.
  T bias = T(-0.0);  ///< The row's (column's) bias.
};

/// Row `row`'s factor and bias (see preloaded_terms).
template <class T, class ElementC, class Scalar>
__device__ __forceinline__ preloaded_terms<T> row_terms(const epilogue_terms<ElementC, Scalar>& t, int64_t row,
                                                        int64_t rows) {
  preloaded_terms<T> r;
  const bool inside = row < rows;
  if (t.row_scale && inside) r.scale = T(t.row_scale[row]);
  if (t.row_bias && inside) r.bias = convert<T>(t.row_bias[row]);
  return r;
}

/// The column terms a thread reads from column `first` on (see preloaded_terms), for a loop whose offsets from it are
/// constants once unrolled: the pointers advance once, and each column costs its loads and one 32-bit comparison
/// (64-bit column indices cost six integer instructions per column, a third of each value's code in the sm_90a
/// kernel's stores).
template <class ElementC>
struct column_terms_from {
  const float* scale;     ///< column_scale + first, or null.
  const ElementC* bias;   ///< column_bias + first, or null.
  int left;               ///< Columns of C from `first` on (at most 2^30: offsets are small).
  /// The terms of `t` from column `first` of C's `columns`.
  __device__ __forceinline__ column_terms_from(const epilogue_terms<ElementC, float>& t, int64_t first,
                                               int64_t columns) {
    scale = t.column_scale ? t.column_scale + first : nullptr;
    bias = t.column_bias ? t.column_bias + first : nullptr;
    const int64_t rest = columns - first;
    left = rest > (int64_t(1) << 30) ? (1 << 30) : int(rest);
  }
  /// Column first + offset's factor and bias.
  __device__ __forceinline__ preloaded_terms<float> at(int offset) const {
    preloaded_terms<float> r;
    const bool inside = offset < left;
    if (scale && inside) r.scale = scale[offset];
    if (bias && inside) r.bias = convert<float>(bias[offset]);
    return r;
  }
};

/// The bounds a tile's stores clamp to: the terms' clamp (else the whole line), with relu folded in as a lower bound
/// of 0 (max(max(x, 0), lower) = max(x, max(0, lower)), NaN kept), so that the linear family is a clamp alone.
struct preloaded_bounds {
  float lower;  ///< Results below become lower.
  float upper;  ///< Results above become upper.
  /// The bounds of `t`, whose activation's constants are `k`.
  template <class ElementC>
  __device__ __forceinline__ preloaded_bounds(const epilogue_terms<ElementC, float>& t,
                                              const activation_constants<float>& k) {
    lower = t.clamp ? t.lower : -__int_as_float(0x7f800000);
    upper = t.clamp ? t.upper : __int_as_float(0x7f800000);
    if (k.relu) lower = lower > 0.0f ? lower : 0.0f;
  }
};

/// Where a fused epilogue reads the old C of (row, col) when the result goes to `d` + row + col ldd.
template <class ElementC, class Scalar>
__device__ __forceinline__ const ElementC* source_of(const epilogue_terms<ElementC, Scalar>& t, ElementC* d,
                                                     int64_t ldd, int64_t row, int64_t col) {
  return t.source ? t.source + row + col * t.ld_source : d + row + col * ldd;
}

}  // namespace tgemm::device
