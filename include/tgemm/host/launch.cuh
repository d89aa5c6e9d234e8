/// \file host/launch.cuh
/// \brief tgemm::can_implement<Policy>() and tgemm::launch<Policy>(): one fixed policy, checked then launched
/// through the same plan executor as tgemm::gemm().
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "../kernel/gemm_kernel.cuh"
#include "../status.cuh"
#include "../tuning/selector.cuh"
#include "../types.cuh"
#include "arguments.cuh"
#include "cuda_status.cuh"
#include "device_scope.cuh"
#include "execute.cuh"
#include "launcher.cuh"
#include "plan.cuh"

namespace tgemm {
namespace detail {

/// The oldest architecture (as `__CUDA_ARCH__`) a policy's kernels run on: Policy::minimum_arch, or 0.
template <class Policy, class = void>
struct minimum_arch_of : std::integral_constant<int, 0> {};
/// See minimum_arch_of.
template <class Policy>
struct minimum_arch_of<Policy, std::void_t<decltype(Policy::minimum_arch)>>
    : std::integral_constant<int, Policy::minimum_arch> {};

/// unsupported_device when `device` is older than the policy's instructions need (a tensor-core policy on a GPU
/// before sm_80), success otherwise.
template <class Policy>
status check_device_for_policy(int device) {
  if constexpr (minimum_arch_of<Policy>::value > 0) {
    int arch = 0;
    if (const cudaError_t error = read_compute_capability(device, arch); error != cudaSuccess) {
      return fail_cuda(error, device, "reading the compute capability");
    }
    if (arch < minimum_arch_of<Policy>::value) {
      return fail(status::unsupported_device, cudaSuccess, "policy %s needs sm_%d or newer; device %d is sm_%d",
                  Policy::name().c_str(), minimum_arch_of<Policy>::value / 10, device, arch / 10);
    }
  }
  return status::success;
}

/// The kernel of a caller's policy, for the executor.
template <class Policy>
struct fixed_kernel {
  using types = types_of<Policy>;
  op op_a;  ///< The call's op(A).
  op op_b;  ///< The call's op(B).

  /// The kernel of an op pair (one kernel serves both ops of an operand a run_time_layouts policy reads either way).
  template <op OpA, op OpB>
  static constexpr auto kernel = &kernel::gemm_kernel<kernel::fixed_policy<Policy>, kernel_op_a<Policy>(OpA),
                                                      kernel_op_b<Policy>(OpB), false>;

  status prepare(const plan_step&, int device) const {
    if (status s = check_device_for_policy<Policy>(device); s != status::success) return s;
    return with_ops(op_a, op_b, [&](auto a, auto b) {
      return prepare_kernel_once<kernel<decltype(a)::value, decltype(b)::value>>(
          device, Policy::shared_bytes, [] { return "the kernel of policy " + Policy::name(); });
    });
  }

  /// Fixed plans have no 3xTF32 split steps.
  status launch_split(const plan_step&, const void*, int64_t, std::byte*, cudaStream_t, int device) const {
    return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                "internal error: a tgemm::launch<Policy>() plan has a 3xTF32 split step (device %d)", device);
  }

  status launch(const plan_step& s, const gemm_launch<types>& g, cudaStream_t stream, int device) const {
    return with_ops(op_a, op_b, [&](auto a, auto b) {
      return launch_kernel(kernel<decltype(a)::value, decltype(b)::value>, g.grid, dim3(unsigned(s.threads)), s.shared_bytes, stream, device,
                           "launching a tgemm::launch<Policy>() kernel", g.problem, g.output, g.tiles, g.split,
                           g.readable, kernel::call_ops{op_a, op_b});
    });
  }
};

/// Checks a call for Policy: arguments as tgemm::gemm() does, then the policy's vector alignment and its grid.
template <class Policy>
status check_for_policy(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                        typename Policy::scalar_type alpha, const typename Policy::element_a* A, int64_t lda,
                        const typename Policy::element_b* B, int64_t ldb, typename Policy::scalar_type beta,
                        typename Policy::element_c* C, int64_t ldc, canonical_call<types_of<Policy>>& call,
                        plan& p) {
  if (status s = check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (!is_aligned(call, Policy::vector_width)) {  // the common case builds no message
    if (status s = check_alignment(call, Policy::vector_width, Policy::name().c_str()); s != status::success) return s;
  }
  return plan_fixed(call, tuning::numbers_of<Policy>(), p);
}

}  // namespace detail

/// Can launch<Policy>() run this call? Checks every argument as tgemm::gemm() does, then what the policy needs
/// (vector alignment of pointers and leading dimensions, grid size). Touches no device.
///
/// \return status::success, or the failure launch<Policy>() would return; details in last_error().
template <class Policy>
status can_implement(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                     typename Policy::scalar_type alpha, const typename Policy::element_a* A, int64_t lda,
                     const typename Policy::element_b* B, int64_t ldb, typename Policy::scalar_type beta,
                     typename Policy::element_c* C, int64_t ldc) {
  detail::canonical_call<detail::types_of<Policy>> call;
  detail::plan p;
  return detail::check_for_policy<Policy>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call, p);
}

/// C = alpha op(A) op(B) + beta C with one fixed policy, enqueued on `stream` (never synchronises).
///
/// Same arguments and semantics as tgemm::gemm() (the element types are the policy's). Arguments the policy cannot
/// handle (e.g. pointers not aligned to its vector width) return status::misaligned_operand before any device
/// work; C is untouched.
template <class Policy>
status launch(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, typename Policy::scalar_type alpha,
              const typename Policy::element_a* A, int64_t lda, const typename Policy::element_b* B, int64_t ldb,
              typename Policy::scalar_type beta, typename Policy::element_c* C, int64_t ldc,
              cudaStream_t stream = nullptr) {
  detail::canonical_call<detail::types_of<Policy>> call;
  detail::plan p;
  if (status s = detail::check_for_policy<Policy>(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call, p);
      s != status::success) {
    return s;
  }
  if (p.step_count == 0) return status::success;
  detail::device_scope scope(stream);
  if (scope.state() != status::success) return scope.state();
  return detail::execute(p, call, nullptr, stream, scope.device(), detail::fixed_kernel<Policy>{call.op_a, call.op_b});
}

}  // namespace tgemm
