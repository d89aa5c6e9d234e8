// The list of distinct policies tgemm ships, and the instantiation of launch<P>() / can_implement<P>() for them.
// Included only by paths_part*.cu: each instantiates the policies of its part, so their kernels compile in
// parallel and only once for every reliability executable.
#pragma once

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

/// List with T appended unless it is already there (or is void: a member the tuning entry does not have).
template <class List, class T>
struct push_unique;
template <class... Ts, class T>
struct push_unique<type_list<Ts...>, T> {
  using type = std::conditional_t<(std::is_same<T, Ts>::value || ...), type_list<Ts...>, type_list<Ts..., T>>;
};
template <class... Ts>
struct push_unique<type_list<Ts...>, void> {
  using type = type_list<Ts...>;
};
template <class List, class T>
using push_unique_t = typename push_unique<List, T>::type;

// Entry::member, or void when a tuning entry has no such member. Every member name that tuning.cuh's entries
// use for a policy is listed here; a new one must be added (policies_listed below checks the known ones).
#define TGEMM_RELIABILITY_POLICY_MEMBER(member)                                 \
  template <class Entry, class = void>                                          \
  struct member##_of {                                                          \
    using type = void;                                                          \
  };                                                                            \
  template <class Entry>                                                        \
  struct member##_of<Entry, std::void_t<typename Entry::member>> {              \
    using type = typename Entry::member;                                        \
  };
TGEMM_RELIABILITY_POLICY_MEMBER(general)
TGEMM_RELIABILITY_POLICY_MEMBER(medium)
TGEMM_RELIABILITY_POLICY_MEMBER(narrow_m)
TGEMM_RELIABILITY_POLICY_MEMBER(narrow_n)
TGEMM_RELIABILITY_POLICY_MEMBER(tiny_m)
TGEMM_RELIABILITY_POLICY_MEMBER(tiny_n)
TGEMM_RELIABILITY_POLICY_MEMBER(unaligned)
TGEMM_RELIABILITY_POLICY_MEMBER(general_tn)
TGEMM_RELIABILITY_POLICY_MEMBER(general_tt)
TGEMM_RELIABILITY_POLICY_MEMBER(small)
#undef TGEMM_RELIABILITY_POLICY_MEMBER

/// Appends every policy of a tuning chain (newest entry first) to List, skipping types already present.
template <class Chain, class List>
struct chain_policies {
  using with_entry = push_unique_t<
      push_unique_t<push_unique_t<push_unique_t<push_unique_t<List, typename general_of<Chain>::type>,
                                                typename medium_of<Chain>::type>,
                                  typename narrow_m_of<Chain>::type>,
                    typename narrow_n_of<Chain>::type>,
      typename unaligned_of<Chain>::type>;
  using with_large = push_unique_t<push_unique_t<push_unique_t<with_entry, typename general_tn_of<Chain>::type>,
                                                 typename general_tt_of<Chain>::type>,
                                   typename small_of<Chain>::type>;
  using with_tiny = push_unique_t<push_unique_t<with_large, typename tiny_m_of<Chain>::type>,
                                  typename tiny_n_of<Chain>::type>;
  using type = typename chain_policies<typename Chain::previous, with_tiny>::type;
};
template <class List>
struct chain_policies<void, List> {
  using type = List;
};

/// The seed rungs, then every tuning entry's policies: each distinct type once.
using shipped_policies =
    typename chain_policies<tuning::default_chain,
                            type_list<seed::naive, seed::shared_tiled, seed::register_blocked, seed::vectorized,
                                      seed::double_buffered>>::type;

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
      add(std::is_same<Policy, typename general_of<Chain>::type>::value, entry + "general");
      add(std::is_same<Policy, typename medium_of<Chain>::type>::value, entry + "medium");
      add(std::is_same<Policy, typename narrow_m_of<Chain>::type>::value, entry + "narrow_m");
      add(std::is_same<Policy, typename narrow_n_of<Chain>::type>::value, entry + "narrow_n");
      add(std::is_same<Policy, typename unaligned_of<Chain>::type>::value, entry + "unaligned");
      add(std::is_same<Policy, typename general_tn_of<Chain>::type>::value, entry + "general_tn");
      add(std::is_same<Policy, typename general_tt_of<Chain>::type>::value, entry + "general_tt");
      add(std::is_same<Policy, typename small_of<Chain>::type>::value, entry + "small");
      add(std::is_same<Policy, typename tiny_m_of<Chain>::type>::value, entry + "tiny_m");
      add(std::is_same<Policy, typename tiny_n_of<Chain>::type>::value, entry + "tiny_n");
      add_chain<typename Chain::previous>();
    }
  }
  policy_label() {
    add(std::is_same<Policy, seed::naive>::value, "seed::naive");
    add(std::is_same<Policy, seed::shared_tiled>::value, "seed::shared_tiled");
    add(std::is_same<Policy, seed::register_blocked>::value, "seed::register_blocked");
    add(std::is_same<Policy, seed::vectorized>::value, "seed::vectorized");
    add(std::is_same<Policy, seed::double_buffered>::value, "seed::double_buffered");
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
