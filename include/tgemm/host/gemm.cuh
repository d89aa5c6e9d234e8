/// \file host/gemm.cuh
/// \brief tgemm::gemm(): the BLAS-style call that plans for the device and the problem, then executes; and the
/// workspace-size query. Declarations only: the definitions are in host/dispatcher.cuh (see config.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "../config.cuh"
#include "../device/epilogue_terms.cuh"
#include "../epilogue.cuh"
#include "../numeric.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "device_facts.cuh"

namespace tgemm {

namespace detail {
/// The element types of one GEMM: A, B, C, and alpha and beta; User: a caller's epilogue operation
/// (device::no_user_op: none).
template <class A, class B = A, class C = A, class Scalar = C, class User = device::no_user_op>
struct gemm_types;

/// Types with a caller's epilogue operation of type User.
template <class Types, class User>
using with_user_op = gemm_types<typename Types::element_a, typename Types::element_b, typename Types::element_c,
                                typename Types::scalar_type, User>;

/// Types without a caller's epilogue operation (the steps that write to the workspace, which apply no terms).
template <class Types>
using without_user_op = with_user_op<Types, device::no_user_op>;

/// The element combinations tgemm::gemm() multiplies (A, B, C): float x float -> float; double x double ->
/// double; __half x __half -> __half or float; __nv_bfloat16 x __nv_bfloat16 -> __nv_bfloat16 or float.
template <class A, class B, class C>
inline constexpr bool is_supported_gemm =
    ((std::is_same<A, float>::value || std::is_same<A, double>::value) && std::is_same<B, A>::value &&
     std::is_same<C, A>::value) ||
    ((std::is_same<A, __half>::value || std::is_same<A, __nv_bfloat16>::value) && std::is_same<A, B>::value &&
     (std::is_same<C, A>::value || std::is_same<C, float>::value));
/// The type of alpha and beta for A's and C's element types: double for double, float otherwise (as in cuBLAS's
/// cublasGemmEx with CUBLAS_COMPUTE_32F for 16-bit types).
template <class A, class C>
using scalar_for = std::conditional_t<std::is_same<A, double>::value, double, float>;
/// The element types of a typed tgemm::gemm() call, once their combination is checked (the one place that says
/// which combinations exist).
template <class A, class B, class C>
struct checked_gemm_types {
  static_assert(is_supported_gemm<A, B, C>,
                "tgemm::gemm() multiplies float x float -> float, double x double -> double, __half x __half -> "
                "__half or float, and __nv_bfloat16 x __nv_bfloat16 -> __nv_bfloat16 or float (A and B of one type)");
  /// The call's types.
  using type = gemm_types<A, B, C, scalar_for<A, C>>;
};

}  // namespace detail

namespace detail {
/// A strided batch of GEMMs, as the caller gives it: `count` products, the operands of batch i at A + i stride_a,
/// B + i stride_b, C + i stride_c (strides in elements; 0 reads one A or B for every batch). A single GEMM is a
/// batch of one.
struct batch_shape {
  int64_t count = 1;     ///< Products in the batch.
  int64_t stride_a = 0;  ///< Elements between consecutive batches' A.
  int64_t stride_b = 0;  ///< Elements between consecutive batches' B.
  int64_t stride_c = 0;  ///< Elements between consecutive batches' C.
};

/// The batch of a single-product entry point (tgemm::gemm(), a group of tgemm::gemm_grouped()): one product, with a
/// type of its own so that the dispatcher those calls instantiate leaves out the kernels only batches run (the
/// products tile): a translation unit that makes no batched call compiles fewer kernels.
struct single_product : batch_shape {};

/// Whether a call whose batch argument has type Batch may run a batch (false for single_product).
template <class Batch>
inline constexpr bool runs_batches = !std::is_same<Batch, single_product>::value;

TGEMM_BEGIN_DISPATCH_NAMESPACE
/// tgemm::gemm() and tgemm::gemm_strided_batched() for one set of element types and math mode: defined in
/// host/dispatcher.cuh (in compiled mode, instantiated for every supported combination in the library).
/// Batch: batch_shape, or single_product for the single-product entry points (see single_product).
template <class Types, math_mode Math = math_mode::strict, class Batch = batch_shape>
status gemm_typed(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, typename Types::scalar_type alpha,
                  const typename Types::element_a* A, int64_t lda, const typename Types::element_b* B, int64_t ldb,
                  typename Types::scalar_type beta, typename Types::element_c* C, int64_t ldc,
                  const Batch& batch, cudaStream_t stream, const workspace* ws, size_t* size_only);

/// gemm_typed() for calls with a fused epilogue, defined in host/dispatcher.cuh: a tgemm::epilogue (its own kernels,
/// the fused instantiations; in compiled mode a part of the library of its own) or a tgemm::user_epilogue (Types
/// carries its operation's type; header-only mode only: the kernels compile where the call is).
template <class Types, math_mode Math = math_mode::strict, class Epilogue = epilogue<typename Types::element_c>,
          class Batch = batch_shape>
status gemm_fused_typed(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                        typename Types::scalar_type alpha, const typename Types::element_a* A, int64_t lda,
                        const typename Types::element_b* B, int64_t ldb, typename Types::scalar_type beta,
                        typename Types::element_c* C, int64_t ldc, const Epilogue& ep, const Batch& batch,
                        cudaStream_t stream, const workspace* ws, size_t* size_only);

/// True where this translation unit compiles the dispatcher's kernels (header-only mode), which calls with a
/// tgemm::user_epilogue need; dependent on Op, so that only such a call asserts it.
template <class Op>
inline constexpr bool user_epilogues_compile_here = TGEMM_DEFINES_DISPATCHER != 0;

/// The operation type of an epilogue argument: device::no_user_op for a tgemm::epilogue, Op for a
/// tgemm::user_epilogue<TC, Op>.
template <class Epilogue>
struct user_op_of {
  using type = device::no_user_op;
};
/// See user_op_of.
template <class TC, class Op>
struct user_op_of<user_epilogue<TC, Op>> {
  using type = Op;
};

/// Puts a tgemm::user_epilogue's operation into terms that the built-in epilogue's checks filled (in the kernels'
/// column-major form: a row-major call's kernels see its rows as columns); nothing for a tgemm::epilogue.
template <class TC, class Terms>
void attach_user_op(const epilogue<TC>&, layout, Terms&) {}
/// See attach_user_op.
template <class TC, class Op, class Terms>
void attach_user_op(const user_epilogue<TC, Op>& ep, layout order, Terms& terms) {
  terms.user = device::user_operation<Op>(ep.op);
  terms.swapped = order == layout::row_major;
  terms.active = true;
}

/// The types of a call with a tgemm::user_epilogue whose operation is Op (checked as checked_gemm_types checks them),
/// and the one check such a call adds: that this translation unit compiles its kernels.
template <class TA, class TB, class TC, class Op>
struct user_epilogue_types {
  static_assert(user_epilogues_compile_here<Op>,
                "a call with a tgemm::user_epilogue compiles its kernels where it is made: make it in a translation "
                "unit in header-only mode (one compiled without TGEMM_COMPILED)");
  using type = with_user_op<typename checked_gemm_types<TA, TB, TC>::type, Op>;
};

/// True when the environment forbids TF32 (NVIDIA_TF32_OVERRIDE=0, as NVIDIA's libraries read it): read once.
inline bool tf32_forbidden() {
  static const bool forbidden = [] {
    const char* value = std::getenv("NVIDIA_TF32_OVERRIDE");
    return value != nullptr && std::string(value) == "0";
  }();
  return forbidden;
}

/// gemm_typed(), or with Fused gemm_fused_typed() with `*ep` (a tgemm::epilogue or tgemm::user_epilogue), for math
/// mode Math.
template <class Types, math_mode Math, bool Fused, class Epilogue, class Batch = batch_shape>
status gemm_for_mode(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, typename Types::scalar_type alpha,
                     const typename Types::element_a* A, int64_t lda, const typename Types::element_b* B, int64_t ldb,
                     typename Types::scalar_type beta, typename Types::element_c* C, int64_t ldc,
                     const Batch& batch, cudaStream_t stream, const workspace* ws, size_t* size_only,
                     const Epilogue* ep) {
  if constexpr (Fused) {
    return gemm_fused_typed<Types, Math>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, *ep, batch,
                                         stream, ws, size_only);
  } else {
    (void)ep;
    return gemm_typed<Types, Math>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch, stream, ws,
                                   size_only);
  }
}

