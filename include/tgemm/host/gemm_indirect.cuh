/// \file host/gemm_indirect.cuh
/// \brief GEMMs whose operands the host cannot see: tgemm::gemm_batched() (device arrays of pointers, as
/// cublasGemmBatchedEx takes them) and tgemm::gemm_grouped_device() (groups whose sizes and pointers live in device
/// memory, the mixture-of-experts case). Both run one launch of kernel::gemm_indirect_kernel per 65,535 products, on
/// a tile of the call's tuning table chosen from the sizes the host knows (the shape, or the groups' bounds).
///
/// What the host cannot check, the kernel does per product: pointers it would use (a null one: the product is
/// skipped), and for groups their sizes against the bounds and their leading dimensions (each group's status can be
/// read back). Operands not aligned for the tile's vector loads run a direct loop instead (correct, slower). Calls of
/// one 16-bit type without a fused epilogue run the Hopper kernel on an sm_90a image instead, its tensor maps made
/// on the GPU (host/indirect_dispatcher.cuh says when). Both take a fused epilogue (tgemm::epilogue, its vectors
/// strided by the product index; no separate D). The launches (tile choice, kernels) are in
/// host/indirect_dispatcher.cuh, which only the dispatcher's translation units include.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../epilogue.cuh"
#include "../group_device.cuh"
#include "../kernel/gemm_indirect_kernel.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "check_epilogue.cuh"
#include "cuda_status.cuh"
#include "gemm.cuh"

