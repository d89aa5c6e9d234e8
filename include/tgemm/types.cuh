/// \file types.cuh
/// \brief The vocabulary of a BLAS-style call: storage order, operand operation, and a caller's workspace.
#pragma once

#include <cstddef>

/// Everything tgemm offers: the host calls (gemm(), launch(), can_implement()), policies, and error reporting.
namespace tgemm {

/// How a matrix is stored, as in CBLAS: which index is contiguous in memory.
enum class layout : int {
  row_major = 101,  ///< Rows are contiguous; element (i, j) is at `p[i * ld + j]` (CblasRowMajor).
  col_major = 102,  ///< Columns are contiguous; element (i, j) is at `p[i + j * ld]` (CblasColMajor).
};

/// What is applied to an operand before the product, as in CBLAS.
enum class op : int {
  none = 111,       ///< op(X) = X (CblasNoTrans).
  transpose = 112,  ///< op(X) = X^T (CblasTrans).
  /// Not an operation a call passes (every call refuses it, as any other value): the template argument of tgemm's
  /// kernels that take the call's operation at run time (tgemm::run_time_layouts).
  at_run_time = 0,
};

/// A name for the layout, for messages.
constexpr const char* to_string(layout order) noexcept {
  switch (order) {
    case layout::row_major: return "row_major";
    case layout::col_major: return "col_major";
  }
  return "invalid layout";
}

/// A name for the operation, for messages.
constexpr const char* to_string(op operation) noexcept {
  switch (operation) {
    case op::none: return "none";
    case op::transpose: return "transpose";
    case op::at_run_time: break;  // not a call's operation
  }
  return "invalid op";
}

/// True for the values the enumeration names (a cast from an integer can produce others).
constexpr bool is_valid(layout order) noexcept {
  return order == layout::row_major || order == layout::col_major;
}

/// True for the values the enumeration names.
constexpr bool is_valid(op operation) noexcept {
  return operation == op::none || operation == op::transpose;
}

/// How float products are computed (tgemm::options::math). 16-bit inputs always multiply exactly on the tensor
/// cores and sum in float; this choice is for float inputs.
enum class math_mode : int {
  strict = 0,  ///< IEEE FP32 multiply-adds on the CUDA cores (the default; cuBLAS's CUBLAS_COMPUTE_32F).
  tf32 = 1,    ///< Inputs rounded to TF32 (10-bit mantissa) on the tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32).
  tf32x3 = 2,  ///< Each input split into a TF32 big part and a TF32 remainder; three tensor-core products give
               ///< close to FP32 accuracy (CUTLASS's 3xTF32).
};

/// A name for the math mode, for messages.
constexpr const char* to_string(math_mode math) noexcept {
  switch (math) {
    case math_mode::strict: return "strict";
    case math_mode::tf32: return "tf32";
    case math_mode::tf32x3: return "tf32x3";
  }
  return "invalid math_mode";
}

/// True for the values the enumeration names.
constexpr bool is_valid(math_mode math) noexcept {
  return math == math_mode::strict || math == math_mode::tf32 || math == math_mode::tf32x3;
}

/// The activation a fused epilogue applies after the biases (tgemm::epilogue::act), as PyTorch defines them.
enum class activation : int {
  none = 0,       ///< The value itself.
  relu = 1,       ///< max(x, 0); NaN stays NaN.
  gelu_tanh = 2,  ///< 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (PyTorch's gelu(approximate="tanh")).
  gelu_erf = 3,   ///< 0.5 x (1 + erf(x / sqrt(2))) (PyTorch's gelu()).
  silu = 4,       ///< x / (1 + exp(-x)) (PyTorch's silu()).
};

/// A name for the activation, for messages.
constexpr const char* to_string(activation act) noexcept {
  switch (act) {
    case activation::none: return "none";
    case activation::relu: return "relu";
    case activation::gelu_tanh: return "gelu_tanh";
    case activation::gelu_erf: return "gelu_erf";
    case activation::silu: return "silu";
  }
  return "invalid activation";
}

/// True for the values the enumeration names.
constexpr bool is_valid(activation act) noexcept {
  return act == activation::none || act == activation::relu || act == activation::gelu_tanh ||
         act == activation::gelu_erf || act == activation::silu;
}

/// Per-call choices of tgemm::gemm() beyond the BLAS arguments. Default-constructed, a call behaves as one without
/// options. The environment variable NVIDIA_TF32_OVERRIDE=0 forces math_mode::strict, as in NVIDIA's libraries.
struct options {
  math_mode math = math_mode::strict;  ///< How float products are computed.
};

/// Device memory a caller lends a call for its scratch data (repacked operands, split-K partials, a staged C),
/// like cublasSetWorkspace's buffer: a call given one allocates nothing, which CUDA-graph capture wants.
/// gemm_workspace_size() says how many bytes a call needs; alignment to 256 bytes is required.
struct workspace {
  void* data = nullptr;  ///< Device memory on the stream's device (null only when `bytes` is 0).
  size_t bytes = 0;      ///< Its size in bytes.
};

}  // namespace tgemm