/// Calls f(std::integral_constant<math_mode, M>{}) with the math mode a call on A of type TA runs (options.math
/// already checked): the one option asks for with float A (strict where NVIDIA_TF32_OVERRIDE=0 forbids TF32),
/// strict for the other types. The one place that choice is made, for every API.
template <class TA, class F>
status with_math(const options& opts, F&& f) {
  if constexpr (std::is_same<TA, float>::value) {
    if (opts.math == math_mode::tf32 && !tf32_forbidden()) {
      return f(std::integral_constant<math_mode, math_mode::tf32>{});
    }
    if (opts.math == math_mode::tf32x3 && !tf32_forbidden()) {
      return f(std::integral_constant<math_mode, math_mode::tf32x3>{});
    }
  }
  return f(std::integral_constant<math_mode, math_mode::strict>{});
}

/// The typed tgemm::gemm() with options: float calls asking for TF32 or 3xTF32 go to the float tensor-core tables
/// (unless the environment forbids TF32), everything else to the call's default table. Fused: the call has a
/// tgemm::epilogue (`ep`, or a tgemm::user_epilogue), whose kernels are instantiated only by the calls that have one.
template <class Types, bool Fused = false, class Epilogue = epilogue<typename Types::element_c>,
          class Batch = batch_shape>
