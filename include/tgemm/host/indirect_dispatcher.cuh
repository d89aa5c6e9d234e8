/// \file host/indirect_dispatcher.cuh
/// \brief The launching half of tgemm::gemm_batched() and tgemm::gemm_grouped_device(): the indirect kernels of each
/// tuning table, the choice of tile, the launches (host/gemm_indirect.cuh has the API and the host's checks). Like
/// host/dispatcher.cuh it is included only where the dispatcher is defined: header-only mode, or the compiled
/// library's sources, whose parts 11 to 20 (tgemm_add_compiled_library(... INDIRECT)) instantiate
/// run_indirect_typed() family by family, so that a translation unit of the compiled mode calling gemm_batched()
/// compiles none of these kernels.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "../arch/probe.cuh"
#include "../config.cuh"
#include "../kernel/gemm_indirect_kernel.cuh"
#include "../status.cuh"
#include "../tuning/selector.cuh"
#include "../types.cuh"
#include "cuda_status.cuh"
#include "device_facts.cuh"
#include "device_scope.cuh"
#include "gemm_indirect.cuh"
#include "grouped_hopper.cuh"
#include "launch_tma_wgmma.cuh"
#include "launcher.cuh"
#include "plan_print.cuh"
#include "tuning_hook.cuh"

namespace tgemm::detail {
TGEMM_BEGIN_DISPATCH_NAMESPACE

/// The indirect kernels of one tuning table for calls of kind Kind: the table's medium, small and products tiles
/// (those that suit any op pair; the products tile where the table names one of its own), four op pairs each, which
/// pointer arrays and device-side groups share (kernel::indirect_products reads both), and the Hopper kernels of the
/// kind alone; instantiated only where such a call is compiled (Fused: those with a fused epilogue, a second set).
template <class Table, class Products, indirect_kind Kind, bool Fused = false, class User = device::no_user_op>
struct indirect_kernels {
  /// The kernels' policy source for a slot: the slot that owns the kernel, so that a slot naming another's policy
  /// (products = small in most tables) adds no kernel.
  template <tuning::slot Slot>
  using source = kernel::tuned_policy<Table, tuning::kernel_slot<Table, Slot>()>;
  using policy = kernel::host_policy<source<tuning::slot::medium>>;
  /// The slots an indirect launch chooses from: by score the first two, the last by products_tile_takes.
  static constexpr tuning::slot slots[] = {tuning::slot::medium, tuning::slot::small, tuning::slot::products};
  static constexpr int slot_count = int(std::size(slots));
  static constexpr int scored_slots = 2;                ///< medium and small
  static constexpr int products_choice = slot_count - 1;  ///< its index in `slots`
  using scalar = typename policy::scalar_type;
  using terms_type = device::epilogue_terms_t<typename policy::element_c, scalar, User>;
  using kernel_type = void (*)(const Products, const scalar, const scalar, const kernel::tile_grid, const int64_t,
                               const terms_type);

  /// The kernel of slots[choice] and an op pair.
  static kernel_type find(int choice, op op_a, op op_b) {
    kernel_type found = nullptr;
    with_ops(op_a, op_b, [&](auto a, auto b) {
      found = kernel_of<decltype(a)::value, decltype(b)::value>(choice, std::make_index_sequence<slot_count>{});
      return status::success;
    });
    return found;
  }

  /// find() for one op pair: the kernels of every slot, one per index.
  template <op OpA, op OpB, size_t... Choice>
  static kernel_type kernel_of(int choice, std::index_sequence<Choice...>) {
    constexpr kernel_type kernels[] = {
        &kernel::gemm_indirect_kernel<source<slots[Choice]>, OpA, OpB, Products, Fused, User>...};
    return kernels[choice];
  }

  /// What the choice of tile needs to know about a device: its entry's values and how many blocks of each tile
  /// (for this op pair) a multiprocessor holds. Read once per device and op pair.
  struct facts {
    int arch = 0;
    int multiprocessors = 0;
    tuning::tuning_values values;
    int resident[slot_count] = {};  ///< Blocks of slots[i]'s kernel a multiprocessor holds (facts_for: at least 1).
  };

