/// \file host/launch.cuh
/// \brief tgemm::can_implement<Policy>() and tgemm::launch<Policy>(): one fixed policy, checked then launched.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../arch.cuh"
#include "../kernel/gemm_kernel.cuh"
#include "../policy.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "arguments.cuh"

namespace tgemm {
namespace detail {

/// Static (default) shared memory a block may use without opting in.
inline constexpr int default_shared_limit = 48 * 1024;

/// Per kernel: the devices on which its attributes were checked and set (one bit per device).
template <auto Kernel>
struct kernel_readiness {
  inline static std::atomic<uint64_t> devices{0};
};

/// Checks that the build has an image of Kernel for this device and raises its dynamic shared-memory limit
/// when the policy needs more than 48 KiB. Done once per kernel and device.
template <auto Kernel>
status prepare_kernel(int device, int shared_bytes, std::string (*policy_name)()) {
  const uint64_t bit = device >= 0 && device < 64 ? uint64_t(1) << device : 0;
  if (bit != 0 && (kernel_readiness<Kernel>::devices.load(std::memory_order_acquire) & bit) != 0) {
    return status::success;
  }
  cudaFuncAttributes attributes{};
  cudaError_t error = cudaFuncGetAttributes(&attributes, Kernel);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    if (means_no_image(error)) return fail_not_compiled(device, error);
    return fail(status::cuda_error, error, "reading the attributes of the %s kernel failed with %s (%s)",
                policy_name().c_str(), cudaGetErrorName(error), cudaGetErrorString(error));
  }
  if (shared_bytes > default_shared_limit) {
    error = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      int limit = 0;
      (void)cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
      return fail(status::cuda_error, error,
                  "policy %s needs %d bytes of shared memory per block, device %d allows %d (%s)", policy_name().c_str(),
                  shared_bytes, device, limit, cudaGetErrorName(error));
    }
  }
  if (bit != 0) kernel_readiness<Kernel>::devices.fetch_or(bit, std::memory_order_release);
  return status::success;
}

/// A grid of at least `blocks` blocks: x up to 2^31 - 1, y for the rest; kernels skip the spare blocks.
inline bool grid_for(int64_t blocks, dim3& grid) {
  constexpr int64_t max_x = 2147483647, max_y = 65535;
  const int64_t x = blocks < max_x ? (blocks > 0 ? blocks : 1) : max_x;
  const int64_t y = (blocks + x - 1) / x;
  if (y > max_y) return false;
  grid = dim3(unsigned(x), unsigned(y > 0 ? y : 1), 1);
  return true;
}

inline status fail_too_many_tiles(int64_t tiles_m, int64_t tiles_n) {
  if (tiles_n > INT64_MAX / tiles_m) {
    return fail(status::invalid_dimension, cudaSuccess,
                "the problem needs %lld x %lld thread blocks, more than one grid can hold", (long long)tiles_m,
                (long long)tiles_n);
  }
  return fail(status::invalid_dimension, cudaSuccess,
              "the problem needs %lld thread blocks, more than one grid can hold", (long long)(tiles_m * tiles_n));
}

/// Launches and reports the launch's own error (cudaLaunchKernelEx returns it; no cudaGetLastError guessing).
template <class... Parameters, class... Arguments>
status launch_kernel(void (*kernel)(Parameters...), dim3 grid, dim3 block, int shared_bytes, cudaStream_t stream,
                     int device, Arguments... arguments) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = size_t(shared_bytes);
  config.stream = stream;
  const cudaError_t error = cudaLaunchKernelEx(&config, kernel, arguments...);
  if (error == cudaSuccess) return status::success;
  (void)cudaGetLastError();
  if (means_no_image(error)) return fail_not_compiled(device, error);
  return fail(status::cuda_error, error, "launching a tgemm kernel failed with %s (%s)", cudaGetErrorName(error),
              cudaGetErrorString(error));
}

/// C = beta * C (k == 0 or alpha == 0: A and B are not read). beta == 1 leaves C as it is: nothing to launch.
inline status launch_scale(const canonical_call& call, int device, cudaStream_t stream) {
  const device::linear_combination& e = call.update;
  if (e.beta == 1.0f) return status::success;
  constexpr int threads = 256;
  const int64_t row_blocks = (call.problem.m + threads - 1) / threads;
  const dim3 grid(unsigned(row_blocks < 1024 ? row_blocks : 1024),
                  unsigned(call.problem.n < 65535 ? call.problem.n : 65535), 1);
  return launch_kernel(kernel::scale_c<0>, grid, dim3(threads), 0, stream, device, e.c, e.ldc, call.problem.m,
                       call.problem.n, e.beta);
}

/// Calls f(std::integral_constant<op, A>, std::integral_constant<op, B>) for runtime operations: one
/// instantiation per combination, so kernels know their addressing at compile time.
template <class F>
decltype(auto) with_ops(op op_a, op op_b, F&& f) {
  using none = std::integral_constant<op, op::none>;
  using transpose = std::integral_constant<op, op::transpose>;
  if (op_a == op::none) return op_b == op::none ? f(none{}, none{}) : f(none{}, transpose{});
  return op_b == op::none ? f(transpose{}, none{}) : f(transpose{}, transpose{});
}

