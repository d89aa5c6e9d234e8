/// \file host/grouped_plan.cuh
/// \brief Which groups of a tgemm::gemm_grouped() call run together on the grouped Hopper kernel: a pure function of
/// the groups and the device's facts (no launch, no allocation), so that host tests pin it without a GPU.
///
/// One launch per group leaves the GPU half idle at the end of every small group (a 64-row expert fills 16 of 132
/// multiprocessors); one launch over all their tiles lets the small groups' tiles run beside the large ones'. A run
/// of consecutive groups goes together when each one is 16-bit (A, B and C of one type), has no fused epilogue, reads
/// its operands (k > 0, alpha != 0), is neither thin nor past the kernel's 32-bit extents, has A and B as TMA reads
/// them (16-byte aligned, leading dimensions multiples of 16 bytes), shares the run's op pair, and touches no memory
/// another group of the run writes (so that running them at once computes what running them in array order
/// computes); and when the run has two groups or more whose tiles fill the GPU (wgmma_grouped_min_waves).
/// host/grouped_hopper.cuh launches the run.
#pragma once

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "../epilogue.cuh"
#include "../status.cuh"
#include "../tuning/selector.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "gemm.cuh"
#include "grouped.cuh"

namespace tgemm::detail {

/// How many groups one grouped launch takes (kernel::tma_wgmma_group_capacity: their descriptions are the kernel's
/// parameter).
inline constexpr int hopper_group_capacity = 16;

/// What the choice of a grouped run needs to know about a device.
struct hopper_group_facts {
  bool hopper = false;      ///< An sm_90 GPU running the sm_90a image of the Hopper kernels.
  int multiprocessors = 0;  ///< Its multiprocessors.
};

/// One product of a grouped launch, in the column-major form.
template <class A, class B, class C>
struct hopper_group_arguments {
  int64_t m = 0;         ///< Rows of C.
  int64_t n = 0;         ///< Columns of C.
  int64_t k = 0;         ///< The depth (at least 1).
  float alpha = 1.0f;    ///< Scales op(A) op(B).
  const A* a = nullptr;  ///< A as TMA reads it (16-byte aligned, lda a multiple of 16 bytes).
  int64_t lda = 0;       ///< A's leading dimension.
  const B* b = nullptr;  ///< B, likewise.
  int64_t ldb = 0;       ///< B's leading dimension.
  float beta = 0.0f;     ///< Scales C (C is not read when 0).
  C* c = nullptr;        ///< C, column-major, any alignment of its elements.
  int64_t ldc = 0;       ///< C's leading dimension.
};

/// A run of groups for one grouped launch.
template <class A, class B, class C>
struct hopper_group_run {
  hopper_group_arguments<A, B, C> group[hopper_group_capacity];  ///< The first `length`.
  int length = 0;      ///< Groups in the run (0: the first group takes its own plan).
  op op_a = op::none;  ///< The run's op(A), column-major form.
  op op_b = op::none;  ///< The run's op(B).
  int64_t tiles = 0;   ///< The run's tiles together.
};

/// The bytes [first, last) an operand occupies.
struct byte_span {
  uintptr_t first;  ///< The first byte.
  uintptr_t last;   ///< One past the last byte.
};

/// The bytes of op(X) (rows x cols, column-major form, leading dimension ld) of 16-bit elements at `base`: the
/// elements detail::span_of counts.
inline byte_span bytes_of(const void* base, op operation, int64_t rows, int64_t cols, int64_t ld) {
  const uintptr_t first = reinterpret_cast<uintptr_t>(base);
  return {first, first + uintptr_t(span_of(layout::col_major, operation, rows, cols, ld) * 2)};
}

inline bool overlap(const byte_span& x, const byte_span& y) { return x.first < y.last && y.first < x.last; }

/// The run of groups[0 .. count) that goes out in one grouped launch, from the first group on (see the file comment);
/// out.length = 0 when the first groups are better run one by one. Every group was checked before (a check that
/// fails here ends the run).
template <class TA, class TB, class TC>
void plan_hopper_group_run(layout order, const gemm_group<TA, TB, TC>* groups, int64_t count,
                           const hopper_group_facts& facts, hopper_group_run<TA, TB, TC>& out) {
  static_assert(hopper_groups_for<TA, TB, TC>, "grouped Hopper launches take 16-bit A, B and C of one type");
  using table = typename tuning::table_for<TA, TC, math_mode::strict>::type;
  using policy = typename table::wgmma;
  using types = gemm_types<TA, TB, TC, float>;
  out = hopper_group_run<TA, TB, TC>{};
  if (!facts.hopper || count < 2) return;
  byte_span reads[hopper_group_capacity][2], writes[hopper_group_capacity];
  constexpr int64_t limit = int64_t(INT_MAX) - 256;  // the kernel's coordinates are 32-bit
  const auto tma_ready = [](const void* x, int64_t ld, int bytes) {
    return reinterpret_cast<uintptr_t>(x) % 16 == 0 && (ld * bytes) % 16 == 0;
  };
  int length = 0;
  int64_t tiles = 0;
  for (; length < hopper_group_capacity && length < count; ++length) {
    const gemm_group<TA, TB, TC>& g = groups[length];
    if (g.ep != nullptr) break;
    canonical_call<types> call;  // the column-major form (a row-major group swaps A and B, m and n)
    if (check_arguments(order, g.op_a, g.op_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c, g.ldc,
                        call) != status::success ||
        call.empty || !call.reads_operands) {
      break;
    }
    const auto& p = call.problem;
    if (length == 0) {
      out.op_a = call.op_a, out.op_b = call.op_b;
    } else if (call.op_a != out.op_a || call.op_b != out.op_b) {
      break;
    }
    if (p.m <= table::narrow_extent || p.n <= table::narrow_extent || p.m > limit || p.n > limit || p.k > limit) break;
    if (!tma_ready(p.a, p.lda, 2) || !tma_ready(p.b, p.ldb, 2)) break;
    const byte_span ra = bytes_of(p.a, call.op_a, p.m, p.k, p.lda);
    const byte_span rb = bytes_of(p.b, call.op_b, p.k, p.n, p.ldb);
    const byte_span wc = bytes_of(call.update.c, op::none, p.m, p.n, call.update.ldc);
    bool independent = true;
    for (int j = 0; j < length; ++j) {
      independent = independent && !overlap(wc, reads[j][0]) && !overlap(wc, reads[j][1]) &&
                    !overlap(wc, writes[j]) && !overlap(writes[j], ra) && !overlap(writes[j], rb);
    }
    if (!independent) break;
    reads[length][0] = ra, reads[length][1] = rb, writes[length] = wc;
    hopper_group_arguments<TA, TB, TC>& to = out.group[length];
    to.m = p.m, to.n = p.n, to.k = p.k, to.alpha = call.update.alpha, to.beta = call.update.beta;
    to.a = p.a, to.lda = p.lda, to.b = p.b, to.ldb = p.ldb, to.c = call.update.c, to.ldc = call.update.ldc;
    tiles += ((p.m + policy::block_m - 1) / policy::block_m) * ((p.n + policy::block_n - 1) / policy::block_n);
  }
  if (length < 2 || tiles > int64_t(INT_MAX) ||
      double(tiles) < table::wgmma_grouped_min_waves * double(facts.multiprocessors)) {
    return;  // each group takes its own plan
  }
  out.length = length;
  out.tiles = tiles;
}

}  // namespace tgemm::detail
