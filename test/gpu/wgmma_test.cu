// The Hopper kernel (TMA, mbarrier ring, warp-specialised wgmma), through tgemm::experimental::gemm_tma_wgmma<P>
// (every policy and element combination, every op pair in both storage orders) and through tgemm::gemm() (large
// problems on sm_90a take it: the recorded plan says so), against the float64 host loop on the same (rounded)
// inputs: ragged tile edges, k = 0 and 1, alpha and beta edge values, beta = 0 on a NaN-filled C, a misaligned
// operand (realigned first), and arguments it must refuse. Float operands run as TF32 (math_mode::tf32): the kernel
// reads B along k only (gemm() copies a B stored along n K-major first) and an A stored along m through registers,
// and TMA rounds each input to the nearest TF32 (the bound allows 2^-11 per input); 3xTF32 splits them first. On a GPU that is not sm_90 the experimental entry must say
// unsupported_device, and the test checks that instead.
#include "wgmma_case.hpp"

#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::test::device_buffer;
using namespace tgemm::test::wgmma;

template <class T>
using wide_tile = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, T, T>;
template <class T>
using wide_tile_float_c = tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 4, T, float>;
/// The tables' smaller tile (64 x 128, one consumer warpgroup), which plans use for grids the large one would not fill.
template <class T>
using narrow_tile = typename tgemm::tuning::tensorop_f16_sm90<T, T>::wgmma_small;

/// The tables' ping-pong tile (64 x 256, two consumer warpgroups on different tiles, taking turns), which plans use
/// for the large tile's problems with a fused epilogue; here with plain stores.
template <class T, class TC = T>
using pingpong_tile = typename tgemm::tuning::tensorop_f16_sm90<T, TC>::wgmma_fused;

using policies = std::tuple<wide_tile<__nv_bfloat16>, wide_tile_float_c<__nv_bfloat16>, narrow_tile<__nv_bfloat16>,
                            wide_tile<__half>, wide_tile_float_c<__half>, narrow_tile<__half>,
                            pingpong_tile<__nv_bfloat16>, pingpong_tile<__half, float>>;

/// 16-bit C policies whose epilogue stores through TMA: the tables' (two passes of 128 columns per tile, four
/// stages), one pass of 256 columns (three stages), the 64-row tile (one consumer warpgroup) and the ping-pong tile.
using store_policies =
    std::tuple<wide_tile<__nv_bfloat16>, wide_tile<__half>,
               tgemm::wgmma_policy<tgemm::block_shape<128, 256, 64>, 3, __nv_bfloat16, __nv_bfloat16>,
               narrow_tile<__half>, pingpong_tile<__half>>;

/// The TF32 Hopper kernel's policy (the tuning table's).
using tf32_tile = tgemm::tuning::tensorop_tf32_sm90<tgemm::math_mode::tf32>::wgmma;

/// The policies whose split-K kernels tgemm::gemm()'s plans run (float partials): 16-bit and TF32 operands, and the
/// small 16-bit tile (the 16-bit tables split k on it where its tiles fill at most half of the GPU).
using sliced_policies = std::tuple<wide_tile_float_c<__nv_bfloat16>, wide_tile_float_c<__half>, tf32_tile,
                                   tgemm::wgmma_partials_t<narrow_tile<__nv_bfloat16>>>;

/// tgemm::gemm() as a callable (`math` for float operands: TF32 unless told).
struct dispatched {
  tgemm::math_mode math = tgemm::math_mode::tf32;
  template <class T, class TC>
  status operator()(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha, const T* a,
                    int64_t lda, const T* b, int64_t ldb, float beta, TC* c, int64_t ldc) const {
    tgemm::options opts;
    if constexpr (std::is_same<T, float>::value) opts.math = math;
    return tgemm::gemm(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nullptr, opts);
  }
};

}  // namespace

TEMPLATE_LIST_TEST_CASE("Hopper kernel: every layout, tile edges, alpha and beta", "[wgmma]", policies) {
  using T = typename TestType::element_a;
  using TC = typename TestType::element_c;
  const fixed_policy<TestType> call;
  if (!check_every_layout<T, TC>(call)) return;
  check_call<T, TC>(call, layout::col_major, op::transpose, op::none, 130, 260, 64, 0.0f, 2.0f);  // A, B not read
  check_call<T, TC>(call, layout::col_major, op::none, op::transpose, 130, 260, 64, 0.5f, 1.0f);
  // More tiles than an H200 has multiprocessors (12 x 12 of 128 x 256): persistent blocks take two tiles each;
  // k = 330 is 6 slices, so a block's second tile starts in the middle of the stage ring's phases.
  for (const auto& ops : op_pairs) {
    check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 1500, 3000, 330, 1.0f, 0.0f);
  }
}

