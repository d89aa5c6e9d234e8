// The public API as a user calls it: the dispatcher on any alignment and padding, refusals that leave C alone,
// the BLAS special cases, mdspan views, streams, and device::gemm inside a user's own kernel.
#include "gemm_case.hpp"

#include <cuda/std/mdspan>

#include <array>

using namespace tgemm;
using namespace tgemm::test;

namespace {
/// Runs the case through the dispatcher, tgemm::gemm(), as a user calls it, checks C (see run_and_check), and
/// returns the plan the call executed.
detail::plan check_dispatcher(const gemm_case& c) {
  detail::record_plans plans;
  run_and_check(c, [&](const float* a, const float* b, float* cc) {
    return gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(), c.beta, cc, c.ldc());
  });
  REQUIRE(plans.calls() == 1);
  return plans.last();
}

/// The slot of a plan's first gemm step.
tuning::slot first_slot(const detail::plan& p) {
  for (int i = 0; i < p.step_count; ++i) {
    if (p.steps[i].kind == detail::step_kind::gemm) return p.steps[i].slot;
  }
  FAIL("the plan has no gemm step");
  return tuning::slot::general;
}

/// slot with _m and _n exchanged: a row-major call is solved transposed.
tuning::slot transposed(tuning::slot s) {
  switch (s) {
    case tuning::slot::tiny_m: return tuning::slot::tiny_n;
    case tuning::slot::tiny_n: return tuning::slot::tiny_m;
    case tuning::slot::narrow_m: return tuning::slot::narrow_n;
    case tuning::slot::narrow_n: return tuning::slot::narrow_m;
    default: return s;
  }
}
}  // namespace

TEST_CASE("gemm() handles every order, op pair, pointer offset and padding", "[gpu][dispatch]") {
  // Tight leading dimensions that are not multiples of 4 (130, 37, 257, 1, ...) and the odd paddings and offsets
  // take the scalar-load policy; the aligned ones the tiles of the next test case.
  const std::array<int64_t, 3> shapes[] = {{256, 192, 130}, {1000, 37, 515}, {129, 257, 64},  {1, 300, 77},
                                           {16, 520, 3000},  {24, 520, 3000}, {700, 12, 2500}, {700, 20, 2500},
                                           {256, 192, 4096}};
  int cases = 0;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : shapes) {
        for (int variant = 0; variant < 4; ++variant) {
          gemm_case c;
          c.order = order, c.op_a = ops[0], c.op_b = ops[1];
          c.m = shape[0], c.n = shape[1], c.k = shape[2];
          c.alpha = 1.25f, c.beta = variant % 2 ? -0.5f : 0.0f;
          // variant 0: aligned and tight; 1: padded by a multiple of 4; 2: odd padding; 3: pointers off by 1-3.
          if (variant == 1) c.pad_a = 4, c.pad_b = 8, c.pad_c = 12;
          if (variant == 2) c.pad_a = 1, c.pad_b = 3, c.pad_c = 5;
          if (variant == 3) c.offset_a = 1, c.offset_b = 2, c.offset_c = 3;
          const detail::plan p = check_dispatcher(c);
          const bool aligned = c.offset_a % 4 == 0 && c.offset_b % 4 == 0 && c.lda() % 4 == 0 && c.ldb() % 4 == 0;
          // One row of C whose B has 16-byte lines runs on the GEMV kernel, which reads A's row in place.
          if (p.gemv) CHECK(!p.unaligned);
          if (!p.gemv && 2.0 * c.m * c.n * c.k < tuning::sm90::pack_min_flops) CHECK(p.unaligned == !aligned);
          ++cases;
        }
      }
    }
  }
  SUCCEED(cases << " dispatcher cases");
}

