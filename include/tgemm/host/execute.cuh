/// \file host/execute.cuh
/// \brief Running a plan: every kernel made ready first, then the steps launched in order on the stream.
///
/// The executor serves tgemm::gemm() and tgemm::launch<Policy>() alike; what differs is where the gemm steps'
/// kernels come from (the `Kernels` argument: the dispatcher's table of tuned kernels, or the caller's policy).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../kernel/pack_operand.cuh"
#include "../kernel/reduce_split_k.cuh"
#include "../kernel/scale_c.cuh"
#include "../kernel/tile_scheduler.cuh"
#include "../status.cuh"
#include "arguments.cuh"
#include "launcher.cuh"
#include "plan.cuh"

namespace tgemm::detail {

/// The arguments of one gemm step's kernel, resolved against the call and the workspace.
template <class Types>
struct gemm_launch {
  device::basic_problem<typename Types::element_a, typename Types::element_b> problem;  ///< The step's operands.
  device::basic_linear_combination<typename Types::element_c, typename Types::scalar_type> output;  ///< Its output.
  kernel::tile_grid tiles;                                 ///< Its block tiles.
  kernel::split_k<typename Types::element_c> split;        ///< Its split of k.
  kernel::readable_extent readable;                        ///< What a padded kernel may read.
  dim3 grid;                                               ///< Its grid.
  std::byte* workspace_out = nullptr;  ///< Where a step that writes to the workspace writes (any partials' type).
  bool fused = false;  ///< A fused call's step writing C: its kernel applies `terms`.
  /// The fused epilogue's terms for this step's block of C (empty for steps writing to the workspace).
  typename Types::terms_type terms;
};

/// A step's arguments without the caller's epilogue operation: for the kernels that write unscaled partial products
/// into the workspace (their terms are empty), which calls with and without one share. The arguments themselves
/// where the call has no operation.
template <class Types>
decltype(auto) without_user_op_launch(const gemm_launch<Types>& g) {
  if constexpr (std::is_same<Types, without_user_op<Types>>::value) {
    return (g);
  } else {
    gemm_launch<without_user_op<Types>> plain;
    plain.problem = g.problem, plain.output = g.output, plain.tiles = g.tiles, plain.split = g.split;
    plain.readable = g.readable, plain.grid = g.grid, plain.workspace_out = g.workspace_out, plain.fused = g.fused;
    static_cast<device::epilogue_terms<typename Types::element_c, typename Types::scalar_type>&>(plain.terms) =
        g.terms;
    return plain;
  }
}

/// The helper kernels of a plan (pack, reduce, scale) for one set of element types.
template <class Types>
struct helper_kernels {
  using A = typename Types::element_a;
  using B = typename Types::element_b;
  using C = typename Types::element_c;
  using S = typename Types::scalar_type;
  static constexpr auto pack_a_along_k = &kernel::pack_operand<A, true>;
  static constexpr auto pack_a_along_mn = &kernel::pack_operand<A, false>;
  static constexpr auto pack_b_along_k = &kernel::pack_operand<B, true>;
  static constexpr auto pack_b_along_mn = &kernel::pack_operand<B, false>;
  static constexpr auto realign_a = &kernel::realign_operand<A, 16 / int(sizeof(A))>;
  static constexpr auto realign_b = &kernel::realign_operand<B, 16 / int(sizeof(B))>;
  using U = typename Types::user_op;
  static constexpr auto reduce = &kernel::reduce_split_k<C, C, S>;
  static constexpr auto reduce_fused = &kernel::reduce_split_k_fused<C, C, S, U>;
  /// The sum of float partials (the sm_90a kernel's split-K) into C; float and 16-bit C only.
  static constexpr bool has_float_partials = !std::is_same<C, double>::value;
  template <bool Fused>
  static constexpr auto reduce_float_partials() {
    if constexpr (!has_float_partials) {
      return nullptr;
    } else if constexpr (Fused) {
      return &kernel::reduce_split_k_fused<float, C, S, U>;
    } else {
      return &kernel::reduce_split_k<float, C, S>;
    }
  }
  static constexpr auto scale = &kernel::scale_c<C, S, U>;

