/// \file host/tuning_hook.cuh
/// \brief A hook on the tuning values a call is planned with, for benchmarks that weigh another threshold without
/// recompiling (bench/tgemm_bench_sweep.cu). Not for applications: tuning numbers belong in the tuning files, where
/// each says what it was measured on.
#pragma once

#include <optional>

#include "../tuning/selector.cuh"

namespace tgemm::detail {

/// What a hook is given: the values the call would be planned with (the device's tuning entry), to change in place,
/// and the call's element types (element_traits<T>::name: "float", "bfloat16", ...).
using tuning_hook_function = void (*)(tuning::tuning_values& values, const char* element_a, const char* element_c);

/// The hook that the plans of tgemm::gemm() and gemm_strided_batched(), and the tile choice of gemm_batched() and
/// gemm_grouped_device(), consult (null: none). Set it before the calls it should see, from one thread. Outside the
/// dispatcher's namespaces, so that header-only and compiled translation units of one program share it.
inline tuning_hook_function& tuning_hook() {
  static tuning_hook_function hook = nullptr;
  return hook;
}

/// Lets the hook, where one is set, change `values` (a call's own copy of them) in place.
inline void apply_tuning_hook(tuning::tuning_values& values, const char* element_a, const char* element_c) {
  if (const tuning_hook_function hook = tuning_hook(); hook != nullptr) hook(values, element_a, element_c);
}

/// `values` where no hook is set; else a copy of them in `adjusted`, changed by the hook (so that a call without one
/// copies nothing).
inline const tuning::tuning_values& hooked_values(const tuning::tuning_values& values, const char* element_a,
                                                  const char* element_c,
                                                  std::optional<tuning::tuning_values>& adjusted) {
  const tuning_hook_function hook = tuning_hook();
  if (hook == nullptr) return values;
  adjusted.emplace(values);
  hook(*adjusted, element_a, element_c);
  return *adjusted;
}

}  // namespace tgemm::detail
