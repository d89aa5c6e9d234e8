// Element values every tensor-core test needs, for each element type tgemm multiplies (float, double, __half,
// __nv_bfloat16): conversions to and from the host's float and double, bit-exact comparison, and a sentinel.
#pragma once

#include <tgemm/numeric.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace tgemm::test {

/// x rounded once to T (float and double values convert exactly where they fit).
template <class T>
T from_float(float x) {
  return tgemm::convert<T>(x);
}

/// The value of x as a double (exact for every element type).
template <class T>
double to_double(T x) {
  if constexpr (std::is_same<T, double>::value) {
    return x;
  } else {
    return double(float(x));
  }
}

/// x's bits, zero-extended to 64.
template <class T>
uint64_t bits_of(T x) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "bits_of reads at most 64 bits");
  uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof x);
  return bits;
}

/// True when a and b have the same bits (NaN patterns included).
template <class T>
bool same_bits(T a, T b) {
  return bits_of(a) == bits_of(b);
}

/// How many elements of two equally long vectors differ in their bits (the whole of the longer one when they do not
/// match in length).
template <class T>
int64_t differing_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return int64_t(std::max(a.size(), b.size()));
  int64_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ += !same_bits(a[i], b[i]);
  return differ;
}

/// A NaN pattern of T that no kernel produces: what tests put around and in C's padding, to see that it comes back
/// bit for bit.
template <class T>
T sentinel() {
  if constexpr (std::is_same<T, __half>::value) {
    __half_raw raw;
    raw.x = 0x7da5;
    return __half(raw);
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    __nv_bfloat16_raw raw;
    raw.x = 0x7fa5;
    return __nv_bfloat16(raw);
  } else if constexpr (std::is_same<T, double>::value) {
    const uint64_t bits = 0x7ff5a5a5a5a5a5a5ull;
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  } else {
    static_assert(std::is_same<T, float>::value, "sentinel<T>: T is float, double, __half or __nv_bfloat16");
    const uint32_t bits = 0x7fa5a5a5u;
    float x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
  }
}

/// Float bit patterns that decide rounding to the 16-bit types: every sign and exponent (the high 16 bits) with the
/// low bits at each multiple of 2^12 and one either side (the ties of binary16's 13 dropped bits and of its
/// subnormals' 14-24, and their neighbours). 3.1 million patterns.
inline std::vector<uint32_t> rounding_patterns() {
  std::vector<uint32_t> patterns;
  patterns.reserve(size_t(0x10000) * 48);
  for (uint32_t high = 0; high < 0x10000u; ++high) {
    for (uint32_t k = 0; k < 16; ++k) {
      const uint32_t low = k << 12;
      patterns.push_back(high << 16 | low);
      patterns.push_back(high << 16 | (low + 1));
      patterns.push_back(high << 16 | ((low - 1) & 0xffffu));
    }
  }
  return patterns;
}

}  // namespace tgemm::test
