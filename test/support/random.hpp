// Fresh random inputs for every run, from a seed printed once so that a failure can be replayed
// (TGEMM_TEST_SEED=<seed>).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace tgemm::test {

/// The run's seed: TGEMM_TEST_SEED when set, otherwise fresh from std::random_device. Printed on first use.
inline uint64_t run_seed() {
  static const uint64_t seed = [] {
    uint64_t s = 0;
    if (const char* text = std::getenv("TGEMM_TEST_SEED")) {
      s = std::strtoull(text, nullptr, 10);
    } else {
      std::random_device device;
      s = (uint64_t(device()) << 32) ^ device();
    }
    std::printf("random seed: %llu (replay with TGEMM_TEST_SEED=%llu)\n", (unsigned long long)s,
                (unsigned long long)s);
    return s;
  }();
  return seed;
}

/// The run's random engine.
inline std::mt19937_64& engine() {
  static std::mt19937_64 e(run_seed());
  return e;
}

/// `count` values uniform in [-1, 1): never all zero, never the same twice across runs.
inline std::vector<float> random_values(int64_t count) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> v(size_t(count > 0 ? count : 0));
  for (float& x : v) x = uniform(engine());
  return v;
}

/// A random float in [lo, hi).
inline float random_scalar(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(engine()); }

}  // namespace tgemm::test
