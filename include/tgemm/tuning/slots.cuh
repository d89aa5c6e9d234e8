/// \file tuning/slots.cuh
/// \brief The policy slots of a tuning entry: the one list of them, and what is generated from it.
///
/// A tuning entry (one per architecture, see tuning/simt_f32.cuh) names one policy per slot, each for one class
/// of problem. TGEMM_TUNING_SLOTS is the only place the slots are listed: the enumeration, the names, the
/// entry-member lookup, the kernels the dispatcher compiles and the tests' sweep of shipped policies all come
/// from it. A new slot is one line here plus a member in every entry.
#pragma once

#include <type_traits>
#include <utility>

/// X(name, purpose) for each policy slot of a tuning entry, in the order of tgemm::tuning::slot.
#define TGEMM_TUNING_SLOTS(X)                                                                               \
  X(general, "large problems, op(A) read along m")                                                          \
  X(general_tn, "large problems, op(A) and B read along k (both staged through registers)")               \
  X(general_tt, "large problems, op(A) read along k and B along n")                                        \
  X(medium, "problems whose large tiles would leave multiprocessors idle (split-K applies on top)")        \
  X(small, "problems too small to fill the GPU with the larger tiles")                                     \
  X(narrow_m, "tiny_extent < m <= narrow_extent")                                                          \
  X(narrow_n, "tiny_extent < n <= narrow_extent")                                                          \
  X(tiny_m, "m <= tiny_extent")                                                                             \
  X(tiny_n, "n <= tiny_extent")                                                                             \
  X(unaligned, "misaligned operands of problems too small to be worth repacking (scalar loads)")          \
  X(products, "batches of products no larger than its tile, run together in one grid")

namespace tgemm::tuning {

/// A policy slot of a tuning entry (see TGEMM_TUNING_SLOTS).
enum class slot : int {
#define TGEMM_SLOT_ENUMERATOR(name, purpose) name,
  TGEMM_TUNING_SLOTS(TGEMM_SLOT_ENUMERATOR)
#undef TGEMM_SLOT_ENUMERATOR
};

/// How many slots an entry has.
inline constexpr int slot_count = 0
#define TGEMM_SLOT_COUNT(name, purpose) +1
    TGEMM_TUNING_SLOTS(TGEMM_SLOT_COUNT)
#undef TGEMM_SLOT_COUNT
    ;

/// The slot's name, e.g. "general_tn".
constexpr const char* to_string(slot s) {
  switch (s) {
#define TGEMM_SLOT_NAME(name, purpose) \
  case slot::name:                     \
    return #name;
    TGEMM_TUNING_SLOTS(TGEMM_SLOT_NAME)
#undef TGEMM_SLOT_NAME
  }
  return "invalid slot";
}

/// True for the slots of thin problems (at most narrow_extent rows or columns).
constexpr bool is_thin(slot s) {
  return s == slot::narrow_m || s == slot::narrow_n || s == slot::tiny_m || s == slot::tiny_n;
}

/// What the slot is for, in a few words.
constexpr const char* purpose(slot s) {
  switch (s) {
#define TGEMM_SLOT_PURPOSE(name, text) \
  case slot::name:                     \
    return text;
    TGEMM_TUNING_SLOTS(TGEMM_SLOT_PURPOSE)
#undef TGEMM_SLOT_PURPOSE
  }
  return "";
}

/// The policy an entry names for a slot: slot_policy_t<sm90, slot::medium> is sm90::medium.
template <class Entry, slot Slot>
struct slot_policy;
#define TGEMM_SLOT_POLICY(name, purpose)         \
  template <class Entry>                         \
  struct slot_policy<Entry, slot::name> {        \
    using type = typename Entry::name;           \
  };
TGEMM_TUNING_SLOTS(TGEMM_SLOT_POLICY)
#undef TGEMM_SLOT_POLICY

/// Shorthand for slot_policy<Entry, Slot>::type.
template <class Entry, slot Slot>
using slot_policy_t = typename slot_policy<Entry, Slot>::type;

namespace detail {
template <class F, int... I>
constexpr void for_each_slot(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<slot, slot(I)>{}), ...);
}
}  // namespace detail

/// Calls f(std::integral_constant<slot, S>{}) for every slot, in order.
template <class F>
constexpr void for_each_slot(F&& f) {
  detail::for_each_slot(f, std::make_integer_sequence<int, slot_count>{});
}

}  // namespace tgemm::tuning
