/// \file policy/run_time_layouts.cuh
/// \brief run_time_layouts<Policy, A, B>: a SIMT policy whose dispatcher kernels take op(A) and/or op(B) at run time,
/// so that one kernel serves both layouts of that operand.
///
/// tgemm::gemm() compiles a kernel per op pair for each tile it may choose: four per tile, which is most of what a
/// source calling it compiles. Where an operand's loads are a small part of a tile's time (the thin tiles' narrow
/// operand, the small and scalar-load tiles), its loads can choose between their two forms (vector copies along m or
/// n, register-staged copies along k) with one uniform branch instead, and the dispatcher compiles one kernel for
/// both ops of that operand.
#pragma once

#include <string>
#include <type_traits>

#include "../types.cuh"
#include "mainloop_tags.cuh"
#include "policy_name.cuh"

namespace tgemm {

/// Policy, with the dispatcher's kernels reading A's layout (A = true) and B's (B = true) at run time. The tile,
/// its numbers and its shared memory are Policy's; device::gemm<run_time_layouts<...>, OpA, OpB>() called with
/// fixed ops compiles exactly Policy's code.
template <class Policy, bool A, bool B>
struct run_time_layouts : Policy {
  static_assert(std::is_same<typename Policy::mainloop_tag, mainloop::simt_multistage<Policy::stages>>::value,
                "run_time_layouts wraps a SIMT policy (tgemm::policy): only its loads choose a layout at run time");
  static_assert(A || B, "run_time_layouts needs at least one operand whose layout is read at run time");
  /// The policy whose numbers these are (its kernels' layouts fixed at compile time).
  using base_policy = Policy;
  /// The kernels read op(A) at run time.
  static constexpr bool a_layout_at_run_time = A;
  /// The kernels read op(B) at run time.
  static constexpr bool b_layout_at_run_time = B;
  /// Policy's name with the operands read either way, e.g. "tiled_b16x128x32_w16x64_t4x8_v4_s2_u32_f32_any_a".
  static std::string name() {
    return detail::policy_name("%s%s", Policy::name().c_str(), A && B ? "_any_ab" : A ? "_any_a" : "_any_b");
  }
};

namespace detail {

/// Which operands' layouts Policy's dispatcher kernels read at run time (none, unless Policy is a run_time_layouts).
template <class Policy, class = void>
struct run_time_layouts_of {
  static constexpr bool a = false;  ///< op(A) at run time.
  static constexpr bool b = false;  ///< op(B) at run time.
};

/// See run_time_layouts_of.
template <class Policy>
struct run_time_layouts_of<Policy, std::void_t<decltype(Policy::a_layout_at_run_time)>> {
  static constexpr bool a = Policy::a_layout_at_run_time;  ///< op(A) at run time.
  static constexpr bool b = Policy::b_layout_at_run_time;  ///< op(B) at run time.
};

/// The op a dispatcher kernel of Policy is instantiated with for a call's op(A): op::at_run_time where the policy
/// reads A's layout at run time, the call's op otherwise.
template <class Policy>
constexpr op kernel_op_a(op call) {
  return run_time_layouts_of<Policy>::a ? op::at_run_time : call;
}

/// See kernel_op_a (for op(B)).
template <class Policy>
constexpr op kernel_op_b(op call) {
  return run_time_layouts_of<Policy>::b ? op::at_run_time : call;
}

}  // namespace detail
}  // namespace tgemm
