// splitmix64, the counter-based generator of tgemm's tests and benchmarks wherever a value must be a pure function of
// (seed, index) or a case a pure function of (seed, case number): the same numbers on the host and in kernels, so that
// a seed replays a run and a host check can recompute an operand a kernel generated.
#pragma once

#include <cuda_runtime.h>  // __host__ __device__

#include <cmath>
#include <cstdint>

namespace tgemm::test {

/// splitmix64's increment (the golden ratio as a 64-bit fraction).
inline constexpr uint64_t splitmix64_gamma = 0x9e3779b97f4a7c15ull;

/// splitmix64's output function of a state that was just incremented.
__host__ __device__ constexpr uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 64 random bits as a float in [-1, 1), a multiple of 2^-23 (so exact in float): their top 24 bits.
__host__ __device__ constexpr float unit_float(uint64_t bits) {
  return float(int64_t(bits >> 40) - (int64_t(1) << 23)) * (1.0f / float(1 << 23));
}

/// Element `index` of the stream `seed`: unit_float of splitmix64 at state seed + (index + 1) gamma.
__host__ __device__ constexpr float hashed_unit(uint64_t seed, uint64_t index) {
  return unit_float(splitmix64_mix(seed + (index + 1) * splitmix64_gamma));
}

/// A sequential splitmix64 generator and the draws the differential tests make of it.
struct splitmix_rng {
  uint64_t state;  ///< The generator's state; any value seeds it.

  /// The next 64 random bits.
  uint64_t next() { return splitmix64_mix(state += splitmix64_gamma); }
  /// Uniform in [0, n), n > 0.
  int64_t below(int64_t n) { return int64_t(next() % uint64_t(n)); }
  /// Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  /// Uniform in [0, 1), a multiple of 2^-53.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// True with probability p.
  bool chance(double p) { return uniform() < p; }
  /// Uniform in [-1, 1), a multiple of 2^-23: exact in float.
  float unit() { return unit_float(next()); }
  /// Uniform in [-1, 1), a multiple of 2^-52: all of a double's significand.
  double unit53() { return double(int64_t(next() >> 11) - (int64_t(1) << 52)) * 0x1.0p-52; }
  /// lo .. hi (lo >= 1), log-uniformly: as many 1-9 as 10-99.
  int64_t log_uniform(int64_t lo, int64_t hi) {
    const double x = double(lo) * std::exp(uniform() * std::log(double(hi + 1) / double(lo)));
    const int64_t v = int64_t(x);
    return v < lo ? lo : (v > hi ? hi : v);
  }
};

}  // namespace tgemm::test
