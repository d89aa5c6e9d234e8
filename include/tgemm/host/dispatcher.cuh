/// \file host/dispatcher.cuh
/// \brief The definitions behind tgemm::gemm(): the table of tuned kernels, the device facts they need, and the
/// plan-then-execute path. Included where the dispatcher is defined (see config.cuh): in header-only mode by every
/// translation unit, in compiled mode by the one source that instantiates the kernels.
#pragma once

// The dispatcher instantiates the 16-bit types' kernels, which need the complete types (numeric.cuh only declares
// them); a header-only user therefore gets both headers with <tgemm/gemm.cuh>, a compiled-mode caller neither.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <type_traits>

#include "../arch/probe.cuh"
#include "../config.cuh"
#include "../kernel/gemm_kernel.cuh"
#include "../tuning/selector.cuh"
#include "arguments.cuh"
#include "check_epilogue.cuh"
#include "cuda_status.cuh"
#include "device_facts.cuh"
#include "device_scope.cuh"
#include "execute.cuh"
#include "gemm.cuh"
#include "launch_gemv.cuh"
#include "launch_tma_wgmma.cuh"
#include "launcher.cuh"
#include "plan.cuh"
#include "plan_print.cuh"
#include "tuning_hook.cuh"
#include "workspace.cuh"

namespace tgemm::detail {
TGEMM_BEGIN_DISPATCH_NAMESPACE

/// Calls f(a, b) for the four op pairs, each op as a std::integral_constant.
template <class F>
void for_each_op_pair(F&& f) {
  using none = std::integral_constant<op, op::none>;
  using transpose = std::integral_constant<op, op::transpose>;
  f(none{}, none{});
  f(none{}, transpose{});
  f(transpose{}, none{});
  f(transpose{}, transpose{});
}

template <class Table>
struct split_k_kernels;

/// The gemm kernels of one tuning table, by (slot, op pair, padded loads): what tgemm::gemm() launches. Every
/// kernel the planner may choose is instantiated here, and only those (general reads op(A) along m, general_tn
/// and general_tt along k; only general's NT kernel has a padded variant). Fused: the kernels of calls with a
/// tgemm::epilogue, which fold its terms into their stores (a second set, instantiated only where such a call is
/// compiled); User: with a caller's operation too (tgemm::user_epilogue: a set per operation type, compiled where the
/// call is).
template <class Table, bool Fused = false, class User = device::no_user_op, bool Batches = true>
struct tuned_kernels {
  /// A kernel's policy source.
  template <tuning::slot Slot>
  using source = kernel::tuned_policy<Table, Slot>;
  /// The GEMM's element types (with the caller's operation type).
  using types = with_user_op<types_of<kernel::host_policy<source<tuning::slot::general>>>, User>;
  /// The common type of the table's kernels.
  using kernel_type = void (*)(const device::basic_problem<typename types::element_a, typename types::element_b>,
                               const kernel::kernel_output_t<source<tuning::slot::general>, Fused, User>,
                               const kernel::tile_grid, const kernel::split_k<typename types::element_c>,
                               const kernel::readable_extent, const kernel::call_ops);

  /// Whether the table builds a padded twin of its general NT kernel (tables whose mainloop reads its extents at run
  /// time anyway, the tensor-core ones, say no: their plain kernel serves padded steps too, reading less).
  static constexpr bool padded_kernels = tuning::padded_kernels_of<Table>::value;

  /// Whether a padded step with this op pair runs the padded twin: NT only, the layout of repacked operands (the
  /// layout pack copies both into it). An NN step whose A alone was repacked (misaligned, mid-sized, B read in place
  /// along k) runs the plain kernel, which reads to m: its twin served 6 of 1,600 plans of a sweep of H200 float
  /// shapes (docs/dispatch.md), and cost every header-only caller a kernel.
  static constexpr bool has_padded_twin(op op_a, op op_b) {
    return padded_kernels && op_a == op::none && op_b == op::transpose;
  }

  /// True for the (slot, op pair, padded) combinations the planner can choose: the products tile only for calls that
  /// may run a batch (Batches; single_product calls never plan it).
  template <tuning::slot Slot, op OpA, op OpB, bool Padded>
  static constexpr bool chosen() {
    if (Padded && (Slot != tuning::slot::general || !has_padded_twin(OpA, OpB))) return false;
    if (Slot == tuning::slot::products) return Batches;
    if (Slot == tuning::slot::general) return OpA == op::none;
    if (Slot == tuning::slot::general_tn) return OpA == op::transpose && OpB == op::none;
    if (Slot == tuning::slot::general_tt) return OpA == op::transpose && OpB == op::transpose;
    return true;
  }

  /// The slot whose kernel runs a step of slot `s` (slots naming the same policy on every architecture share
  /// one kernel: kernel_slot).
  static tuning::slot kernel_slot(tuning::slot s) {
    tuning::slot found = s;
    tuning::for_each_slot([&](auto slot) {
      if (decltype(slot)::value == s) found = tuning::kernel_slot<Table, decltype(slot)::value>();
    });
    return found;
  }

  /// True for the kernels the table compiles: (slot, op pair, padded) for a slot that owns its kernel, when it or
  /// a slot sharing its kernel can be chosen with that op pair.
  template <tuning::slot Slot, op OpA, op OpB, bool Padded>
  static constexpr bool exists() {
    if constexpr (tuning::kernel_slot<Table, Slot>() != Slot) {
      return false;
    } else {
      bool any = false;
      tuning::for_each_slot([&](auto other) {
        constexpr tuning::slot o = decltype(other)::value;
        if constexpr (tuning::kernel_slot<Table, o>() == Slot) any = any || chosen<o, OpA, OpB, Padded>();
      });
      return any;
    }
  }

