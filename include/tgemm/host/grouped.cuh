/// \file host/grouped.cuh
/// \brief tgemm::gemm_grouped(): many GEMMs of different sizes in one call, each described by a tgemm::gemm_group
/// in host memory (cublasGemmGroupedBatchedEx's problem, one product per group); and its workspace-size query.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../epilogue.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "device_scope.cuh"
#include "gemm.cuh"
#include "workspace.cuh"

namespace tgemm {

/// One product of a grouped GEMM (tgemm::gemm_grouped()): C = alpha op(A) op(B) + beta C with its own ops, sizes,
/// scalars, device pointers and leading dimensions, as tgemm::gemm() takes them, and optionally a fused epilogue.
/// Epilogue: tgemm::epilogue<TC>, or a tgemm::user_epilogue<TC, Op> (one operation type for the whole array; each
/// group may point to its own object of it, capturing its own values; the operation's batch index is 0).
template <class TA, class TB = TA, class TC = TA, class Epilogue = epilogue<TC>>
struct gemm_group {
  /// The type of alpha and beta: double for double, float otherwise.
  using scalar_type = detail::scalar_for<TA, TC>;
  op op_a = op::none;                ///< op(A).
  op op_b = op::none;                ///< op(B).
  int64_t m = 0;                     ///< Rows of op(A) and C.
  int64_t n = 0;                     ///< Columns of op(B) and C.
  int64_t k = 0;                     ///< Columns of op(A), rows of op(B).
  scalar_type alpha = scalar_type(1);  ///< Scales op(A) op(B).
  const TA* a = nullptr;             ///< A, on the stream's device.
  int64_t lda = 0;                   ///< A's leading dimension.
  const TB* b = nullptr;             ///< B, on the stream's device.
  int64_t ldb = 0;                   ///< B's leading dimension.
  scalar_type beta = scalar_type(0);   ///< Scales C (C is not read when 0).
  TC* c = nullptr;                   ///< C, on the stream's device.
  int64_t ldc = 0;                   ///< C's leading dimension.
  const Epilogue* ep = nullptr;      ///< A fused epilogue for this product (null: none), as tgemm::gemm() takes one.
};

namespace detail {
TGEMM_BEGIN_DISPATCH_NAMESPACE
/// Whether grouped calls of these types may run on the grouped Hopper kernel (tgemm::gemm_grouped()'s runs,
/// host/grouped_hopper.cuh; tgemm::gemm_grouped_device(), host/indirect_dispatcher.cuh): 16-bit A, B and C of one
/// type.
template <class TA, class TB, class TC>
inline constexpr bool hopper_groups_for =
    std::is_same<TA, TB>::value && std::is_same<TA, TC>::value &&
    (std::is_same<TA, __half>::value || std::is_same<TA, __nv_bfloat16>::value);

/// Runs groups[0 ..) from the first on in one launch of the grouped Hopper kernel where they suit it (defined in
/// host/grouped_hopper.cuh, which says when): `taken` is how many it enqueued, 0 when the first groups are better
/// run one by one (or the device is not a Hopper GPU running the sm_90a image). Every group was checked before.
template <class TA, class TB, class TC>
status run_hopper_groups(layout order, const gemm_group<TA, TB, TC>* groups, int64_t count, cudaStream_t stream,
                         int64_t& taken);

/// One group through tgemm::gemm() (with its epilogue, if any): planning only, when size_only is set. Options:
/// tgemm::options, or no_options for an array of user-epilogue groups called without (strict only).
template <class TA, class TB, class TC, class Epilogue, class Options>
status gemm_one_group(layout order, const gemm_group<TA, TB, TC, Epilogue>& g, cudaStream_t stream, const workspace* ws,
                      size_t* size_only, const Options& opts) {
  using types = typename checked_gemm_types<TA, TB, TC>::type;
  using user = typename user_op_of<Epilogue>::type;
  if constexpr (!std::is_same<user, device::no_user_op>::value) {
    using user_types = typename user_epilogue_types<TA, TB, TC, user>::type;  // asserts the header-only mode
    if (g.ep != nullptr) {
      return gemm_user_call<user_types>(order, g.op_a, g.op_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta,
                                        g.c, g.ldc, single_product{}, stream, ws, size_only, opts, g.ep);
    }
    if constexpr (std::is_same<Options, no_options>::value) {  // a group without epilogue, strict as its neighbours
      return gemm_for_mode<types, math_mode::strict, false>(order, g.op_a, g.op_b, g.m, g.n, g.k, g.alpha, g.a, g.lda,
                                                             g.b, g.ldb, g.beta, g.c, g.ldc, single_product{}, stream, ws,
                                                             size_only, static_cast<const epilogue<TC>*>(nullptr));
    } else {
      return gemm_with_options<types>(order, g.op_a, g.op_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta,
                                      g.c, g.ldc, single_product{}, stream, ws, size_only, opts);
    }
  } else {
    if (g.ep != nullptr) {
      return gemm_with_options<types, true>(order, g.op_a, g.op_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb,
                                            g.beta, g.c, g.ldc, single_product{}, stream, ws, size_only, opts, g.ep);
    }
    return gemm_with_options<types>(order, g.op_a, g.op_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta,
                                    g.c, g.ldc, single_product{}, stream, ws, size_only, opts);
  }
}

/// tgemm::gemm_grouped() and its size query: every group planned (so every argument checked) before the first
/// launch, one workspace for all of them (the largest any group needs: the groups run one after another on the
/// stream, so each reuses it), then the groups launched in order. A group's failure is reported as
/// "groups[i]: " and tgemm::gemm()'s message, with its status.
template <class TA, class TB, class TC, class Epilogue, class Options>
status gemm_grouped_impl(layout order, const gemm_group<TA, TB, TC, Epilogue>* groups, int64_t group_count,
                         cudaStream_t stream, const workspace* given, size_t* size_only, const Options& opts) {
  if (group_count < 0) {
    return fail(status::invalid_dimension, cudaSuccess, "group_count = %lld is negative", (long long)group_count);
  }
  if (group_count > 0 && groups == nullptr) {
    return fail(status::null_pointer, cudaSuccess, "groups is null with group_count = %lld", (long long)group_count);
  }
  const auto failed = [](int64_t index, status s) {
    const error_info e = last_error();  // a copy: fail() overwrites the slot
    return fail(s, e.cuda, "groups[%lld]: %s", (long long)index, e.message.c_str());
  };
  size_t bytes = 0;
  for (int64_t i = 0; i < group_count; ++i) {
    size_t need = 0;
    if (status s = gemm_one_group(order, groups[i], stream, nullptr, &need, opts); s != status::success) {
      return failed(i, s);
    }
    bytes = std::max(bytes, need);
  }
  if (size_only != nullptr) {
    *size_only = bytes;
    return status::success;
  }
  if (group_count == 0) return status::success;
  call_workspace scratch;
  workspace shared{};
  if (given != nullptr) {
    if (status s = scratch.use(*given, bytes); s != status::success) return s;
    shared = *given;
  } else if (bytes > 0) {
    device_scope scope(stream);
    if (scope.state() != status::success) return scope.state();
    if (status s = scratch.allocate(bytes, scope.device(), stream); s != status::success) return s;
    shared = workspace{scratch.data(), bytes};
  }
  for (int64_t i = 0; i < group_count;) {
    // (Arrays of groups with a user operation type run group by group: the grouped Hopper kernel has no epilogue.)
    if constexpr (hopper_groups_for<TA, TB, TC> && std::is_same<Epilogue, epilogue<TC>>::value) {
      int64_t taken = 0;
      if (status s = run_hopper_groups(order, groups + i, group_count - i, stream, taken); s != status::success) {
        return failed(i, s);
      }
      if (taken > 0) {
        i += taken;
        continue;
      }
    }
    if (status s = gemm_one_group(order, groups[i], stream, &shared, nullptr, opts); s != status::success) {
      return failed(i, s);
    }
    ++i;
  }
  return status::success;
}
TGEMM_END_DISPATCH_NAMESPACE
}  // namespace detail

TGEMM_BEGIN_DISPATCH_NAMESPACE
/// `group_count` GEMMs of any sizes in one call: for each i, groups[i] (host memory) describes C_i = alpha_i
/// op(A_i) op(B_i) + beta_i C_i, with a fused epilogue where groups[i].ep is set; every element type and option of
/// tgemm::gemm(), with its semantics per group (m, n or k of 0, beta = 0 not reading C, alpha = 0). The problem of
/// cublasGemmGroupedBatchedEx with one product per group, given as an array of structs (as CUTLASS's grouped GEMM
/// takes its problem sizes).
///
/// Every group is checked and planned before anything is launched: a bad argument anywhere returns its status with
/// last_error() naming the group ("groups[2]: lda = 3 is smaller than ..."), and no C is touched. One workspace
/// (the largest any group needs; gemm_grouped_workspace_size() says how much) is allocated once, from tgemm's pool
/// or the caller's, and the groups then run in array order on `stream`, each with tgemm::gemm()'s plan for its
/// shape (TGEMM_PRINT_PLAN=1 prints each, once when it is checked and once when it runs), so a group may read a C
/// an earlier group wrote. On a Hopper GPU running the sm_90a image, consecutive 16-bit groups (A, B and C of one
/// type) that suit its kernel and touch no memory another of them writes run together in one launch instead
/// (host/grouped_hopper.cuh): the result is the same as in array order. A failure while launching group i (a kernel
/// that cannot be loaded, for one) leaves groups before i enqueued.
///
/// \return status::success once every group is enqueued; group_count < 0 is invalid_dimension, a null `groups`
/// with group_count > 0 null_pointer; group_count == 0 succeeds touching nothing.
template <class TA, class TB, class TC>
status gemm_grouped(layout order, const gemm_group<TA, TB, TC>* groups, int64_t group_count,
                    cudaStream_t stream = nullptr, const options& opts = options{}) {
  return detail::gemm_grouped_impl(order, groups, group_count, stream, nullptr, nullptr, opts);
}

/// tgemm::gemm_grouped() with the caller's workspace: at least gemm_grouped_workspace_size() bytes, aligned to 256.
template <class TA, class TB, class TC>
status gemm_grouped(layout order, const gemm_group<TA, TB, TC>* groups, int64_t group_count, cudaStream_t stream,
                    workspace ws, const options& opts = options{}) {
  return detail::gemm_grouped_impl(order, groups, group_count, stream, &ws, nullptr, opts);
}

/// The workspace bytes tgemm::gemm_grouped() needs for these groups (the largest any of them needs). Checks and
/// plans every group, as the call does, and launches nothing.
template <class TA, class TB, class TC>
status gemm_grouped_workspace_size(layout order, const gemm_group<TA, TB, TC>* groups, int64_t group_count,
                                   size_t& bytes, cudaStream_t stream = nullptr, const options& opts = options{}) {
  bytes = 0;
  return detail::gemm_grouped_impl(order, groups, group_count, stream, nullptr, &bytes, opts);
}

/// tgemm::gemm_grouped() for groups whose epilogues carry the caller's operation (tgemm::user_epilogue<TC, Op>: each
/// group's `ep` its own object of that type, or null). The operation's batch index is 0 (each group is one GEMM); the
/// groups run one by one (the grouped Hopper kernel has no epilogue). Header-only mode only (see
/// tgemm::user_epilogue); options as for tgemm::gemm() with one (none: strict, and only its kernels compile).
/// Separate overloads, so that a call naming <TA, TB, TC> with a null `groups` still finds the ones above.
template <class TA, class TB, class TC, class Op, class Options = detail::no_options>
status gemm_grouped(layout order, const gemm_group<TA, TB, TC, user_epilogue<TC, Op>>* groups, int64_t group_count,
                    cudaStream_t stream = nullptr, const Options& opts = Options{}) {
  return detail::gemm_grouped_impl(order, groups, group_count, stream, nullptr, nullptr, opts);
}

/// tgemm::gemm_grouped() with user operations and the caller's workspace.
template <class TA, class TB, class TC, class Op, class Options = detail::no_options>
status gemm_grouped(layout order, const gemm_group<TA, TB, TC, user_epilogue<TC, Op>>* groups, int64_t group_count,
                    cudaStream_t stream, workspace ws, const Options& opts = Options{}) {
  return detail::gemm_grouped_impl(order, groups, group_count, stream, &ws, nullptr, opts);
}

/// The workspace bytes tgemm::gemm_grouped() with user operations needs.
template <class TA, class TB, class TC, class Op, class Options = detail::no_options>
status gemm_grouped_workspace_size(layout order, const gemm_group<TA, TB, TC, user_epilogue<TC, Op>>* groups,
                                   int64_t group_count, size_t& bytes, cudaStream_t stream = nullptr,
                                   const Options& opts = Options{}) {
  bytes = 0;
  return detail::gemm_grouped_impl(order, groups, group_count, stream, nullptr, &bytes, opts);
}
TGEMM_END_DISPATCH_NAMESPACE

}  // namespace tgemm
