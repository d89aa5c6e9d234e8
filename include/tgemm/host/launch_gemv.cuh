/// \file host/launch_gemv.cuh
/// \brief A plan's GEMV step on the kernels of kernel/gemv.cuh: which operand is the matrix and which the vectors,
/// their strides, C's (or the partial sums'), and the kernel for the row count.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "../kernel/gemv.cuh"
#include "../status.cuh"
#include "execute.cuh"
#include "launcher.cuh"
#include "plan.cuh"

namespace tgemm::detail {

/// The GEMV kernels for one set of element types, along k and along n.
template <class Types>
struct gemv_kernels {
  using element = typename Types::element_a;
  using output = typename Types::element_c;
  using accumulator = typename Types::scalar_type;  ///< float, or double for double
  using params = kernel::gemv_params<element, output, accumulator, typename Types::user_op>;

  /// The kernel of a step: along k or along n, for one vector (the plans send no more; see
  /// simt_f32_thresholds::gemv); Clustered: the one along n whose slices meet in C inside its launch.
  template <bool AlongK, bool Clustered = false>
  static constexpr auto kernel_for() {
    // The tuning's defaults spelled out, for the User argument after them.
    using user = typename Types::user_op;
    if constexpr (AlongK) {
      return &kernel::gemv_along_k<element, output, accumulator, 1, tuning::gemv_warp_columns,
                                   tuning::gemv_along_k_unroll, true, user>;
    } else {
      return &kernel::gemv_along_n<element, output, accumulator, 1, tuning::gemv_along_n_unroll, true,
                                   tuning::gemv_along_n_staged, user, Clustered>;
    }
  }

  /// Whether this build has the clustered kernel (compiled only while tuning::gemv_cluster_slices allows the plans to
  /// choose it, so that callers do not pay for an unused kernel).
  static constexpr bool has_clustered = tuning::gemv_cluster_slices > 0;
  static_assert(tuning::gemv_cluster_slices <= kernel::gemv_max_cluster_slices,
                "tuning::gemv_cluster_slices is more than the 16 blocks of the largest cluster");
  static_assert(tuning::gemv_wide_cluster_slices <= kernel::gemv_max_cluster_slices,
                "tuning::gemv_wide_cluster_slices is more than the 16 blocks of the largest cluster");

  /// A plan step for the clustered kernel in a build without it: the planner makes none.
  static status no_clustered_kernel(int device) {
    return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                "internal error: a plan asks for the clustered GEMV kernel, which tuning::gemv_cluster_slices leaves "
                "out of this build (device %d)",
                device);
  }

  /// Makes the step's kernel ready on the device (the clustered one may form clusters of up to 16 blocks).
  static status prepare(const plan_step& s, int device) {
    if (s.gemv_cluster) {
      if constexpr (has_clustered) {
        constexpr auto clustered = kernel_for<false, true>();
        if (status st = prepare_kernel_once<clustered>(device, 0, "the clustered GEMV kernel"); st != status::success) {
          return st;
        }
        if (s.slices > kernel::portable_cluster_blocks) {  // clusters of 9 to 16 blocks are non-portable
          relaxed_capture_scope relaxed;  // no stream work: allowed inside a capture
          const cudaError_t e = cudaFuncSetAttribute(clustered, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
          if (e != cudaSuccess) return fail_cuda(e, device, "allowing the clustered GEMV kernel 16 blocks");
        }
        return status::success;
      } else {
        return no_clustered_kernel(device);
      }
    }
    return s.gemv_along_k ? prepare_kernel_once<kernel_for<true>()>(device, 0, "the GEMV kernel")
                          : prepare_kernel_once<kernel_for<false>()>(device, 0, "the GEMV kernel");
  }

  /// Launches the step (the plan's operations op_a, op_b; g as execute() resolved it).
  static status launch(const plan_step& s, const gemm_launch<Types>& g, op op_a, op op_b, cudaStream_t stream,
                       int device) {
    if ((s.gemv_few_rows ? s.rows : s.cols) != 1) {
      return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                  "internal error: a plan sends %lld vectors to the GEMV kernel for one (device %d)",
                  (long long)(s.gemv_few_rows ? s.rows : s.cols), device);
    }
    params p{};
    const auto& problem = g.problem;
    p.k = problem.k;
    if (s.gemv_few_rows) {  // out(r, j) = C(r, j): the vectors are op(A)'s rows, the matrix op(B)
      p.matrix = problem.b, p.ld = problem.ldb;
      p.x = problem.a;
      p.x_row = op_a == op::none ? 1 : problem.lda;
      p.x_k = op_a == op::none ? problem.lda : 1;
      p.rows = problem.m, p.cols = problem.n;
      p.batch_matrix = g.tiles.stride_b, p.batch_x = g.tiles.stride_a;
    } else {  // out(r, j) = C(j, r): the vectors are op(B)'s columns, the matrix op(A)^T
      p.matrix = problem.a, p.ld = problem.lda;
      p.x = problem.b;
      p.x_row = op_b == op::none ? problem.ldb : 1;
      p.x_k = op_b == op::none ? 1 : problem.ldb;
      p.rows = problem.n, p.cols = problem.m;
      p.batch_matrix = g.tiles.stride_a, p.batch_x = g.tiles.stride_b;
    }
    p.batch_out = g.tiles.stride_c;
    // The vectors load 16 bytes at a time where they are contiguous along k and every product's start on 16 bytes.
    constexpr int vector = kernel::gemv_vector<element>;
    p.x_vector = p.x_k == 1 && reinterpret_cast<uintptr_t>(p.x) % 16 == 0 && p.x_row % vector == 0 &&
                 p.batch_x % vector == 0;
    // C, or the slice's partial sums (partial (i, j) at i + j ld_out, like C's; clustered: compact, and C's strides).
    const int64_t ld = s.slices > 1 && !s.gemv_cluster ? s.ld_out : g.output.ldc;
    p.out_row = s.gemv_few_rows ? 1 : ld;
    p.out_col = s.gemv_few_rows ? ld : 1;
    if (s.gemv_cluster) {
      if constexpr (has_clustered) {
        p.partials = reinterpret_cast<accumulator*>(g.workspace_out);
        p.slice_stride = s.slice_stride;
        p.k_per_slice = s.k_per_slice;
        p.out = g.output.c;
        p.alpha = g.output.alpha, p.beta = g.output.beta;
        p.fused = g.fused, p.terms = g.terms, p.out_rows_are_r = s.gemv_few_rows;
        return launch_kernel_in_clusters(kernel_for<false, true>(), g.grid, dim3(kernel::gemv_threads), 0,
                                         dim3(1, 1, unsigned(s.slices)), stream, device,
                                         "launching the clustered GEMV kernel", p);
      } else {
        return no_clustered_kernel(device);
      }
    }
    if (s.slices > 1) {
      p.partials = reinterpret_cast<accumulator*>(g.workspace_out);
      p.slice_stride = s.slice_stride;
      p.k_per_slice = s.k_per_slice;
      p.out = nullptr;
    } else {
      p.out = g.output.c;
      p.alpha = g.output.alpha, p.beta = g.output.beta;
      p.fused = g.fused, p.terms = g.terms, p.out_rows_are_r = s.gemv_few_rows;
    }
    const auto launch_one = [&](auto kernel_function) {
      return launch_kernel(kernel_function, g.grid, dim3(kernel::gemv_threads), 0, stream, device,
                           "launching the GEMV kernel", p);
    };
    return s.gemv_along_k ? launch_one(kernel_for<true>()) : launch_one(kernel_for<false>());
  }
};

}  // namespace tgemm::detail