TEST_CASE("gemm() takes the thin tiles and split-K on skinny problems, the medium or small tile on few tiles",
          "[gpu][dispatch]") {
  // Leading dimensions are multiples of 4, so no operand is read with scalar loads. A row-major call is solved
  // transposed: its 16-row problem is a 16-column one. (One row: the GEMV kernel, gemv_test.cu.) Few tiles split k on
  // the medium tile (640 x 512: 20 of them), very few on the small one (256 x 192: 4 medium tiles, split_small_below).
  struct skinny {
    int64_t m, n, k;
    tuning::slot slot;  // of the column-major call
    bool split;
  };
  const skinny cases[] = {{2, 300, 77, tuning::slot::tiny_m, false},     {16, 520, 3000, tuning::slot::tiny_m, true},
                          {24, 520, 3000, tuning::slot::narrow_m, true}, {700, 12, 2500, tuning::slot::tiny_n, true},
                          {700, 20, 2500, tuning::slot::narrow_n, true}, {640, 512, 2048, tuning::slot::medium, true},
                          {256, 192, 4096, tuning::slot::small, true}};
  for (layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const skinny& s : cases) {
        gemm_case c;
        c.order = order, c.op_a = ops[0], c.op_b = ops[1];
        c.m = s.m, c.n = s.n, c.k = s.k, c.alpha = 0.5f, c.beta = -1.0f, c.ld_multiple = 4;
        const detail::plan p = check_dispatcher(c);
        CHECK(first_slot(p) == (order == layout::col_major ? s.slot : transposed(s.slot)));
        CHECK(p.split_k == s.split);
        CHECK_FALSE(p.unaligned);
      }
    }
  }
}

TEST_CASE("gemm() peels ragged edges off large problems", "[gpu][dispatch]") {
  // A last row or column of large tiles holding at most narrow_extent rows or columns: the whole tiles run with
  // the large policy, the strips as narrow problems (with split-K). 2080 and 4128 leave exactly narrow_extent.
  const std::array<int64_t, 3> shapes[] = {{4097, 2049, 24}, {2080, 4100, 16}, {1030, 4128, 20}};
  for (layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : shapes) {
        for (int variant = 0; variant < 3; ++variant) {
          gemm_case c;
          c.order = order, c.op_a = ops[0], c.op_b = ops[1];
          c.m = shape[0], c.n = shape[1], c.k = shape[2];
          c.alpha = 0.75f, c.beta = variant == 0 ? 0.0f : -0.5f;
          // variant 1: padded by a multiple of 4 (aligned); 2: A off by one float (repacked, then peeled).
          if (variant == 1) c.pad_a = 4, c.pad_b = 8, c.pad_c = 4;
          if (variant == 2) c.offset_a = 1;
          const detail::plan p = check_dispatcher(c);
          CHECK(p.peeled);
        }
      }
    }
  }
}

TEST_CASE("gemm() repacks only the misaligned operand of a large problem", "[gpu][dispatch]") {
  // 2mnk just over tuning::sm90::pack_min_flops: the misaligned operand is copied into aligned scratch and the
  // aligned one is read in place (m = 1 with lda = 1 was the case that copied all of B). Two rows or columns: one
  // runs on the GEMV kernel, which reads the vector in place (below).
  REQUIRE(2.0 * 4100 * 16400 >= tgemm::tuning::sm90::pack_min_flops);
  struct single {
    op op_a, op_b;
    int64_t m, n, offset_a, offset_b;
  };
  const single cases[] = {{op::none, op::none, 2, 4100, 0, 0},       // lda = 2
                          {op::transpose, op::none, 2, 4100, 1, 0},  // A one float off
                          {op::none, op::transpose, 4100, 2, 0, 3}}; // B three floats off, ldb = 2
  for (const single& s : cases) {
    gemm_case c;
    c.op_a = s.op_a, c.op_b = s.op_b, c.m = s.m, c.n = s.n, c.k = 16400;
    c.offset_a = s.offset_a, c.offset_b = s.offset_b, c.alpha = 1.5f, c.beta = 0.25f;
    const detail::plan p = check_dispatcher(c);
    const bool a_misaligned = s.offset_a != 0 || (s.op_a == op::none && s.m % 4 != 0);
    const bool b_misaligned = s.offset_b != 0 || (s.op_b == op::transpose && s.n % 4 != 0);
    CHECK(p.repacked_a == a_misaligned);
    CHECK(p.repacked_b == b_misaligned);
    // The same with one row (column): the GEMV kernel reads the misaligned vector in place, nothing is copied.
    gemm_case one = c;
    (s.m == 2 ? one.m : one.n) = 1;
    const detail::plan q = check_dispatcher(one);
    CHECK(q.gemv);
    CHECK(!q.repacked_a);
    CHECK(!q.repacked_b);
  }
}

