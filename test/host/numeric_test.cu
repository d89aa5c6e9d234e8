// tgemm::convert's 16-bit conversions (numeric.cuh does them on the bits, without <cuda_fp16.h>) against CUDA's own
// host conversions: every binary16 and bfloat16 pattern to float, and float to both on every exponent and sign with
// the mantissa patterns that decide rounding (ties, one either side of a tie, carries into the exponent). The
// device side of convert is one cvt instruction, the one CUDA's intrinsics use; test/gpu/tensorop_test.cu
// compares it on the GPU.
#include "catch.hpp"
#include "element_values.hpp"

#include <tgemm/numeric.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using tgemm::detail::float_of_bits;

/// The 16-bit element with these bits.
template <class T>
T from_bits16(uint32_t bits) {
  return tgemm::detail::from_bits<T>(uint16_t(bits));
}

/// A 16-bit element's bits.
template <class T>
uint16_t bits16(T x) {
  return uint16_t(tgemm::test::bits_of(x));
}

}  // namespace

TEST_CASE("convert: every binary16 and bfloat16 value widens to float exactly", "[numeric]") {
  int mismatches = 0;
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const auto h = from_bits16<__half>(uint16_t(bits));
    const auto b = from_bits16<__nv_bfloat16>(uint16_t(bits));
    const float h_ours = tgemm::convert<float>(h), h_cuda = __half2float(h);
    const float b_ours = tgemm::convert<float>(b), b_cuda = __bfloat162float(b);
    const bool h_ok = std::isnan(h_cuda) ? std::isnan(h_ours) : std::memcmp(&h_ours, &h_cuda, sizeof h_ours) == 0;
    const bool b_ok = std::isnan(b_cuda) ? std::isnan(b_ours) : std::memcmp(&b_ours, &b_cuda, sizeof b_ours) == 0;
    if (!h_ok || !b_ok) {
      if (++mismatches <= 8) FAIL_CHECK("pattern 0x" << std::hex << bits << ": half " << h_ours << " vs " << h_cuda
                                                   << ", bfloat16 " << b_ours << " vs " << b_cuda);
    }
  }
  CHECK(mismatches == 0);
  // double goes the same way (through float, exactly).
  CHECK(tgemm::convert<double>(from_bits16<__half>(0x3c01)) == 1.0 + std::ldexp(1.0, -10));
  CHECK(tgemm::convert<double>(from_bits16<__nv_bfloat16>(0x0001)) == std::ldexp(1.0, -133));
}

TEST_CASE("convert: float rounds to binary16 and bfloat16 to nearest even, bit for bit as CUDA", "[numeric]") {
  const std::vector<uint32_t> patterns = tgemm::test::rounding_patterns();
  REQUIRE(patterns.size() > 3'000'000);
  int mismatches = 0;
  for (uint32_t pattern : patterns) {
    const float x = float_of_bits(pattern);
    const uint16_t h_ours = bits16(tgemm::convert<__half>(x)), h_cuda = bits16(__float2half_rn(x));
    const uint16_t b_ours = bits16(tgemm::convert<__nv_bfloat16>(x)), b_cuda = bits16(__float2bfloat16_rn(x));
    if (h_ours != h_cuda || b_ours != b_cuda) {
      if (++mismatches <= 8) FAIL_CHECK("float 0x" << std::hex << pattern << ": half 0x" << h_ours << " vs 0x" << h_cuda
                                                 << ", bfloat16 0x" << b_ours << " vs 0x" << b_cuda);
    }
  }
  CHECK(mismatches == 0);
  // A double is rounded to float first; values that float holds exactly convert as floats do.
  CHECK(bits16(tgemm::convert<__half>(65504.0)) == 0x7bff);
  CHECK(bits16(tgemm::convert<__half>(-65520.0)) == 0xfc00);
  CHECK(bits16(tgemm::convert<__nv_bfloat16>(1.0 + std::ldexp(1.0, -8))) == 0x3f80);  // a tie, to even
  CHECK(bits16(tgemm::convert<__nv_bfloat16>(1.0 + 3 * std::ldexp(1.0, -8))) == 0x3f82);  // a tie, to even
}
