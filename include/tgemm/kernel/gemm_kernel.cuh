/// \file kernel/gemm_kernel.cuh
/// \brief The one GEMM `__global__` body behind tgemm::launch<Policy>() and tgemm::gemm(): grid-to-tile mapping
/// and split-K around device::gemm.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../device/gemm.cuh"
#include "../policy/run_time_layouts.cuh"
#include "../tuning/selector.cuh"
#include "tile_scheduler.cuh"

/// The `__global__` kernels the host calls launch: thin wrappers that map blocks to tiles around device::gemm().
namespace tgemm::kernel {

/// A kernel's policy when the caller fixed it (tgemm::launch<Policy>()): the same in every architecture's code.
template <class Policy>
struct fixed_policy {
  /// The policy the device pass for `Arch` compiles.
  template <int Arch>
  using at = Policy;
};

TGEMM_BEGIN_DISPATCH_NAMESPACE
/// A kernel's policy when tgemm::gemm() chose a slot of a tuning table: each architecture's device code uses that
/// architecture's entry (CUB-style: one symbol, per-architecture code). The host launches it with the grid of the
/// same entry, chosen from the PTX version the device runs. (In the dispatch namespace, so that header-only and
/// compiled builds of the same kernels are different symbols.)
template <class Table, tuning::slot Slot>
struct tuned_policy {
  /// The policy the device pass for `Arch` compiles.
  template <int Arch>
  using at = tuning::slot_policy_t<tuning::select_t<Table, Arch>, Slot>;
};
TGEMM_END_DISPATCH_NAMESPACE

/// The policy a source gives the host pass: its element types are those of every architecture's policy.
template <class Source>
using host_policy = typename Source::template at<0>;

/// The blocks per multiprocessor a policy's kernel is compiled for (`__launch_bounds__`' second argument, which caps
/// its registers at what that many blocks leave each thread): Policy::min_blocks_per_sm where the policy names one,
/// else 0, which emits no minimum at all (a minimum of 1 is not the same: it changed the SIMT kernels' SASS).
template <class Policy, class = void>
struct min_blocks_per_sm : std::integral_constant<int, 0> {};
/// See min_blocks_per_sm.
template <class Policy>
struct min_blocks_per_sm<Policy, std::void_t<decltype(Policy::min_blocks_per_sm)>>
    : std::integral_constant<int, Policy::min_blocks_per_sm> {};

/// Dynamic shared memory, declared once so every kernel agrees on its type.
__device__ __forceinline__ void* dynamic_shared_memory() {
  extern __shared__ float4 tgemm_dynamic_shared[];
  return tgemm_dynamic_shared;
}

/// The output argument of gemm_kernel: the BLAS update, or with Fused the update with epilogue terms (and User, a
/// caller's operation applied last).
template <class Source, bool Fused, class User = device::no_user_op>
using kernel_output_t = std::conditional_t<
    Fused,
    device::basic_fused_combination<typename host_policy<Source>::element_c,
                                    typename host_policy<Source>::scalar_type, User>,
    device::linear_combination_of<host_policy<Source>>>;

/// The GEMM kernel: one block per tile of C (grid from tile_grid; gridDim.z = split-K slices, or the products of a
/// strided batch: plans never split a batch run in one grid). Source says which
/// policy the architecture being compiled uses; Padded kernels let their loads read up to `readable` (repacked,
/// zero-padded operands), the others up to m and n. (A padded kernel is a separate instantiation on purpose: when
/// the plain kernel took its loads' extent from a runtime value, ptxas scheduled the main loop differently and its
/// 4096^3 kernel measured 2.69 ms on an H200 against 2.64.) Fused kernels (tgemm::gemm() with a tgemm::epilogue)
/// fold the epilogue's terms into their stores; a separate instantiation too, so the plain kernels stay as they
/// were. OpA or OpB may be op::at_run_time (a run_time_layouts policy): `ops` then says which it is.
template <class Source, op OpA, op OpB, bool Padded, bool Fused = false, class User = device::no_user_op>
__global__ void __launch_bounds__(Source::template at<TGEMM_DEVICE_ARCH>::threads,
                                   min_blocks_per_sm<typename Source::template at<TGEMM_DEVICE_ARCH>>::value)
    gemm_kernel(const device::problem_of<host_policy<Source>> p, const kernel_output_t<Source, Fused, User> e,
                const tile_grid grid, const split_k<typename host_policy<Source>::element_c> split,
                const readable_extent readable, const call_ops ops) {
  using policy = typename Source::template at<TGEMM_DEVICE_ARCH>;
  static_assert(std::is_same<device::problem_of<policy>, device::problem_of<host_policy<Source>>>::value &&
                    std::is_same<device::linear_combination_of<policy>,
                                 device::linear_combination_of<host_policy<Source>>>::value,
                "every architecture's policy of a slot must have the same element types");
  static_assert(detail::run_time_layouts_of<policy>::a == detail::run_time_layouts_of<host_policy<Source>>::a &&
                    detail::run_time_layouts_of<policy>::b == detail::run_time_layouts_of<host_policy<Source>>::b,
                "every architecture's policy of a slot must read the same operands' layouts at run time");
  constexpr bool any_op_at_run_time = OpA == op::at_run_time || OpB == op::at_run_time;
  const op op_a = OpA == op::at_run_time ? ops.a : OpA;
  const op op_b = OpB == op::at_run_time ? ops.b : OpB;
  int64_t tile_row, tile_col;
  if (!tile_of_block<policy::raster_group>(grid, tile_row, tile_col)) return;
  auto& smem = *static_cast<device::shared_storage<policy>*>(dynamic_shared_memory());
  device::problem_of<policy> operands = p;
  kernel_output_t<Source, Fused, User> output = e;
  if (split.slices > 1) {
    // This block's k range: the same problem with A and B advanced to its first k; the product goes to this
    // slice's partials, unscaled, and the reduction applies alpha and beta (and a fused epilogue's terms).
    const int64_t k_begin = int64_t(blockIdx.z) * split.k_per_slice;
    operands.k = p.k - k_begin < split.k_per_slice ? p.k - k_begin : split.k_per_slice;
    operands.a = op_a == op::none ? p.a + k_begin * p.lda : p.a + k_begin;
    operands.b = op_b == op::none ? p.b + k_begin : p.b + k_begin * p.ldb;
    using scalar = typename policy::scalar_type;
    const device::linear_combination_of<policy> partial{
        scalar(1), scalar(0), split.partials + int64_t(blockIdx.z) * split.ld_partials * p.n, split.ld_partials};
    if constexpr (Fused) {
      static_cast<device::linear_combination_of<policy>&>(output) = partial;
      output.product = -1;  // no terms: the reduction applies them
    } else {
      output = partial;
    }
  } else if (blockIdx.z > 0) {
    // A product of a strided batch (plans never split a batch run in one grid): its A, B and C.
    operands.a = p.a + int64_t(blockIdx.z) * grid.stride_a;
    operands.b = p.b + int64_t(blockIdx.z) * grid.stride_b;
    output.c = e.c + int64_t(blockIdx.z) * grid.stride_c;
    if constexpr (Fused) output.product = blockIdx.z;
  }
  if constexpr (any_op_at_run_time) {
    static_assert(!Padded, "padded kernels take their ops at compile time");
    device::detail::problem_with_ops<device::problem_of<policy>> with_ops;
    static_cast<device::problem_of<policy>&>(with_ops) = operands;
    with_ops.op_a = op_a, with_ops.op_b = op_b;
    device::detail::gemm_tile<policy, OpA, OpB>(with_ops, operands.m, operands.n, tile_row, tile_col, smem, output);
  } else if constexpr (Padded) {
    device::detail::gemm_tile<policy, OpA, OpB>(operands, readable.m, readable.n, tile_row, tile_col, smem, output);
  } else {
    device::gemm<policy, OpA, OpB>(operands, tile_row, tile_col, smem, output);
  }
}

}  // namespace tgemm::kernel