  /// How many kernels slot S owns with padded loads or without (Padded): one per op pair it can be chosen with, but
  /// one for both ops of an operand its policy reads at run time (run_time_layouts).
  template <tuning::slot S, bool Padded>
  static constexpr int kernels_of_slot() {
    using policy = kernel::host_policy<source<S>>;
    constexpr bool a_either = run_time_layouts_of<policy>::a, b_either = run_time_layouts_of<policy>::b;
    constexpr bool pairs[2][2] = {
        {exists<S, op::none, op::none, Padded>(), exists<S, op::none, op::transpose, Padded>()},
        {exists<S, op::transpose, op::none, Padded>(), exists<S, op::transpose, op::transpose, Padded>()}};
    bool seen[2][2] = {};  // the kernels' op pairs (either op of a run-time operand is its first)
    int count = 0;
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        bool& kernel = seen[a_either ? 0 : a][b_either ? 0 : b];
        if (pairs[a][b] && !kernel) kernel = true, ++count;
      }
    }
    return count;
  }

  /// How many gemm kernels the table compiles (what a source calling this dispatcher builds, besides the helpers).
  static constexpr int kernel_count() {
    int count = 0;
    tuning::for_each_slot([&](auto slot) {
      constexpr tuning::slot s = decltype(slot)::value;
      count += kernels_of_slot<s, false>() + kernels_of_slot<s, true>();
    });
    return count;
  }

  /// Calls f(kernel, slot, op_a, op_b, padded) for every kernel of the table and op pair it serves (a kernel of a
  /// run_time_layouts policy serves two or four pairs: the same kernel is passed for each).
  template <class F>
  static void for_each(F&& f) {
    tuning::for_each_slot([&](auto slot) {
      constexpr tuning::slot s = decltype(slot)::value;
      for_each_op_pair([&](auto a, auto b) {
        constexpr op op_a = decltype(a)::value, op_b = decltype(b)::value;
        if constexpr (exists<s, op_a, op_b, false>()) {
          using policy = kernel::host_policy<source<s>>;
          f(kernel_type(&kernel::gemm_kernel<source<s>, kernel_op_a<policy>(op_a), kernel_op_b<policy>(op_b), false,
                                             Fused, User>),
            s, op_a, op_b, false);
        }
        if constexpr (exists<s, op_a, op_b, true>()) {
          f(kernel_type(&kernel::gemm_kernel<source<s>, op_a, op_b, true, Fused, User>), s, op_a, op_b, true);
        }
      });
    });
  }

  /// A kernel of the table and one (slot, op pair, padded loads) it serves.
  struct kernel_entry {
    kernel_type kernel = nullptr;      ///< The kernel.
    tuning::slot slot{};               ///< The slot that owns it.
    op op_a = op::none;                ///< A call's op(A) it serves.
    op op_b = op::none;                ///< A call's op(B) it serves.
    bool padded = false;               ///< Its loads read the padded extents.
  };
  /// Every entry for_each() passes, as a table the host walks at run time: one loop body instead of a copy inlined
  /// per kernel (for a float caller, read_facts() was 98 kB of host code, most of the host compiler's time).
  struct kernel_list {
    kernel_entry entries[tuning::slot_count * 8];  ///< At most four op pairs, plain and padded, per slot.
    int count = 0;                                 ///< Entries used.
  };

  /// The table's kernels (built on first use).
  static const kernel_list& kernels() {
    static const kernel_list list = [] {
      kernel_list l;
      for_each([&](kernel_type k, tuning::slot s, op a, op b, bool padded) {
        l.entries[l.count++] = {k, s, a, b, padded};
      });
      return l;
    }();
    return list;
  }

  /// The kernel for a step of a plan, or nullptr when the table has none.
  static kernel_type find(tuning::slot step_slot, op op_a, op op_b, bool padded_step) {
    const tuning::slot s = kernel_slot(step_slot);
    const bool padded = padded_step && has_padded_twin(op_a, op_b);
    const kernel_list& list = kernels();
    for (int i = 0; i < list.count; ++i) {
      const kernel_entry& e = list.entries[i];
      if (e.slot == s && e.op_a == op_a && e.op_b == op_b && e.padded == padded) return e.kernel;
    }
    return nullptr;
  }

  /// Launches a split step whose partials are float (a 16-bit C): see split_k_kernels.
  status launch_float_partials(const plan_step& s, const gemm_launch<types>& g, cudaStream_t stream, int device) const {
    return split_k_kernels<Table>::launch_float_partials(op_a, op_b, s, without_user_op_launch(g), stream, device);
  }

  /// The table's sm_90a kernel policy (void: none); its kernels are made ready on first use, not by read_facts().
  using wgmma_policy = typename Table::wgmma;
  /// The table's smaller sm_90a tile (void: none), for problems its large tiles would not fill.
  using wgmma_small_policy = typename Table::wgmma_small;
  /// The table's batch tile (void: none), built only where the calls may run batches without a fused epilogue (the
  /// planner gives it to no other call: detail::wgmma_batch_runs).
  using wgmma_batch_policy = std::conditional_t<Batches && !Fused, typename Table::wgmma_batch, void>;
  /// The policy that runs the large tile's steps: the table's wgmma_fused for a fused epilogue where it names one
  /// (ping-pong consumers), else wgmma. The plan's tiles and grid are wgmma's; the tile order keeps its rows per group.
  using wgmma_large_policy = std::conditional_t<Fused && !std::is_void<typename Table::wgmma_fused>::value,
                                                typename Table::wgmma_fused, wgmma_policy>;
  /// Whether a fused call's unsplit large-tile steps may also run the cooperative wgmma policy's fused kernel (deeper
  /// than the table's wgmma_fused_pingpong_max_k); otherwise they all run wgmma_large_policy, and that kernel is not
  /// built.
  static constexpr bool fused_cooperative = [] {
    if constexpr (Fused && !std::is_void<typename Table::wgmma_fused>::value) {
      return Table::wgmma_fused_pingpong_max_k < INT64_MAX;
    } else {
      return false;
    }
  }();
  /// The large tile's tile-order group (kernel::wgmma_tile) for a plan's group of wgmma tile rows.
  static int large_tile_group(int plan_group) {
    if constexpr (std::is_void<wgmma_policy>::value) {
      return plan_group;
    } else {
      return plan_group * (wgmma_policy::block_m / wgmma_large_policy::block_m);
    }
  }
  /// Whether that policy is 3xTF32's, whose plans split the operands first.
  static constexpr bool splits_tf32 = [] {
    if constexpr (std::is_void<wgmma_policy>::value) {
      return false;
    } else {
      return wgmma_policy::split;
    }
  }();

  /// A plan with an sm_90a step the table has no kernel for: the planner never makes one.
  static status no_wgmma_kernel(int device) {
    return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                "internal error: a plan asks for an sm_90a kernel the table does not have (device %d)", device);
  }

  /// A plan with a split step for a table without a 3xTF32 kernel: the planner never makes one.
  static status no_split_kernel(int device) {
    return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                "internal error: a plan splits an operand into TF32 parts for a table without a 3xTF32 kernel "
                "(device %d)", device);
  }

  op op_a;  ///< The plan's op(A) for its gemm steps.
  op op_b;  ///< The plan's op(B).

  /// Makes a GEMV or sm_90a step's kernel ready (its gemm, or a 3xTF32 operand split); nothing to do for the
  /// others (read_facts() prepared them).
  status prepare(const plan_step& s, int device) const {
    if (s.gemv) return gemv_kernels<types>::prepare(s, device);
    if (s.split_tf32) {
      if constexpr (splits_tf32) return wgmma_kernels<wgmma_policy>::prepare_split(s.contiguous_k, device);
      return no_split_kernel(device);
    }
    if (s.wgmma && s.slices > 1) return split_k_kernels<Table>::prepare_sliced(op_a, op_b, s.wgmma_small, device);
    if (s.wgmma && s.wgmma_batch) {
      if constexpr (!std::is_void<wgmma_batch_policy>::value) {
        return wgmma_kernels<wgmma_batch_policy>::prepare(op_a, op_b, device);
      }
      return no_wgmma_kernel(device);
    }
    if constexpr (!std::is_void<wgmma_small_policy>::value) {
      if (s.wgmma && s.wgmma_small) {
        return wgmma_kernels<wgmma_small_policy>::template prepare<Fused, User>(op_a, op_b, device);
      }
    }
    if constexpr (!std::is_void<wgmma_policy>::value) {
      if (s.wgmma && s.slices == 1 && !s.wgmma_small) {
        if constexpr (fused_cooperative) {
          if (!s.wgmma_pingpong) return wgmma_kernels<wgmma_policy>::template prepare<Fused, User>(op_a, op_b, device);
        }
        return wgmma_kernels<wgmma_large_policy>::template prepare<Fused, User>(op_a, op_b, device);
      }
    }
    if (s.wgmma) return no_wgmma_kernel(device);
    return status::success;
  }

  /// Launches a 3xTF32 split step of a plan: `source` (leading dimension ld) into the workspace at `to`.
  status launch_split(const plan_step& s, const void* source, int64_t ld, std::byte* to, cudaStream_t stream,
                      int device) const {
    if constexpr (splits_tf32) {
      return wgmma_kernels<wgmma_policy>::launch_split(s.contiguous_k, static_cast<const float*>(source), ld,
                                                       s.extent_mn, s.extent_k, reinterpret_cast<float*>(to),
                                                       s.ld_packed, s.grid_x, s.grid_y, stream, device);
    } else {
      (void)s, (void)source, (void)ld, (void)to, (void)stream;
      return no_split_kernel(device);
    }
  }

  /// Launches a gemm step of a plan.
  status launch(const plan_step& s, const gemm_launch<types>& g, cudaStream_t stream, int device) const {
    if (s.gemv) return gemv_kernels<types>::launch(s, g, op_a, op_b, stream, device);
    if (s.wgmma && s.slices > 1) {
      return split_k_kernels<Table>::launch_sliced(op_a, op_b, s, without_user_op_launch(g), stream, device);
    }
    if (s.wgmma && s.wgmma_batch) {  // a batch in one grid, without a fused epilogue
      if constexpr (!std::is_void<wgmma_batch_policy>::value) {
        const batch_shape batch{int64_t(g.grid.z), g.tiles.stride_a, g.tiles.stride_b, g.tiles.stride_c};
        return wgmma_kernels<wgmma_batch_policy>::launch(op_a, op_b, g.problem.m, g.problem.n, g.problem.k,
                                                         g.output.alpha, g.problem.a, g.problem.lda, g.problem.b,
                                                         g.problem.ldb, g.output.beta, g.output.c, g.output.ldc,
                                                         s.grid_x, s.tile_group, stream, device, batch);
      }
      return no_wgmma_kernel(device);
    }
    if constexpr (!std::is_void<wgmma_small_policy>::value) {
      if (s.wgmma && s.wgmma_small) {  // a batch in one grid too (see the large tile's below)
        const batch_shape batch{int64_t(g.grid.z), g.tiles.stride_a, g.tiles.stride_b, g.tiles.stride_c};
        return wgmma_kernels<wgmma_small_policy>::template launch<Fused, User>(
            op_a, op_b, g.problem.m, g.problem.n, g.problem.k, g.output.alpha, g.problem.a, g.problem.lda,
            g.problem.b, g.problem.ldb, g.output.beta, g.output.c, g.output.ldc, s.grid_x, s.tile_group, stream,
            device, batch, g.terms);
      }
    }
    if constexpr (!std::is_void<wgmma_policy>::value) {
      if (s.wgmma && s.slices == 1 && !s.wgmma_small) {
        // A strided batch run in one grid: its products are gridDim.z of the other kernels, walked by these.
        const batch_shape batch{int64_t(g.grid.z), g.tiles.stride_a, g.tiles.stride_b, g.tiles.stride_c};
        if constexpr (fused_cooperative) {
          if (!s.wgmma_pingpong) {  // a deep fused product: the cooperative tile, the plan's own tiles and groups
            return wgmma_kernels<wgmma_policy>::template launch<Fused, User>(
                op_a, op_b, g.problem.m, g.problem.n, g.problem.k, g.output.alpha, g.problem.a, g.problem.lda,
                g.problem.b, g.problem.ldb, g.output.beta, g.output.c, g.output.ldc, s.grid_x, s.tile_group, stream,
                device, batch, g.terms);
          }
        }
        return wgmma_kernels<wgmma_large_policy>::template launch<Fused, User>(
            op_a, op_b, g.problem.m, g.problem.n, g.problem.k, g.output.alpha, g.problem.a, g.problem.lda,
            g.problem.b, g.problem.ldb, g.output.beta, g.output.c, g.output.ldc, s.grid_x,
            large_tile_group(s.tile_group), stream, device, batch, g.terms);
      }
    }
    if (s.wgmma) return no_wgmma_kernel(device);
    if (s.float_partials) return launch_float_partials(s, g, stream, device);
    const kernel_type k = find(s.slot, op_a, op_b, s.padded);
    if (k == nullptr) {
      return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                  "internal error: the plan asks for a %s kernel for ops %s%s%s, which tgemm does not build",
                  tuning::to_string(s.slot), op_letter(op_a), op_letter(op_b), s.padded ? " with padded loads" : "");
    }
    if constexpr (Fused) {
      device::basic_fused_combination<typename types::element_c, typename types::scalar_type, User> output;
      static_cast<device::basic_linear_combination<typename types::element_c, typename types::scalar_type>&>(output) =
          g.output;
      output.terms = g.terms;  // empty for a step writing to the workspace
      return launch_kernel(k, g.grid, dim3(unsigned(s.threads)), s.shared_bytes, stream, device,
                           "launching a tgemm::gemm() kernel (fused epilogue)", g.problem, output, g.tiles, g.split,
                           g.readable, kernel::call_ops{op_a, op_b});
    } else {
      return launch_kernel(k, g.grid, dim3(unsigned(s.threads)), s.shared_bytes, stream, device,
                           "launching a tgemm::gemm() kernel", g.problem, g.output, g.tiles, g.split, g.readable,
                           kernel::call_ops{op_a, op_b});
    }
  }

  /// Reads the facts of `device` (current): the PTX version this build runs there (from a probe kernel compiled
  /// beside the table's kernels), its multiprocessors, and for every kernel of the table its readiness (image
  /// present, shared-memory limit raised) and how many of its blocks one multiprocessor holds. Loads every
  /// kernel, so a later launch cannot fail for lack of its code. Runs in relaxed capture mode: the first call of
  /// a process may be inside a stream capture.
  static status read_facts(int device, device_facts& facts, tuning::tuning_values& values) {
    relaxed_capture_scope relaxed;
    facts = device_facts{};
    facts.device = device;
    if (status s = check_memory_for_loading(device, "tgemm::gemm()'s kernels"); s != status::success) return s;
    cudaFuncAttributes attributes{};
    cudaError_t error = cudaFuncGetAttributes(&attributes, kernel::arch_probe<0>);
    if (error != cudaSuccess) return fail_cuda(error, device, "reading the arch probe's attributes");
    facts.arch = attributes.ptxVersion * 10;
    if (facts.arch < tuning::oldest_arch<Table>()) {
      return fail(status::unsupported_device, cudaSuccess,
                  "tgemm::gemm() for A and B of type %s needs tensor-core instructions of sm_%d or newer; device %d is "
                  "%s",
                  element_traits<typename types::element_a>::name, tuning::oldest_arch<Table>() / 10, device,
                  device_sm_name(device).c_str());
    }
    error = cudaDeviceGetAttribute(&facts.multiprocessors, cudaDevAttrMultiProcessorCount, device);
    if (error != cudaSuccess) return fail_cuda(error, device, "reading the multiprocessor count");
    if constexpr (!std::is_void<wgmma_policy>::value) {
      if (status s = read_wgmma_image(device, facts.wgmma_image); s != status::success) return s;
    }
    values = tuning::values_for<Table>(facts.arch);
    const kernel_list& list = kernels();
    // A kernel that takes an operand's layout at run time serves two or four op pairs, one entry each: it is prepared
    // and its occupancy read once, at its first entry (`measured` keeps what that found).
    constexpr int capacity = int(sizeof(list.entries) / sizeof(list.entries[0]));
    kernel_type measured_kernel[capacity] = {};
    int measured_blocks[capacity] = {};
    int measured = 0;
    for (int i = 0; i < list.count; ++i) {
      const kernel_entry& k = list.entries[i];
      const tuning::policy_numbers& policy = values[k.slot];
      int blocks = -1;
      for (int j = 0; j < measured; ++j) {
        if (measured_kernel[j] == k.kernel) blocks = measured_blocks[j];
      }
      if (blocks < 0) {
        char what[160];
        std::snprintf(what, sizeof what, "preparing the %s kernel (policy %s)", tuning::to_string(k.slot),
                      policy.name().c_str());
        if (status s = prepare_kernel(k.kernel, device, policy.shared_bytes, what); s != status::success) return s;
        if (k.padded) continue;  // a padded kernel has its plain twin's occupancy
        const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.kernel, policy.threads,
                                                                            size_t(policy.shared_bytes));
        if (e != cudaSuccess) return fail_cuda(e, device, what);
        measured_kernel[measured] = k.kernel, measured_blocks[measured] = blocks;
        ++measured;
      }
      for (int other = 0; other < tuning::slot_count; ++other) {  // every slot this kernel serves
        if (kernel_slot(tuning::slot(other)) == k.slot) {
          facts.resident_blocks[op_pair_index(k.op_a, k.op_b)][other] = blocks > 0 ? blocks : 1;
        }
      }
    }
    // The float-partials kernels too (their splits are planned with the occupancy of the C-typed twins above).
    return split_k_kernels<Table>::prepare_partials(device, values);
  }

  /// A device's facts and the values of its tuning entry.
  struct known_device {
    device_facts facts;            ///< What the plan depends on.
    tuning::tuning_values values;  ///< The entry serving facts.arch.
  };

  /// read_facts(), once per device below cached_devices (others are read on every call, into `uncached`). After
  /// the first call for a device, a lock-free read of the cached record.
  static status facts_for(int device, const known_device*& known, known_device& uncached) {
    static std::mutex mutex;
    static known_device cache[cached_devices];
    static std::atomic<bool> ready[cached_devices];
    if (device < 0 || device >= cached_devices) {
      known = &uncached;
      return read_facts(device, uncached.facts, uncached.values);
    }
    if (!ready[device].load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!ready[device].load(std::memory_order_relaxed)) {
        if (status s = read_facts(device, cache[device].facts, cache[device].values); s != status::success) return s;
        ready[device].store(true, std::memory_order_release);
      }
    }
    known = &cache[device];
    return status::success;
  }

};