TEMPLATE_LIST_TEST_CASE("Hopper kernel: persistent blocks walk several tiles each", "[wgmma][sanitize]", policies) {
  // Small enough for every compute-sanitizer tool (scripts/sanitize.sh): 3 blocks over a 3 x 4 (or more) grid of
  // tiles in groups of two tile rows, ragged edges, k not a multiple of the slice, beta = 0 on a NaN C (initcheck:
  // C is not read) and beta != 0.
  using T = typename TestType::element_a;
  using TC = typename TestType::element_c;
  const few_blocks<TestType, 3> call;
  for (const auto& ops : op_pairs) {
    if (!check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 300, 700, 200, 1.0f, 0.0f)) return;
    check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 257, 513, 72, -0.5f, 0.5f);
    // C aligned, m a multiple of 8: a 16-bit C leaves through TMA stores, staging tiles reused from tile to tile.
    check_call<T, TC>(call, layout::col_major, ops[0], ops[1], 296, 700, 200, 1.0f, 0.0f, 0, -1.0, true);
  }
}

TEMPLATE_LIST_TEST_CASE("Hopper kernel: 16-bit C with beta = 0 leaves through TMA stores", "[wgmma]",
                        store_policies) {
  // C 16-byte aligned with ldc a multiple of 8 and beta = 0: the epilogue writes each warpgroup's 64 rows to a
  // staging tile in shared memory and TMA stores it (one or two passes of store_columns per tile). Ragged edges
  // (TMA must write nothing past m and n: the padding of C is checked), a C narrower than one pass, persistent
  // blocks reusing their staging tiles, both storage orders; beta != 0 on the same aligned C takes the epilogue
  // that reads C (16-byte vectors), an odd ldc the direct one.
  using T = typename TestType::element_a;
  using TC = typename TestType::element_c;
  using kernels = tgemm::detail::wgmma_kernels<TestType>;
  static_assert(TestType::epilogue_store_columns > 0, "a 16-bit C policy with room for the staging tiles");
  device_buffer<TC> probe(64);
  CHECK(kernels::stores_through_tma(probe.get(), 56, 64, 0.0f));
  CHECK_FALSE(kernels::stores_through_tma(probe.get(), 56, 64, 0.5f));  // beta != 0 reads C
  CHECK_FALSE(kernels::stores_through_tma(probe.get(), 56, 61, 0.0f));  // ldc not a multiple of 16 bytes
  CHECK_FALSE(kernels::stores_through_tma(probe.get() + 1, 56, 64, 0.0f));  // C not 16-byte aligned
  CHECK_FALSE(kernels::stores_through_tma(probe.get(), 57, 64, 0.0f));  // TMA would write rows 57 to 63
  const fixed_policy<TestType> call;
  const few_blocks<TestType, 3> persistent;
  // m (n for row-major C) a multiple of 8 where TMA stores run; the others check that the epilogue that writes C
  // itself takes them (rows past m in C's padding are checked).
  const int64_t shapes[][3] = {{128, 256, 64}, {8, 8, 1},       {136, 264, 72}, {304, 520, 200}, {40, 1000, 64},
                               {1000, 24, 8},  {200, 296, 0},   {129, 257, 72}, {1, 1, 1}};
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : shapes) {
        if (!check_call<T, TC>(call, order, ops[0], ops[1], shape[0], shape[1], shape[2], -1.25f, 0.0f, 0, -1.0,
                               true)) {
          return;
        }
      }
      check_call<T, TC>(call, order, ops[0], ops[1], 257, 129, 136, -1.5f, 0.75f, 0, -1.0, true);
    }
  }
  for (const auto& ops : op_pairs) {
    check_call<T, TC>(persistent, layout::col_major, ops[0], ops[1], 296, 700, 200, 1.0f, 0.0f, 0, -1.0, true);
    check_call<T, TC>(persistent, layout::col_major, ops[0], ops[1], 1104, 1300, 72, 0.5f, 0.0f, 0, -1.0, true);
  }
}