status gemm_with_options(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                         typename Types::scalar_type alpha, const typename Types::element_a* A, int64_t lda,
                         const typename Types::element_b* B, int64_t ldb, typename Types::scalar_type beta,
                         typename Types::element_c* C, int64_t ldc, const Batch& batch, cudaStream_t stream,
                         const workspace* ws, size_t* size_only, const options& opts,
                         const Epilogue* ep = nullptr) {
  if (!is_valid(opts.math)) {
    return fail(status::invalid_option, cudaSuccess,
                "options.math = %d is not a tgemm::math_mode (strict = 0, tf32 = 1, tf32x3 = 2)", int(opts.math));
  }
  return with_math<typename Types::element_a>(opts, [&](auto math) -> status {
    return gemm_for_mode<Types, decltype(math)::value, Fused>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta,
                                                              C, ldc, batch, stream, ws, size_only, ep);
  });
}

/// The options argument of a call with a tgemm::user_epilogue that passes none: such a call runs strict math (as
/// with default options), and only that table's kernels compile for its operation (with tgemm::options, a float
/// call also compiles the TF32 and 3xTF32 tables' kernels, since the options choose among them at run time).
struct no_options {};

/// The options a call's checks read: the caller's, or the defaults where it passed none.
inline const options& options_of(const options& opts) { return opts; }
/// See options_of.
inline options options_of(no_options) { return options{}; }

/// The math modes a call with a tgemm::user_epilogue may run: strict alone without options (no_options), any with
/// tgemm::options.
template <class Types, class Options, class Epilogue, class Batch = batch_shape>
status gemm_user_call(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                      typename Types::scalar_type alpha, const typename Types::element_a* A, int64_t lda,
                      const typename Types::element_b* B, int64_t ldb, typename Types::scalar_type beta,
                      typename Types::element_c* C, int64_t ldc, const Batch& batch, cudaStream_t stream,
                      const workspace* ws, size_t* size_only, const Options& opts, const Epilogue* ep) {
  static_assert(std::is_same<Options, options>::value || std::is_same<Options, no_options>::value,
                "the argument after the stream (or workspace) of a call with a tgemm::user_epilogue is a "
                "tgemm::options");
  if constexpr (std::is_same<Options, no_options>::value) {
    return gemm_for_mode<Types, math_mode::strict, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                         ldc, batch, stream, ws, size_only, ep);
  } else {
    return gemm_with_options<Types, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch,
                                          stream, ws, size_only, opts, ep);
  }
}
TGEMM_END_DISPATCH_NAMESPACE
}  // namespace detail