  /// Reads (once per kind) the facts of `device` for an op pair, preparing each slot's kernel (image present, shared
  /// memory limit).
  static status facts_for(int device, op op_a, op op_b, facts& out) {
    static std::mutex mutex;
    static facts cache[cached_devices][4];
    static std::atomic<bool> ready[cached_devices][4];
    const int pair = op_pair_index(op_a, op_b);
    const bool cached = device >= 0 && device < cached_devices;
    if (cached && ready[device][pair].load(std::memory_order_acquire)) {
      out = cache[device][pair];
      return status::success;
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (cached && ready[device][pair].load(std::memory_order_relaxed)) {
      out = cache[device][pair];
      return status::success;
    }
    relaxed_capture_scope relaxed;
    facts f;
    cudaFuncAttributes attributes{};
    cudaError_t error = cudaFuncGetAttributes(&attributes, kernel::arch_probe<0>);
    if (error != cudaSuccess) return fail_cuda(error, device, "reading the arch probe's attributes");
    f.arch = attributes.ptxVersion * 10;
    if (f.arch < tuning::oldest_arch<Table>()) {
      return fail(status::unsupported_device, cudaSuccess,
                  "GEMMs of %s need tensor-core instructions of sm_%d or newer; device %d is %s",
                  element_traits<typename policy::element_a>::name, tuning::oldest_arch<Table>() / 10, device,
                  device_sm_name(device).c_str());
    }
    error = cudaDeviceGetAttribute(&f.multiprocessors, cudaDevAttrMultiProcessorCount, device);
    if (error != cudaSuccess) return fail_cuda(error, device, "reading the multiprocessor count");
    f.values = tuning::values_for<Table>(f.arch);
    for (int choice = 0; choice < slot_count; ++choice) {
      const tuning::policy_numbers& p = f.values[slots[choice]];
      const kernel_type k = find(choice, op_a, op_b);
      char what[160];
      std::snprintf(what, sizeof what, "preparing the indirect %s kernel (policy %s)", tuning::to_string(slots[choice]),
                    p.name().c_str());
      if (status s = prepare_kernel(k, device, p.shared_bytes, what); s != status::success) return s;
      int blocks = 0;
      error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, p.threads, size_t(p.shared_bytes));
      if (error != cudaSuccess) return fail_cuda(error, device, what);
      f.resident[choice] = blocks > 0 ? blocks : 1;
    }
    if (cached) {
      cache[device][pair] = f;
      ready[device][pair].store(true, std::memory_order_release);
    }
    out = f;
    return status::success;
  }

  /// The tile for `count` products of at most m x n, as an index of `slots`: the products tile where one of it holds a
  /// whole product (products_tile_takes, the planner's rule for a strided batch with one tile a product); otherwise
  /// the one of medium and small whose blocks fill the device's resident-block slots best, weighed by how much of
  /// each tile lies inside C and the entry's measured speed of the small tile (the planner's score for one grid of a
  /// strided batch, docs/dispatch.md).
  static int choose(const facts& f, int64_t m, int64_t n, int64_t count) {
    if (products_tile_takes(f.values, m, n, 1)) return products_choice;
    int chosen = 0;
    double best = 0;
    for (int choice = 0; choice < scored_slots; ++choice) {
      const tuning::policy_numbers& p = f.values[slots[choice]];
      const int64_t tiles = kernel::tiles_for(m, p.block_m) * kernel::tiles_for(n, p.block_n) * count;
      const int64_t resident = int64_t(f.multiprocessors > 0 ? f.multiprocessors : 1) * f.resident[choice];
      const double speed = slots[choice] == tuning::slot::small ? f.values.small_speed / f.values.medium_speed : 1.0;
      const double score = tile_score_of(p, m, n, tiles, resident, speed);
      if (score > best) chosen = choice, best = score;
    }
    return chosen;
  }

  /// Whether device-side groups and pointer arrays of these types may run on the grouped Hopper kernel: 16-bit A, B and
  /// C of one type, no fused epilogue, and a table with an sm_90a policy.
  static constexpr bool hopper_groups = [] {
    if constexpr (Fused || !hopper_groups_for<typename policy::element_a, typename policy::element_b,
                                              typename policy::element_c>) {
      return false;
    } else {
      return !std::is_void<typename Table::wgmma>::value;
    }
  }();

