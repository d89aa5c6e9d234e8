// Every architecture's default policies (run here on whatever GPU is present: a policy is plain CUDA and runs on
// any architecture the build targets) and the test-only corner policies. sm75::general and sm86::{general,
// unaligned, narrow_*} are the same types as seed::double_buffered and sm75's, sm90's narrow and small policies
// are sm80's, every entry's tiny_* are the shared tiny_*_policy, and before sm_90 general_tn and general_tt are
// general, so each type is swept once.
#include "policy_sweep.hpp"

#include <type_traits>

static_assert(std::is_same<tgemm::tuning::sm75::general, tgemm::seed::double_buffered>::value &&
                  std::is_same<tgemm::tuning::sm86::general, tgemm::tuning::sm75::general>::value &&
                  std::is_same<tgemm::tuning::sm86::unaligned, tgemm::tuning::sm75::unaligned>::value &&
                  std::is_same<tgemm::tuning::sm86::narrow_m, tgemm::tuning::sm75::narrow_m>::value &&
                  std::is_same<tgemm::tuning::sm90::narrow_n, tgemm::tuning::sm80::narrow_n>::value &&
                  std::is_same<tgemm::tuning::sm90::tiny_m, tgemm::tuning::tiny_m_policy>::value &&
                  std::is_same<tgemm::tuning::sm75::tiny_n, tgemm::tuning::tiny_n_policy>::value &&
                  std::is_same<tgemm::tuning::sm80::medium, tgemm::tuning::sm80::general>::value &&
                  std::is_same<tgemm::tuning::sm90::small, tgemm::tuning::sm80::small>::value &&
                  std::is_same<tgemm::tuning::sm86::general_tt, tgemm::tuning::sm86::general>::value,
              "a default policy changed: add it to the sweep below");

namespace tuning = tgemm::tuning;
using tuned_policies =
    std::tuple<tuning::sm75::unaligned, tuning::sm75::narrow_m, tuning::sm75::narrow_n, tuning::sm80::general,
               tuning::sm80::unaligned, tuning::sm80::narrow_m, tuning::sm80::narrow_n, tuning::sm90::general,
               tuning::sm90::medium, tuning::sm90::unaligned, tuning::sm90::general_tn, tuning::sm90::general_tt,
               tuning::sm75::small, tuning::sm80::small, tuning::sm86::small, tuning::tiny_m_policy,
               tuning::tiny_n_policy,
               tgemm::test::double_accumulator, tgemm::test::deep_pipeline, tgemm::test::narrow_fragments>;

TEMPLATE_LIST_TEST_CASE("tuned and corner policies match the float64 reference", "[gpu][policy]", tuned_policies) {
  tgemm::test::sweep_policy<TestType>();
}
