/// \file device/gemm.cuh
/// \brief tgemm::device::gemm<Policy>(): one thread block's tile of C, callable from any kernel.
#pragma once

#include <cstdint>

#include "../policy/policy.cuh"
#include "../policy/tensorop_policy.cuh"
#include "../types.cuh"
#include "mainloop/block_mainloop.cuh"
#include "mainloop/naive.cuh"
#include "mainloop/simt_multistage.cuh"
#include "mainloop/tensorop_multistage.cuh"
#include "problem.cuh"

namespace tgemm::device {

namespace detail {

/// device::gemm() with the extents its loads may read (see block_mainloop): the kernels behind tgemm::gemm()
/// pass the padded extents of repacked operands here (and a problem_with_ops for an op of op::at_run_time).
template <class Policy, op OpA, op OpB, class Problem, class Epilogue>
__device__ __forceinline__ void gemm_tile(const Problem& p, int64_t readable_m, int64_t readable_n,
                                          int64_t tile_row, int64_t tile_col, shared_storage<Policy>& smem,
                                          const Epilogue& epilogue) {
  mainloop_of<Policy>::template run<OpA, OpB>(p, readable_m, readable_n, tile_row, tile_col, smem, epilogue);
}

}  // namespace detail

/// Computes one block_m x block_n tile of C = op(A) op(B), handing the result to `epilogue`.
///
/// Call it from a `__global__` kernel launched with `Policy::threads` threads in a one-dimensional block; every
/// thread of the block must call it (it contains barriers). Tiles may overhang the matrix: out-of-range rows and
/// columns read as zero and are never written.
///
/// Nothing is checked here. A and B (and C for linear_combination) must be aligned to `Policy::vector_width`
/// elements, with leading dimensions that are multiples of it; tgemm::can_implement<Policy>() checks a call on
/// the host.
///
/// \tparam Policy    a tgemm policy (its mainloop_tag says which mainloop runs).
/// \tparam OpA, OpB  whether A and B are read transposed (see device::problem for the addressing).
/// \param p          the operands, column-major.
/// \param tile_row   which block tile along m (rows tile_row * block_m ...).
/// \param tile_col   which block tile along n.
/// \param smem       the block's shared storage (one per block, e.g. `__shared__ shared_storage<Policy> s;`).
/// \param epilogue   device::linear_combination (any basic_linear_combination) for the BLAS update, or any
///                   functor called as `epilogue(int64_t row, int64_t col, accumulator_type value)` once per
///                   in-range element.
template <class Policy, op OpA = op::none, op OpB = op::none, class Epilogue>
__device__ void gemm(const problem_of<Policy>& p, int64_t tile_row, int64_t tile_col, shared_storage<Policy>& smem,
                     const Epilogue& epilogue) {
  static_assert((OpA == op::none || OpA == op::transpose) && (OpB == op::none || OpB == op::transpose),
                "device::gemm: OpA and OpB must be op::none or op::transpose");
  detail::gemm_tile<Policy, OpA, OpB>(p, p.m, p.n, tile_row, tile_col, smem, epilogue);
}

}  // namespace tgemm::device