  /// Pointer arrays (products of one size) on the Hopper kernel, one launch with no preparation
  /// (wgmma_kernels::launch_pointer_arrays), where wgmma_pointer_arrays_fit() (host/plan.cuh) says so, on the tile it
  /// names. `taken` as for run_on_grouped_hopper().
  static status run_pointers_on_hopper(const Products& products, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                                       int64_t count, scalar alpha, scalar beta, cudaStream_t stream, int device,
                                       const char* what, int multiprocessors, bool& taken) {
    if constexpr (hopper_groups) {
      using large = typename Table::wgmma;
      using small = typename Table::wgmma_small;
      using batch_tile = typename Table::wgmma_batch;
      static const tuning::tuning_values entry = tuning::values_of<Table>();
      std::optional<tuning::tuning_values> adjusted;
      const tuning::tuning_values& values =
          hooked_values(entry, element_traits<typename policy::element_a>::name,
                        element_traits<typename policy::element_c>::name, adjusted);
      using element = typename policy::element_a;
      const bool lines = (products.lda * int64_t(sizeof(element))) % 16 == 0 &&
                         (products.ldb * int64_t(sizeof(element))) % 16 == 0;
      bool takes_small = false, takes_batch_tile = false;
      if (!wgmma_pointer_arrays_fit(values, m, n, k, count, multiprocessors, lines, takes_small, takes_batch_tile)) {
        return status::success;
      }
      const tuning::policy_numbers& tile = takes_batch_tile ? values.wgmma_batch
                                           : takes_small    ? values.wgmma_small
                                                            : values.wgmma;
      if (print_plans_requested()) {
        std::fprintf(stderr,
                     "tgemm plan: %s, %lld products of %lld x %lld x %lld, ops %s%s: one launch of the Hopper kernel "
                     "(policy %s), persistent blocks, each product read and written through address maps at its "
                     "pointers; products TMA cannot read run a direct loop\n",
                     what, (long long)count, (long long)m, (long long)n, (long long)k, op_letter(op_a),
                     op_letter(op_b), tile.name().c_str());
      }
      const int64_t blocks = Table::wgmma_persistent ? multiprocessors : 0;
      status s = status::success;
      if constexpr (!std::is_void<batch_tile>::value) {
        if (takes_batch_tile) {
          s = wgmma_kernels<batch_tile>::launch_pointer_arrays(op_a, op_b, products, float(alpha), float(beta), m, n,
                                                                k, int(count), blocks, Table::wgmma_group_m, stream,
                                                                device);
        }
      }
      if constexpr (!std::is_void<small>::value) {
        if (takes_small) {
          s = wgmma_kernels<small>::launch_pointer_arrays(op_a, op_b, products, float(alpha), float(beta), m, n, k,
                                                           int(count), blocks, Table::wgmma_group_m, stream, device);
        }
      }
      if (!takes_small && !takes_batch_tile) {
        s = wgmma_kernels<large>::launch_pointer_arrays(op_a, op_b, products, float(alpha), float(beta), m, n, k,
                                                         int(count), blocks, Table::wgmma_group_m, stream, device);
      }
      if (s != status::success) return s;
      taken = true;
      if (plan_record& record = plan_recorder(); record.enabled) record.grouped_hopper_groups += int(count);
    } else {
      (void)products, (void)op_a, (void)op_b, (void)m, (void)n, (void)k, (void)count, (void)alpha, (void)beta;
      (void)stream, (void)device, (void)what, (void)multiprocessors;
    }
    return status::success;
  }

