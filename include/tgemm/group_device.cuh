/// \file group_device.cuh
/// \brief What a caller of tgemm::gemm_grouped_device() provides: each group's description, written in device memory
/// (by the caller's own kernels, a mixture of experts' router say), and the bounds of every group's sizes, on the host.
#pragma once

#include <cstdint>

namespace tgemm {

/// One group of tgemm::gemm_grouped_device(), in device memory (written there by the caller's kernels, a mixture of
/// experts' router say): C = alpha op(A) op(B) + beta C in the call's storage order, with the call's ops and
/// scalars, sizes up to the call's bounds (tgemm::group_bounds).
template <class TA, class TB = TA, class TC = TA>
struct gemm_group_device {
  int64_t m = 0;          ///< Rows of op(A) and C (at most bounds.max_m).
  int64_t n = 0;          ///< Columns of op(B) and C (at most bounds.max_n).
  int64_t k = 0;          ///< Columns of op(A), rows of op(B) (at most bounds.max_k).
  const TA* a = nullptr;  ///< A.
  int64_t lda = 0;        ///< A's leading dimension.
  const TB* b = nullptr;  ///< B.
  int64_t ldb = 0;        ///< B's leading dimension.
  TC* c = nullptr;        ///< C.
  int64_t ldc = 0;        ///< C's leading dimension.
};

/// The largest sizes any group of a tgemm::gemm_grouped_device() call has: the host sizes the grid (and chooses
/// the tile) from them; a group that exceeds one is skipped with status::invalid_dimension.
struct group_bounds {
  int64_t max_m = 0;  ///< The most rows of op(A) and C of any group.
  int64_t max_n = 0;  ///< The most columns of op(B) and C.
  int64_t max_k = 0;  ///< The deepest k.
};

}  // namespace tgemm
