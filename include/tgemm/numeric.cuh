/// \file numeric.cuh
/// \brief Element types: what every layer needs to know about the numbers it moves (name, size, conversion).
///
/// The layers take their element types from the policy (element_a, element_b, element_c, scalar_type, accumulator_type) and ask
/// this header about them, so that adding a type means adding a specialisation here, not editing every layer.
///
/// CUDA's 16-bit types are only declared here, not defined: `<cuda_fp16.h>` and `<cuda_bf16.h>` cost about 0.9 s
/// of every translation unit that includes them, and a compiled-mode caller of float gemm() needs neither. The
/// conversions below work on the types' bits, so tgemm's templates need the complete types only where they are
/// instantiated for them: the dispatcher's definitions include both headers (host/dispatcher.cuh), and code that
/// computes with `__half` or `__nv_bfloat16` includes them as it would for any CUDA type.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

/// IEEE-754 binary16, defined by `<cuda_fp16.h>` (declared here as CUDA declares it).
struct __half;
/// bfloat16, defined by `<cuda_bf16.h>` (declared here as CUDA declares it).
struct __nv_bfloat16;

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

/// sizeof(T) for an element type, also while a 16-bit type is only declared (policies and host checks need the
/// size, not the type's definition).
template <class T>
inline constexpr int element_bytes = int(sizeof(T));
/// binary16: two bytes.
template <>
inline constexpr int element_bytes<__half> = 2;
/// bfloat16: two bytes.
template <>
inline constexpr int element_bytes<__nv_bfloat16> = 2;

/// x where it is finite, else 0. 3xTF32 adds the sum of its cross products (big x small parts) to the big products'
/// sum through this: an infinite input has a NaN small part (Inf - Inf), so that sum is non-finite only for
/// non-finite inputs, which the big sum already carries as FP32 would (Inf, or NaN for Inf * 0 and NaN inputs).
/// Used by the mma.sync mainloop and the Hopper kernel's epilogues alike.
__host__ __device__ __forceinline__ float finite_or_zero(float x) { return fabsf(x) <= 3.402823466e38f ? x : 0.0f; }

namespace detail {

/// The float's bits.
__host__ __device__ __forceinline__ std::uint32_t bits_of_float(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}

/// The float with these bits.
__host__ __device__ __forceinline__ float float_of_bits(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

/// float to binary16, rounded to nearest even; NaN becomes the canonical 0x7fff (as CUDA's __float2half_rn).
__host__ __device__ __forceinline__ std::uint16_t float_to_half_bits(float f) {
#if defined(__CUDA_ARCH__)
  std::uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  const std::uint32_t x = bits_of_float(f);
  const auto sign = std::uint16_t((x >> 16) & 0x8000u);
  const std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return 0x7fff;                // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;       // 65520 and above (ties to even) round to infinity
  if (magnitude >= 0x38800000u) {                            // 2^-14 and above: a normal half
    const std::uint32_t rebiased = magnitude - 0x38000000u;  // exponent bias 127 -> 15
    return sign | std::uint16_t((rebiased + 0xfffu + ((rebiased >> 13) & 1u)) >> 13);  // a carry bumps the exponent
  }
  if (magnitude <= 0x33000000u) return sign;                 // 2^-25 and below: zero (2^-25 is a tie, to even)
  const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  const int shift = 126 - int(magnitude >> 23);               // to units of 2^-24, the half subnormal step: 14..24
  const std::uint32_t quotient = significand >> shift;
  const std::uint32_t rest = significand & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1);
  return sign | std::uint16_t(quotient + (rest > halfway || (rest == halfway && (quotient & 1u))));
#endif
}

/// binary16 to float (exact).
__host__ __device__ __forceinline__ float half_bits_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return float_of_bits(sign | 0x7f800000u | (mantissa << 13));  // Inf, NaN (payload kept)
  if (exponent != 0) return float_of_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  const float subnormal = float(mantissa) * 5.9604644775390625e-8f;  // mantissa x 2^-24, exact
  return sign ? -subnormal : subnormal;
#endif
}