namespace tgemm {
namespace detail {
TGEMM_BEGIN_DISPATCH_NAMESPACE

/// The checks of an epilogue given to tgemm::gemm_batched() or tgemm::gemm_grouped_device(), and its terms in the
/// kernels' form (row-major swapped; the vectors' strides walk the products). No separate D: these calls write C.
template <class TC>
status indirect_epilogue(const epilogue<TC>& ep, layout order, bool empty, const char* what,
                         device::epilogue_terms<TC, typename epilogue<TC>::scalar_type>& terms) {
  if (status s = check_epilogue_members(ep); s != status::success) return s;
  if (ep.d != nullptr) {
    return fail(status::invalid_epilogue, cudaSuccess,
                "epilogue.d is set: %s writes the result in place of C (a separate D is not supported)", what);
  }
  if (!empty) {
    if (status s = check_epilogue_vectors(ep); s != status::success) return s;
  }
  terms = terms_of(ep, order, true);
  return status::success;
}

/// Which indirect call: tgemm::gemm_batched()'s device arrays of pointers, or tgemm::gemm_grouped_device()'s groups.
/// A template argument of the launching half, so that a translation unit calling one compiles only its own Hopper
/// kernels (pointer arrays: one per tile and op pair; device groups: the grouped kernel and its preparation).
enum class indirect_kind : int { pointer_arrays, device_groups };

/// A checked call of tgemm::gemm_batched() or tgemm::gemm_grouped_device(): what its kernels read, in the
/// column-major form (a row-major call is C^T = op(B)^T op(A)^T). User: the type of the caller's epilogue operation
/// (tgemm::user_epilogue; device::no_user_op: none).
template <class TA, class TB, class TC, class User = device::no_user_op>
struct indirect_call {
  kernel::indirect_products<TA, TB, TC> products;  ///< The products' source.
  op op_a = op::none;                              ///< The kernels' op(A).
  op op_b = op::none;                              ///< The kernels' op(B).
  int64_t m = 0;                                   ///< The largest product's rows (column-major form).
  int64_t n = 0;                                   ///< Its columns.
  int64_t k = 0;                                   ///< Its depth.
  int64_t count = 0;                               ///< Products (groups).
  bool empty = true;                               ///< Nothing to do: no launch.
  bool fused = false;                              ///< With a fused epilogue (`terms`).
  device::epilogue_terms_t<TC, scalar_for<TA, TC>, User> terms{};  ///< Its terms, the vectors strided by product.
};

/// The host's checks of tgemm::gemm_batched() (a fused epilogue where `ep` is not null), and the call they leave.
/// Separate from the launch so that tests can pin the checks without compiling the kernels.
template <class TA, class TB, class TC, class User>
status check_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, scalar_for<TA, TC> alpha,
                     const TA* const* A, int64_t lda, const TB* const* B, int64_t ldb, scalar_for<TA, TC> beta,
                     TC* const* C, int64_t ldc, int64_t batch_count, const epilogue<TC>* ep, const options& opts,
                     indirect_call<TA, TB, TC, User>& out) {
  using types = typename checked_gemm_types<TA, TB, TC>::type;
  if (batch_count < 0) {
    return fail(status::invalid_dimension, cudaSuccess, "batch_count = %lld is negative", (long long)batch_count);
  }
  // The arrays stand in for the matrices in tgemm::gemm()'s checks: the same messages for the same mistakes (an
  // empty batch, like an empty product, reads and writes nothing, so its arrays may be null).
  canonical_call<types> call;
  const batch_shape one_or_none{batch_count == 0 ? 0 : 1, 0, 0, 0};
  if (status s = check_arguments(order, op_a, op_b, m, n, k, alpha, reinterpret_cast<const TA*>(A), lda,
                                 reinterpret_cast<const TB*>(B), ldb, beta, reinterpret_cast<TC*>(const_cast<TC**>(C)),
                                 ldc, call, one_or_none);
      s != status::success) {
    return s;
  }
  out = indirect_call<TA, TB, TC, User>{};
  if (ep != nullptr) {
    if (status s = indirect_epilogue(*ep, order, call.empty, "tgemm::gemm_batched", out.terms); s != status::success) {
      return s;
    }
    out.fused = true;
  }
  if (!is_valid(opts.math)) {
    return fail(status::invalid_option, cudaSuccess,
                "options.math = %d is not a tgemm::math_mode (strict = 0, tf32 = 1, tf32x3 = 2)", int(opts.math));
  }
  // The column-major form: a row-major call multiplies C^T = op(B)^T op(A)^T, so the arrays swap as the matrices do.
  const bool row_major = order == layout::row_major;
  kernel::indirect_products<TA, TB, TC>& p = out.products;
  p.a = row_major ? reinterpret_cast<const TA* const*>(B) : A;
  p.b = row_major ? reinterpret_cast<const TB* const*>(A) : B;
  p.c = C;
  p.m = call.problem.m, p.n = call.problem.n, p.k = call.problem.k;
  p.lda = call.problem.lda, p.ldb = call.problem.ldb, p.ldc = ldc;
  out.op_a = call.op_a, out.op_b = call.op_b;
  out.m = p.m, out.n = p.n, out.k = p.k, out.count = batch_count;
  out.empty = call.empty;
  return status::success;
}

/// The host's checks of tgemm::gemm_grouped_device() (a fused epilogue where `ep` is not null), and the call they
/// leave (the groups themselves are checked by the kernel).
template <class TA, class TB, class TC, class User>
status check_grouped_device(layout order, op op_a, op op_b, scalar_for<TA, TC> alpha,
                            const gemm_group_device<TA, TB, TC>* groups, int64_t group_count,
                            const group_bounds& bounds, scalar_for<TA, TC> beta, const epilogue<TC>* ep,
                            int32_t* group_status, const options& opts, indirect_call<TA, TB, TC, User>& out) {
  using types = typename checked_gemm_types<TA, TB, TC>::type;
  if (group_count < 0) {
    return fail(status::invalid_dimension, cudaSuccess, "group_count = %lld is negative", (long long)group_count);
  }
  if (bounds.max_m < 0 || bounds.max_n < 0 || bounds.max_k < 0) {
    return fail(status::invalid_dimension, cudaSuccess,
                "bounds (max_m = %lld, max_n = %lld, max_k = %lld) must not be negative", (long long)bounds.max_m,
                (long long)bounds.max_n, (long long)bounds.max_k);
  }
  if (group_count > 0 && groups == nullptr) {
    return fail(status::null_pointer, cudaSuccess, "groups is null with group_count = %lld", (long long)group_count);
  }
  // The layout and ops are checked as tgemm::gemm() checks them: a call of the bounds' shape with tight leading
  // dimensions stands in (the groups' own are checked on the GPU); a non-null stand-in even for an empty call's
  // null `groups`, so that the checks cannot fail on it.
  const bool row_major = order == layout::row_major;
  const auto tight = [&](op operation, int64_t rows, int64_t cols) {
    const int64_t stored = (operation == op::none) != row_major ? rows : cols;
    return stored > 1 ? stored : int64_t(1);
  };
  const int64_t m = bounds.max_m, n = bounds.max_n, k = bounds.max_k;
  canonical_call<types> call;
  const auto* stand_in = reinterpret_cast<const TA*>(groups != nullptr ? reinterpret_cast<uintptr_t>(groups) : 256);
  if (status s = check_arguments(order, op_a, op_b, m, n, k, alpha, stand_in, tight(op_a, m, k),
                                 reinterpret_cast<const TB*>(stand_in), tight(op_b, k, n), beta,
                                 reinterpret_cast<TC*>(const_cast<TA*>(stand_in)), tight(op::none, m, n), call);
      s != status::success) {
    return s;
  }
  out = indirect_call<TA, TB, TC, User>{};
  out.empty = group_count == 0 || m == 0 || n == 0;
  if (ep != nullptr) {
    if (status s = indirect_epilogue(*ep, order, out.empty, "tgemm::gemm_grouped_device", out.terms);
        s != status::success) {
      return s;
    }
    out.fused = true;
  }
  if (!is_valid(opts.math)) {
    return fail(status::invalid_option, cudaSuccess,
                "options.math = %d is not a tgemm::math_mode (strict = 0, tf32 = 1, tf32x3 = 2)", int(opts.math));
  }
  kernel::indirect_products<TA, TB, TC>& p = out.products;
  p.groups = groups;
  p.status_out = group_status;
  p.row_major = row_major;
  p.op_a = op_a, p.op_b = op_b;
  out.op_a = row_major ? op_b : op_a, out.op_b = row_major ? op_a : op_b;
  out.m = row_major ? n : m, out.n = row_major ? m : n, out.k = k;
  p.m = out.m, p.n = out.n, p.k = k;  // the bounds, in the column-major form
  out.count = group_count;
  return status::success;
}

/// Runs a checked indirect call of kind Kind (nothing when it is empty) on the table of its types and math mode Math
/// (Fused: with its fused epilogue). Defined by host/indirect_dispatcher.cuh where this translation unit defines the
/// dispatcher (header-only mode, or the compiled library's sources); elsewhere only declared, so the kernels come
/// from the library.
template <class TA, class TB, class TC, math_mode Math, indirect_kind Kind, bool Fused,
          class User = device::no_user_op>
status run_indirect_typed(const indirect_call<TA, TB, TC, User>& call, scalar_for<TA, TC> alpha,
                          scalar_for<TA, TC> beta, cudaStream_t stream, const char* what);

/// Runs a checked indirect call of kind Kind in the math mode its options ask for. Fused: the call has a fused
/// epilogue, whose kernels only such calls instantiate.
template <indirect_kind Kind, bool Fused, class TA, class TB, class TC, class User, class Options>
status run_indirect(const indirect_call<TA, TB, TC, User>& call, scalar_for<TA, TC> alpha, scalar_for<TA, TC> beta,
                    cudaStream_t stream, const Options& opts, const char* what) {
  if constexpr (std::is_same<Options, no_options>::value) {  // a user epilogue's call without options: strict only
    return run_indirect_typed<TA, TB, TC, math_mode::strict, Kind, Fused, User>(call, alpha, beta, stream, what);
  } else {
    return with_math<TA>(opts, [&](auto math) -> status {
      return run_indirect_typed<TA, TB, TC, decltype(math)::value, Kind, Fused, User>(call, alpha, beta, stream, what);
    });
  }
}

/// tgemm::gemm_batched(), with the fused epilogue `*ep` (Fused: a tgemm::epilogue or tgemm::user_epilogue) or none
/// (`ep` null).
template <bool Fused, class TA, class TB, class TC, class Epilogue = epilogue<TC>, class Options = options>
status gemm_batched_impl(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, scalar_for<TA, TC> alpha,
                         const TA* const* A, int64_t lda, const TB* const* B, int64_t ldb, scalar_for<TA, TC> beta,
                         TC* const* C, int64_t ldc, int64_t batch_count, const Epilogue* ep, cudaStream_t stream,
                         const Options& opts) {
  indirect_call<TA, TB, TC, typename user_op_of<Epilogue>::type> call;
  if (status s = check_batched(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count,
                               static_cast<const epilogue<TC>*>(ep), options_of(opts), call);
      s != status::success) {
    return s;
  }
  if (ep != nullptr) attach_user_op(*ep, order, call.terms);
  return run_indirect<indirect_kind::pointer_arrays, Fused>(call, alpha, beta, stream, opts, "tgemm::gemm_batched");
}

/// tgemm::gemm_grouped_device(), with the fused epilogue `*ep` (Fused: a tgemm::epilogue or tgemm::user_epilogue) or
/// none (`ep` null).
template <bool Fused, class TA, class TB, class TC, class Epilogue = epilogue<TC>, class Options = options>
status gemm_grouped_device_impl(layout order, op op_a, op op_b, scalar_for<TA, TC> alpha,
                                const gemm_group_device<TA, TB, TC>* groups, int64_t group_count,
                                const group_bounds& bounds, scalar_for<TA, TC> beta, const Epilogue* ep,
                                int32_t* group_status, cudaStream_t stream, const Options& opts) {
  indirect_call<TA, TB, TC, typename user_op_of<Epilogue>::type> call;
  if (status s = check_grouped_device(order, op_a, op_b, alpha, groups, group_count, bounds, beta,
                                      static_cast<const epilogue<TC>*>(ep), group_status, options_of(opts), call);
      s != status::success) {
    return s;
  }
  if (ep != nullptr) attach_user_op(*ep, order, call.terms);
  return run_indirect<indirect_kind::device_groups, Fused>(call, alpha, beta, stream, opts,
                                                         "tgemm::gemm_grouped_device");
}

TGEMM_END_DISPATCH_NAMESPACE
}  // namespace detail