/// The split-K kernels of a tuning table that its plain and its fused calls share: the kernels that write a 16-bit
/// C's float partials (the float-C twin entry's small and thin tiles) and the sm_90a split-K kernel (the table's
/// Hopper tile with a float C). The reduction applies alpha, beta and any fused epilogue, so both kinds of call run
/// the same ones. Their members are not inline: the compiled mode defines them in a family's plain source only and
/// declares them in its fused source (`extern template`), so each of these kernels compiles once.
template <class Table>
struct split_k_kernels {
  /// The GEMM's element types.
  using types = typename tuned_kernels<Table>::types;
  /// The entry whose kernels write a 16-bit C's split-K partials as float (its float-C twin; void: the partials are
  /// C's type, written by the table's own kernels).
  using partials_table = tuning::partials_entry_t<Table>;
  /// The policy of the sm_90a split-K kernel (float partials; void: none).
  using wgmma_partials_policy = wgmma_partials_t<typename Table::wgmma>;
  /// The policy of the smaller sm_90a tile's split-K kernel (float partials; void: none).
  using wgmma_small_partials_policy = wgmma_partials_t<typename Table::wgmma_small>;

  /// Makes the float-partials kernels ready on `device` (nothing for a table without them).
  static status prepare_partials(int device, const tuning::tuning_values& values);
  /// Launches a split step whose partials are float (a 16-bit C): the float-C twin of the slot's kernel, writing
  /// unscaled products into the workspace for the reduction.
  static status launch_float_partials(op op_a, op op_b, const plan_step& s, const gemm_launch<types>& g,
                                      cudaStream_t stream, int device);
  /// Makes the sm_90a split-K kernel for (op_a, op_b) ready on `device` (the smaller tile's where `small`).
  static status prepare_sliced(op op_a, op op_b, bool small, int device);
  /// Launches an sm_90a split step: each slice of k into its float partial in the workspace.
  static status launch_sliced(op op_a, op op_b, const plan_step& s, const gemm_launch<types>& g, cudaStream_t stream,
                              int device);

