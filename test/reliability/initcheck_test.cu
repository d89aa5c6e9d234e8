// beta = 0 must never read C. Here C comes straight from cudaMalloc and is never written before the call, so under
// `compute-sanitizer --tool initcheck` (scripts/sanitize.sh runs this test so) any read of C, or of tgemm's own
// scratch memory (split-K partials, repacked operands) before it is written, is reported. Outside the sanitizer
// the test still checks every result. Also k = 0 and alpha = 0 with beta = 0: C = 0, and A and B are null.
//
// Only memory the call must have written is copied back: ldc is tight and the elements before a misaligned C are
// never read, so the test itself reads nothing uninitialised.
#include "matrices.hpp"

#include <cmath>
#include <vector>

using namespace tgemm;
using namespace tgemm::reliability;

namespace {

/// Runs C = alpha op(A) op(B) (beta = 0) on `path` with C freshly allocated and never written, `offset` floats
/// past an aligned address; returns C.
std::vector<float> run_on_uninitialised_c(const gemm_path& path, const matrices& x, float alpha, int64_t offset,
                                          bool null_operands) {
  test::device_buffer<float> da(x.a.size() + size_t(offset) + 1), db(x.b.size() + size_t(offset) + 1);
  test::device_buffer<float> dc(x.c.size() + size_t(offset));  // never written by the test
  upload_at(da, x.a, offset);
  upload_at(db, x.b, offset);
  const float* a = null_operands ? nullptr : da.get() + offset;
  const float* b = null_operands ? nullptr : db.get() + offset;
  float* c = dc.get() + offset;
  INFO(path.name << " on " << x.describe() << " alpha=" << alpha << " beta=0 offset=" << offset
                 << (null_operands ? " A=B=null" : ""));
  const status s = path.run(x.order, x.op_a, x.op_b, x.m, x.n, x.k, alpha, a, x.lda, b, x.ldb, 0.0f, c, x.ldc, nullptr);
  INFO("status " << to_string(s) << ": " << (s == status::success ? "" : last_error().message));
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  return download(c, x.c.size());
}

/// C tight (ldc = its rows or columns): every element of the buffer is one the call writes.
matrices with_tight_c(matrices x) {
  x.ldc = test::min_ld(x.order, op::none, x.m, x.n);
  x.c.assign(size_t(test::stored_elements(x.order, op::none, x.m, x.n, x.ldc)), 0.0f);
  return x;
}

/// Checks C = alpha op(A) op(B): every element for small problems, 64 x 8 sampled ones for large ones.
void check_product(const matrices& x, float alpha, const std::vector<float>& result, violations& bad,
                   const std::string& what) {
  const bool sample = double(x.m) * double(x.n) * double(x.k) > 2e7;
  const int64_t row_step = sample ? (x.m + 63) / 64 : 1, col_step = sample ? (x.n + 7) / 8 : 1;
  for (int64_t j = 0; j < x.n; j += col_step) {
    for (int64_t i = 0; i < x.m; i += row_step) {
      double sum = 0, magnitude = 0;
      for (int64_t l = 0; l < x.k; ++l) {
        const double product = double(x.a[size_t(test::op_index_of(x.order, x.op_a, i, l, x.lda))]) *
                               double(x.b[size_t(test::op_index_of(x.order, x.op_b, l, j, x.ldb))]);
        sum += product;
        magnitude += std::fabs(product);
      }
      const double expected = double(alpha) * sum;
      const double allowed = test::error_factor(x.k) * std::fabs(double(alpha)) * magnitude +
                             std::numeric_limits<float>::denorm_min();
      const float got = x.at(result, i, j);
      if (!std::isfinite(got) || std::fabs(double(got) - expected) > allowed) {
        bad.add(what + ": " + element("C", i, j, got) + ", expected " + std::to_string(expected));
      }
    }
  }
}

struct layout_case {
  layout order;
  op op_a, op_b;
};
const layout_case layouts[] = {{layout::col_major, op::none, op::none},
                               {layout::row_major, op::transpose, op::none},
                               {layout::col_major, op::transpose, op::transpose},
                               {layout::row_major, op::none, op::transpose}};

}  // namespace

TEST_CASE("beta = 0 never reads C: C straight from cudaMalloc, never initialised", "[gpu][initcheck]") {
  violations bad;
  int runs = 0;
  SECTION("every path, every order, partial tiles") {
    for (const variant& v : every_variant()) {
      for (const layout_case& l : layouts) {
        const matrices x = with_tight_c(matrices(l.order, l.op_a, l.op_b, 45, 37, 53, v.ld_multiple, v.pad));
        const std::vector<float> result = run_on_uninitialised_c(*v.path, x, 1.25f, v.offset, false);
        check_product(x, 1.25f, result, bad, v.describe() + " on " + x.describe());
        ++runs;
      }
    }
  }
  SECTION("the dispatcher on skinny (split-K), narrow, tiny, repacked and staged-C problems") {
    // 1802 x 1802: ldc = 1802 is not a multiple of 4, so the product goes through aligned scratch (the reduction
    // with one slice copies it to C).
    struct shape {
      int64_t m, n, k, offset;
    };
    const shape shapes[] = {{256, 256, 16384, 0}, {16, 1024, 4096, 0}, {300, 20, 3000, 0},
                            {300, 12, 3000, 0},   {520, 515, 500, 1}, {1802, 1802, 8, 0}};
    for (const shape& s : shapes) {
      for (const layout_case& l : {layouts[0], layouts[1]}) {
        const matrices x = with_tight_c(
            matrices(l.order, l.op_a, l.op_b, s.m, s.n, s.k, s.offset != 0 ? 1 : 4, s.offset != 0 ? 1 : 0));
        const std::vector<float> result = run_on_uninitialised_c(dispatcher(), x, -0.5f, s.offset, false);
        check_product(x, -0.5f, result, bad, "gemm on " + x.describe());
        ++runs;
      }
    }
  }
  SECTION("k = 0 and alpha = 0 write zeros, with A and B null") {
    for (const variant& v : every_variant()) {
      for (const layout_case& l : layouts) {
        for (const int64_t k : {int64_t(0), int64_t(53)}) {
          const float alpha = k == 0 ? 1.0f : 0.0f;
          const matrices x = with_tight_c(matrices(l.order, l.op_a, l.op_b, 45, 37, k, v.ld_multiple, v.pad));
          const std::vector<float> result = run_on_uninitialised_c(*v.path, x, alpha, v.offset, true);
          for (int64_t j = 0; j < x.n; ++j) {
            for (int64_t i = 0; i < x.m; ++i) {
              const float got = x.at(result, i, j);
              if (!(got == 0.0f)) {
                bad.add(v.describe() + " on " + x.describe() + " alpha=" + std::to_string(alpha) + ": " +
                        element("C", i, j, got) + ", expected 0");
              }
            }
          }
          ++runs;
        }
      }
    }
  }
  INFO(runs << " runs; " << bad.count << " wrong elements:" << bad.first);
  CHECK(bad.count == 0);
}