TGEMM_BEGIN_DISPATCH_NAMESPACE

/// `batch_count` GEMMs whose operands are given as device arrays of device pointers, as cublasGemmBatchedEx takes
/// them: for i in [0, batch_count), C[i] = alpha op(A[i]) op(B[i]) + beta C[i], every product m x n x k with the
/// same leading dimensions. Every element type, math option and layout of tgemm::gemm().
///
/// The host checks what it can see (sizes, leading dimensions, the arrays themselves); the GPU reads the pointers,
/// so: a null pointer that a product would use skips that product (its C untouched); products whose A or B is not
/// aligned for the chosen tile's vector loads (16 bytes for the tensor-core tiles) run a direct loop, several times
/// slower; two products writing the same C race, as in cuBLAS. Products run together, one launch per 65,535, on the
/// table's medium or small tile (TGEMM_PRINT_PLAN=1 says which), with no workspace. Except for A, B and C of one
/// 16-bit type without a fused epilogue on an sm_90 GPU running the sm_90a image, with lda and ldb multiples of 8
/// elements, where a strided batch of the same products would run on the Hopper kernel: there one launch of it walks
/// every product's tiles, each product read and written through one tensor map per operand at the coordinates of its
/// pointer (host/indirect_dispatcher.cuh), still with no workspace; a product TMA cannot read (not 16-byte aligned)
/// runs a direct loop there.
///
/// \return status::success once every launch is enqueued; as tgemm::gemm() for the sizes, leading dimensions,
/// layout, ops and options; batch_count < 0 is invalid_dimension; a null array that the call reads is null_pointer;
/// batch_count == 0, m == 0 or n == 0 succeed touching nothing.
template <class TA, class TB, class TC>
status gemm_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                    ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* const* A, int64_t lda, const TB* const* B,
                    int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* const* C, int64_t ldc,
                    int64_t batch_count, cudaStream_t stream = nullptr, const options& opts = options{}) {
  return ::tgemm::detail::gemm_batched_impl<false>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                   batch_count, static_cast<const epilogue<TC>*>(nullptr), stream,
                                                   opts);
}