  /// The call on an sm_90 GPU running the sm_90a image. Device-side groups, always: their descriptions and tensor
  /// maps made on the GPU (kernel::prepare_device_groups) into a workspace from tgemm's pool, then one persistent
  /// launch of the grouped Hopper kernel over every group's tiles (groups TMA cannot read: a direct loop in that
  /// kernel). Pointer arrays: run_pointers_on_hopper(). `taken` is false where the call does not suit it (then
  /// nothing is enqueued). Each kind instantiates only its own kernels.
  static status run_on_grouped_hopper(const Products& products, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                                      int64_t count, scalar alpha, scalar beta, cudaStream_t stream, int device,
                                      const char* what, bool& taken) {
    taken = false;  // the kind's own function sets it once its launch is enqueued
    if constexpr (hopper_groups) {
      using kernels = wgmma_kernels<typename Table::wgmma>;
      hopper_group_facts hopper;
      if (status s = read_hopper_group_facts(device, hopper); s != status::success) return s;
      constexpr int64_t limit = int64_t(INT_MAX) - 256;  // the kernel's coordinates are 32-bit
      if (!hopper.hopper || m > limit || n > limit || k > limit ||
          double(count) * double(kernels::tiles_m(m) * kernels::tiles_n(n)) > double(INT_MAX)) {
        return status::success;
      }
      if constexpr (Kind == indirect_kind::pointer_arrays) {
        return run_pointers_on_hopper(products, op_a, op_b, m, n, k, count, alpha, beta, stream, device, what,
                                      hopper.multiprocessors, taken);
      } else {
        return run_device_groups_on_hopper(products, op_a, op_b, m, n, k, count, alpha, beta, stream, device, what,
                                           hopper.multiprocessors, taken);
      }
    } else {
      (void)products, (void)op_a, (void)op_b, (void)m, (void)n, (void)k, (void)count, (void)alpha, (void)beta;
      (void)stream, (void)device, (void)what;
    }
    return status::success;
  }

  /// Device-side groups on the grouped Hopper kernel (see run_on_grouped_hopper()). `taken` as there.
  static status run_device_groups_on_hopper(const Products& products, op op_a, op op_b, int64_t m, int64_t n,
                                            int64_t k, int64_t count, scalar alpha, scalar beta, cudaStream_t stream,
                                            int device, const char* what, int multiprocessors, bool& taken) {
    if constexpr (hopper_groups) {
      using wgmma_policy = typename Table::wgmma;
      using kernels = wgmma_kernels<wgmma_policy>;
      using description = kernel::tma_wgmma_group<typename wgmma_policy::element_c>;
      const size_t description_bytes = size_t(count) * sizeof(description);
      call_workspace scratch;
      if (status s = scratch.allocate(description_bytes + 128, device, stream); s != status::success) return s;
      auto* descriptions = reinterpret_cast<description*>(scratch.data());
      int* items = reinterpret_cast<int*>(scratch.data() + description_bytes);
      if (print_plans_requested()) {
        std::fprintf(stderr,
                     "tgemm plan: %s, %lld groups of at most %lld x %lld x %lld, ops %s%s: their tensor maps made on "
                     "the GPU, then one launch of the grouped Hopper kernel (policy %s), persistent blocks; groups TMA "
                     "cannot read run a direct loop\n",
                     what, (long long)count, (long long)m, (long long)n, (long long)k, op_letter(op_a),
                     op_letter(op_b), wgmma_policy::name().c_str());
      }
      if (status s = kernels::launch_device_groups(op_a, op_b, products, float(alpha), float(beta), m, n, k, int(count),
                                                   descriptions, items, multiprocessors,
                                                   Table::wgmma_group_m, stream, device);
          s != status::success) {
        return s;
      }
      taken = true;
      if (plan_record& record = plan_recorder(); record.enabled) record.grouped_hopper_groups += int(count);
    } else {
      (void)products, (void)op_a, (void)op_b, (void)m, (void)n, (void)k, (void)count, (void)alpha, (void)beta;
      (void)stream, (void)device, (void)what, (void)multiprocessors, (void)taken;
    }
    return status::success;
  }