TGEMM_BEGIN_DISPATCH_NAMESPACE

/// C = alpha op(A) op(B) + beta C, as cblas_sgemm defines it, on device pointers, enqueued on `stream`.
///
/// op(A) is m x k, op(B) is k x n, C is m x n, all stored in `order` with leading dimensions lda, ldb, ldc.
/// The call never synchronises. It works on the stream's device (the current device for the default streams),
/// plans for that device and the problem's shape (TGEMM_PRINT_PLAN=1 prints each plan), then launches; any
/// alignment works (misaligned operands of large problems are repacked into workspace memory, small ones are read
/// with scalar loads; a large product whose C is misaligned is computed into aligned workspace and then copied to
/// C), and problems too small to fill the GPU split k, with partial products summed in a fixed order so results
/// are reproducible bit for bit. The workspace is allocated once per call, in stream order, from a pool tgemm
/// keeps per device; the overload taking a tgemm::workspace uses the caller's buffer instead.
///
/// - m == 0 or n == 0: success, nothing touched.
/// - k == 0 or alpha == 0: C = beta C; A and B are not read (and may be null).
/// - beta == 0: C is not read, so NaN or Inf already in C cannot reach the result.
///
/// \return status::success once the work is enqueued. Bad arguments return their status before any device
/// work and leave C untouched; last_error() says which argument and why. Every kernel is made ready and the
/// workspace allocated before the first launch: out_of_memory, arch_not_compiled and the like also leave C
/// untouched. Errors of the kernels themselves surface, as with any CUDA work, at the next synchronisation.
TGEMM_FLOAT_API_DECLARATION
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
            const float* B, int64_t ldb, float beta, float* C, int64_t ldc, cudaStream_t stream = nullptr);

/// tgemm::gemm() with the caller's workspace: nothing is allocated (what CUDA-graph capture without memory nodes
/// needs). `ws` must hold at least gemm_workspace_size() bytes on the stream's device, aligned to 256 bytes; a
/// smaller one returns status::workspace_too_small before any device work. The buffer must not be used by other
/// work until this call's work on `stream` is done.
TGEMM_FLOAT_API_DECLARATION
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
            const float* B, int64_t ldb, float beta, float* C, int64_t ldc, cudaStream_t stream, workspace ws);

/// The workspace bytes tgemm::gemm() with these arguments needs on the stream's device (0 for most calls: only
/// repacking, split-K and a staged C need any). Plans the call and launches nothing.
TGEMM_FLOAT_API_DECLARATION
status gemm_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                           const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                           size_t& bytes, cudaStream_t stream = nullptr);

/// C = alpha op(A) op(B) + beta C for 16-bit or double inputs on the tensor cores, or for float inputs with per-call
/// options: A and B of type __half or __nv_bfloat16, C of that type or float, alpha and beta float; the products are
/// summed in float, and a 16-bit C is rounded once, at the end (cublasGemmEx with CUBLAS_COMPUTE_32F). double A, B
/// and C with double alpha and beta run on the DMMA tensor cores (cublasDgemm). With float A, B
/// and C, `opts.math` chooses strict FP32 (the default, as the float overload), math_mode::tf32 or
/// math_mode::tf32x3 on the tensor cores; NVIDIA_TF32_OVERRIDE=0 in the environment forces strict. Same arguments,
/// semantics and statuses as the float overload; a GPU without the instructions (older than sm_80) gets
/// status::unsupported_device. Any other element combination stops the build with a message listing the
/// supported ones.
template <class TA, class TB, class TC>
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, ::tgemm::detail::scalar_for<TA, TC> alpha,
            const TA* A, int64_t lda, const TB* B, int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C,
            int64_t ldc, cudaStream_t stream = nullptr, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                   ::tgemm::detail::single_product{}, stream, nullptr, nullptr, opts);
}