  /// Makes the helper kernel of a step ready on the device (`fused`: the call's flag, the one launch_steps picks by).
  static status prepare(const plan_step& s, bool fused, int device) {
    switch (s.kind) {
      case step_kind::pack_a:
        if (s.keep_layout) return prepare_kernel_once<realign_a>(device, 0, "the operand-realigning kernel");
        return s.contiguous_k || s.to_k_major  // a K-major copy is pack_operand along k, roles swapped
                   ? prepare_kernel_once<pack_a_along_k>(device, 0, "the operand-packing kernel")
                   : prepare_kernel_once<pack_a_along_mn>(device, 0, "the operand-packing kernel");
      case step_kind::pack_b:
        if (s.keep_layout) return prepare_kernel_once<realign_b>(device, 0, "the operand-realigning kernel");
        return s.contiguous_k || s.to_k_major  // a K-major copy is pack_operand along k, roles swapped
                   ? prepare_kernel_once<pack_b_along_k>(device, 0, "the operand-packing kernel")
                   : prepare_kernel_once<pack_b_along_mn>(device, 0, "the operand-packing kernel");
      case step_kind::reduce:
        if (s.float_partials) {
          if constexpr (has_float_partials) {
            return fused ? prepare_kernel_once<reduce_float_partials<true>()>(device, 0, "the split-K reduction kernel")
                         : prepare_kernel_once<reduce_float_partials<false>()>(device, 0, "the split-K reduction kernel");
          }
          return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                      "internal error: a plan reduces float partials into a double C (device %d)", device);
        }
        return fused ? prepare_kernel_once<reduce_fused>(device, 0, "the split-K reduction kernel")
                     : prepare_kernel_once<reduce>(device, 0, "the split-K reduction kernel");
      case step_kind::scale: return prepare_kernel_once<scale>(device, 0, "the C = beta C kernel");
      case step_kind::gemm: break;
    }
    return status::success;
  }
};

/// The call for products [first, first + count) of a strided batch: its operands advanced to product `first`.
template <class Types>
canonical_call<Types> batch_part(const canonical_call<Types>& call, int64_t first, int64_t count) {
  canonical_call<Types> part = call;
  part.problem.a += first * call.batch.stride_a;
  part.problem.b += first * call.batch.stride_b;
  part.update.c += first * call.batch.stride_c;
  part.terms = call.terms.product(first);
  part.batch.count = count;
  return part;
}

/// Launches the steps of `p` once for `call`: for call.batch.count products together when the plan runs its batch
/// in one grid (at most max_grid_y of them), else for one product.
template <class Types, class Kernels>
status launch_steps(const plan& p, const canonical_call<Types>& call, std::byte* workspace, cudaStream_t stream,
                    int device, const Kernels& kernels) {
  using A = typename Types::element_a;
  using B = typename Types::element_b;
  using C = typename Types::element_c;
  using helpers = helper_kernels<Types>;
  const unsigned products = p.batch_in_grid ? unsigned(call.batch.count) : 1u;
  const A* a = p.a.packed ? reinterpret_cast<const A*>(workspace + p.a.offset) : call.problem.a;
  const B* b = p.b.packed ? reinterpret_cast<const B*>(workspace + p.b.offset) : call.problem.b;
  for (int i = 0; i < p.step_count; ++i) {
    const plan_step& s = p.steps[i];
    status launched = status::success;
    switch (s.kind) {
      case step_kind::pack_a:
      case step_kind::pack_b: {
        const bool is_a = s.kind == step_kind::pack_a;
        const dim3 grid(unsigned(s.grid_x), unsigned(s.grid_y)), block(kernel::pack_tile, kernel::pack_rows);
        if (s.split_tf32) {  // the Hopper kernel's own copy: its kernels know it
          launched = is_a ? kernels.launch_split(s, call.problem.a, call.problem.lda, workspace + s.offset, stream,
                                                 device)
                          : kernels.launch_split(s, call.problem.b, call.problem.ldb, workspace + s.offset, stream,
                                                 device);
        } else if (s.keep_layout) {
          const dim3 threads(kernel::realign_threads);
          launched = is_a ? launch_kernel(helpers::realign_a, grid, threads, 0, stream, device,
                                          "launching the operand-realigning kernel", call.problem.a, call.problem.lda,
                                          s.extent_mn, s.extent_k, reinterpret_cast<A*>(workspace + s.offset),
                                          s.ld_packed)
                          : launch_kernel(helpers::realign_b, grid, threads, 0, stream, device,
                                          "launching the operand-realigning kernel", call.problem.b, call.problem.ldb,
                                          s.extent_mn, s.extent_k, reinterpret_cast<B*>(workspace + s.offset),
                                          s.ld_packed);
        } else {
          // pack_operand along k or along mn; a K-major copy is pack_operand along k with k and mn swapped.
          const bool along_k = s.contiguous_k || s.to_k_major;
          const int64_t mn = s.to_k_major ? s.extent_k : s.extent_mn, k = s.to_k_major ? s.extent_mn : s.extent_k;
          launched = is_a ? launch_kernel(along_k ? helpers::pack_a_along_k : helpers::pack_a_along_mn, grid, block, 0,
                                          stream, device, "launching the operand-packing kernel", call.problem.a,
                                          call.problem.lda, mn, k, reinterpret_cast<A*>(workspace + s.offset),
                                          s.ld_packed)
                          : launch_kernel(along_k ? helpers::pack_b_along_k : helpers::pack_b_along_mn, grid, block, 0,
                                          stream, device, "launching the operand-packing kernel", call.problem.b,
                                          call.problem.ldb, mn, k, reinterpret_cast<B*>(workspace + s.offset),
                                          s.ld_packed);
        }
        break;
      }
      case step_kind::gemm: {
        gemm_launch<Types> g;
        const int64_t lda = p.a.ld, ldb = p.b.ld;
        g.problem = {s.rows, s.cols, call.problem.k, a + (p.op_a == op::none ? s.row : s.row * lda), lda,
                     b + (p.op_b == op::none ? s.col * ldb : s.col), ldb};
        C* const out = s.to_workspace ? reinterpret_cast<C*>(workspace + s.offset) : nullptr;
        g.workspace_out = s.to_workspace ? workspace + s.offset : nullptr;
        if (s.to_workspace && !s.gemv_cluster) {  // a clustered GEMV writes its partials to the workspace and C
          g.output = {1, 0, out, s.ld_out};
        } else {
          g.output = {call.update.alpha, call.update.beta, call.update.c + s.row + s.col * call.update.ldc,
                      call.update.ldc};
          g.fused = call.fused;
          if (call.fused) g.terms = call.terms.at(s.row, s.col);
        }
        g.tiles = {s.tiles_m, s.tiles_n};
        if (products > 1) {
          g.tiles.stride_a = call.batch.stride_a, g.tiles.stride_b = call.batch.stride_b;
          g.tiles.stride_c = call.batch.stride_c;
        }
        if (s.slices > 1) g.split = {s.slices, s.k_per_slice, out, s.ld_out};
        g.readable = {s.readable_m, s.readable_n};
        g.grid = kernel::grid_for(s.tiles_m * s.tiles_n);
        g.grid.z = unsigned(s.slices) * products;  // one of them is 1: plans never split a batch run in one grid
        launched = kernels.launch(s, g, stream, device);
        break;
      }
      case step_kind::reduce: {
        // The partials are C's type, or float for the sm_90a kernel's split-K (never for a double C: prepare refused).
        const auto reduce_into_c = [&](const auto* partials, auto plain, auto fused) {
          C* const block = call.update.c + s.row + s.col * call.update.ldc;
          const dim3 grid(unsigned(s.grid_x)), block_threads(kernel::reduce_threads);
          if (call.fused) {
            return launch_kernel(fused, grid, block_threads, 0, stream, device, "launching the split-K reduction kernel",
                                 partials, s.ld_out, s.slice_stride, int(s.slices), s.rows, s.cols, call.update.alpha,
                                 call.update.beta, block, call.update.ldc, call.terms.at(s.row, s.col));
          }
          return launch_kernel(plain, grid, block_threads, 0, stream, device, "launching the split-K reduction kernel",
                               partials, s.ld_out, s.slice_stride, int(s.slices), s.rows, s.cols, call.update.alpha,
                               call.update.beta, block, call.update.ldc);
        };
        if constexpr (helpers::has_float_partials) {
          if (s.float_partials) {
            launched = reduce_into_c(reinterpret_cast<const float*>(workspace + s.offset),
                                     helpers::template reduce_float_partials<false>(),
                                     helpers::template reduce_float_partials<true>());
            break;
          }
        }
        launched = reduce_into_c(reinterpret_cast<const C*>(workspace + s.offset), helpers::reduce, helpers::reduce_fused);
        break;
      }
      case step_kind::scale:
        launched = launch_kernel(helpers::scale, dim3(unsigned(s.grid_x), unsigned(s.grid_y), products),
                                 dim3(kernel::scale_threads), 0, stream, device, "launching the C = beta C kernel",
                                 call.update.c, call.update.ldc, s.rows, s.cols, call.update.beta,
                                 call.batch.stride_c, call.fused, call.terms);
        break;
    }
    if (launched != status::success) return launched;
  }
  return status::success;
}

