/// \file numeric.cuh
/// \brief Element types: what every layer needs to know about the numbers it moves (name, size, conversion).
///
/// The layers take their element types from the policy (element_a, element_b, element_c, scalar_type, accumulator_type) and ask
/// this header about them, so that adding a type means adding a specialisation here, not editing every layer.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

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

/// IEEE-754 binary16 (CUDA's __half): 10-bit significand, unit roundoff 2^-11.
template <>
struct element_traits<__half> {
  /// The name used in messages, policy names and printed plans.
  static constexpr const char* name = "half";
  /// The short tag used in policy names ("f16").
  static constexpr const char* tag = "f16";
};

/// bfloat16 (CUDA's __nv_bfloat16): float's exponent range, 7-bit significand, unit roundoff 2^-8.
template <>
struct element_traits<__nv_bfloat16> {
  /// The name used in messages, policy names and printed plans.
  static constexpr const char* name = "bfloat16";
  /// The short tag used in policy names ("bf16").
  static constexpr const char* tag = "bf16";
};

/// Converts an accumulated value to an element of C: a plain conversion, rounded to nearest.
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From value) {
  if constexpr (std::is_same<To, __half>::value) {
    return __float2half_rn(float(value));  // one rounding from float (a double is rounded to float first)
  } else if constexpr (std::is_same<To, __nv_bfloat16>::value) {
    return __float2bfloat16_rn(float(value));
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace tgemm