/// Launches a tiled kernel (Kernel) whose device code uses Policy; `split` cuts k into gridDim.z slices whose
/// partial products the caller reduces (see kernel::split_k). `extra` follows split among the kernel's arguments.
template <class Policy, auto Kernel, class... Extra>
status launch_tiled(const canonical_call& call, int device, cudaStream_t stream, const kernel::split_k& split = {},
                    const Extra&... extra) {
  const int64_t tiles_m = (call.problem.m + Policy::block_m - 1) / Policy::block_m;
  const int64_t tiles_n = (call.problem.n + Policy::block_n - 1) / Policy::block_n;
  dim3 grid;
  if (tiles_n > INT64_MAX / tiles_m || !grid_for(tiles_m * tiles_n, grid)) return fail_too_many_tiles(tiles_m, tiles_n);
  grid.z = unsigned(split.slices);
  if (status s = prepare_kernel<Kernel>(device, Policy::shared_bytes, &Policy::name); s != status::success) return s;
  return launch_kernel(Kernel, grid, dim3(Policy::threads), Policy::shared_bytes, stream, device, call.problem,
                       call.update, kernel::tile_grid{tiles_m, tiles_n}, split, extra...);
}

/// Launches the naive kernel: a 16 x 16 block per 16 x 16 tile of C.
template <op OpA, op OpB>
status launch_naive(const canonical_call& call, int device, cudaStream_t stream) {
  const int64_t blocks_m = (call.problem.m + naive_policy::block_m - 1) / naive_policy::block_m;
  const int64_t blocks_n = (call.problem.n + naive_policy::block_n - 1) / naive_policy::block_n;
  if (blocks_m > 2147483647 || blocks_n > 65535) return fail_too_many_tiles(blocks_m, blocks_n);
  return launch_kernel(kernel::naive_gemm<OpA, OpB>, dim3(unsigned(blocks_m), unsigned(blocks_n)),
                       dim3(naive_policy::block_m, naive_policy::block_n), 0, stream, device, call.problem,
                       call.update);
}

/// Fails with misaligned_operand when the call does not meet Policy's vector alignment.
template <class Policy>
status check_policy_alignment(const canonical_call& call) {
  if (is_aligned(call, Policy::vector_width)) return status::success;  // the common case builds no message
  return check_alignment(call, Policy::vector_width, Policy::name().c_str());
}

/// Does the grid of Policy for this problem fit in a launch? (Checked before any device work.)
template <class Policy>
status check_grid(const canonical_call& call) {
  if (call.empty || !call.reads_operands) return status::success;
  const int64_t tiles_m = (call.problem.m + Policy::block_m - 1) / Policy::block_m;
  const int64_t tiles_n = (call.problem.n + Policy::block_n - 1) / Policy::block_n;
  if constexpr (Policy::kind == algorithm::naive) {
    if (tiles_m > 2147483647 || tiles_n > 65535) return fail_too_many_tiles(tiles_m, tiles_n);
  } else {
    dim3 grid;
    if (tiles_n > INT64_MAX / tiles_m || !grid_for(tiles_m * tiles_n, grid)) return fail_too_many_tiles(tiles_m, tiles_n);
  }
  return status::success;
}

}  // namespace detail

/// Can launch<Policy>() run this call? Checks every argument as tgemm::gemm() does, then what the policy needs
/// (vector alignment of pointers and leading dimensions, grid size). Touches no device.
///
/// \return status::success, or the failure launch<Policy>() would return; details in last_error().
template <class Policy>
status can_implement(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                     int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  detail::canonical_call call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (status s = detail::check_policy_alignment<Policy>(call); s != status::success) return s;
  return detail::check_grid<Policy>(call);
}

/// C = alpha op(A) op(B) + beta C with one fixed policy, enqueued on `stream` (never synchronises).
///
/// Same arguments and semantics as tgemm::gemm(). Arguments the policy cannot handle (e.g. pointers not aligned
/// to its vector width) return status::misaligned_operand before any device work; C is untouched.
template <class Policy>
status launch(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A,
              int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
              cudaStream_t stream = nullptr) {
  detail::canonical_call call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (status s = detail::check_policy_alignment<Policy>(call); s != status::success) return s;
  if (status s = detail::check_grid<Policy>(call); s != status::success) return s;
  if (call.empty) return status::success;
  int device = 0;
  if (status s = detail::current_device(device); s != status::success) return s;
  if (!call.reads_operands) return detail::launch_scale(call, device, stream);
  return detail::with_ops(call.op_a, call.op_b, [&](auto a, auto b) {
    constexpr op op_a_value = decltype(a)::value;
    constexpr op op_b_value = decltype(b)::value;
    if constexpr (Policy::kind == algorithm::naive) {
      return detail::launch_naive<op_a_value, op_b_value>(call, device, stream);
    } else {
      return detail::launch_tiled<Policy, kernel::tiled_gemm<Policy, op_a_value, op_b_value>>(call, device, stream);
    }
  });
}

}  // namespace tgemm
