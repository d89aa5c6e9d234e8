/// \file host/grouped_hopper.cuh
/// \brief The launching half of tgemm::gemm_grouped()'s runs on the Hopper kernel: the device's facts, the run
/// host/grouped_plan.cuh chooses, and one launch of the grouped kernel (kernel::gemm_tma_wgmma<..., Grouped>) for it.
/// Like host/dispatcher.cuh, included only where the dispatcher is defined: header-only mode, or the compiled
/// library's 16-bit sources (parts 2 and 3), which instantiate run_hopper_groups().
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>

#include "../config.cuh"
#include "../status.cuh"
#include "../tuning/selector.cuh"
#include "../types.cuh"
#include "capture.cuh"
#include "cuda_status.cuh"
#include "device_scope.cuh"
#include "grouped.cuh"
#include "grouped_plan.cuh"
#include "launch_tma_wgmma.cuh"
#include "plan.cuh"
#include "plan_print.cuh"
#include "workspace.cuh"

namespace tgemm::detail {
TGEMM_BEGIN_DISPATCH_NAMESPACE

/// The facts of `device` a grouped run depends on, read once per device.
inline status read_hopper_group_facts(int device, hopper_group_facts& out) {
  static std::mutex mutex;
  static hopper_group_facts cache[cached_devices];
  static std::atomic<bool> ready[cached_devices];
  const bool cached = device >= 0 && device < cached_devices;
  if (cached && ready[device].load(std::memory_order_acquire)) {
    out = cache[device];
    return status::success;
  }
  std::lock_guard<std::mutex> lock(mutex);
  relaxed_capture_scope relaxed;  // the first call of a process may be inside a stream capture
  hopper_group_facts f;
  int arch = 0;
  if (const cudaError_t error = read_compute_capability(device, arch); error != cudaSuccess) {
    return fail_cuda(error, device, "reading the compute capability");
  }
  if (arch == 900) {
    if (status s = read_wgmma_image(device, f.hopper); s != status::success) return s;
  }
  if (const cudaError_t error = cudaDeviceGetAttribute(&f.multiprocessors, cudaDevAttrMultiProcessorCount, device);
      error != cudaSuccess) {
    return fail_cuda(error, device, "reading the multiprocessor count");
  }
  if (cached) {
    cache[device] = f;
    ready[device].store(true, std::memory_order_release);
  }
  out = f;
  return status::success;
}

template <class TA, class TB, class TC>
status run_hopper_groups(layout order, const gemm_group<TA, TB, TC>* groups, int64_t count, cudaStream_t stream,
                         int64_t& taken) {
  static_assert(kernel::tma_wgmma_group_capacity == hopper_group_capacity, "one capacity for the plan and the kernel");
  taken = 0;
  using table = typename tuning::table_for<TA, TC, math_mode::strict>::type;
  using policy = typename table::wgmma;
  using kernels = wgmma_kernels<policy>;
  if (count < 2) return status::success;
  device_scope scope(stream);
  if (scope.state() != status::success) return scope.state();
  const int device = scope.device();
  hopper_group_facts facts;
  if (status s = read_hopper_group_facts(device, facts); s != status::success) return s;
  hopper_group_run<TA, TB, TC> run;
  plan_hopper_group_run(order, groups, count, facts, run);
  if (run.length == 0) return status::success;  // each group takes its own plan
  if (print_plans_requested()) {
    std::fprintf(stderr,
                 "tgemm plan: tgemm::gemm_grouped(), %d groups from here, ops %s%s: one launch of the grouped Hopper "
                 "kernel (policy %s), %lld tiles in all, persistent blocks\n",
                 run.length, op_letter(run.op_a), op_letter(run.op_b), policy::name().c_str(), (long long)run.tiles);
  }
  if (status s = kernels::prepare_grouped(run.op_a, run.op_b, device); s != status::success) return s;
  if (status s = kernels::launch_grouped(run.op_a, run.op_b, run.group, run.length,
                                         table::wgmma_persistent ? facts.multiprocessors : 0, table::wgmma_group_m,
                                         stream, device);
      s != status::success) {
    return s;
  }
  taken = run.length;
  if (plan_record& record = plan_recorder(); record.enabled) record.grouped_hopper_groups += run.length;
  return status::success;
}

/// The explicit instantiation of run_hopper_groups for A, B and C of type T: the compiled library's 16-bit parts (2:
/// __half, 3: __nv_bfloat16) define them.
#define TGEMM_RUN_HOPPER_GROUPS(T)                                                                               \
  template status run_hopper_groups<T, T, T>(layout, const gemm_group<T, T, T>*, int64_t, cudaStream_t, int64_t&);
#if defined(TGEMM_COMPILED_IMPLEMENTATION)
#if TGEMM_DEFINES_PART(2)
TGEMM_RUN_HOPPER_GROUPS(__half)
#endif
#if TGEMM_DEFINES_PART(3)
TGEMM_RUN_HOPPER_GROUPS(__nv_bfloat16)
#endif
#endif
#undef TGEMM_RUN_HOPPER_GROUPS

TGEMM_END_DISPATCH_NAMESPACE
}  // namespace tgemm::detail