using dispatched_types = std::tuple<std::pair<__nv_bfloat16, __nv_bfloat16>, std::pair<__nv_bfloat16, float>,
                                    std::pair<__half, __half>, std::pair<__half, float>>;

TEMPLATE_LIST_TEST_CASE("gemm() on sm_90a: large problems take the Hopper kernel in every layout", "[wgmma]",
                        dispatched_types) {
  using T = typename TestType::first_type;
  using TC = typename TestType::second_type;
  // 1100 x 2100: 9 x 9 tiles of 128 x 256, enough to fill more than half of an H200 (wgmma_min_wave); ragged
  // edges on both sides.
  const int64_t m = 1100, n = 2100, k = 200;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      tgemm::detail::record_plans plans;
      check_call<T, TC>(dispatched{}, order, ops[0], ops[1], m, n, k, 1.25f, order == layout::row_major ? 0.5f : 0.0f);
      // C aligned as TMA needs it (m and n multiples of 8 too), beta = 0: a 16-bit C leaves through TMA stores.
      check_call<T, TC>(dispatched{}, order, ops[0], ops[1], m + 4, n + 4, k, 1.25f, 0.0f, 0, -1.0, true);
      REQUIRE(plans.calls() == 2);
      if (is_sm90()) {  // an H200 runs tgemm's sm_90a image: the plan must have chosen the Hopper kernel
        CHECK(plans.last().wgmma);
        CHECK_FALSE(plans.last().repacked_a);
        CHECK_FALSE(plans.last().repacked_b);
      }
    }
  }
  // A misaligned A (one element off): realigned in its own layout, then the Hopper kernel.
  tgemm::detail::record_plans plans;
  check_call<T, TC>(dispatched{}, layout::col_major, op::none, op::none, m, n, k, 1.0f, 0.0f, 1);
  REQUIRE(plans.calls() == 1);
  if (is_sm90()) {
    CHECK(plans.last().wgmma);
    CHECK(plans.last().repacked_a);
    CHECK_FALSE(plans.last().repacked_b);
  }
  // A thin problem keeps the mma.sync tiles.
  check_call<T, TC>(dispatched{}, layout::col_major, op::none, op::none, 16, 4096, 512, 1.0f, 0.0f);
  CHECK_FALSE(plans.last().wgmma);
}

TEMPLATE_LIST_TEST_CASE("gemm() on sm_90a: grids the large tiles would not fill take the small tile", "[wgmma]",
                        dispatched_types) {
  using T = typename TestType::first_type;
  using TC = typename TestType::second_type;
  // 200 x 1000 is 2 x 4 tiles of 128 x 256 and 4 x 8 of 64 x 128 (16 x 2 in row-major form): the small tile,
  // unsplit, ragged on both sides and along k (k = 1000); beta != 0 in row-major form reads C; 256 x 1000, a C aligned
  // for TMA stores, with beta = 0. (192 x 1000 would be 3 x 8 small tiles, too few for them.)
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      tgemm::detail::record_plans plans;
      check_call<T, TC>(dispatched{}, order, ops[0], ops[1], 200, 1000, 1000, 1.25f,
                        order == layout::row_major ? 0.5f : 0.0f);
      check_call<T, TC>(dispatched{}, order, ops[0], ops[1], 256, 1000, 1000, -1.0f, 0.0f, 0, -1.0, true);
      REQUIRE(plans.calls() == 2);
      if (is_sm90()) {
        const tgemm::detail::plan& p = plans.last();
        CHECK(p.wgmma);
        CHECK_FALSE(p.split_k);
        REQUIRE(p.step_count == 1);
        CHECK(p.steps[0].wgmma_small);
      }
    }
  }
  // A misaligned A (realigned first), and an expert of a mixture-of-experts layer (64 small tiles).
  tgemm::detail::record_plans plans;
  check_call<T, TC>(dispatched{}, layout::col_major, op::transpose, op::none, 300, 1000, 777, 0.5f, -1.0f, 2);
  if (is_sm90()) {
    CHECK(plans.last().wgmma);
    CHECK(plans.last().repacked_a);
    CHECK(plans.last().steps[plans.last().step_count - 1].wgmma_small);
  }
  check_call<T, TC>(dispatched{}, layout::col_major, op::none, op::none, 128, 4096, 2048, 1.0f, 0.0f);
  if (is_sm90()) {
    CHECK_FALSE(plans.last().split_k);
    CHECK(plans.last().steps[0].wgmma_small);
  }
}