TEST_CASE("gemm() with C misaligned for vector stores", "[gpu][dispatch]") {
  for (int64_t offset_c : {1, 2, 3}) {
    gemm_case c;
    c.m = 300, c.n = 260, c.k = 70, c.alpha = 1.0f, c.beta = 0.5f, c.offset_c = offset_c, c.ld_multiple = 4;
    run_and_check(c, [&](const float* a, const float* b, float* cc) {
      return launch<tuning::sm90::general>(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(),
                                           c.beta, cc, c.ldc());
    });
  }
}

TEST_CASE("gemm() computes a large product for a misaligned C in aligned scratch, then copies it", "[gpu][dispatch]") {
  // m n >= tuning::sm90::staged_c_min_elements with C off by a float or with an odd ldc: the kernel stores vectors into
  // scratch and the one-slice reduction writes C (alpha and beta applied there). In the last two cases A and B
  // are misaligned too, so their copies are padded to 2304 rows (columns) and the product is computed over the
  // chosen tile's whole tiles inside that padding; only the m x n corner may reach C.
  struct staged {
    layout order;
    op op_a, op_b;
    int64_t m, n, k, pad_c, offset_c, offset_ab;
    float beta;
  };
  const staged cases[] = {{layout::col_major, op::none, op::none, 2048, 1600, 40, 0, 1, 0, 0.0f},
                          {layout::col_major, op::transpose, op::none, 2048, 1600, 40, 1, 0, 0, -0.5f},
                          {layout::row_major, op::none, op::transpose, 1600, 2048, 40, 3, 2, 0, 0.0f},
                          {layout::col_major, op::none, op::none, 2100, 2050, 24, 0, 3, 1, 0.5f},
                          {layout::row_major, op::transpose, op::none, 2050, 2100, 24, 1, 0, 2, 0.0f}};
  for (const staged& s : cases) {
    REQUIRE(s.m * s.n >= tgemm::tuning::sm90::staged_c_min_elements);
    gemm_case c;
    c.order = s.order, c.op_a = s.op_a, c.op_b = s.op_b, c.m = s.m, c.n = s.n, c.k = s.k;
    c.alpha = -1.5f, c.beta = s.beta, c.pad_c = s.pad_c, c.offset_c = s.offset_c;
    c.offset_a = s.offset_ab, c.offset_b = s.offset_ab, c.ld_multiple = 4;
    if (s.offset_ab != 0) REQUIRE(2.0 * s.m * s.n * s.k >= tgemm::tuning::sm90::pack_min_flops);
    const detail::plan p = check_dispatcher(c);
    CHECK(p.staged_c);
    CHECK(p.repacked_a == (s.offset_ab != 0));
  }
}

TEST_CASE("gemm() on a larger square problem, both orders", "[gpu][dispatch]") {
  for (layout order : {layout::col_major, layout::row_major}) {
    gemm_case c;
    c.order = order, c.m = 1031, c.n = 1024, c.k = 1027, c.alpha = 1.0f, c.beta = 1.0f;
    check_dispatcher(c);
  }
}

namespace {
/// Fills C with a sentinel, runs `call`, and requires C to be unchanged, bit for bit.
template <class Call>
void require_c_untouched(int64_t count, Call&& call) {
  device_buffer<float> dc(static_cast<size_t>(count));
  const std::vector<float> before = random_values(count);
  dc.upload(before);
  call(dc.get());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<float> after = dc.download();
  REQUIRE(std::memcmp(before.data(), after.data(), before.size() * sizeof(float)) == 0);
}
}  // namespace

