// The error bounds of the tensor-core and batched tests, per element type and math mode (see test/gpu/tensorop_test.cu's
// file comment for the derivation), and the input values they hold for.
#pragma once

#include <tgemm/types.cuh>

#include "element_values.hpp"
#include "reference.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tgemm::test {

/// An input element from two random floats: the first rounded to T, or for double the first plus a scaled second,
/// so that all 53 bits of the significand vary (float-valued doubles would make every product exact).
template <class T>
T input_value(float x, float low) {
  if constexpr (std::is_same<T, double>::value) return double(x) + std::ldexp(double(low), -26);
  (void)low;
  return from_float<T>(x);
}

/// The accumulation's error per unit of magnitude: (k + 4) 2^-23 for float accumulation, (k + 4) 2^-52 for double.
template <class T>
double accumulation_factor(int64_t k) {
  if constexpr (std::is_same<T, double>::value) return double(k + 4) * std::ldexp(1.0, -52);
  return error_factor(k);
}

/// The inputs' rounding per unit of magnitude: TF32 rounds both inputs (2u + u^2, u = 2^-11); 3xTF32 keeps about
/// 22 bits (4 2^-22); strict math rounds nothing.
inline double input_factor(math_mode math) {
  const double tf32_u = std::ldexp(1.0, -11);
  return math == math_mode::tf32 ? 2 * tf32_u + tf32_u * tf32_u : math == math_mode::tf32x3 ? 4 * std::ldexp(1.0, -22) : 0.0;
}

/// Half the smallest subnormal of C's type: an absolute floor for results that underflow (k = 0 with beta = 0.5
/// halves a subnormal C, which then rounds to even).
template <class T>
double underflow_floor() {
  if constexpr (std::is_same<T, __half>::value) return std::ldexp(1.0, -25);
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return std::ldexp(1.0, -134);
  if constexpr (std::is_same<T, double>::value) return std::ldexp(1.0, -1074);
  return std::ldexp(1.0, -150);
}

/// Unit roundoff of C's final rounding (0 for float and double: the accumulation bound covers it).
template <class T>
double output_roundoff() {
  if constexpr (std::is_same<T, __half>::value) return std::ldexp(1.0, -11);
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return std::ldexp(1.0, -8);
  return 0.0;
}

}  // namespace tgemm::test
