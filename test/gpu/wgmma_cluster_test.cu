// The Hopper kernel in clusters of two blocks (wgmma_policy's ClusterM = 2: neighbouring tile rows share each B
// slice, every block copying half of it into both through TMA multicast), through the experimental entry, a grid of
// a few persistent clusters and the split-K kernel, against the float64 host loop: every op pair in both storage
// orders (K-major and MN-major B, each block's half of it), tile rows odd in number (the last pair's second block lies
// past C: it computes zeros and must store nothing, checked in C's padding), k = 0 and 1, beta != 0, 16-bit C through
// TMA stores, the ping-pong and the one-consumer tiles, TF32; and bit for bit against the same tile without clusters.
// On a GPU that is not sm_90 the entry must say unsupported_device, and the test checks that instead.
#include "wgmma_case.hpp"

#include <string>
#include <tuple>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::test::device_buffer;
using namespace tgemm::test::wgmma;

template <class T, class TC = T>
using wide_pair = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, T, TC, tgemm::math_mode::strict, false, 2>;
/// One consumer warpgroup on 64-row tiles (its stages' wgmmas overlap), eight stages: the tables' small tile in pairs.
template <class T, class TC = T>
using narrow_pair = tgemm::wgmma_policy<tgemm::block_shape<64, 128, 64>, 8, T, TC, tgemm::math_mode::strict, false, 2>;
/// Ping-pong consumers (each alone on its 64-row tile, one stage reader per block) in pairs.
template <class T, class TC = T>
using pingpong_pair = tgemm::wgmma_policy<tgemm::block_shape<64, 256, 64>, 4, T, TC, tgemm::math_mode::strict, true, 2>;
using tf32_pair =
    tgemm::wgmma_policy<tgemm::block_shape<128, 256, 32>, 4, float, float, tgemm::math_mode::tf32, false, 2>;

using cluster_policies = std::tuple<wide_pair<__nv_bfloat16>, narrow_pair<__nv_bfloat16, float>,
                                    pingpong_pair<__half>, wide_pair<__half, float>>;

/// The same tile as P, one block per cluster.
template <class P>
using alone_t = tgemm::wgmma_policy<tgemm::block_shape<P::block_m, P::block_n, P::block_k>, P::stages,
                                    typename P::element_a, typename P::element_c, P::math, P::pingpong>;

}  // namespace

TEMPLATE_LIST_TEST_CASE("Hopper kernel in clusters of two: every layout, tile edges, alpha and beta", "[wgmma]",
                        cluster_policies) {
  using T = typename TestType::element_a;
  using TC = typename TestType::element_c;
  STATIC_REQUIRE(TestType::cluster_m == 2);
  CHECK(TestType::name().find("_cluster2") != std::string::npos);
  const fixed_policy<TestType> call;
  // Its shapes' tile rows are 1, 1, 2, 3, 8, 1, 2 (64-row tiles: 2, 1, 3, 5, 16, 1, 4), and the column-major form of a
  // row-major call swaps m and n: odd counts leave the last pair's second block past C.
  if (!check_every_layout<T, TC>(call)) return;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      // C aligned: a 16-bit C leaves through TMA stores (m a multiple of 8), or through 16-byte pieces (beta != 0).
      check_call<T, TC>(call, order, ops[0], ops[1], 328, 520, 200, 1.0f, 0.0f, 0, -1.0, true);
      check_call<T, TC>(call, order, ops[0], ops[1], 328, 520, 200, 0.5f, -1.0f, 0, -1.0, true);
    }
  }
  check_call<T, TC>(call, layout::col_major, op::transpose, op::none, 130, 260, 64, 0.0f, 2.0f);  // A, B not read
  // More pairs of tiles than an H200 runs at once: persistent clusters take several each, mid-way through the ring.
  for (const auto& ops : op_pairs) {
    check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 3000, 3000, 330, 1.0f, 0.0f);
  }
}

TEMPLATE_LIST_TEST_CASE("Hopper kernel in clusters of two: persistent pairs walk several tiles each",
                        "[wgmma][sanitize]", cluster_policies) {
  // Two clusters (four blocks) over pairs of tile rows in groups, ragged edges and an odd number of tile rows, k not a
  // multiple of the slice, beta = 0 on a NaN C (initcheck: C is not read) and beta != 0; small enough for every
  // compute-sanitizer tool.
  using T = typename TestType::element_a;
  using TC = typename TestType::element_c;
  const few_blocks<TestType, 4> call;
  for (const auto& ops : op_pairs) {
    if (!check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 300, 700, 200, 1.0f, 0.0f)) return;
    check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 257, 513, 72, -0.5f, 0.5f);
    check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 296, 700, 200, 1.0f, 0.0f, 0, -1.0, true);
  }
}