/// float to bfloat16, rounded to nearest even; NaN becomes the canonical 0x7fff (as CUDA's __float2bfloat16_rn).
__host__ __device__ __forceinline__ std::uint16_t float_to_bfloat16_bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint16_t b;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
  return b;
#else
  const std::uint32_t x = bits_of_float(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fff;  // NaN
  return std::uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
#endif
}

/// bfloat16 to float (exact).
__host__ __device__ __forceinline__ float bfloat16_bits_to_float(std::uint16_t b) {
  return float_of_bits(std::uint32_t(b) << 16);
}

/// A 16-bit element's bits (T complete where this is instantiated).
template <class T>
__host__ __device__ __forceinline__ std::uint16_t bits_of(const T& value) {
  static_assert(sizeof(T) == 2, "a 16-bit element type is two bytes");
  std::uint16_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// The 16-bit element with these bits (T complete where this is instantiated).
template <class T>
__host__ __device__ __forceinline__ T from_bits(std::uint16_t bits) {
  static_assert(sizeof(T) == 2, "a 16-bit element type is two bytes");
  T value;
  std::memcpy(static_cast<void*>(&value), &bits, sizeof bits);  // void*: the 16-bit types' members are protected
  return value;
}

}  // namespace detail

/// +0 of an element type; for the 16-bit types made from its bits, so that it needs neither their conversion
/// constructors (PyTorch's extensions build with -D__CUDA_NO_HALF_CONVERSIONS__, which removes them) nor an
/// instruction.
template <class T>
__host__ __device__ __forceinline__ T zero() {
  if constexpr (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value) {
    return detail::from_bits<T>(0);
  } else {
    return T(0);
  }
}

/// Converts between element, scalar and accumulator types: a plain conversion, rounded to nearest (even). A
/// conversion to a 16-bit type goes through float (a double is rounded to float first); one from a 16-bit type is
/// exact.
template <class To, class From>
__host__ __device__ __forceinline__ To convert(From value) {
  if constexpr (std::is_same<To, From>::value) {
    return value;
  } else if constexpr (std::is_same<From, __half>::value) {
    return convert<To>(detail::half_bits_to_float(detail::bits_of(value)));
  } else if constexpr (std::is_same<From, __nv_bfloat16>::value) {
    return convert<To>(detail::bfloat16_bits_to_float(detail::bits_of(value)));
  } else if constexpr (std::is_same<To, __half>::value) {
    return detail::from_bits<To>(detail::float_to_half_bits(float(value)));
  } else if constexpr (std::is_same<To, __nv_bfloat16>::value) {
    return detail::from_bits<To>(detail::float_to_bfloat16_bits(float(value)));
  } else {
    return static_cast<To>(value);
  }
}

/// Two floats as two 16-bit elements of type T (__half or __nv_bfloat16) in one 32-bit word, rounded to nearest
/// (even): `low` in the low half (the lower address), `high` in the high half. One instruction on sm_80 and newer.
template <class T>
__host__ __device__ __forceinline__ std::uint32_t pack_pair(float low, float high) {
  static_assert(std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value,
                "pack_pair packs __half or __nv_bfloat16 elements");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint32_t word;  // cvt's first source goes to the upper half
  if constexpr (std::is_same<T, __half>::value) {
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(word) : "f"(high), "f"(low));
  } else {
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(word) : "f"(high), "f"(low));
  }
  return word;
#else
  if constexpr (std::is_same<T, __half>::value) {
    return std::uint32_t(detail::float_to_half_bits(low)) | (std::uint32_t(detail::float_to_half_bits(high)) << 16);
  } else {
    return std::uint32_t(detail::float_to_bfloat16_bits(low)) |
           (std::uint32_t(detail::float_to_bfloat16_bits(high)) << 16);
  }
#endif
}

}  // namespace tgemm
