/// \file numeric.cuh
/// \brief Element types: what every layer needs to know about the numbers it moves (name, size, conversion).
///
/// The layers take their element types from the policy (element_a, element_b, element_c, scalar_type, accumulator_type) and ask
/// this header about them, so that adding a type means adding a specialisation here, not editing every layer.
#pragma once

namespace tgemm {

/// What tgemm knows about an element type. The primary template is incomplete on purpose: reading the traits of a
/// type tgemm does not know stops the build (and each policy's static_assert names the element types it accepts).
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

/// Converts an accumulated value to an element of C: a plain conversion, rounded to nearest.
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From value) {
  return static_cast<To>(value);
}

}  // namespace tgemm