#if defined(TGEMM_COMPILED)
/// tgemm::gemm_batched() on float without options (strict FP32), like cublasSgemmBatched, in the compiled mode only: a
/// plain function there, as the float tgemm::gemm() is, so that it needs only the library's float family (the
/// template above, taking options, also needs the tf32 family for them). Not in the header-only mode: a plain
/// inline function's body instantiates its kernels in every translation unit that includes the header, called or
/// not; there the template serves float calls.
TGEMM_DISPATCH_API status gemm_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                                       const float* const* A, int64_t lda, const float* const* B, int64_t ldb,
                                       float beta, float* const* C, int64_t ldc, int64_t batch_count,
                                       cudaStream_t stream = nullptr);
#endif

/// tgemm::gemm_batched() with a fused epilogue (tgemm::epilogue) applied to every product: product i uses the vectors
/// advanced by i times their strides (0: one vector for every product), as a strided batch does. The result is
/// written in place of C: an epilogue with a separate D is invalid_epilogue here.
template <class TA, class TB, class TC>
status gemm_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                    ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* const* A, int64_t lda, const TB* const* B,
                    int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* const* C, int64_t ldc,
                    int64_t batch_count, const epilogue<TC>& ep, cudaStream_t stream = nullptr,
                    const options& opts = options{}) {
  return ::tgemm::detail::gemm_batched_impl<true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                  batch_count, &ep, stream, opts);
}