 private:
  /// launch_sliced() on the split-K kernel of Policy (the large tile's or the small one's).
  template <class Policy>
  static status launch_sliced_on(op op_a, op op_b, const plan_step& s, const gemm_launch<types>& g,
                                 cudaStream_t stream, int device);
  /// The plan splits k on a tile the table has no split-K kernel for (the planner never makes such a plan).
  static status no_sliced_kernel(bool small, int device);

  /// True for the kernel slots of the partials table that split steps run: the kernels of the slots the planner may
  /// split with float partials (every slot but the large tiles', which only get grids that fill the GPU; only the
  /// thin ones where the table says float_partials_thin_only). For the 16-bit tables that is the small tile, 4
  /// kernels: the float-C table's own, compiled once in the compiled mode.
  template <tuning::slot Slot>
  static constexpr bool partials_kernel() {
    if constexpr (std::is_void<partials_table>::value) {
      return false;
    } else {
      bool any = false;
      tuning::for_each_slot([&](auto other) {
        constexpr tuning::slot o = decltype(other)::value;
        constexpr bool large =
            o == tuning::slot::general || o == tuning::slot::general_tn || o == tuning::slot::general_tt;
        constexpr bool splits = !large && (!Table::float_partials_thin_only || tuning::is_thin(o));
        if constexpr (splits && tuning::kernel_slot<partials_table, o>() == Slot) any = true;
      });
      return any;
    }
  }