TEMPLATE_LIST_TEST_CASE("gemm() on sm_90a: grids under half the GPU split k on the Hopper kernel", "[wgmma]",
                        dispatched_types) {
  using T = typename TestType::first_type;
  using TC = typename TestType::second_type;
  // 200 x 500 fills 2 x 2 tiles of 128 x 256 and 4 x 4 of the small tile, too few for it unsplit: k = 2100 (33 steps
  // of 64) becomes 7 slices of 5 steps on the small tile (at least 256 deep; the last ragged: TMA zero-fills past k),
  // float partials, then the reduction into C with alpha and beta.
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      tgemm::detail::record_plans plans;
      check_call<T, TC>(dispatched{}, order, ops[0], ops[1], 200, 500, 2100, 1.25f,
                        order == layout::row_major ? 0.5f : 0.0f);
      REQUIRE(plans.calls() == 1);
      if (is_sm90()) {
        const tgemm::detail::plan& p = plans.last();
        CHECK(p.wgmma);
        CHECK(p.split_k);
        REQUIRE(p.step_count == 2);
        CHECK(p.steps[0].slices == 7);
        CHECK(p.steps[0].wgmma_small);
        CHECK(p.steps[1].kind == tgemm::detail::step_kind::reduce);
        CHECK(p.steps[1].float_partials);
      }
    }
  }
  // A misaligned A (realigned first, then split), a skinny shape deeper than the unsplit small tile takes (64 small
  // tiles, 2 slices of 4096), and 544 x 1024 x 4160 (k past the unsplit tiles' 4096), whose 72 small tiles are too
  // many to split: the large tile (20 tiles), split.
  tgemm::detail::record_plans plans;
  check_call<T, TC>(dispatched{}, layout::col_major, op::none, op::transpose, 300, 513, 2048, -1.0f, 0.25f, 1);
  if (is_sm90()) {
    CHECK(plans.last().wgmma);
    CHECK(plans.last().split_k);
    CHECK(plans.last().repacked_a);
  }
  check_call<T, TC>(dispatched{}, layout::col_major, op::none, op::none, 128, 4096, 8192, 1.0f, 0.0f);
  if (is_sm90()) {
    CHECK(plans.last().split_k);
    CHECK(plans.last().steps[0].wgmma_small);
  }
  check_call<T, TC>(dispatched{}, layout::col_major, op::transpose, op::none, 544, 1024, 4160, 0.5f, 0.0f);
  if (is_sm90()) {
    CHECK(plans.last().split_k);
    CHECK_FALSE(plans.last().steps[0].wgmma_small);
  }
}

TEMPLATE_LIST_TEST_CASE("Hopper split-K kernel: persistent blocks walk several slices and tiles each", "[wgmma][sanitize]",
                        sliced_policies) {
  // 3 blocks over (slice, tile) items of a 3 x 3 (or more) tile grid: ragged edges, a ragged last slice, beta = 0
  // on a NaN C (initcheck: C is not read) and beta != 0; partials NaN-filled, so one left unwritten would show.
  using T = typename TestType::element_a;
  const sliced_blocks<TestType, 3, 3> call;
  for (const auto& ops : op_pairs) {
    if (TestType::tf32 && ops[1] == op::transpose) continue;  // the TF32 kernel reads B along k only
    if (!check_call<T, float>(call, layout::col_major, ops[0], ops[1], 300, 700, 400, 1.0f, 0.0f)) return;
    check_call<T, float>(call, layout::col_major, ops[0], ops[1], 257, 513, 200, -0.5f, 0.5f);
  }
}