/// The typed tgemm::gemm() with the caller's workspace (see the float overload).
template <class TA, class TB, class TC>
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, ::tgemm::detail::scalar_for<TA, TC> alpha,
            const TA* A, int64_t lda, const TB* B, int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C,
            int64_t ldc, cudaStream_t stream, workspace ws, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                   ::tgemm::detail::single_product{}, stream, &ws, nullptr, opts);
}

/// The workspace bytes the typed tgemm::gemm() needs for these arguments (see the float overload).
template <class TA, class TB, class TC>
status gemm_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                           ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, const TB* B,
                           int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C, int64_t ldc, size_t& bytes,
                           cudaStream_t stream = nullptr, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  bytes = 0;
  return ::tgemm::detail::gemm_with_options<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                   ::tgemm::detail::single_product{}, stream, nullptr, &bytes, opts);
}

/// `batch_count` GEMMs in one call, as cublasGemmStridedBatchedEx defines them: for i in [0, batch_count),
/// C_i = alpha op(A_i) op(B_i) + beta C_i with A_i = A + i stride_a, B_i = B + i stride_b, C_i = C + i stride_c
/// (strides in elements, 64-bit). Every element type, math option and layout of tgemm::gemm(), with its semantics
/// per product. A stride of 0 reads one A (or B) for every product; A and B may overlap (they are only read).
///
/// \return as tgemm::gemm(), and also: batch_count < 0 is invalid_dimension; batch_count == 0 succeeds touching
/// nothing; a negative stride, or a stride_c that makes two products' C overlap (with batch_count > 1: it must be at
/// least the elements one C spans, ldc (n - 1) + m column-major), is invalid_batch_stride. Small products run
/// together in one launch (the batch is a grid dimension); products large enough to fill the GPU alone run one
/// after another, each with tgemm::gemm()'s plan (TGEMM_PRINT_PLAN=1 says which).
template <class TA, class TB, class TC>
status gemm_strided_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                            ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, int64_t stride_a,
                            const TB* B, int64_t ldb, int64_t stride_b, ::tgemm::detail::scalar_for<TA, TC> beta,
                            TC* C, int64_t ldc, int64_t stride_c, int64_t batch_count, cudaStream_t stream = nullptr,
                            const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                   {batch_count, stride_a, stride_b, stride_c}, stream, nullptr,
                                                   nullptr, opts);
}

/// tgemm::gemm_strided_batched() with the caller's workspace (see the float tgemm::gemm() overload taking one).
template <class TA, class TB, class TC>
status gemm_strided_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                            ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, int64_t stride_a,
                            const TB* B, int64_t ldb, int64_t stride_b, ::tgemm::detail::scalar_for<TA, TC> beta,
                            TC* C, int64_t ldc, int64_t stride_c, int64_t batch_count, cudaStream_t stream,
                            workspace ws, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                   {batch_count, stride_a, stride_b, stride_c}, stream, &ws, nullptr,
                                                   opts);
}

/// The workspace bytes tgemm::gemm_strided_batched() needs for these arguments.
template <class TA, class TB, class TC>
status gemm_strided_batched_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                                           ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda,
                                           int64_t stride_a, const TB* B, int64_t ldb, int64_t stride_b,
                                           ::tgemm::detail::scalar_for<TA, TC> beta, TC* C, int64_t ldc,
                                           int64_t stride_c, int64_t batch_count, size_t& bytes,
                                           cudaStream_t stream = nullptr, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  bytes = 0;
  return ::tgemm::detail::gemm_with_options<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                   {batch_count, stride_a, stride_b, stride_c}, stream, nullptr,
                                                   &bytes, opts);
}

/// D = act(alpha op(A) op(B) + beta C + biases), scaled and clamped, as tgemm::epilogue describes it: tgemm::gemm()
/// (any element types and options) with a fused epilogue, which the kernels apply as they store the result (no
/// second pass over D). Same arguments, semantics and statuses as tgemm::gemm(), and also: a member of `ep` that is
/// invalid returns status::invalid_epilogue (ep.act not an activation, clamp bounds NaN or out of order, a negative
/// vector stride); a D whose ldd is too small status::invalid_leading_dimension naming ldd; a vector not aligned to
/// its element status::misaligned_operand naming it. With ep.d set and beta = 0, C is not touched (it may be null).
/// The fused kernels are their own instantiations: a translation unit calling this compiles them (header-only mode),
/// or the compiled library must be built with them (tgemm_add_compiled_library(... FUSED)).
template <class TA, class TB, class TC>
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, ::tgemm::detail::scalar_for<TA, TC> alpha,
            const TA* A, int64_t lda, const TB* B, int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C,
            int64_t ldc, const epilogue<TC>& ep, cudaStream_t stream = nullptr, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                         ldc, ::tgemm::detail::single_product{}, stream, nullptr, nullptr,
                                                         opts, &ep);
}