  /// Calls f(kernel, slot, op_a, op_b) for every kernel that writes float partials (none when partials_table is void).
  template <class F>
  static void for_each_partials(F&& f) {
    if constexpr (!std::is_void<partials_table>::value) {
      using partials = tuned_kernels<partials_table>;
      tuning::for_each_slot([&](auto slot) {
        constexpr tuning::slot s = decltype(slot)::value;
        if constexpr (partials_kernel<s>()) {
          for_each_op_pair([&](auto a, auto b) {
            constexpr op op_a = decltype(a)::value, op_b = decltype(b)::value;
            using policy = kernel::host_policy<typename partials::template source<s>>;
            f(typename partials::kernel_type(&kernel::gemm_kernel<typename partials::template source<s>,
                                                                  kernel_op_a<policy>(op_a), kernel_op_b<policy>(op_b),
                                                                  false>),
              s, op_a, op_b);
          });
        }
      });
    }
  }
};

template <class Table>
status split_k_kernels<Table>::prepare_partials(int device, const tuning::tuning_values& values) {
  status result = status::success;
  for_each_partials([&](auto k, tuning::slot s, op, op) {
    if (result != status::success) return;
    const tuning::policy_numbers& policy = values.partials_slots[int(s)];
    char what[160];
    std::snprintf(what, sizeof what, "preparing the %s kernel for float partials (policy %s)", tuning::to_string(s),
                  policy.name().c_str());
    result = prepare_kernel(k, device, policy.shared_bytes, what);
  });
  return result;
}

