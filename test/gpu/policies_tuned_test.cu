// Every architecture's default policies (run here on whatever GPU is present: a policy is plain CUDA and runs on
// any architecture the build targets) and the test-only corner policies (test/support/corner_policies.hpp): every
// distinct type of every slot of every tuning entry, as the reliability paths list them (built from the slot list,
// tuning/slots.cuh), each swept once. Then a policy of double elements.
#include "policy_sweep.hpp"

#include <set>
#include <type_traits>

TEST_CASE("tuned and corner policies match the float64 reference", "[gpu][policy]") {
  const auto paths = tgemm::test::policy_paths("seed::", true);
  // Every slot of every entry is some path: the sweep covers what the tuning tables ship.
  std::set<std::string> swept;
  for (const auto& path : paths) swept.insert(path.policy_name);
  for (const auto& path : tgemm::test::policy_paths("seed::", false)) swept.insert(path.policy_name);
  int slots = 0;
  for (int arch : {750, 800, 860, 900}) {
    const tgemm::tuning::tuning_values values = tgemm::tuning::values_for<tgemm::tuning::default_chain>(arch);
    for (int s = 0; s < tgemm::tuning::slot_count; ++s, ++slots) {
      INFO("sm_" << arch / 10 << " " << tgemm::tuning::to_string(tgemm::tuning::slot(s)));
      CHECK(swept.count(values.slots[s].name()) == 1);
    }
  }
  REQUIRE(slots == 4 * tgemm::tuning::slot_count);
  for (const auto& path : paths) {
    DYNAMIC_SECTION(path.name) { tgemm::test::sweep_policy(path); }
  }
}

namespace {

/// A policy of double elements (A, B, C, alpha and beta): 16-byte loads of two doubles, FMAs in double.
using double_elements = tgemm::policy<tgemm::block_shape<64, 64, 16>, tgemm::warp_shape<32, 16>,
                                      tgemm::thread_shape<4, 4>, 2, 2, 16, double, 8, double>;

std::vector<double> random_doubles(int64_t count) {
  const std::vector<float> coarse = tgemm::test::random_values(2 * count);
  std::vector<double> out(size_t(count > 0 ? count : 0));
  // Full 53-bit mantissas: a float plus a scaled float.
  for (size_t i = 0; i < out.size(); ++i) out[i] = double(coarse[2 * i]) + double(coarse[2 * i + 1]) * 0x1p-24;
  return out;
}

}  // namespace

TEST_CASE("a double policy: the element type flows through loads, FMAs, epilogue and checks", "[gpu][policy]") {
  using namespace tgemm;
  using namespace tgemm::test;
  using P = double_elements;
  STATIC_REQUIRE(std::is_same<P::element_a, double>::value && std::is_same<P::element_c, double>::value);
  STATIC_REQUIRE(P::fragment_m == 2 && P::store_width == 2);  // 16-byte fragments and stores
  REQUIRE(P::name() == "tiled_f64_b64x64x16_w32x16_t4x4_v2_s2_u16_f64");
  const int64_t shapes[][3] = {{1, 1, 1}, {64, 64, 16}, {63, 65, 17}, {131, 70, 45}, {7, 3, 2}, {200, 1, 33}};
  int cases = 0;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& s : shapes) {
        for (const double beta : {0.0, -0.75}) {
          const int64_t m = s[0], n = s[1], k = s[2];
          const int64_t lda = (min_ld(order, ops[0], m, k) + 1) / 2 * 2, ldb = (min_ld(order, ops[1], k, n) + 1) / 2 * 2;
          const int64_t ldc = (min_ld(order, op::none, m, n) + 1) / 2 * 2;
          const std::vector<double> a = random_doubles(stored_elements(order, ops[0], m, k, lda));
          const std::vector<double> b = random_doubles(stored_elements(order, ops[1], k, n, ldb));
          std::vector<double> c0 = random_doubles(stored_elements(order, op::none, m, n, ldc));
          if (beta == 0.0) c0.assign(c0.size(), std::numeric_limits<double>::quiet_NaN());
          device_buffer<double> da(a.size()), db(b.size()), dc(c0.size());
          da.upload(a), db.upload(b), dc.upload(c0);
          const double alpha = 1.5;
          INFO(to_string(order) << " " << to_string(ops[0]) << to_string(ops[1]) << " " << m << "x" << n << "x" << k);
          REQUIRE(can_implement<P>(order, ops[0], ops[1], m, n, k, alpha, da.get(), lda, db.get(), ldb, beta, dc.get(),
                                   ldc) == status::success);
          REQUIRE(launch<P>(order, ops[0], ops[1], m, n, k, alpha, da.get(), lda, db.get(), ldb, beta, dc.get(), ldc) ==
                  status::success);
          TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
          const std::vector<double> out = dc.download();
          int64_t bad = 0;
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              long double sum = 0, magnitude = 0;
              for (int64_t l = 0; l < k; ++l) {
                const long double x = a[size_t(op_index_of(order, ops[0], i, l, lda))];
                const long double y = b[size_t(op_index_of(order, ops[1], l, j, ldb))];
                sum += x * y;
                magnitude += std::fabs(x * y);
              }
              const size_t at = size_t(index_of(order, i, j, ldc));
              long double expected = alpha * sum;
              magnitude *= alpha;
              if (beta != 0.0) expected += beta * (long double)c0[at], magnitude += std::fabs(beta * c0[at]);
              // (k + 4) units of double roundoff (2^-53) per dot product, twice: the classical bound, doubled.
              const long double allowed = (k + 4) * 0x1p-52L * magnitude;
              bad += !(std::fabs((long double)out[at] - expected) <= allowed);
            }
          }
          CHECK(bad == 0);
          ++cases;
        }
      }
    }
  }
  // The host checks read the policy's element size: 16-byte vectors of doubles need 16-byte alignment and even
  // leading dimensions.
  device_buffer<double> buffer(64 * 64 + 2);
  REQUIRE(can_implement<P>(layout::col_major, op::none, op::none, 64, 1, 1, 1.0, buffer.get() + 1, 64, buffer.get(), 1,
                           0.0, buffer.get(), 64) == status::misaligned_operand);
  REQUIRE(last_error().message.find("loads 2 doubles at a time") != std::string::npos);
  REQUIRE(last_error().message.find("16-byte aligned") != std::string::npos);
  SUCCEED(cases << " double cases");
}