/// tgemm::gemm_batched() with a tgemm::user_epilogue (tgemm::with_op): the built-in epilogue as above, then the
/// caller's operation with batch = the product's index. Header-only mode only (see tgemm::user_epilogue); options
/// as for tgemm::gemm() with one (none: strict, and only its kernels compile).
template <class TA, class TB, class TC, class Op, class Options = ::tgemm::detail::no_options>
status gemm_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                    ::tgemm::detail::scalar_for<TA, TC> alpha, const TA* const* A, int64_t lda, const TB* const* B,
                    int64_t ldb, ::tgemm::detail::scalar_for<TA, TC> beta, TC* const* C, int64_t ldc,
                    int64_t batch_count, const user_epilogue<TC, Op>& ep, cudaStream_t stream = nullptr,
                    const Options& opts = Options{}) {
  using checked = typename ::tgemm::detail::user_epilogue_types<TA, TB, TC, Op>::type;
  static_assert(std::is_same<typename checked::user_op, Op>::value, "the call's types carry the operation");
  return ::tgemm::detail::gemm_batched_impl<true>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                                  batch_count, &ep, stream, opts);
}

/// `group_count` GEMMs whose sizes and pointers live in device memory (a mixture of experts, whose tokens per
/// expert only the GPU knows): for each i, groups[i] (a tgemm::gemm_group_device in device memory) describes
/// C_i = alpha op(A_i) op(B_i) + beta C_i in storage order `order`, with this call's ops, scalars and math option.
/// `bounds` (host) gives the largest m, n and k of any group: the grid covers max_m x max_n for every group, and the
/// blocks past a group's own extent return at once, so tight bounds keep the launch small.
///
/// Each group is checked on the GPU before it runs: sizes within the bounds, leading dimensions as tgemm::gemm()
/// requires them, the pointers it would use not null and aligned to their elements. A group that fails is skipped
/// (its C untouched); where `group_status` (device memory, group_count int32_t) is not null, the kernel writes each
/// group's tgemm::status there as an int (0: success). Groups with m or n of 0 are nothing to do; k of 0, or alpha
/// of 0, computes C = beta C. Runs as tgemm::gemm_batched() does (the table's medium or small tile, chosen from the
/// bounds; a direct loop for operands not aligned for its loads), no workspace; except for A, B and C of one 16-bit
/// type without a fused epilogue on an sm_90 GPU running the sm_90a image: there a first launch checks the groups and
/// makes their tensor maps on the GPU, into group_count x 512 + 128 bytes taken from tgemm's pool, and the Hopper
/// kernel's persistent blocks walk every group's tiles (host/indirect_dispatcher.cuh).
///
/// \return status::success once the launches are enqueued; group_count < 0 or a negative bound is
/// invalid_dimension, a null `groups` with group_count > 0 null_pointer; invalid_layout, invalid_op and
/// invalid_option as tgemm::gemm(); group_count == 0 or a zero bound of m or n succeed touching nothing
/// (group_status is not written then).
template <class TA, class TB, class TC>
status gemm_grouped_device(layout order, op op_a, op op_b, ::tgemm::detail::scalar_for<TA, TC> alpha,
                           const gemm_group_device<TA, TB, TC>* groups, int64_t group_count,
                           const group_bounds& bounds, ::tgemm::detail::scalar_for<TA, TC> beta,
                           int32_t* group_status = nullptr, cudaStream_t stream = nullptr,
                           const options& opts = options{}) {
  return ::tgemm::detail::gemm_grouped_device_impl<false>(order, op_a, op_b, alpha, groups, group_count, bounds,
                                                          beta, static_cast<const epilogue<TC>*>(nullptr),
                                                          group_status, stream, opts);
}