template <class Table>
status split_k_kernels<Table>::launch_float_partials(op op_a, op op_b, const plan_step& s, const gemm_launch<types>& g,
                                                     cudaStream_t stream, int device) {
  if constexpr (!std::is_void<partials_table>::value) {
    using partials = tuned_kernels<partials_table>;
    const tuning::slot wanted = partials::kernel_slot(s.slot);
    typename partials::kernel_type found = nullptr;
    for_each_partials([&](auto k, tuning::slot ks, op ka, op kb) {
      if (ks == wanted && ka == op_a && kb == op_b) found = k;
    });
    if (found != nullptr) {
      float* const out = reinterpret_cast<float*>(g.workspace_out);
      const device::basic_linear_combination<float, typename types::scalar_type> output{1, 0, out, s.ld_out};
      const kernel::split_k<float> split{s.slices, s.k_per_slice, out, s.ld_out};
      return launch_kernel(found, g.grid, dim3(unsigned(s.threads)), s.shared_bytes, stream, device,
                           "launching a tgemm::gemm() kernel (float partials)", g.problem, output, g.tiles, split,
                           g.readable, kernel::call_ops{op_a, op_b});
    }
  }
  (void)g, (void)stream;
  return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
              "internal error: the plan asks for a %s kernel writing float partials for ops %s%s, which tgemm does "
              "not build (device %d)",
              tuning::to_string(s.slot), op_letter(op_a), op_letter(op_b), device);
}

template <class Table>
status split_k_kernels<Table>::no_sliced_kernel(bool small, int device) {
  return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
              "internal error: a plan splits k on an sm_90a %s tile the table does not have (device %d)",
              small ? "small" : "large", device);
}

template <class Table>
status split_k_kernels<Table>::prepare_sliced(op op_a, op op_b, bool small, int device) {
  if constexpr (!std::is_void<wgmma_small_partials_policy>::value) {
    if (small) return wgmma_kernels<wgmma_small_partials_policy>::prepare_sliced(op_a, op_b, device);
  }
  if constexpr (!std::is_void<wgmma_partials_policy>::value) {
    if (!small) return wgmma_kernels<wgmma_partials_policy>::prepare_sliced(op_a, op_b, device);
  }
  (void)op_a, (void)op_b;
  return no_sliced_kernel(small, device);
}

template <class Table>
template <class Policy>
status split_k_kernels<Table>::launch_sliced_on(op op_a, op op_b, const plan_step& s, const gemm_launch<types>& g,
                                                cudaStream_t stream, int device) {
  return wgmma_kernels<Policy>::launch_sliced(op_a, op_b, g.problem.m, g.problem.n, g.problem.k, g.problem.a,
                                              g.problem.lda, g.problem.b, g.problem.ldb,
                                              reinterpret_cast<float*>(g.workspace_out), s.ld_out, s.slices,
                                              s.k_per_slice, s.slice_stride, s.grid_x, s.tile_group, stream, device);
}

template <class Table>
status split_k_kernels<Table>::launch_sliced(op op_a, op op_b, const plan_step& s, const gemm_launch<types>& g,
                                             cudaStream_t stream, int device) {
  if constexpr (!std::is_void<wgmma_small_partials_policy>::value) {
    if (s.wgmma_small) return launch_sliced_on<wgmma_small_partials_policy>(op_a, op_b, s, g, stream, device);
  }
  if constexpr (!std::is_void<wgmma_partials_policy>::value) {
    if (!s.wgmma_small) return launch_sliced_on<wgmma_partials_policy>(op_a, op_b, s, g, stream, device);
  }
  (void)op_a, (void)op_b, (void)g, (void)stream;
  return no_sliced_kernel(s.wgmma_small, device);
}

/// tgemm::gemm() for a validated call: on the stream's device, plan with its facts, then (unless only the
/// workspace size is asked for) execute with the caller's workspace or one allocated for the call. Batches: the call
/// may be a batch of several products (false for the single-product entry points, whose kernels leave out the
/// products tile; see single_product).
template <class Types, math_mode Math = math_mode::strict, bool Fused = false, bool Batches = true>
status dispatch(const canonical_call<Types>& call, cudaStream_t stream, const workspace* given, size_t* size_only) {
  if (size_only != nullptr) *size_only = 0;
  if (call.empty) return status::success;
  if (!Batches && call.batch.count > 1) {
    return fail(status::cuda_error, cudaErrorInvalidDeviceFunction,
                "internal error: a single-product entry point passed a batch of %lld products",
                (long long)call.batch.count);
  }
  device_scope scope(stream);
  if (scope.state() != status::success) return scope.state();
  const int device = scope.device();
  using table = typename tuning::table_for<typename Types::element_a, typename Types::element_c, Math>::type;
  using kernels = tuned_kernels<table, Fused, typename Types::user_op, Batches>;
  static_assert(std::is_same<typename kernels::types, Types>::value, "the tuning table serves other element types");
  plan p;
  typename kernels::known_device uncached;
  const typename kernels::known_device* known = nullptr;
  std::optional<tuning::tuning_values> adjusted;
  const tuning::tuning_values* values = nullptr;  // what the plan was made with (a benchmark's hook may change them)
  if (call.reads_operands) {
    if (status s = kernels::facts_for(device, known, uncached); s != status::success) return s;
    values = &hooked_values(known->values, element_traits<typename Types::element_a>::name,
                            element_traits<typename Types::element_c>::name, adjusted);
    if (status s = make_plan(call, known->facts, *values, p); s != status::success) return s;
  } else {
    if (status s = plan_fixed(call, tuning::policy_numbers{}, p); s != status::success) return s;
  }
  p.fused = Fused;
  if constexpr (Fused) {
    if (values != nullptr) mark_fused_large_steps(p, call.problem.k, *values, kernels::fused_cooperative);
  }
  if (print_plans_requested()) {
    std::fputs(describe(p, values, element_traits<typename Types::element_c>::name, call.problem.m, call.problem.n,
                        call.problem.k)
                   .c_str(),
               stderr);
  }
  if (size_only != nullptr) {
    *size_only = p.workspace_bytes;
    return status::success;
  }
  call_workspace scratch;
  const status got = given != nullptr ? scratch.use(*given, p.workspace_bytes)
                                      : scratch.allocate(p.workspace_bytes, device, stream);
  if (got != status::success) return got;
  if (plan_record& record = plan_recorder(); record.enabled) record.last = p, ++record.calls;
  return execute(p, call, scratch.data(), stream, device, kernels{p.op_a, p.op_b});
}