TEST_CASE("TF32 Hopper kernel: B read along k, A either way, tile edges, alpha and beta", "[wgmma]") {
  const fixed_policy<tf32_tile> call;
  const int64_t shapes[][3] = {{128, 256, 32}, {1, 1, 1}, {129, 257, 36}, {300, 513, 1000}, {1000, 64, 4},
                               {64, 1000, 200}, {200, 300, 0}};
  // The op pairs the kernel reads: op(B) = B in column-major form (A stored along k: from shared memory; along m:
  // through registers), which a row-major call with op(A) = A becomes.
  const struct {
    layout order;
    op a, b;
  } readable[] = {{layout::col_major, op::transpose, op::none}, {layout::col_major, op::none, op::none},
                  {layout::row_major, op::none, op::transpose}, {layout::row_major, op::none, op::none}};
  for (const auto& r : readable) {
    for (const auto& shape : shapes) {
      if (!check_call<float, float>(call, r.order, r.a, r.b, shape[0], shape[1], shape[2], 1.0f, 0.0f)) return;
    }
    check_call<float, float>(call, r.order, r.a, r.b, 257, 129, 136, -1.5f, 0.75f);  // beta != 0 reads C
    check_call<float, float>(call, r.order, r.a, r.b, 130, 260, 64, 0.0f, 2.0f);     // A, B not read
    check_call<float, float>(call, r.order, r.a, r.b, 1500, 3000, 330, 1.0f, 0.0f);  // persistent, two tiles each
  }
  // Every other pair is refused before anything runs, C untouched.
  const int64_t m = 64, n = 64, k = 64;
  device_buffer<float> a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * n));
  std::vector<float> poison(size_t(m * n), tgemm::test::sentinel<float>());
  c.upload(poison);
  for (const auto& ops : op_pairs) {
    if (ops[1] == op::none) continue;
    INFO(to_string(ops[0]) << "/" << to_string(ops[1]));
    CHECK(tgemm::experimental::gemm_tma_wgmma<tf32_tile>(layout::col_major, ops[0], ops[1], m, n, k, 1.0f, a.get(), 64,
                                                         b.get(), 64, 0.0f, c.get(), m) == status::unsupported_layout);
    INFO(tgemm::last_error().message);
  }
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<float> after = c.download();
  for (size_t i = 0; i < after.size(); ++i) REQUIRE(tgemm::test::same_bits(after[i], poison[i]));
}

TEST_CASE("TF32 Hopper kernel: persistent blocks walk several tiles each", "[wgmma][sanitize]") {
  const few_blocks<tf32_tile, 3> call;
  for (const op a : {op::transpose, op::none}) {  // A from shared memory, then through registers
    if (!check_call<float, float>(call, layout::col_major, a, op::none, 300, 700, 200, 1.0f, 0.0f)) return;
    check_call<float, float>(call, layout::col_major, a, op::none, 257, 513, 72, -0.5f, 0.5f);
  }
}

TEST_CASE("gemm() with TF32 on sm_90a: the Hopper kernel, a B stored along n copied K-major first", "[wgmma]") {
  const int64_t m = 1100, n = 2100, k = 200;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      tgemm::detail::record_plans plans;
      check_call<float, float>(dispatched{}, order, ops[0], ops[1], m, n, k, 1.25f,
                               order == layout::row_major ? 0.5f : 0.0f);
      REQUIRE(plans.calls() == 1);
      if (is_sm90()) {
        const tgemm::detail::plan& p = plans.last();
        CHECK(p.wgmma);
        // A row-major call C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T on the same storage: its A is
        // the caller's B with the caller's op_b, its B the caller's A with op_a. A is read as stored; a B of that
        // form stored along n gets a K-major copy.
        const op form_a = order == layout::col_major ? ops[0] : ops[1];
        const op form_b = order == layout::col_major ? ops[1] : ops[0];
        CHECK(p.op_a == form_a);
        CHECK(p.op_b == op::none);
        CHECK_FALSE(p.repacked_a);
        CHECK(p.repacked_b == (form_b == op::transpose));
      }
    }
  }
  // A misaligned A, stored along k or along m: realigned in its own layout.
  tgemm::detail::record_plans plans;
  check_call<float, float>(dispatched{}, layout::col_major, op::transpose, op::none, m, n, k, 1.0f, 0.0f, 1);
  if (is_sm90()) {
    CHECK(plans.last().wgmma);
    CHECK(plans.last().repacked_a);
    CHECK(plans.last().steps[0].keep_layout);
  }
  check_call<float, float>(dispatched{}, layout::col_major, op::none, op::none, m, n, k, 1.0f, 0.0f, 1);
  if (is_sm90()) {
    CHECK(plans.last().wgmma);
    CHECK(plans.last().steps[0].keep_layout);
    CHECK(plans.last().op_a == op::none);
  }
}