  /// Launches every product of `products` (count of them, at most m x n each) in grids of up to 65,535 products,
  /// with the fused epilogue's `terms` (Fused; product i uses terms.product(i)).
  static status run(const Products& products, op op_a, op op_b, int64_t m, int64_t n, int64_t k, int64_t count,
                    scalar alpha, scalar beta, const terms_type& terms, cudaStream_t stream, const char* what) {
    device_scope scope(stream);
    if (scope.state() != status::success) return scope.state();
    const int device = scope.device();
    if constexpr (hopper_groups) {
      if (count <= int64_t(INT_MAX)) {
        bool taken = false;
        if (status s = run_on_grouped_hopper(products, op_a, op_b, m, n, k, count, alpha, beta, stream, device, what,
                                             taken);
            s != status::success || taken) {
          return s;
        }
      }
    }
    facts f;
    if (status s = facts_for(device, op_a, op_b, f); s != status::success) return s;
    apply_tuning_hook(f.values, element_traits<typename policy::element_a>::name,  // f is this call's copy
                      element_traits<typename policy::element_c>::name);
    const int choice = choose(f, m, n, count);
    const tuning::policy_numbers& p = f.values[slots[choice]];
    kernel::tile_grid tiles;
    tiles.tiles_m = kernel::tiles_for(m, p.block_m);
    tiles.tiles_n = kernel::tiles_for(n, p.block_n);
    if (!kernel::grid_fits(tiles.tiles_m * tiles.tiles_n)) {
      return fail(status::invalid_dimension, cudaSuccess,
                  "%s: %lld x %lld products need %lld x %lld thread blocks each, more than one grid holds", what,
                  (long long)m, (long long)n, (long long)tiles.tiles_m, (long long)tiles.tiles_n);
    }
    if (print_plans_requested()) {
      std::fprintf(stderr,
                   "tgemm plan: %s, %lld products of at most %lld x %lld x %lld, ops %s%s: one launch per 65535 "
                   "products of the %s tile (%s)%s, %lld x %lld tiles each; products not aligned for its loads run "
                   "the direct loop\n",
                   what, (long long)count, (long long)m, (long long)n, (long long)k, op_letter(op_a),
                   op_letter(op_b), tuning::to_string(slots[choice]), p.name().c_str(), Fused ? " with a fused epilogue" : "",
                   (long long)tiles.tiles_m, (long long)tiles.tiles_n);
    }
    if (plan_record& record = plan_recorder(); record.enabled) ++record.indirect_calls, record.indirect_slot = slots[choice];
    const kernel_type kernel = find(choice, op_a, op_b);
    dim3 grid = kernel::grid_for(tiles.tiles_m * tiles.tiles_n);
    for (int64_t first = 0; first < count; first += kernel::max_grid_y) {
      grid.z = unsigned(count - first < kernel::max_grid_y ? count - first : kernel::max_grid_y);
      if (status s = launch_kernel(kernel, grid, dim3(unsigned(p.threads)), p.shared_bytes, stream, device, what,
                                   products, alpha, beta, tiles, first, terms);
          s != status::success) {
        return s;
      }
    }
    return status::success;
  }

