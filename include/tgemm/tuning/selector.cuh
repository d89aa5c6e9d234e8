/// \file tuning/selector.cuh
/// \brief Choosing a tuning entry for an architecture: one rule, used at compile time by the device pass and at
/// run time by the host, and the registry of tables per element type.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "simt_f32.cuh"
#include "tensorop_f16.cuh"
#include "tensorop_f64.cuh"
#include "tensorop_tf32.cuh"
#include "slots.cuh"

/// The architecture the current compilation pass generates code for (e.g. 900), or 0 in the host pass.
#if defined(__CUDA_ARCH__)
#define TGEMM_DEVICE_ARCH __CUDA_ARCH__
#else
#define TGEMM_DEVICE_ARCH 0
#endif

namespace tgemm::tuning {

/// The architecture of the entry of Chain that serves `arch`: the newest entry whose arch is at most `arch`, or
/// the oldest when none is (for example arch = 0 in the host pass). The one rule both sides use.
template <class Chain>
constexpr int entry_arch(int arch) {
  if constexpr (std::is_void<typename Chain::previous>::value) {
    return Chain::arch;
  } else {
    return arch >= Chain::arch ? Chain::arch : entry_arch<typename Chain::previous>(arch);
  }
}

/// The entry of Chain with the given arch (which must be one of its entries').
template <class Chain, int EntryArch, class = void>
struct entry_with_arch {
  /// The entry.
  using type = typename entry_with_arch<typename Chain::previous, EntryArch>::type;
};
/// Found it.
template <class Chain, int EntryArch>
struct entry_with_arch<Chain, EntryArch, std::enable_if_t<Chain::arch == EntryArch>> {
  /// The entry.
  using type = Chain;
};

/// The newest entry of Chain whose arch is at most Arch (the oldest entry when none is).
template <class Chain, int Arch>
struct select {
  /// The selected chain entry.
  using type = typename entry_with_arch<Chain, entry_arch<Chain>(Arch)>::type;
};
/// Shorthand for select<Chain, Arch>::type.
template <class Chain, int Arch>
using select_t = typename select<Chain, Arch>::type;

/// Calls f(Entry{}) with the entry of Chain for a runtime architecture (e.g. 900): the host-side twin of select_t.
template <class Chain, class F>
decltype(auto) with_tuning(int arch, F&& f) {
  if constexpr (std::is_void<typename Chain::previous>::value) {
    return f(Chain{});
  } else {
    if (arch >= Chain::arch) return f(Chain{});
    return with_tuning<typename Chain::previous>(arch, static_cast<F&&>(f));
  }
}

/// The tuning table tgemm::gemm() uses for A and B of type ElementAB and C of type ElementC; a new element type
/// registers its table by specialising this (one line, beside its table).
template <class ElementAB, class ElementC>
struct default_table {
  static_assert(sizeof(ElementAB) == 0, "tgemm::gemm() has no tuning table for these element types");
};
/// float: the SIMT table.
template <>
struct default_table<float, float> {
  /// The newest entry of the table.
  using type = simt_f32;
};
/// __half A and B, __half C: the tensor-core table.
template <>
struct default_table<__half, __half> {
  /// The newest entry of the table.
  using type = tensorop_f16<__half, __half>;
};
/// __half A and B, float C: the tensor-core table.
template <>
struct default_table<__half, float> {
  /// The newest entry of the table.
  using type = tensorop_f16<__half, float>;
};
/// __nv_bfloat16 A and B, __nv_bfloat16 C: the tensor-core table.
template <>
struct default_table<__nv_bfloat16, __nv_bfloat16> {
  /// The newest entry of the table.
  using type = tensorop_f16<__nv_bfloat16, __nv_bfloat16>;
};
/// __nv_bfloat16 A and B, float C: the tensor-core table.
template <>
struct default_table<__nv_bfloat16, float> {
  /// The newest entry of the table.
  using type = tensorop_f16<__nv_bfloat16, float>;
};

/// double: the DMMA tensor-core table.
template <>
struct default_table<double, double> {
  /// The newest entry of the table.
  using type = tensorop_f64;
};

/// The tuning table of a call: default_table for the element types, or for float inputs with math_mode::tf32 or
/// tf32x3 the float tensor-core table of that mode.
template <class ElementAB, class ElementC, math_mode Math>
struct table_for {
  /// The newest entry of the table.
  using type = typename default_table<ElementAB, ElementC>::type;
};
/// TF32 and 3xTF32.
template <math_mode Math>
struct table_for<float, float, Math> {
  /// The newest entry of the table.
  using type = std::conditional_t<Math == math_mode::strict, simt_f32, tensorop_tf32<Math>>;
};

/// The chain tgemm::gemm() dispatches over for float, newest architecture first.
using default_chain = default_table<float, float>::type;

/// Whether a table builds padded twins of its general kernels: Table::padded_kernels, or true.
template <class Table, class = void>
struct padded_kernels_of : std::true_type {};
/// See padded_kernels_of.
template <class Table>
struct padded_kernels_of<Table, std::void_t<decltype(Table::padded_kernels)>>
    : std::integral_constant<bool, Table::padded_kernels> {};

/// The entry whose kernels write the float split-K partials of Entry's calls (Entry::partials_entry: a 16-bit C's
/// float-C twin), or void: the partials are C's type, written by Entry's own kernels.
template <class Entry, class = void>
struct partials_entry_of {
  /// void: no separate entry.
  using type = void;
};
/// See partials_entry_of.
template <class Entry>
struct partials_entry_of<Entry, std::void_t<typename Entry::partials_entry>> {
  /// The float-C entry.
  using type = typename Entry::partials_entry;
};
/// Shorthand for partials_entry_of<Entry>::type.
template <class Entry>
using partials_entry_t = typename partials_entry_of<Entry>::type;

/// The oldest architecture (as `__CUDA_ARCH__`) a chain has an entry for: GPUs older than it lack what its
/// kernels need.
template <class Chain>
constexpr int oldest_arch() {
  if constexpr (std::is_void<typename Chain::previous>::value) {
    return Chain::arch;
  } else {
    return oldest_arch<typename Chain::previous>();
  }
}

/// True when slot S1 and slot S2 name the same policy in every entry of Chain: then one kernel serves both.
template <class Chain, slot S1, slot S2>
constexpr bool same_policy_in_chain() {
  if constexpr (!std::is_same<slot_policy_t<Chain, S1>, slot_policy_t<Chain, S2>>::value) {
    return false;
  } else if constexpr (std::is_void<typename Chain::previous>::value) {
    return true;
  } else {
    return same_policy_in_chain<typename Chain::previous, S1, S2>();
  }
}

namespace detail {
template <class Chain, slot S, int I>
constexpr slot first_slot_like() {
  if constexpr (I >= int(S)) {
    return S;
  } else if constexpr (same_policy_in_chain<Chain, slot(I), S>()) {
    return slot(I);
  } else {
    return first_slot_like<Chain, S, I + 1>();
  }
}
}  // namespace detail

/// The first slot whose policy is slot S's in every entry of Chain: the slot whose kernels S's calls launch.
template <class Chain, slot S>
constexpr slot kernel_slot() {
  return detail::first_slot_like<Chain, S, 0>();
}

/// The numbers of one policy that the host needs to plan with (grid, shared memory, alignment).
struct policy_numbers {
  int block_m = 0;       ///< Rows of C per block.
  int block_n = 0;       ///< Columns of C per block.
  int block_k = 0;       ///< Depth of a k step (1 for policies without one).
  int threads = 0;       ///< Threads per block.
  int shared_bytes = 0;  ///< Dynamic shared memory per block.
  int vector_width = 1;  ///< Elements per load of A and B.
  int store_width = 1;   ///< Elements per store of C.
  std::string (*name)() = nullptr;  ///< Policy::name.
};

namespace detail {
template <class P, class = void>
struct block_k_of : std::integral_constant<int, 1> {};
template <class P>
struct block_k_of<P, std::void_t<decltype(P::block_k)>> : std::integral_constant<int, P::block_k> {};
}  // namespace detail

/// The host's view of a policy type.
template <class Policy>
constexpr policy_numbers numbers_of() {
  policy_numbers n;
  n.block_m = Policy::block_m;
  n.block_n = Policy::block_n;
  n.block_k = detail::block_k_of<Policy>::value;
  n.threads = Policy::threads;
  n.shared_bytes = Policy::shared_bytes;
  n.vector_width = Policy::vector_width;
  n.store_width = Policy::store_width;
  n.name = &Policy::name;
  return n;
}

/// The host's view of one tuning entry: its policies' numbers by slot and its thresholds, as values (what the
/// planner reads; host tests build plans from these without a GPU).
struct tuning_values {
  int arch = 0;                              ///< The entry's arch (as `__CUDA_ARCH__`).
  policy_numbers slots[slot_count];          ///< The policy of each slot.
  int64_t narrow_extent = 0;                 ///< See simt_f32_thresholds::narrow_extent.
  int64_t tiny_extent = 0;                   ///< See simt_f32_thresholds::tiny_extent.
  double pack_min_flops = 0;                 ///< See simt_f32_thresholds::pack_min_flops.
  double layout_pack_flops = 0;              ///< See simt_f32_thresholds::layout_pack_flops.
  int64_t layout_pack_min_extent = 0;        ///< See simt_f32_thresholds::layout_pack_min_extent.
  int64_t pack_padding = 0;                  ///< See simt_f32_thresholds::pack_padding.
  bool pack_keeps_layout = false;            ///< See simt_f32_thresholds::pack_keeps_layout.
  int64_t max_partials_bytes = 0;            ///< See simt_f32_thresholds::max_partials_bytes.
  bool float_partials = false;               ///< Split steps write float partials with partials_slots' kernels
                                             ///< (a 16-bit C: tuning::partials_entry_t), not C-typed ones.
  policy_numbers partials_slots[slot_count]; ///< The policies of those kernels by slot (when float_partials).
  bool float_partials_thin_only = false;     ///< See tensorop_f16_thresholds::float_partials_thin_only.
  int64_t split_min_steps = 0;               ///< See simt_f32_thresholds::split_min_steps.
  double split_small_below = 0;              ///< See simt_f32_thresholds::split_small_below.
  int64_t split_small_min_steps = 0;         ///< See simt_f32_thresholds::split_small_min_steps.
  double split_small_max_flops = 0;          ///< See simt_f32_thresholds::split_small_max_flops.
  int64_t staged_c_min_elements = 0;         ///< See simt_f32_thresholds::staged_c_min_elements.
  double peel_speed = 0;                     ///< See simt_f32_thresholds::peel_speed.
  double medium_speed = 0;                   ///< See simt_f32_thresholds::medium_speed.
  double small_speed = 0;                    ///< See simt_f32_thresholds::small_speed.
  bool gemv = false;                         ///< See simt_f32_thresholds::gemv.
  double gemv_along_k_min_blocks = 0;        ///< See simt_f32_thresholds::gemv_along_k_min_blocks.
  double gemv_along_n_min_blocks = 0;        ///< See simt_f32_thresholds::gemv_along_k_min_blocks.
  int64_t gemv_min_slice_k = 0;              ///< See simt_f32_thresholds::gemv_min_slice_k.
  int64_t gemv_cluster_slices = 0;           ///< See simt_f32_thresholds::gemv_cluster_slices.
  int64_t gemv_wide_cluster_slices = 0;      ///< See simt_f32_thresholds::gemv_wide_cluster_slices.
  policy_numbers wgmma;                      ///< The sm_90a kernel's policy (block_m == 0: the entry has none).
  double wgmma_min_wave = 0;                 ///< See simt_f32_thresholds::wgmma_min_wave.
  double wgmma_batch_min_use = 0;            ///< See simt_f32_thresholds::wgmma_batch_min_use.
  bool wgmma_persistent = false;             ///< See simt_f32_thresholds::wgmma_persistent.
  int wgmma_group_m = 1;                     ///< See simt_f32_thresholds::wgmma_group_m.
  int wgmma_line_bytes = 16;                 ///< See simt_f32_thresholds::wgmma_line_bytes.
  bool wgmma_mn_major_a = true;              ///< The sm_90a kernel reads an A stored along m in place.
  bool wgmma_mn_major_b = true;              ///< The sm_90a kernel reads a B stored along n in place (not TF32).
  bool wgmma_split_tf32 = false;             ///< The sm_90a kernel reads operands split into TF32 parts (3xTF32).
  policy_numbers wgmma_partials;             ///< Its split-K kernel's policy (block_m == 0: none).
  policy_numbers wgmma_small;                ///< Its smaller tile's policy (block_m == 0: none).
  policy_numbers wgmma_fused;                ///< Its large tile's policy with a fused epilogue (block_m == 0: wgmma).
  int64_t wgmma_fused_pingpong_max_k = 0;    ///< See simt_f32_thresholds::wgmma_fused_pingpong_max_k.
  double wgmma_small_below_wave = 0;         ///< See simt_f32_thresholds::wgmma_small.
  double wgmma_small_min_wave = 0;           ///< See simt_f32_thresholds::wgmma_small_min_wave.
  int64_t wgmma_small_max_k = 0;             ///< See simt_f32_thresholds::wgmma_small_max_k.
  double wgmma_small_max_waves = 0;          ///< See simt_f32_thresholds::wgmma_small_max_waves.
  policy_numbers wgmma_small_partials;       ///< The smaller tile's split-K kernel's policy (block_m == 0: none).
  bool wgmma_split_small = false;            ///< See simt_f32_thresholds::wgmma_split_small.
  bool wgmma_batch_small = false;            ///< See simt_f32_thresholds::wgmma_batch_small.
  policy_numbers wgmma_batch;                ///< Its batch tile's policy (block_m == 0: none).
  int64_t wgmma_batch_tile_max_k = 0;        ///< See simt_f32_thresholds::wgmma_batch.
  int64_t wgmma_split_min_k = 0;             ///< See simt_f32_thresholds::wgmma_split_min_k.
  int64_t wgmma_split_min_slice_k = 0;       ///< See simt_f32_thresholds::wgmma_split_min_k.
  int64_t wgmma_max_partials_bytes = 0;      ///< See simt_f32_thresholds::wgmma_max_partials_bytes.