TEST_CASE("launch<P> refuses operands P cannot handle and leaves C untouched", "[gpu][errors]") {
  const int64_t m = 64, n = 64, k = 64;
  device_buffer<float> a(size_t(m * k + 4)), b(size_t(k * n + 4));
  a.upload(random_values(m * k + 4));
  b.upload(random_values(k * n + 4));
  require_c_untouched(m * n + 4, [&](float* c) {
    REQUIRE(launch<seed::vectorized>(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get() + 1, m, b.get(), k,
                                     0.0f, c, m) == status::misaligned_operand);
    REQUIRE(launch<seed::vectorized>(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, b.get() + 2,
                                     k, 0.0f, c, m) == status::misaligned_operand);
    REQUIRE(launch<seed::vectorized>(layout::col_major, op::none, op::none, m - 1, n, k, 1.0f, a.get(), m - 1, b.get(),
                                     k, 0.0f, c, m - 1) == status::misaligned_operand);
    REQUIRE(std::string(last_error().message).find("multiple of 4") != std::string::npos);
  });
  // The next valid call on the same thread works: nothing sticky was left behind.
  device_buffer<float> c(size_t(m * n));
  REQUIRE(launch<seed::vectorized>(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, b.get(), k, 0.0f,
                                   c.get(), m) == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
}

TEST_CASE("bad arguments return before any device work and leave C untouched", "[gpu][errors]") {
  const int64_t m = 40, n = 30, k = 20;
  device_buffer<float> a(size_t(m * k)), b(size_t(k * n));
  a.upload(random_values(m * k));
  b.upload(random_values(k * n));
  require_c_untouched(m * n, [&](float* c) {
    CHECK(gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m - 1, b.get(), k, 0.0f, c, m) ==
          status::invalid_leading_dimension);
    CHECK(gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, b.get(), k, 0.0f, c, m - 1) ==
          status::invalid_leading_dimension);
    CHECK(gemm(layout::col_major, op::none, op::none, -m, n, k, 1.0f, a.get(), m, b.get(), k, 0.0f, c, m) ==
          status::invalid_dimension);
    CHECK(gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, nullptr, m, b.get(), k, 0.0f, c, m) ==
          status::null_pointer);
    CHECK(gemm(static_cast<layout>(3), op::none, op::none, m, n, k, 1.0f, a.get(), m, b.get(), k, 0.0f, c, m) ==
          status::invalid_layout);
  });
  device_buffer<float> c(size_t(m * n));
  REQUIRE(gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a.get(), m, b.get(), k, 0.0f, c.get(), m) ==
          status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
}

TEST_CASE("m == 0 or n == 0 touches nothing, even through null operands", "[gpu][blas]") {
  require_c_untouched(16, [&](float* c) {
    CHECK(gemm(layout::col_major, op::none, op::none, 0, 4, 4, 1.0f, nullptr, 1, nullptr, 4, 0.0f, c, 1) ==
          status::success);
    CHECK(gemm(layout::row_major, op::none, op::none, 4, 0, 4, 1.0f, nullptr, 4, nullptr, 1, 0.0f, c, 1) ==
          status::success);
  });
}

TEST_CASE("k == 0 or alpha == 0 gives C = beta C without reading A or B", "[gpu][blas]") {
  const int64_t m = 33, n = 17, ldc = 35;
  for (float beta : {0.0f, 1.0f, -0.5f}) {
    for (int64_t k : {int64_t(0), int64_t(9)}) {
      INFO("beta=" << beta << " k=" << k);
      std::vector<float> c0 = random_values(ldc * n);
      if (beta == 0.0f) c0.assign(c0.size(), std::numeric_limits<float>::quiet_NaN());
      device_buffer<float> dc(c0.size());
      dc.upload(c0);
      // A and B are null: alpha == 0 (or k == 0) means they are never read.
      const float alpha = k == 0 ? 2.0f : 0.0f;
      REQUIRE(gemm(layout::col_major, op::none, op::transpose, m, n, k, alpha, nullptr, m, nullptr, n, beta, dc.get(),
                   ldc) == status::success);
      TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
      const std::vector<float> out = dc.download();
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < ldc; ++i) {
          const float got = out[size_t(i + j * ldc)], old = c0[size_t(i + j * ldc)];
          if (i >= m) {
            REQUIRE(same_bits(got, old));  // padding rows untouched
          } else {
            REQUIRE(got == (beta == 0.0f ? 0.0f : beta * old));
          }
        }
      }
    }
  }
}

namespace {
/// Strides of op(X) (rows x cols) stored in `order`: what a layout_stride view of it needs.
cuda::std::array<int64_t, 2> view_strides(layout order, op operation, int64_t ld) {
  const int64_t i0 = op_index_of(order, operation, 0, 0, ld);
  return {op_index_of(order, operation, 1, 0, ld) - i0, op_index_of(order, operation, 0, 1, ld) - i0};
}
}  // namespace

