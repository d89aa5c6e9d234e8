// The tutorial's progression, each rung checked on every order, op pair, shape class and alpha/beta case.
#include "policy_sweep.hpp"

using seed_policies = std::tuple<tgemm::seed::naive, tgemm::seed::shared_tiled, tgemm::seed::register_blocked,
                                 tgemm::seed::vectorized, tgemm::seed::double_buffered>;

TEMPLATE_LIST_TEST_CASE("seed policies match the float64 reference", "[gpu][policy]", seed_policies) {
  tgemm::test::sweep_policy<TestType>();
}