  /// The numbers of a slot's policy.
  const policy_numbers& operator[](slot s) const { return slots[int(s)]; }
};

/// The values of one entry.
template <class Entry>
tuning_values values_of() {
  tuning_values v;
  v.arch = Entry::arch;
  for_each_slot([&](auto s) { v.slots[int(decltype(s)::value)] = numbers_of<slot_policy_t<Entry, decltype(s)::value>>(); });
  v.narrow_extent = Entry::narrow_extent;
  v.tiny_extent = Entry::tiny_extent;
  v.pack_min_flops = Entry::pack_min_flops;
  v.layout_pack_flops = Entry::layout_pack_flops;
  v.layout_pack_min_extent = Entry::layout_pack_min_extent;
  v.pack_padding = Entry::pack_padding;
  v.pack_keeps_layout = Entry::pack_keeps_layout;
  v.max_partials_bytes = Entry::max_partials_bytes;
  using partials_entry = partials_entry_t<Entry>;
  if constexpr (!std::is_void<partials_entry>::value) {
    v.float_partials = true;
    v.float_partials_thin_only = Entry::float_partials_thin_only;
    for_each_slot([&](auto s) {
      v.partials_slots[int(decltype(s)::value)] = numbers_of<slot_policy_t<partials_entry, decltype(s)::value>>();
    });
  }
  static_assert(Entry::split_min_steps >= 1 && Entry::split_small_min_steps >= 1,
                "a tuning entry's split-K slices must be at least one block_k step deep");
  v.split_min_steps = Entry::split_min_steps;
  v.split_small_below = Entry::split_small_below;
  v.split_small_min_steps = Entry::split_small_min_steps;
  v.split_small_max_flops = Entry::split_small_max_flops;
  v.staged_c_min_elements = Entry::staged_c_min_elements;
  v.peel_speed = Entry::peel_speed;
  v.medium_speed = Entry::medium_speed;
  v.small_speed = Entry::small_speed;
  v.gemv = Entry::gemv;
  v.gemv_along_k_min_blocks = Entry::gemv_along_k_min_blocks;
  v.gemv_along_n_min_blocks = Entry::gemv_along_n_min_blocks;
  v.gemv_min_slice_k = Entry::gemv_min_slice_k;
  v.gemv_cluster_slices = Entry::gemv_cluster_slices;
  v.gemv_wide_cluster_slices = Entry::gemv_wide_cluster_slices;
  if constexpr (!std::is_void<typename Entry::wgmma>::value) {
    v.wgmma = numbers_of<typename Entry::wgmma>();
    v.wgmma_mn_major_a = Entry::wgmma::reads_mn_major_a;
    v.wgmma_mn_major_b = Entry::wgmma::reads_mn_major_b;
    v.wgmma_split_tf32 = Entry::wgmma::split;
    using partials = wgmma_partials_t<typename Entry::wgmma>;
    if constexpr (!std::is_void<partials>::value) v.wgmma_partials = numbers_of<partials>();
    if constexpr (!std::is_void<typename Entry::wgmma_fused>::value) {
      v.wgmma_fused = numbers_of<typename Entry::wgmma_fused>();
    }
    if constexpr (!std::is_void<typename Entry::wgmma_small>::value) {
      v.wgmma_small = numbers_of<typename Entry::wgmma_small>();
      using small_partials = wgmma_partials_t<typename Entry::wgmma_small>;
      if constexpr (!std::is_void<small_partials>::value) v.wgmma_small_partials = numbers_of<small_partials>();
    }
    if constexpr (!std::is_void<typename Entry::wgmma_batch>::value) {
      v.wgmma_batch = numbers_of<typename Entry::wgmma_batch>();
    }
  }
  v.wgmma_small_below_wave = Entry::wgmma_small_below_wave;
  v.wgmma_small_min_wave = Entry::wgmma_small_min_wave;
  v.wgmma_small_max_k = Entry::wgmma_small_max_k;
  v.wgmma_fused_pingpong_max_k = Entry::wgmma_fused_pingpong_max_k;
  v.wgmma_small_max_waves = Entry::wgmma_small_max_waves;
  v.wgmma_split_small = Entry::wgmma_split_small;
  v.wgmma_batch_small = Entry::wgmma_batch_small;
  v.wgmma_batch_tile_max_k = Entry::wgmma_batch_tile_max_k;
  v.wgmma_split_min_k = Entry::wgmma_split_min_k;
  v.wgmma_split_min_slice_k = Entry::wgmma_split_min_slice_k;
  v.wgmma_max_partials_bytes = Entry::wgmma_max_partials_bytes;
  v.wgmma_min_wave = Entry::wgmma_min_wave;
  v.wgmma_batch_min_use = Entry::wgmma_batch_min_use;
  v.wgmma_persistent = Entry::wgmma_persistent;
  v.wgmma_group_m = Entry::wgmma_group_m;
  v.wgmma_line_bytes = Entry::wgmma_line_bytes;
  return v;
}

/// The values of the entry of Chain that serves a runtime architecture (the same choice select_t makes).
template <class Chain>
tuning_values values_for(int arch) {
  return with_tuning<Chain>(arch, [](auto entry) { return values_of<decltype(entry)>(); });
}

}  // namespace tgemm::tuning
