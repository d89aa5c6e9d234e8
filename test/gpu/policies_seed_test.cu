// The tutorial's progression, each rung checked on every order, op pair, shape class and alpha/beta case.
#include "policy_sweep.hpp"

TEST_CASE("seed policies match the float64 reference", "[gpu][policy]") {
  const auto paths = tgemm::test::policy_paths("seed::", false);
  REQUIRE(paths.size() == 5);  // naive, shared_tiled, register_blocked, vectorized, double_buffered
  for (const auto& path : paths) {
    DYNAMIC_SECTION(path.name) { tgemm::test::sweep_policy(path); }
  }
}