 private:
  template <class F>
  static status with_ops(op op_a, op op_b, F&& f) {
    using none = std::integral_constant<op, op::none>;
    using transpose = std::integral_constant<op, op::transpose>;
    if (op_a == op::none) return op_b == op::none ? f(none{}, none{}) : f(none{}, transpose{});
    return op_b == op::none ? f(transpose{}, none{}) : f(transpose{}, transpose{});
  }
};

template <class TA, class TB, class TC, math_mode Math, indirect_kind Kind, bool Fused, class User>
status run_indirect_typed(const indirect_call<TA, TB, TC, User>& call, scalar_for<TA, TC> alpha,
                          scalar_for<TA, TC> beta, cudaStream_t stream, const char* what) {
  if (call.empty) return status::success;
  using table = typename tuning::table_for<TA, TC, Math>::type;
  return indirect_kernels<table, kernel::indirect_products<TA, TB, TC>, Kind, Fused, User>::run(
      call.products, call.op_a, call.op_b, call.m, call.n, call.k, call.count, alpha, beta, call.terms, stream, what);
}

/// The explicit instantiations of run_indirect_typed for A and B of type AB, C of type C, a math mode and with or
/// without a fused epilogue, both kinds of call: the compiled library's parts 11 to 15 (16 to 20 with a fused
/// epilogue) instantiate them family by family, in the order of gemm_typed()'s parts 1 to 5.
#define TGEMM_RUN_INDIRECT_TYPED(AB, C, MATH, FUSED)                                                               \
  template status run_indirect_typed<AB, AB, C, MATH, indirect_kind::pointer_arrays, FUSED>(                         \
      const indirect_call<AB, AB, C>&, scalar_for<AB, C>, scalar_for<AB, C>, cudaStream_t, const char*);             \
  template status run_indirect_typed<AB, AB, C, MATH, indirect_kind::device_groups, FUSED>(                          \
      const indirect_call<AB, AB, C>&, scalar_for<AB, C>, scalar_for<AB, C>, cudaStream_t, const char*);
#if defined(TGEMM_COMPILED_IMPLEMENTATION)
#if TGEMM_DEFINES_PART(11)
TGEMM_RUN_INDIRECT_TYPED(float, float, math_mode::strict, false)
#endif
#if TGEMM_DEFINES_PART(12)
TGEMM_RUN_INDIRECT_TYPED(__half, __half, math_mode::strict, false)
TGEMM_RUN_INDIRECT_TYPED(__half, float, math_mode::strict, false)
#endif
#if TGEMM_DEFINES_PART(13)
TGEMM_RUN_INDIRECT_TYPED(__nv_bfloat16, __nv_bfloat16, math_mode::strict, false)
TGEMM_RUN_INDIRECT_TYPED(__nv_bfloat16, float, math_mode::strict, false)
#endif
#if TGEMM_DEFINES_PART(14)
TGEMM_RUN_INDIRECT_TYPED(float, float, math_mode::tf32, false)
TGEMM_RUN_INDIRECT_TYPED(float, float, math_mode::tf32x3, false)
#endif
#if TGEMM_DEFINES_PART(15)
TGEMM_RUN_INDIRECT_TYPED(double, double, math_mode::strict, false)
#endif
#if TGEMM_DEFINES_PART(16)
TGEMM_RUN_INDIRECT_TYPED(float, float, math_mode::strict, true)
#endif
#if TGEMM_DEFINES_PART(17)
TGEMM_RUN_INDIRECT_TYPED(__half, __half, math_mode::strict, true)
TGEMM_RUN_INDIRECT_TYPED(__half, float, math_mode::strict, true)
#endif
#if TGEMM_DEFINES_PART(18)
TGEMM_RUN_INDIRECT_TYPED(__nv_bfloat16, __nv_bfloat16, math_mode::strict, true)
TGEMM_RUN_INDIRECT_TYPED(__nv_bfloat16, float, math_mode::strict, true)
#endif
#if TGEMM_DEFINES_PART(19)
TGEMM_RUN_INDIRECT_TYPED(float, float, math_mode::tf32, true)
TGEMM_RUN_INDIRECT_TYPED(float, float, math_mode::tf32x3, true)
#endif
#if TGEMM_DEFINES_PART(20)
TGEMM_RUN_INDIRECT_TYPED(double, double, math_mode::strict, true)
#endif
#endif
#undef TGEMM_RUN_INDIRECT_TYPED

TGEMM_END_DISPATCH_NAMESPACE
}  // namespace tgemm::detail

#if defined(TGEMM_COMPILED_IMPLEMENTATION) && TGEMM_DEFINES_PART(11)  // see its declaration
namespace tgemm {
TGEMM_BEGIN_DISPATCH_NAMESPACE

TGEMM_DISPATCH_API status gemm_batched(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                                       const float* const* A, int64_t lda, const float* const* B, int64_t ldb,
                                       float beta, float* const* C, int64_t ldc, int64_t batch_count,
                                       cudaStream_t stream) {
  detail::indirect_call<float, float, float> call;
  if (status s = detail::check_batched(order, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch_count,
                                       static_cast<const epilogue<float>*>(nullptr), options{}, call);
      s != status::success) {
    return s;
  }
  return detail::run_indirect_typed<float, float, float, math_mode::strict, detail::indirect_kind::pointer_arrays,
                                    false>(call, alpha, beta, stream, "tgemm::gemm_batched");
}

TGEMM_END_DISPATCH_NAMESPACE
}  // namespace tgemm
#endif  // TGEMM_COMPILED_IMPLEMENTATION && TGEMM_DEFINES_PART(11)