TEST_CASE("gemm() on mdspan views: layouts express order and transposition", "[gpu][mdspan]") {
  namespace cs = cuda::std;
  using extents = cs::dextents<int64_t, 2>;
  int cases = 0;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (int padded = 0; padded < 2; ++padded) {
        gemm_case c;
        c.order = order, c.op_a = ops[0], c.op_b = ops[1];
        c.m = 131, c.n = 70, c.k = 45, c.alpha = 0.75f, c.beta = padded ? 0.5f : 0.0f;
        if (padded) c.pad_a = 2, c.pad_b = 5, c.pad_c = 1;
        run_and_check(c, [&](const float* a, const float* b, float* cc) {
          const auto sa = view_strides(c.order, c.op_a, c.lda());
          const auto sb = view_strides(c.order, c.op_b, c.ldb());
          const auto sc = view_strides(c.order, op::none, c.ldc());
          using strided = cs::layout_stride::mapping<extents>;
          cs::mdspan<const float, extents, cs::layout_stride> va(a, strided(extents(c.m, c.k), sa));
          cs::mdspan<const float, extents, cs::layout_stride> vb(b, strided(extents(c.k, c.n), sb));
          if (!padded && c.order == layout::col_major) {
            cs::mdspan<float, extents, cs::layout_left> vc(cc, c.m, c.n);  // tight column-major C
            return gemm(c.alpha, va, vb, c.beta, vc);
          }
          if (!padded) {
            cs::mdspan<float, extents, cs::layout_right> vc(cc, c.m, c.n);  // tight row-major C
            return gemm(c.alpha, va, vb, c.beta, vc);
          }
          cs::mdspan<float, extents, cs::layout_stride> vc(cc, strided(extents(c.m, c.n), sc));
          return gemm(c.alpha, va, vb, c.beta, vc);
        });
        ++cases;
      }
    }
  }
  SUCCEED(cases << " mdspan cases");
}

TEST_CASE("gemm() is asynchronous on a user stream", "[gpu][stream]") {
  cudaStream_t stream;
  TGEMM_CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gemm_case c;
  c.m = 300, c.n = 200, c.k = 100, c.alpha = 1.0f, c.beta = 0.0f;
  run_and_check(c, [&](const float* a, const float* b, float* cc) {
    const status s = gemm(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(), c.beta, cc,
                          c.ldc(), stream);
    TGEMM_CUDA_REQUIRE(cudaStreamSynchronize(stream));
    return s;
  });
  TGEMM_CUDA_REQUIRE(cudaStreamDestroy(stream));
}

namespace {
using user_policy = seed::double_buffered;

/// A fused epilogue: C = max(acc + bias[row], 0), column-major.
struct bias_relu {
  const float* bias;
  float* c;
  int64_t ldc;
  __device__ void operator()(int64_t row, int64_t col, float value) const {
    c[row + col * ldc] = fmaxf(value + bias[row], 0.0f);
  }
};

__global__ void __launch_bounds__(user_policy::threads) user_kernel(device::problem p, bias_relu epilogue) {
  __shared__ device::shared_storage<user_policy> smem;
  device::gemm<user_policy, op::none, op::transpose>(p, blockIdx.x, blockIdx.y, smem, epilogue);
}
}  // namespace

TEST_CASE("device::gemm<Policy> inside a user's kernel with a fused epilogue", "[gpu][device]") {
  const int64_t m = 300, n = 200, k = 123;  // not tile multiples
  const std::vector<float> a = random_values(m * k), b = random_values(n * k), bias = random_values(m);
  std::vector<float> c0(size_t(m * n), std::numeric_limits<float>::quiet_NaN());
  device_buffer<float> da(a.size()), db(b.size()), dbias(bias.size()), dc(c0.size());
  da.upload(a), db.upload(b), dbias.upload(bias), dc.upload(c0);
  const device::problem p{m, n, k, da.get(), m, db.get(), n};
  const dim3 grid(unsigned((m + user_policy::block_m - 1) / user_policy::block_m),
                  unsigned((n + user_policy::block_n - 1) / user_policy::block_n));
  user_kernel<<<grid, user_policy::threads>>>(p, bias_relu{dbias.get(), dc.get(), m});
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<float> out = dc.download();
  const reference_result ref =
      reference_gemm(layout::col_major, op::none, op::transpose, m, n, k, 1.0f, a.data(), m, b.data(), n, 0.0f,
                     c0.data(), m);
  int64_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      const double expected = std::max(ref.value[size_t(i + j * m)] + bias[size_t(i)], 0.0);
      const double allowed = error_factor(k) * (ref.magnitude[size_t(i + j * m)] + std::fabs(bias[size_t(i)]));
      bad += !(std::fabs(out[size_t(i + j * m)] - expected) <= allowed);
    }
  }
  REQUIRE(bad == 0);
}
