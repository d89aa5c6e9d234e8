/// \file numeric.cuh
/// \brief Element types: what every layer needs to know about the numbers it moves (name, size, conversion).
///
/// The layers take their element types from the policy (policy::element_type, policy::accumulator_type) and ask
/// this header about them, so that adding a type means adding a specialisation here, not editing every layer.
#pragma once

#include <type_traits>

namespace tgemm {

/// What tgemm knows about an element type. The primary template is incomplete on purpose: using an element type
/// tgemm does not know stops at the static_assert of tgemm::is_element.
template <class T>
struct element_traits;

/// IEEE-754 binary32.
template <>
struct element_traits<float> {
  /// The name used in messages, policy names and printed plans.
  static constexpr const char* name = "float";
  /// The short tag used in policy names ("f32").
  static constexpr const char* tag = "f32";
};

/// IEEE-754 binary64.
template <>
struct element_traits<double> {
  /// The name used in messages, policy names and printed plans.
  static constexpr const char* name = "double";
  /// The short tag used in policy names ("f64").
  static constexpr const char* tag = "f64";
};

namespace detail {
template <class T, class = void>
struct is_element_impl : std::false_type {};
template <class T>
struct is_element_impl<T, std::void_t<decltype(element_traits<T>::name)>> : std::true_type {};
}  // namespace detail

/// True for the element types tgemm knows (those with an element_traits specialisation).
template <class T>
inline constexpr bool is_element = detail::is_element_impl<T>::value;

/// Converts an accumulated value to an element of C: a plain conversion, rounded to nearest.
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From value) {
  return static_cast<To>(value);
}

}  // namespace tgemm