TEST_CASE("gemm() with 3xTF32 on sm_90a: operands split into TF32 parts, then the Hopper kernel", "[wgmma]") {
  // Big parts rounded to nearest TF32, small parts the rounding of what is left: each product is off by at most
  // 4 2^-22 of its magnitude (the small parts' rounding twice, the dropped small x small), as on mma.sync.
  const double x3_term = 4 * std::ldexp(1.0, -22);
  const dispatched call{tgemm::math_mode::tf32x3};
  const int64_t m = 1100, n = 2100, k = 200;
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      tgemm::detail::record_plans plans;
      check_call<float, float>(call, order, ops[0], ops[1], m, n, k, 1.25f, order == layout::row_major ? 0.5f : 0.0f,
                               0, x3_term);
      REQUIRE(plans.calls() == 1);
      if (is_sm90()) {
        CHECK(plans.last().wgmma);
        CHECK(plans.last().steps[0].split_tf32);
        CHECK(plans.last().steps[1].split_tf32);
      }
    }
  }
  // Ragged edges everywhere, a k that is not a multiple of the slice, a misaligned A, beta != 0, k = 1.
  check_call<float, float>(call, layout::col_major, op::none, op::transpose, 1031, 2053, 77, -0.5f, 0.25f, 1,
                           x3_term);
  check_call<float, float>(call, layout::row_major, op::transpose, op::none, 1031, 2053, 1, 1.0f, 0.0f, 0, x3_term);
}

TEST_CASE("3xTF32 on the Hopper kernel lands within 2x of strict FP32's error", "[wgmma]") {
  // One product in both modes on the same inputs, compared normwise with the float64 reference (large enough for
  // the Hopper plan: 9 x 9 tiles of 128 x 256).
  const int64_t m = 1100, n = 2100, k = 1024;
  const std::vector<float> a = tgemm::test::random_values(m * k), b = tgemm::test::random_values(k * n);
  const std::vector<double> expected = tgemm::test::product_f64(a, b, m, n, k);
  device_buffer<float> da(a.size()), db(b.size()), dc(size_t(m * n));
  da.upload(a);
  db.upload(b);
  auto error_of = [&](tgemm::math_mode math) {
    tgemm::options opts;
    opts.math = math;
    tgemm::detail::record_plans plans;
    REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, da.get(), m, db.get(), k, 0.0f,
                        dc.get(), m, nullptr, opts) == status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    if (is_sm90() && math != tgemm::math_mode::strict) CHECK(plans.last().wgmma);
    return tgemm::test::normwise_relative_error(dc.download(), expected);
  };
  const double strict = error_of(tgemm::math_mode::strict);
  const double x3 = error_of(tgemm::math_mode::tf32x3);
  const double tf32 = error_of(tgemm::math_mode::tf32);
  INFO("relative errors: strict " << strict << ", tf32x3 " << x3 << ", tf32 " << tf32);
  CHECK(x3 <= 2 * strict);
  CHECK(tf32 > 10 * strict);  // TF32 really lost the low bits of its inputs
}

TEST_CASE("Hopper kernel: refused arguments leave C untouched", "[wgmma]") {
  using P = wide_tile<__nv_bfloat16>;
  const int64_t m = 64, n = 64, k = 64;
  device_buffer<__nv_bfloat16> a(size_t(80 * m)), b(size_t(80 * n)), c(size_t(m * n));
  std::vector<__nv_bfloat16> poison(size_t(m * n), tgemm::test::sentinel<__nv_bfloat16>());
  c.upload(poison);
  const auto call = [&](int64_t lda, int64_t ldb, int64_t ldc, const __nv_bfloat16* pa) {
    return tgemm::experimental::gemm_tma_wgmma<P>(layout::col_major, op::transpose, op::none, m, n, k, 1.0f, pa, lda,
                                                  b.get(), ldb, 0.0f, c.get(), ldc);
  };
  CHECK(call(65, 72, m, a.get()) == status::misaligned_operand);       // lda not a multiple of 8
  CHECK(call(72, 72, m, a.get() + 1) == status::misaligned_operand);   // A not 16-byte aligned
  CHECK(call(56, 72, m, a.get()) == status::invalid_leading_dimension);  // lda < k
  CHECK(call(72, 72, m - 1, a.get()) == status::invalid_leading_dimension);
  CHECK(call(72, 72, m, nullptr) == status::null_pointer);
  CHECK(tgemm::experimental::gemm_tma_wgmma<P>(layout::col_major, op::transpose, op::none, -1, n, k, 1.0f, a.get(),
                                                72, b.get(), 72, 0.0f, c.get(), m) == status::invalid_dimension);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<__nv_bfloat16> after = c.download();
  for (size_t i = 0; i < after.size(); ++i) REQUIRE(tgemm::test::same_bits(after[i], poison[i]));
}
