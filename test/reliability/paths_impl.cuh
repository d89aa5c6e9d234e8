// The list of distinct policies tgemm ships, and the instantiation of launch<P>() / can_implement<P>() for them.
// Included only by paths_part*.cu: each instantiates the policies of its part, so their kernels compile in
// parallel and only once for every reliability executable.
#pragma once

#include "corner_policies.hpp"
#include "paths.hpp"

#include <tgemm/gemm.cuh>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tgemm::reliability::detail {

template <class... T>
struct type_list {
  static constexpr std::size_t size = sizeof...(T);
};

/// List with T appended unless it is already there.
template <class List, class T>
struct push_unique;
template <class... Ts, class T>
struct push_unique<type_list<Ts...>, T> {
  using type = std::conditional_t<(std::is_same<T, Ts>::value || ...), type_list<Ts...>, type_list<Ts..., T>>;
};
template <class List, class T>
using push_unique_t = typename push_unique<List, T>::type;

/// List with every slot's policy of Entry appended, in slot order (tuning/slots.cuh lists the slots).
template <class Entry, class List, int Slot = 0>
struct entry_policies {
  using type = typename entry_policies<Entry, push_unique_t<List, tuning::slot_policy_t<Entry, tuning::slot(Slot)>>,
                                       Slot + 1>::type;
};
template <class Entry, class List>
struct entry_policies<Entry, List, tuning::slot_count> {
  using type = List;
};

/// Appends every policy of a tuning chain (newest entry first) to List, skipping types already present.
template <class Chain, class List>
struct chain_policies {
  using type = typename chain_policies<typename Chain::previous, typename entry_policies<Chain, List>::type>::type;
};
template <class List>
struct chain_policies<void, List> {
  using type = List;
};

/// The seed rungs, then every tuning entry's policies, then the tests' corner policies: each distinct type once.
using shipped_policies = typename chain_policies<
    tuning::default_chain, type_list<seed::naive, seed::shared_tiled, seed::register_blocked, seed::vectorized,
                                     seed::double_buffered, test::double_accumulator, test::deep_pipeline,
                                     test::narrow_fragments>>::type;

/// Every name a policy type has, e.g. "seed::double_buffered = sm86::general = sm75::general".
template <class Policy>
struct policy_label {
  std::string names;
  void add(bool same, const std::string& name) {
    if (same) names += (names.empty() ? "" : " = ") + name;
  }
  template <class Chain>
  void add_chain() {
    if constexpr (!std::is_void<Chain>::value) {
      const std::string entry = "sm" + std::to_string(Chain::arch / 10) + "::";
      tuning::for_each_slot([&](auto slot) {
        add(std::is_same<Policy, tuning::slot_policy_t<Chain, decltype(slot)::value>>::value,
            entry + tuning::to_string(decltype(slot)::value));
      });
      add_chain<typename Chain::previous>();
    }
  }
  policy_label() {
    add(std::is_same<Policy, seed::naive>::value, "seed::naive");
    add(std::is_same<Policy, seed::shared_tiled>::value, "seed::shared_tiled");
    add(std::is_same<Policy, seed::register_blocked>::value, "seed::register_blocked");
    add(std::is_same<Policy, seed::vectorized>::value, "seed::vectorized");
    add(std::is_same<Policy, seed::double_buffered>::value, "seed::double_buffered");
    add(std::is_same<Policy, test::double_accumulator>::value, "test::double_accumulator");
    add(std::is_same<Policy, test::deep_pipeline>::value, "test::deep_pipeline");
    add(std::is_same<Policy, test::narrow_fragments>::value, "test::narrow_fragments");
    add_chain<tuning::default_chain>();
  }
};

template <class Policy>
gemm_path make_path(int list_index) {
  gemm_path path;
  path.name = "launch<" + policy_label<Policy>().names + ">";
  path.policy_name = Policy::name();
  path.dispatcher = false;
  path.vector_width = Policy::vector_width;
  path.block_m = Policy::block_m;
  path.block_n = Policy::block_n;
  path.block_k = tuning::numbers_of<Policy>().block_k > 1 ? tuning::numbers_of<Policy>().block_k : 16;
  path.list_index = list_index;
  path.run = &tgemm::launch<Policy>;
  path.can_implement = &tgemm::can_implement<Policy>;
  return path;
}

// `if constexpr` keeps the kernels of other parts' policies out of this translation unit.
template <int Part, std::size_t Index, class Policy>
void add_if_in_part(std::vector<gemm_path>& out) {
  if constexpr (Index % path_parts == Part) out.push_back(make_path<Policy>(int(Index) + 1));
}

template <int Part, class... Policies, std::size_t... Index>
void add_part(std::vector<gemm_path>& out, type_list<Policies...>, std::index_sequence<Index...>) {
  (add_if_in_part<Part, Index, Policies>(out), ...);
}

}  // namespace tgemm::reliability::detail

namespace tgemm::reliability {

template <int Part>
void add_policy_paths(std::vector<gemm_path>& out) {
  static_assert(Part >= 0 && Part < path_parts, "no such part");
  detail::add_part<Part>(out, detail::shipped_policies{}, std::make_index_sequence<detail::shipped_policies::size>{});
}

}  // namespace tgemm::reliability
