/// \file host/mdspan.cuh
/// \brief tgemm::gemm() on mdspan views: transposition and storage order come from the views' strides.
///
/// The overload takes any rank-2 view with mdspan's interface (cuda::std::mdspan, std::mdspan): extent(), stride(),
/// data_handle(), mapping().is_exhaustive(). It reads only those, so this header needs no mdspan header of its own
/// (cuda/std/mdspan costs seconds of compile time in every translation unit that includes it).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "../status.cuh"
#include "../types.cuh"
#include "gemm.cuh"

namespace tgemm {

namespace detail {

/// A rank-2 view as BLAS sees it: a pointer, a leading dimension, and which index is contiguous.
template <class T>
struct blas_view {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 1;
  bool row_major = false;  ///< true: element (i, j) at data[i * ld + j]; false: at data[i + j * ld].
};

/// The BLAS arguments of a gemm on views: what tgemm::gemm(alpha, a, b, beta, c) calls.
template <class TA, class TB, class TC>
struct blas_call {
  layout order = layout::col_major;
  op op_a = op::none;
  op op_b = op::none;
  int64_t m = 0, n = 0, k = 0;
  const TA* a = nullptr;
  int64_t lda = 1;
  const TB* b = nullptr;
  int64_t ldb = 1;
  TC* c = nullptr;
  int64_t ldc = 1;
};

/// A view's element type without const.
template <class View>
using element_of = std::remove_const_t<typename View::element_type>;

/// True for types with mdspan's interface, of rank `Rank`.
template <class View, int Rank, class = void>
struct is_view_of_rank : std::false_type {};
template <class View, int Rank>
struct is_view_of_rank<View, Rank, std::void_t<decltype(std::declval<const View&>().extent(0)),
                                               decltype(std::declval<const View&>().stride(0)),
                                               decltype(std::declval<const View&>().data_handle()),
                                               decltype(std::declval<const View&>().mapping().is_exhaustive()),
                                               typename View::element_type, typename View::layout_type>>
    : std::bool_constant<View::rank() == Rank> {};

/// True for types with mdspan's interface, of rank 2 (matrices).
template <class View>
using is_matrix_view = is_view_of_rank<View, 2>;

/// True for types with mdspan's interface, of rank 3 (a batch of matrices, the batch index first).
template <class View>
using is_batch_view = is_view_of_rank<View, 3>;

/// Reads a view's mapping. A view is column-major when stride(0) == 1 and row-major when stride(1) == 1; a
/// dimension of extent 1 has no meaningful stride, so it never disqualifies a view, and when both readings fit (a
/// vector) the unforced unit stride decides. The leading dimension of an exhaustive (tightly packed) view is its
/// contiguous extent, otherwise the other stride. Fails with unsupported_layout when neither index is contiguous.
///
/// A rank-3 view is a batch: its matrices are indexed by (1, 2), and only the strides say their leading dimension
/// (is_exhaustive() speaks of the whole batch).
template <class View>
status to_blas_view(const View& view, const char* name, blas_view<typename View::element_type>& out) {
  static_assert(View::rank() == 2 || View::rank() == 3,
                "tgemm::gemm takes rank-2 mdspan views (matrices), tgemm::gemm_strided_batched rank-3 ones");
  static_assert(std::is_same<element_of<View>, float>::value || std::is_same<element_of<View>, double>::value ||
                    std::is_same<element_of<View>, __half>::value ||
                    std::is_same<element_of<View>, __nv_bfloat16>::value,
                "tgemm::gemm multiplies float, double, __half or __nv_bfloat16 matrices: the views' element type must "
                "be one of them (const or not)");
  constexpr int first = View::rank() == 3 ? 1 : 0;  // the index of the matrices' rows
  out.data = view.data_handle();
  out.rows = int64_t(view.extent(first));
  out.cols = int64_t(view.extent(first + 1));
  const int64_t r0 = int64_t(view.stride(first)), r1 = int64_t(view.stride(first + 1));
  const int64_t s0 = out.rows > 1 ? r0 : 1, s1 = out.cols > 1 ? r1 : 1;
  const bool packed = View::rank() == 2 && view.mapping().is_exhaustive();
  bool col_major = s0 == 1, row_major = s1 == 1;
  if (col_major && row_major) col_major = !(r1 == 1 && r0 != 1), row_major = !col_major;
  if (col_major) {
    out.row_major = false;
    out.ld = packed || out.cols <= 1 ? (out.rows > 1 ? out.rows : 1) : s1;
  } else if (row_major) {
    out.row_major = true;
    out.ld = packed || out.rows <= 1 ? (out.cols > 1 ? out.cols : 1) : s0;
  } else {
    return fail(status::unsupported_layout, cudaSuccess,
                "%s has strides (%lld, %lld): one of them must be 1 for a BLAS leading dimension", name,
                (long long)s0, (long long)s1);
  }
  return status::success;
}

/// Turns three views into BLAS arguments. C's order becomes the call's order; an operand stored the other way
/// is read transposed.
template <class ViewA, class ViewB, class ViewC>
status to_blas_call(const ViewA& a, const ViewB& b, const ViewC& c,
                    blas_call<element_of<ViewA>, element_of<ViewB>, element_of<ViewC>>& out) {
  static_assert(ViewA::rank() == ViewC::rank() && ViewB::rank() == ViewC::rank(),
                "A, B and C must be views of one rank: 2 (matrices) or 3 (batches)");
  static_assert(!std::is_const<typename ViewC::element_type>::value, "C is written: its view cannot be const");
  blas_view<typename ViewA::element_type> va;
  blas_view<typename ViewB::element_type> vb;
  blas_view<typename ViewC::element_type> vc;
  if (status s = to_blas_view(a, "A", va); s != status::success) return s;
  if (status s = to_blas_view(b, "B", vb); s != status::success) return s;
  if (status s = to_blas_view(c, "C", vc); s != status::success) return s;
  if (va.rows != vc.rows) {
    return fail(status::invalid_extents, cudaSuccess, "A has %lld rows but C has %lld (both must be m)",
                (long long)va.rows, (long long)vc.rows);
  }
  if (vb.cols != vc.cols) {
    return fail(status::invalid_extents, cudaSuccess, "B has %lld columns but C has %lld (both must be n)",
                (long long)vb.cols, (long long)vc.cols);
  }
  if (va.cols != vb.rows) {
    return fail(status::invalid_extents, cudaSuccess, "A has %lld columns but B has %lld rows (both must be k)",
                (long long)va.cols, (long long)vb.rows);
  }
  out.order = vc.row_major ? layout::row_major : layout::col_major;
  out.op_a = va.row_major == vc.row_major ? op::none : op::transpose;
  out.op_b = vb.row_major == vc.row_major ? op::none : op::transpose;
  out.m = vc.rows;
  out.n = vc.cols;
  out.k = va.cols;
  out.a = va.data;
  out.lda = va.ld;
  out.b = vb.data;
  out.ldb = vb.ld;
  out.c = c.data_handle();
  out.ldc = vc.ld;
  return status::success;
}

/// The batch of three rank-3 views: C's extent(0) products; an A or B of batch extent 1 serves every product
/// (stride 0), otherwise its extent(0) must be C's.
template <class ViewA, class ViewB, class ViewC>
status to_batch_shape(const ViewA& a, const ViewB& b, const ViewC& c, batch_shape& out) {
  const int64_t count = int64_t(c.extent(0)), count_a = int64_t(a.extent(0)), count_b = int64_t(b.extent(0));
  if (count_a != count && count_a != 1) {
    return fail(status::invalid_extents, cudaSuccess,
                "A holds %lld matrices but C %lld (A's batch extent must be C's, or 1 to serve every product)",
                (long long)count_a, (long long)count);
  }
  if (count_b != count && count_b != 1) {
    return fail(status::invalid_extents, cudaSuccess,
                "B holds %lld matrices but C %lld (B's batch extent must be C's, or 1 to serve every product)",
                (long long)count_b, (long long)count);
  }
  out.count = count;
  out.stride_a = count_a == 1 ? 0 : int64_t(a.stride(0));
  out.stride_b = count_b == 1 ? 0 : int64_t(b.stride(0));
  out.stride_c = count <= 1 ? 0 : int64_t(c.stride(0));
  return status::success;
}

/// True for the epilogue arguments tgemm::gemm() takes: tgemm::epilogue<TC> and tgemm::user_epilogue<TC, Op>.
template <class Epilogue>
struct is_epilogue : std::false_type {};
/// See is_epilogue.
template <class TC>
struct is_epilogue<epilogue<TC>> : std::true_type {};
/// See is_epilogue.
template <class TC, class Op>
struct is_epilogue<user_epilogue<TC, Op>> : std::true_type {};

/// True for a tgemm::user_epilogue (an epilogue whose operation is not device::no_user_op).
template <class Epilogue>
inline constexpr bool is_user_epilogue = !std::is_same<typename user_op_of<Epilogue>::type, device::no_user_op>::value;

}  // namespace detail

/// C = alpha A B + beta C on rank-2 mdspan views of device memory (cuda::std::mdspan or std::mdspan with
/// layout_left, layout_right or layout_stride with a unit stride). A transposed operand is simply a view with the
/// other layout, e.g. a layout_right view of column-major data. Extents must agree: A is m x k, B is k x n, C is
/// m x n.
///
/// The element types are those of tgemm::gemm() on pointers: float, double, or __half / __nv_bfloat16 A and B with
/// C of the same type or float (alpha and beta are double for double views, float otherwise).
///
/// \return as tgemm::gemm(); also invalid_extents or unsupported_layout for views that do not fit.
template <class ViewA, class ViewB, class ViewC,
          class = std::enable_if_t<detail::is_matrix_view<ViewA>::value && detail::is_matrix_view<ViewB>::value &&
                                   detail::is_matrix_view<ViewC>::value>>
status gemm(detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> alpha, const ViewA& a,
            const ViewB& b, detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> beta,
            const ViewC& c, cudaStream_t stream = nullptr) {
  detail::blas_call<detail::element_of<ViewA>, detail::element_of<ViewB>, detail::element_of<ViewC>> call;
  if (status s = detail::to_blas_call(a, b, c, call); s != status::success) return s;
  return gemm(call.order, call.op_a, call.op_b, call.m, call.n, call.k, alpha, call.a, call.lda, call.b, call.ldb,
              beta, call.c, call.ldc, stream);
}

/// tgemm::gemm() on mdspan views with per-call options (e.g. math_mode::tf32 for float views).
template <class ViewA, class ViewB, class ViewC,
          class = std::enable_if_t<detail::is_matrix_view<ViewA>::value && detail::is_matrix_view<ViewB>::value &&
                                   detail::is_matrix_view<ViewC>::value>>
status gemm(detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> alpha, const ViewA& a,
            const ViewB& b, detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> beta,
            const ViewC& c, cudaStream_t stream, const options& opts) {
  detail::blas_call<detail::element_of<ViewA>, detail::element_of<ViewB>, detail::element_of<ViewC>> call;
  if (status s = detail::to_blas_call(a, b, c, call); s != status::success) return s;
  return gemm(call.order, call.op_a, call.op_b, call.m, call.n, call.k, alpha, call.a, call.lda, call.b, call.ldb,
              beta, call.c, call.ldc, stream, opts);
}

/// tgemm::gemm() on mdspan views with a fused epilogue: a tgemm::epilogue, or tgemm::with_op()'s
/// tgemm::user_epilogue (header-only mode; without `opts`, strict only, as on pointers). Rows and columns are C's as
/// the view indexes it: `row_bias` has c.extent(0) values, and a user operation's (i, j) is the view's.
template <class ViewA, class ViewB, class ViewC, class Epilogue, class Options = detail::no_options,
          class = std::enable_if_t<detail::is_matrix_view<ViewA>::value && detail::is_matrix_view<ViewB>::value &&
                                   detail::is_matrix_view<ViewC>::value && detail::is_epilogue<Epilogue>::value>>
status gemm(detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> alpha, const ViewA& a,
            const ViewB& b, detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> beta,
            const ViewC& c, const Epilogue& ep, cudaStream_t stream = nullptr, const Options& opts = Options{}) {
  detail::blas_call<detail::element_of<ViewA>, detail::element_of<ViewB>, detail::element_of<ViewC>> call;
  if (status s = detail::to_blas_call(a, b, c, call); s != status::success) return s;
  if constexpr (std::is_same<Options, detail::no_options>::value && !detail::is_user_epilogue<Epilogue>) {
    return gemm(call.order, call.op_a, call.op_b, call.m, call.n, call.k, alpha, call.a, call.lda, call.b, call.ldb,
                beta, call.c, call.ldc, ep, stream);
  } else {
    return gemm(call.order, call.op_a, call.op_b, call.m, call.n, call.k, alpha, call.a, call.lda, call.b, call.ldb,
                beta, call.c, call.ldc, ep, stream, opts);
  }
}

/// tgemm::gemm_strided_batched() on rank-3 mdspan views of device memory: C[i] = alpha A[i] B[i] + beta C[i] for
/// every i < c.extent(0), the matrices indexed by the last two extents (e.g. layout_right views of extents
/// (count, m, k), (count, k, n), (count, m, n), or layout_stride ones whose matrices have a unit stride). An A or B
/// whose extent(0) is 1 serves every product. Storage order and transposition come from each matrix's strides, as
/// for tgemm::gemm() on rank-2 views; the batch strides from stride(0).
///
/// \return as tgemm::gemm_strided_batched(); also invalid_extents or unsupported_layout for views that do not fit.
template <class ViewA, class ViewB, class ViewC,
          class = std::enable_if_t<detail::is_batch_view<ViewA>::value && detail::is_batch_view<ViewB>::value &&
                                   detail::is_batch_view<ViewC>::value>>
status gemm_strided_batched(detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> alpha,
                            const ViewA& a, const ViewB& b,
                            detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> beta,
                            const ViewC& c, cudaStream_t stream = nullptr, const options& opts = options{}) {
  detail::blas_call<detail::element_of<ViewA>, detail::element_of<ViewB>, detail::element_of<ViewC>> call;
  if (status s = detail::to_blas_call(a, b, c, call); s != status::success) return s;
  detail::batch_shape batch;
  if (status s = detail::to_batch_shape(a, b, c, batch); s != status::success) return s;
  return gemm_strided_batched(call.order, call.op_a, call.op_b, call.m, call.n, call.k, alpha, call.a, call.lda,
                              batch.stride_a, call.b, call.ldb, batch.stride_b, beta, call.c, call.ldc, batch.stride_c,
                              batch.count, stream, opts);
}

/// tgemm::gemm_strided_batched() on rank-3 mdspan views with a fused epilogue (a tgemm::epilogue, its vectors advanced
/// by their strides per product, or tgemm::with_op()'s tgemm::user_epilogue, its batch the product's index).
template <class ViewA, class ViewB, class ViewC, class Epilogue, class Options = detail::no_options,
          class = std::enable_if_t<detail::is_batch_view<ViewA>::value && detail::is_batch_view<ViewB>::value &&
                                   detail::is_batch_view<ViewC>::value && detail::is_epilogue<Epilogue>::value>>
status gemm_strided_batched(detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> alpha,
                            const ViewA& a, const ViewB& b,
                            detail::scalar_for<detail::element_of<ViewA>, detail::element_of<ViewC>> beta,
                            const ViewC& c, const Epilogue& ep, cudaStream_t stream = nullptr,
                            const Options& opts = Options{}) {
  detail::blas_call<detail::element_of<ViewA>, detail::element_of<ViewB>, detail::element_of<ViewC>> call;
  if (status s = detail::to_blas_call(a, b, c, call); s != status::success) return s;
  detail::batch_shape batch;
  if (status s = detail::to_batch_shape(a, b, c, batch); s != status::success) return s;
  if constexpr (std::is_same<Options, detail::no_options>::value && !detail::is_user_epilogue<Epilogue>) {
    return gemm_strided_batched(call.order, call.op_a, call.op_b, call.m, call.n, call.k, alpha, call.a, call.lda,
                                batch.stride_a, call.b, call.ldb, batch.stride_b, beta, call.c, call.ldc,
                                batch.stride_c, batch.count, ep, stream);
  } else {
    return gemm_strided_batched(call.order, call.op_a, call.op_b, call.m, call.n, call.k, alpha, call.a, call.lda,
                                batch.stride_a, call.b, call.ldb, batch.stride_b, beta, call.c, call.ldc,
                                batch.stride_c, batch.count, ep, stream, opts);
  }
}

}  // namespace tgemm