template <class Types, math_mode Math, class Batch>
status gemm_typed(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, typename Types::scalar_type alpha,
                  const typename Types::element_a* A, int64_t lda, const typename Types::element_b* B, int64_t ldb,
                  typename Types::scalar_type beta, typename Types::element_c* C, int64_t ldc,
                  const Batch& batch, cudaStream_t stream, const workspace* ws, size_t* size_only) {
  canonical_call<Types> call;
  if (status s = check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call, batch);
      s != status::success) {
    return s;
  }
  if (status s = check_alignment(call, 1, "tgemm::gemm"); s != status::success) return s;
  return dispatch<Types, Math, false, runs_batches<Batch>>(call, stream, ws, size_only);
}

template <class Types, math_mode Math, class Epilogue, class Batch>
status gemm_fused_typed(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                        typename Types::scalar_type alpha, const typename Types::element_a* A, int64_t lda,
                        const typename Types::element_b* B, int64_t ldb, typename Types::scalar_type beta,
                        typename Types::element_c* C, int64_t ldc, const Epilogue& ep, const Batch& batch,
                        cudaStream_t stream, const workspace* ws, size_t* size_only) {
  static_assert(std::is_same<typename Types::user_op, typename user_op_of<Epilogue>::type>::value,
                "the call's types carry the epilogue's operation");
  canonical_call<Types> call;
  const epilogue<typename Types::element_c>& built_in = ep;
  if (status s =
          check_fused_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, built_in, call, batch);
      s != status::success) {
    return s;
  }
  attach_user_op(ep, order, call.terms);  // a tgemm::user_epilogue's operation (nothing for a tgemm::epilogue)
  if (status s = check_alignment(call, 1, "tgemm::gemm"); s != status::success) return s;
  return dispatch<Types, Math, true, runs_batches<Batch>>(call, stream, ws, size_only);
}

/// The explicit instantiation of gemm_typed for A and B of type AB, C of type C and a math mode: the compiled
/// library instantiates tgemm::gemm() for every supported element combination and math mode, one family per
/// source (TGEMM_COMPILED_PART); the other sources only declare them (`extern`).
/// Both batch kinds (batch_shape: the batched entry points; single_product: the others); EXTERN: empty, or `extern`
/// to declare them.
#define TGEMM_GEMM_TYPED(EXTERN, AB, C, MATH)                                                                     \
  TGEMM_GEMM_TYPED_FOR(EXTERN, AB, C, MATH, batch_shape)                                                          \
  TGEMM_GEMM_TYPED_FOR(EXTERN, AB, C, MATH, single_product)
/// One batch kind of TGEMM_GEMM_TYPED.
#define TGEMM_GEMM_TYPED_FOR(EXTERN, AB, C, MATH, BATCH)                                                          \
  EXTERN template status gemm_typed<gemm_types<AB, AB, C, scalar_for<AB, C>>, MATH>(                              \
      layout, op, op, int64_t, int64_t, int64_t, scalar_for<AB, C>, const AB*, int64_t, const AB*, int64_t,       \
      scalar_for<AB, C>, C*, int64_t, const BATCH&, cudaStream_t, const workspace*, size_t*);
/// Likewise for the calls with a fused epilogue (tgemm::epilogue): one family per source too, parts 6 to 10.
#define TGEMM_GEMM_FUSED_TYPED(AB, C, MATH)                                                                       \
  TGEMM_GEMM_FUSED_TYPED_FOR(AB, C, MATH, batch_shape)                                                            \
  TGEMM_GEMM_FUSED_TYPED_FOR(AB, C, MATH, single_product)
/// One batch kind of TGEMM_GEMM_FUSED_TYPED.
#define TGEMM_GEMM_FUSED_TYPED_FOR(AB, C, MATH, BATCH)                                                            \
  template status gemm_fused_typed<gemm_types<AB, AB, C, scalar_for<AB, C>>, MATH>(                               \
      layout, op, op, int64_t, int64_t, int64_t, scalar_for<AB, C>, const AB*, int64_t, const AB*, int64_t,       \
      scalar_for<AB, C>, C*, int64_t, const epilogue<C>&, const BATCH&, cudaStream_t, const workspace*, size_t*);