/// Runs `p` for `call` on `stream` (of `device`), with `workspace` holding at least p.workspace_bytes. Every
/// kernel is made ready before the first launch, so a kernel the build lacks, or one that cannot be loaded,
/// fails the call before anything is enqueued. Kernels::prepare(step, device) and Kernels::launch(step,
/// gemm_launch, stream, device) provide the gemm steps' kernels; Kernels::launch_split(step, source, ld, to, stream,
/// device) the 3xTF32 split steps' (prepared by Kernels::prepare too). A strided batch runs in grids of at most
/// max_grid_y products, or (plans that say so) product by product, the workspace reused in stream order.
template <class Types, class Kernels>
status execute(const plan& p, const canonical_call<Types>& call, std::byte* workspace, cudaStream_t stream, int device,
               const Kernels& kernels) {
  using helpers = helper_kernels<Types>;
  for (int i = 0; i < p.step_count; ++i) {
    const plan_step& s = p.steps[i];
    const bool own_kernel = s.kind == step_kind::gemm || s.split_tf32;  // the Kernels' kernel, else a helper
    const status ready = own_kernel ? kernels.prepare(s, device) : helpers::prepare(s, call.fused, device);
    if (ready != status::success) return ready;
  }
  const int64_t count = call.batch.count;
  if (count <= 1) return launch_steps(p, call, workspace, stream, device, kernels);
  const int64_t per_launch = p.batch_in_grid ? kernel::max_grid_y : 1;
  for (int64_t first = 0; first < count; first += per_launch) {
    const int64_t products = std::min(per_launch, count - first);
    if (status s = launch_steps(p, batch_part(call, first, products), workspace, stream, device, kernels);
        s != status::success) {
      return s;
    }
  }
  return status::success;
}

}  // namespace tgemm::detail