TEST_CASE("Hopper split-K kernel in clusters of two: pairs walk several slices and tiles each", "[wgmma][sanitize]") {
  using P = tgemm::wgmma_partials_t<narrow_pair<__nv_bfloat16>>;
  STATIC_REQUIRE(P::cluster_m == 2);
  const sliced_blocks<P, 4, 3> call;
  for (const auto& ops : op_pairs) {
    if (!check_call<__nv_bfloat16, float>(call, layout::col_major, ops[0], ops[1], 300, 700, 400, 1.0f, 0.0f)) return;
    check_call<__nv_bfloat16, float>(call, layout::col_major, ops[0], ops[1], 257, 513, 200, -0.5f, 0.5f);
  }
}

TEST_CASE("TF32 Hopper kernel in clusters of two: B read along k, A either way", "[wgmma]") {
  const fixed_policy<tf32_pair> call;
  const few_blocks<tf32_pair, 4> persistent;
  const struct {
    layout order;
    op a, b;
  } readable[] = {{layout::col_major, op::transpose, op::none}, {layout::col_major, op::none, op::none},
                  {layout::row_major, op::none, op::transpose}, {layout::row_major, op::none, op::none}};
  for (const auto& r : readable) {
    if (!check_call<float, float>(call, r.order, r.a, r.b, 300, 513, 1000, 1.0f, 0.0f)) return;
    check_call<float, float>(call, r.order, r.a, r.b, 129, 257, 36, -1.5f, 0.75f);
    check_call<float, float>(call, r.order, r.a, r.b, 3000, 3000, 330, 1.0f, 0.0f);
  }
  check_call<float, float>(persistent, layout::col_major, op::none, op::none, 300, 700, 200, 1.0f, 0.0f);
}

TEMPLATE_LIST_TEST_CASE("Hopper kernel in clusters of two: the same C, bit for bit, as the same tile alone", "[wgmma]",
                        cluster_policies) {
  // A cluster changes where B's bytes come from, not the arithmetic: every element of C must match the tile's kernel
  // without clusters exactly, odd numbers of tile rows and ragged edges included.
  using T = typename TestType::element_a;
  using TC = typename TestType::element_c;
  using alone = alone_t<TestType>;
  STATIC_REQUIRE(alone::cluster_m == 1);
  const int64_t shapes[][3] = {{300, 513, 1000}, {1000, 1000, 64}, {129, 4096, 512}, {4096, 130, 72}};
  for (const auto& ops : op_pairs) {
    for (const auto& shape : shapes) {
      const int64_t m = shape[0], n = shape[1], k = shape[2];
      // Leading dimensions padded to 16 bytes, as TMA needs (the extents themselves stay ragged).
      const auto padded = [](int64_t x) { return (x + 7) / 8 * 8; };
      const int64_t lda = padded(ops[0] == op::none ? m : k), ldb = padded(ops[1] == op::none ? k : n);
      const std::vector<float> ra = tgemm::test::random_values(lda * (ops[0] == op::none ? k : m));
      const std::vector<float> rb = tgemm::test::random_values(ldb * (ops[1] == op::none ? n : k));
      std::vector<T> a(ra.size()), b(rb.size());
      for (size_t i = 0; i < a.size(); ++i) a[i] = tgemm::test::from_float<T>(ra[i]);
      for (size_t i = 0; i < b.size(); ++i) b[i] = tgemm::test::from_float<T>(rb[i]);
      device_buffer<T> d_a(a.size()), d_b(b.size());
      d_a.upload(a);
      d_b.upload(b);
      const std::vector<TC> poison(static_cast<size_t>(m * n), tgemm::test::sentinel<TC>());
      device_buffer<TC> c_alone(poison.size()), c_pair(poison.size());
      c_alone.upload(poison);
      c_pair.upload(poison);
      INFO(to_string(ops[0]) << "/" << to_string(ops[1]) << ": m = " << m << ", n = " << n << ", k = " << k);
      const status s_alone = tgemm::experimental::gemm_tma_wgmma<alone>(
          layout::col_major, ops[0], ops[1], m, n, k, 1.0f, d_a.get(), lda, d_b.get(), ldb, 0.0f, c_alone.get(), m);
      if (s_alone == status::unsupported_device && !is_sm90()) return;
      REQUIRE(s_alone == status::success);
      REQUIRE(tgemm::experimental::gemm_tma_wgmma<TestType>(layout::col_major, ops[0], ops[1], m, n, k, 1.0f, d_a.get(),
                                                            lda, d_b.get(), ldb, 0.0f, c_pair.get(),
                                                            m) == status::success);
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
      CHECK(tgemm::test::differing_bits(c_alone.download(), c_pair.download()) == 0);
    }
  }
}