/// tgemm::gemm() with a fused epilogue and the caller's workspace.
template <class TA, class TB, class TC>
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, ::tgemm::detail::scalar_for<TA, TC> alpha,
            const TA* A, int64_t lda, const TB* B, int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C,
            int64_t ldc, const epilogue<TC>& ep, cudaStream_t stream, workspace ws, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                         ldc, ::tgemm::detail::single_product{}, stream, &ws, nullptr,
                                                         opts, &ep);
}

/// The workspace bytes tgemm::gemm() with this fused epilogue needs (its kernels may plan differently).
template <class TA, class TB, class TC>
status gemm_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                           ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, const TB* B,
                           int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C, int64_t ldc,
                           const epilogue<TC>& ep, size_t& bytes, cudaStream_t stream = nullptr,
                           const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  bytes = 0;
  return ::tgemm::detail::gemm_with_options<types, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                         ldc, ::tgemm::detail::single_product{}, stream, nullptr, &bytes,
                                                         opts, &ep);
}

/// tgemm::gemm_strided_batched() with a fused epilogue: product p applies `ep` with its vectors and D advanced by
/// p times their strides (ep.stride_d must keep the products' D apart, as stride_c must for C; with ep.d set, C
/// is only read and its stride_c may be anything not negative).
template <class TA, class TB, class TC>
status gemm_strided_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                            ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, int64_t stride_a,
                            const TB* B, int64_t ldb, int64_t stride_b, ::tgemm::detail::scalar_for<TA, TC> beta,
                            TC* C, int64_t ldc, int64_t stride_c, int64_t batch_count, const epilogue<TC>& ep,
                            cudaStream_t stream = nullptr, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                         ldc, {batch_count, stride_a, stride_b, stride_c}, stream,
                                                         nullptr, nullptr, opts, &ep);
}

/// tgemm::gemm_strided_batched() with a fused epilogue and the caller's workspace.
template <class TA, class TB, class TC>
status gemm_strided_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                            ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, int64_t stride_a,
                            const TB* B, int64_t ldb, int64_t stride_b, ::tgemm::detail::scalar_for<TA, TC> beta,
                            TC* C, int64_t ldc, int64_t stride_c, int64_t batch_count, const epilogue<TC>& ep,
                            cudaStream_t stream, workspace ws, const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  return ::tgemm::detail::gemm_with_options<types, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                         ldc, {batch_count, stride_a, stride_b, stride_c}, stream, &ws,
                                                         nullptr, opts, &ep);
}

/// The workspace bytes tgemm::gemm_strided_batched() with this fused epilogue needs.
template <class TA, class TB, class TC>
status gemm_strided_batched_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                                           ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda,
                                           int64_t stride_a, const TB* B, int64_t ldb, int64_t stride_b,
                                           ::tgemm::detail::scalar_for<TA, TC> beta, TC* C, int64_t ldc,
                                           int64_t stride_c, int64_t batch_count, const epilogue<TC>& ep,
                                           size_t& bytes, cudaStream_t stream = nullptr,
                                           const options& opts = options{}) {
  using types = typename ::tgemm::detail::checked_gemm_types<TA, TB, TC>::type;
  bytes = 0;
  return ::tgemm::detail::gemm_with_options<types, true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                                         ldc, {batch_count, stride_a, stride_b, stride_c}, stream,
                                                         nullptr, &bytes, opts, &ep);
}