/// The split-K kernels a family's plain and fused calls share (split_k_kernels): defined by the family's plain part,
/// declared by its fused part (before either part's calls instantiate them).
#define TGEMM_SPLIT_K_KERNELS(AB, C, MATH) template struct split_k_kernels<tuning::table_for<AB, C, MATH>::type>;
#if defined(TGEMM_COMPILED_IMPLEMENTATION)
#if TGEMM_DEFINES_PART(1)
TGEMM_SPLIT_K_KERNELS(float, float, math_mode::strict)
#elif TGEMM_DEFINES_PART(6)
extern TGEMM_SPLIT_K_KERNELS(float, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(2)
TGEMM_SPLIT_K_KERNELS(__half, __half, math_mode::strict)
TGEMM_SPLIT_K_KERNELS(__half, float, math_mode::strict)
#elif TGEMM_DEFINES_PART(7)
extern TGEMM_SPLIT_K_KERNELS(__half, __half, math_mode::strict)
extern TGEMM_SPLIT_K_KERNELS(__half, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(3)
TGEMM_SPLIT_K_KERNELS(__nv_bfloat16, __nv_bfloat16, math_mode::strict)
TGEMM_SPLIT_K_KERNELS(__nv_bfloat16, float, math_mode::strict)
#elif TGEMM_DEFINES_PART(8)
extern TGEMM_SPLIT_K_KERNELS(__nv_bfloat16, __nv_bfloat16, math_mode::strict)
extern TGEMM_SPLIT_K_KERNELS(__nv_bfloat16, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(4)
TGEMM_SPLIT_K_KERNELS(float, float, math_mode::tf32)
TGEMM_SPLIT_K_KERNELS(float, float, math_mode::tf32x3)
#elif TGEMM_DEFINES_PART(9)
extern TGEMM_SPLIT_K_KERNELS(float, float, math_mode::tf32)
extern TGEMM_SPLIT_K_KERNELS(float, float, math_mode::tf32x3)
#endif
#if TGEMM_DEFINES_PART(5)
TGEMM_SPLIT_K_KERNELS(double, double, math_mode::strict)
#elif TGEMM_DEFINES_PART(10)
extern TGEMM_SPLIT_K_KERNELS(double, double, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(1)
TGEMM_GEMM_TYPED(, float, float, math_mode::strict)
#else
TGEMM_GEMM_TYPED(extern, float, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(2)
TGEMM_GEMM_TYPED(, __half, __half, math_mode::strict)
TGEMM_GEMM_TYPED(, __half, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(3)
TGEMM_GEMM_TYPED(, __nv_bfloat16, __nv_bfloat16, math_mode::strict)
TGEMM_GEMM_TYPED(, __nv_bfloat16, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(4)
TGEMM_GEMM_TYPED(, float, float, math_mode::tf32)
TGEMM_GEMM_TYPED(, float, float, math_mode::tf32x3)
#else
TGEMM_GEMM_TYPED(extern, float, float, math_mode::tf32)
TGEMM_GEMM_TYPED(extern, float, float, math_mode::tf32x3)
#endif
#if TGEMM_DEFINES_PART(5)
TGEMM_GEMM_TYPED(, double, double, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(6)
TGEMM_GEMM_FUSED_TYPED(float, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(7)
TGEMM_GEMM_FUSED_TYPED(__half, __half, math_mode::strict)
TGEMM_GEMM_FUSED_TYPED(__half, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(8)
TGEMM_GEMM_FUSED_TYPED(__nv_bfloat16, __nv_bfloat16, math_mode::strict)
TGEMM_GEMM_FUSED_TYPED(__nv_bfloat16, float, math_mode::strict)
#endif
#if TGEMM_DEFINES_PART(9)
TGEMM_GEMM_FUSED_TYPED(float, float, math_mode::tf32)
TGEMM_GEMM_FUSED_TYPED(float, float, math_mode::tf32x3)
#endif
#if TGEMM_DEFINES_PART(10)
TGEMM_GEMM_FUSED_TYPED(double, double, math_mode::strict)
#endif
#endif
#undef TGEMM_SPLIT_K_KERNELS
#undef TGEMM_GEMM_TYPED
#undef TGEMM_GEMM_TYPED_FOR
#undef TGEMM_GEMM_FUSED_TYPED
#undef TGEMM_GEMM_FUSED_TYPED_FOR

#if TGEMM_DEFINES_PART(1)

TGEMM_FLOAT_API_DEFINITION
status dispatcher_facts(int device, device_facts& facts) {
  using kernels = tuned_kernels<tuning::default_table<float, float>::type>;
  typename kernels::known_device uncached;
  const typename kernels::known_device* known = nullptr;
  if (status s = kernels::facts_for(device, known, uncached); s != status::success) return s;
  facts = known->facts;
  return status::success;
}
#endif  // TGEMM_DEFINES_PART(1)

TGEMM_END_DISPATCH_NAMESPACE
}  // namespace tgemm::detail

#if TGEMM_DEFINES_PART(1)
namespace tgemm {
TGEMM_BEGIN_DISPATCH_NAMESPACE

TGEMM_FLOAT_API_DEFINITION
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
            const float* B, int64_t ldb, float beta, float* C, int64_t ldc, cudaStream_t stream) {
  detail::canonical_call<detail::gemm_types<float>> call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (status s = detail::check_alignment(call, 1, "tgemm::gemm"); s != status::success) return s;
  return detail::dispatch<detail::gemm_types<float>, math_mode::strict, false, false>(call, stream, nullptr, nullptr);
}

TGEMM_FLOAT_API_DEFINITION
status gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
            const float* B, int64_t ldb, float beta, float* C, int64_t ldc, cudaStream_t stream, workspace ws) {
  detail::canonical_call<detail::gemm_types<float>> call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (status s = detail::check_alignment(call, 1, "tgemm::gemm"); s != status::success) return s;
  return detail::dispatch<detail::gemm_types<float>, math_mode::strict, false, false>(call, stream, &ws, nullptr);
}

TGEMM_FLOAT_API_DEFINITION
status gemm_workspace_size(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                           const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
                           size_t& bytes, cudaStream_t stream) {
  bytes = 0;
  detail::canonical_call<detail::gemm_types<float>> call;
  if (status s = detail::check_arguments(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, call);
      s != status::success) {
    return s;
  }
  if (status s = detail::check_alignment(call, 1, "tgemm::gemm"); s != status::success) return s;
  return detail::dispatch<detail::gemm_types<float>, math_mode::strict, false, false>(call, stream, nullptr, &bytes);
}

TGEMM_END_DISPATCH_NAMESPACE
}  // namespace tgemm
#endif  // TGEMM_DEFINES_PART(1)