/// tgemm::gemm_grouped_device() with a fused epilogue (tgemm::epilogue) applied to every group: group i uses the
/// vectors advanced by i times their strides (0: one vector for every group; an expert's bias is stride n, say). The
/// result is written in place of C: an epilogue with a separate D is invalid_epilogue here.
template <class TA, class TB, class TC>
status gemm_grouped_device(layout order, op op_a, op op_b, ::tgemm::detail::scalar_for<TA, TC> alpha,
                           const gemm_group_device<TA, TB, TC>* groups, int64_t group_count,
                           const group_bounds& bounds, ::tgemm::detail::scalar_for<TA, TC> beta,
                           const epilogue<TC>& ep, int32_t* group_status = nullptr, cudaStream_t stream = nullptr,
                           const options& opts = options{}) {
  return ::tgemm::detail::gemm_grouped_device_impl<true>(order, op_a, op_b, alpha, groups, group_count, bounds,
                                                         beta, &ep, group_status, stream, opts);
}

/// tgemm::gemm_grouped_device() with a tgemm::user_epilogue (tgemm::with_op): the built-in epilogue as above, then the
/// caller's operation with batch = the group's index. Header-only mode only (see tgemm::user_epilogue); options as
/// for tgemm::gemm() with one (none: strict, and only its kernels compile).
template <class TA, class TB, class TC, class Op, class Options = ::tgemm::detail::no_options>
status gemm_grouped_device(layout order, op op_a, op op_b, ::tgemm::detail::scalar_for<TA, TC> alpha,
                           const gemm_group_device<TA, TB, TC>* groups, int64_t group_count,
                           const group_bounds& bounds, ::tgemm::detail::scalar_for<TA, TC> beta,
                           const user_epilogue<TC, Op>& ep, int32_t* group_status = nullptr,
                           cudaStream_t stream = nullptr, const Options& opts = Options{}) {
  using checked = typename ::tgemm::detail::user_epilogue_types<TA, TB, TC, Op>::type;
  static_assert(std::is_same<typename checked::user_op, Op>::value, "the call's types carry the operation");
  return ::tgemm::detail::gemm_grouped_device_impl<true>(order, op_a, op_b, alpha, groups, group_count, bounds, beta,
                                                         &ep, group_status, stream, opts);
}

TGEMM_END_DISPATCH_NAMESPACE
}  // namespace tgemm