/// tgemm::gemm() with a tgemm::user_epilogue (tgemm::with_op(ep, op)): the built-in epilogue `ep`, then the caller's
/// operation on each result, in the same kernels (every path a plan takes: the tile kernels, the sm_90a kernel, GEMV,
/// the split-K reduction, C = beta C). Same arguments, semantics and statuses as tgemm::gemm() with a tgemm::epilogue.
/// The kernels compile where the call is, for each Op type: header-only mode only (a translation unit of the compiled
/// mode stops with a message). Without `opts` a float call runs strict FP32 and compiles that table's kernels only;
/// with a tgemm::options it may run TF32 or 3xTF32, and compiles their tables' kernels too.
template <class TA, class TB, class TC, class Op, class Options = ::tgemm::detail::no_options>
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, ::tgemm::detail::scalar_for<TA, TC> alpha,
            const TA* A, int64_t lda, const TB* B, int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C,
            int64_t ldc, const user_epilogue<TC, Op>& ep, cudaStream_t stream = nullptr,
            const Options& opts = Options{}) {
  using types = typename ::tgemm::detail::user_epilogue_types<TA, TB, TC, Op>::type;
  return ::tgemm::detail::gemm_user_call<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                ::tgemm::detail::single_product{}, stream, nullptr, nullptr, opts, &ep);
}

/// tgemm::gemm() with a tgemm::user_epilogue and the caller's workspace.
template <class TA, class TB, class TC, class Op, class Options = ::tgemm::detail::no_options>
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, ::tgemm::detail::scalar_for<TA, TC> alpha,
            const TA* A, int64_t lda, const TB* B, int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C,
            int64_t ldc, const user_epilogue<TC, Op>& ep, cudaStream_t stream, workspace ws,
            const Options& opts = Options{}) {
  using types = typename ::tgemm::detail::user_epilogue_types<TA, TB, TC, Op>::type;
  return ::tgemm::detail::gemm_user_call<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                ::tgemm::detail::single_product{}, stream, &ws, nullptr, opts, &ep);
}

/// The workspace bytes tgemm::gemm() with this tgemm::user_epilogue needs.
template <class TA, class TB, class TC, class Op, class Options = ::tgemm::detail::no_options>
status gemm_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                           ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, const TB* B,
                           int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* C, int64_t ldc,
                           const user_epilogue<TC, Op>& ep, size_t& bytes, cudaStream_t stream = nullptr,
                           const Options& opts = Options{}) {
  using types = typename ::tgemm::detail::user_epilogue_types<TA, TB, TC, Op>::type;
  bytes = 0;
  return ::tgemm::detail::gemm_user_call<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                ::tgemm::detail::single_product{}, stream, nullptr, &bytes, opts, &ep);
}

/// tgemm::gemm_strided_batched() with a tgemm::user_epilogue: product p applies `ep` as the overload taking a
/// tgemm::epilogue does, then the operation with batch = p. Options as for tgemm::gemm() with one.
template <class TA, class TB, class TC, class Op, class Options = ::tgemm::detail::no_options>
status gemm_strided_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                            ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* A, int64_t lda, int64_t stride_a,
                            const TB* B, int64_t ldb, int64_t stride_b, ::tgemm::detail::scalar_for<TA, TC> beta,
                            TC* C, int64_t ldc, int64_t stride_c, int64_t batch_count, const user_epilogue<TC, Op>& ep,
                            cudaStream_t stream = nullptr, const Options& opts = Options{}) {
  using types = typename ::tgemm::detail::user_epilogue_types<TA, TB, TC, Op>::type;
  return ::tgemm::detail::gemm_user_call<types>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                {batch_count, stride_a, stride_b, stride_c}, stream, nullptr, nullptr,
                                                opts, &ep);
}

TGEMM_END_DISPATCH_NAMESPACE

namespace detail {
TGEMM_BEGIN_DISPATCH_NAMESPACE
/// The facts tgemm::gemm()'s float kernels plan with on `device` (made current by the caller): read on first use,
/// then cached. For tests and diagnostics.
TGEMM_FLOAT_API_DECLARATION
status dispatcher_facts(int device, device_facts& facts);
TGEMM_END_DISPATCH_NAMESPACE
}  // namespace detail
}  // namespace tgemm
