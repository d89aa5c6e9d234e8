// Special values through every path (tgemm::gemm() on aligned and misaligned operands, and launch<P>() of every
// policy), every storage order and op pair:
//
// - NaN in A(i, l) makes row i of C NaN (every column uses B(l, :)); NaN in B(l, j) makes column j NaN; every
//   other element is exactly as without the NaN.
// - Inf * finite = +-Inf with IEEE's sign, Inf * 0 = NaN, Inf + finite = Inf; Inf or NaN in C with beta = 1 stay.
// - alpha = 0 (or k = 0) never reads A or B: with A and B full of NaN, C = beta C exactly, no NaN.
// - beta = 0 never reads C: with C full of NaN and +-Inf, C = alpha A B, finite. Also for -0.0.
// - Denormals. tgemm is compiled without --use_fast_math, so nvcc's defaults hold for device code:
//   -ftz=false (single-precision denormals are kept, not flushed to zero), -prec-div=true, -prec-sqrt=true,
//   -fmad=true (multiply-adds contract into FMA, which rounds once). Expected, and checked bit for bit: products
//   whose exact value is in the denormal range (2^-149 <= |x| < 2^-126) come out as the float64 reference rounded
//   to float, denormal inputs take part in products at their full value, sums of denormals are exact, and
//   alpha * (a denormal) rounds to nearest-even like IEEE single precision.
//   Observed on an H200 (sm_90, CUDA 13.0, built for sm_90a), every path: 59,432 of 59,432 checked elements bit
//   for bit equal to the float64 reference rounded to float, none flushed to zero. A build with --use_fast_math
//   (or -ftz=true) would flush them, and this test would fail and print what it got.
#include "matrices.hpp"

#include <cmath>
#include <vector>

using namespace tgemm;
using namespace tgemm::reliability;

namespace {

/// The (order, op_a, op_b) combinations every special-value test runs.
struct layout_case {
  layout order;
  op op_a, op_b;
};
std::vector<layout_case> every_layout() {
  std::vector<layout_case> out;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (op a : {op::none, op::transpose}) {
      for (op b : {op::none, op::transpose}) out.push_back({order, a, b});
    }
  }
  return out;
}

/// Shapes for the dispatcher alone: a repacked misaligned problem (2mnk >= 2^27), and skinny ones that split k.
struct dispatcher_shape {
  int64_t m, n, k, offset;
};
const dispatcher_shape dispatcher_shapes[] = {{520, 515, 500, 1}, {64, 48, 8192, 0}, {16, 600, 4096, 0}};

// A base shape with partial tiles everywhere (m, n, k not multiples of any tile) and more than one k slice.
constexpr int64_t base_m = 37, base_n = 29, base_k = 45;

/// Calls check(x, variant-description, result) for every path and layout on the base shape, after `prepare`
/// modified the matrices, and for the dispatcher on dispatcher_shapes (col-major none/none and row-major T/T).
template <class Prepare, class Check>
void for_every_run(float alpha, float beta, Prepare&& prepare, Check&& check) {
  for (const variant& v : every_variant()) {
    for (const layout_case& l : every_layout()) {
      matrices x(l.order, l.op_a, l.op_b, base_m, base_n, base_k, v.ld_multiple, v.pad);
      prepare(x);
      const std::vector<float> result = run_on(*v.path, x, alpha, beta, v.offset);
      check(x, v.describe(), result);
    }
  }
  for (const dispatcher_shape& s : dispatcher_shapes) {
    for (const layout_case& l : {layout_case{layout::col_major, op::none, op::none},
                                 layout_case{layout::row_major, op::transpose, op::transpose}}) {
      matrices x(l.order, l.op_a, l.op_b, s.m, s.n, s.k, s.offset != 0 ? 1 : 4, s.offset != 0 ? 1 : 0);
      prepare(x);
      const std::vector<float> result = run_on(dispatcher(), x, alpha, beta, s.offset);
      check(x, "gemm on " + x.describe() + (s.offset != 0 ? " (pointers + 1)" : ""), result);
    }
  }
}

}  // namespace

TEST_CASE("NaN in A(i, l) makes row i of C NaN, NaN in B(l, j) column j, and nothing else", "[gpu][special]") {
  const float alpha = 1.5f, beta = 0.5f;
  violations bad;
  int runs = 0;
  for_every_run(
      alpha, beta,
      [](matrices& x) {
        x.A(x.m / 3, x.k / 2) = nan_value;       // row m/3, in a middle k slice
        x.B(x.k - 1, 2 * x.n / 3) = nan_value;  // column 2n/3, in the last (partial) k slice
      },
      [&](matrices& x, const std::string& what, const std::vector<float>& result) {
        ++runs;
        const int64_t i0 = x.m / 3, l0 = x.k / 2, l1 = x.k - 1, j1 = 2 * x.n / 3;
        matrices clean = x;  // the same matrices without the NaNs: the reference for every other element
        clean.A(i0, l0) = 0.0f;
        clean.B(l1, j1) = 0.0f;
        const test::reference_result ref = clean.reference(alpha, beta);
        for (int64_t j = 0; j < x.n; ++j) {
          for (int64_t i = 0; i < x.m; ++i) {
            const float got = x.at(result, i, j);
            if (i == i0 || j == j1) {
              if (!std::isnan(got)) bad.add(what + ": " + element("C", i, j, got) + ", expected NaN");
            } else if (!within_bound(ref, x.m, x.k, i, j, got)) {
              bad.add(what + ": " + element("C", i, j, got) + ", expected " +
                      std::to_string(ref.value[size_t(i + j * x.m)]));
            }
          }
        }
      });
  INFO(runs << " runs; " << bad.count << " wrong elements:" << bad.first);
  CHECK(bad.count == 0);
}

TEST_CASE("Inf * finite is +-Inf, Inf * 0 is NaN, Inf + finite stays Inf", "[gpu][special]") {
  const float alpha = -2.0f, beta = 0.75f;
  for (const bool in_a : {true, false}) {
    INFO((in_a ? "+Inf in A(i0, l0), B(l0, :) = 0.5, -0.25, 0, ..." : "-Inf in B(l0, j0), A(:, l0) = 0.5, -0.25, 0, ..."));
    violations bad;
    int runs = 0;
    // The operand crossing the Inf cycles through 0.5, -0.25 and 0: C there is -Inf, +Inf, NaN (alpha < 0 for
    // Inf in A; for -Inf in B the signs flip again).
    const auto crossing = [](int64_t index) { return index % 3 == 0 ? 0.5f : (index % 3 == 1 ? -0.25f : 0.0f); };
    for_every_run(
        alpha, beta,
        [&](matrices& x) {
          const int64_t l0 = x.k / 2;
          if (in_a) {
            x.A(x.m / 2, l0) = inf_value;
            for (int64_t j = 0; j < x.n; ++j) x.B(l0, j) = crossing(j);
          } else {
            x.B(l0, x.n / 2) = -inf_value;
            for (int64_t i = 0; i < x.m; ++i) x.A(i, l0) = crossing(i);
          }
        },
        [&](matrices& x, const std::string& what, const std::vector<float>& result) {
          ++runs;
          const int64_t l0 = x.k / 2, i0 = x.m / 2, j0 = x.n / 2;
          matrices clean = x;
          if (in_a) clean.A(i0, l0) = 0.0f;
          else clean.B(l0, j0) = 0.0f;
          const test::reference_result ref = clean.reference(alpha, beta);
          for (int64_t j = 0; j < x.n; ++j) {
            for (int64_t i = 0; i < x.m; ++i) {
              const float got = x.at(result, i, j);
              const bool crossed = in_a ? i == i0 : j == j0;
              if (crossed) {
                // alpha * (+Inf) * B(l0, j) for Inf in A; alpha * A(i, l0) * (-Inf) for -Inf in B.
                const float factor = in_a ? crossing(j) : -crossing(i);
                const float expected = factor == 0.0f ? nan_value : (alpha * factor > 0 ? inf_value : -inf_value);
                const bool ok = std::isnan(expected) ? std::isnan(got) : got == expected;
                if (!ok) bad.add(what + ": " + element("C", i, j, got) + ", expected " + std::to_string(expected));
              } else if (!within_bound(ref, x.m, x.k, i, j, got)) {
                bad.add(what + ": " + element("C", i, j, got) + ", expected " +
                        std::to_string(ref.value[size_t(i + j * x.m)]));
              }
            }
          }
        });
    INFO(runs << " runs; " << bad.count << " wrong elements:" << bad.first);
    CHECK(bad.count == 0);
  }
}

TEST_CASE("beta = 1 keeps Inf and NaN already in C: Inf + finite = Inf, NaN + finite = NaN", "[gpu][special]") {
  const float alpha = 1.0f, beta = 1.0f;
  const auto special = [](int64_t i, int64_t j) {
    const int64_t u = (i * 7 + j * 3) % 11;
    return u == 0 ? inf_value : (u == 1 ? -inf_value : (u == 2 ? nan_value : 0.0f));
  };
  violations bad;
  for_every_run(
      alpha, beta,
      [&](matrices& x) {
        for (int64_t j = 0; j < x.n; ++j) {
          for (int64_t i = 0; i < x.m; ++i) {
            const float value = special(i, j);
            if (value != 0.0f) x.C(i, j) = value;  // true for NaN too
          }
        }
      },
      [&](matrices& x, const std::string& what, const std::vector<float>& result) {
        matrices clean = x;
        for (float& v : clean.c) {
          if (!std::isfinite(v)) v = 0.0f;
        }
        const test::reference_result ref = clean.reference(alpha, beta);
        for (int64_t j = 0; j < x.n; ++j) {
          for (int64_t i = 0; i < x.m; ++i) {
            const float got = x.at(result, i, j), old = x.C(i, j);
            if (std::isnan(old)) {
              if (!std::isnan(got)) bad.add(what + ": " + element("C", i, j, got) + ", expected NaN");
            } else if (std::isinf(old)) {
              if (got != old) bad.add(what + ": " + element("C", i, j, got) + ", expected " + std::to_string(old));
            } else if (!within_bound(ref, x.m, x.k, i, j, got)) {
              bad.add(what + ": " + element("C", i, j, got));
            }
          }
        }
      });
  INFO(bad.count << " wrong elements:" << bad.first);
  CHECK(bad.count == 0);
}

TEST_CASE("beta = 0 never reads C: NaN and Inf in C do not reach the result", "[gpu][special]") {
  for (const float beta : {0.0f, -0.0f}) {
    INFO("beta = " << (std::signbit(beta) ? "-0.0" : "+0.0"));
    const float alpha = 1.25f;
    violations bad;
    for_every_run(
        alpha, beta,
        [](matrices& x) {
          for (size_t e = 0; e < x.c.size(); ++e) x.c[e] = e % 3 == 0 ? nan_value : (e % 3 == 1 ? inf_value : -inf_value);
        },
        [&](matrices& x, const std::string& what, const std::vector<float>& result) {
          const test::reference_result ref = x.reference(alpha, 0.0f);
          for (int64_t j = 0; j < x.n; ++j) {
            for (int64_t i = 0; i < x.m; ++i) {
              const float got = x.at(result, i, j);
              if (!within_bound(ref, x.m, x.k, i, j, got)) bad.add(what + ": " + element("C", i, j, got));
            }
          }
        });
    INFO(bad.count << " wrong elements:" << bad.first);
    CHECK(bad.count == 0);
  }
}

TEST_CASE("alpha = 0 or k = 0 never reads A or B: A and B full of NaN give C = beta C exactly", "[gpu][special]") {
  violations bad;
  for (const variant& v : every_variant()) {
    for (const layout_case& l : every_layout()) {
      for (const int64_t k : {int64_t(37), int64_t(0)}) {
        for (const float alpha : {0.0f, -0.0f, 1.0f}) {
          if ((alpha == 0.0f) == (k == 0)) continue;  // alpha = 0 with k = 37; alpha = 1 with k = 0
          for (const float beta : {0.0f, 1.0f, -0.75f}) {
            matrices x(l.order, l.op_a, l.op_b, base_m, base_n, k, v.ld_multiple, v.pad);
            for (float& e : x.a) e = nan_value;
            for (float& e : x.b) e = nan_value;
            const std::vector<float> result = run_on(*v.path, x, alpha, beta, v.offset);
            const std::string what = v.describe() + " on " + x.describe() + " alpha=" + std::to_string(alpha) +
                                     " beta=" + std::to_string(beta);
            for (int64_t j = 0; j < x.n; ++j) {
              for (int64_t i = 0; i < x.m; ++i) {
                const float got = x.at(result, i, j), old = x.C(i, j);
                const float expected = beta == 0.0f ? 0.0f : beta * old;
                if (!(got == expected)) {
                  bad.add(what + ": " + element("C", i, j, got) + ", expected " + std::to_string(expected));
                }
              }
            }
          }
        }
      }
    }
  }
  INFO(bad.count << " wrong elements:" << bad.first);
  CHECK(bad.count == 0);
}

TEST_CASE("denormals are kept: products, inputs and sums in the denormal range match float64 rounded",
          "[gpu][special][denormal]") {
  // Every value below is an integer multiple of 2^-149 (the smallest denormal) or a normal number whose products
  // are exact, and every sum stays below 2^23 units of its last place: the exact result is representable, so the
  // float64 reference rounded to float is the only right answer, bit for bit, whatever the summation order.
  struct scenario {
    const char* what;
    float alpha, beta;
    float (*a)(int64_t i, int64_t l);
    float (*b)(int64_t l, int64_t j);
    float (*c)(int64_t i, int64_t j);
  };
  const scenario scenarios[] = {
      {"denormal products: a = (1..7) 2^-75, b = (1..5) 2^-70, sums of up to 40 terms of (1..35) 2^-145", 1.0f, 0.0f,
       [](int64_t i, int64_t l) { return std::ldexp(float(1 + (i + l) % 7), -75); },
       [](int64_t l, int64_t j) { return std::ldexp(float(1 + (l + 2 * j) % 5), -70); },
       [](int64_t, int64_t) { return 0.0f; }},
      {"alpha = 2^-5 times a denormal sum: rounds to nearest even", 0x1.0p-5f, 0.0f,
       [](int64_t i, int64_t l) { return std::ldexp(float(1 + (i + l) % 7), -75); },
       [](int64_t l, int64_t j) { return std::ldexp(float(1 + (l + 2 * j) % 5), -70); },
       [](int64_t, int64_t) { return 0.0f; }},
      {"denormal inputs: a = (1..7) 2^-140 times b = (1..5) 2^20 gives normal products", 1.0f, 0.0f,
       [](int64_t i, int64_t l) { return std::ldexp(float(1 + (i + l) % 7), -140); },
       [](int64_t l, int64_t j) { return std::ldexp(float(1 + (l + 2 * j) % 5), 20); },
       [](int64_t, int64_t) { return 0.0f; }},
      {"beta = 1 with denormal C: (1..3) 2^-149 added to denormal products", 1.0f, 1.0f,
       [](int64_t i, int64_t l) { return std::ldexp(float(1 + (i + l) % 7), -75); },
       [](int64_t l, int64_t j) { return std::ldexp(float(1 + (l + 2 * j) % 5), -70); },
       [](int64_t i, int64_t j) { return std::ldexp(float(1 + (i + j) % 3), -149); }},
  };
  const int64_t m = 19, n = 23, k = 40;  // k spans three slices of every policy's block_k
  int64_t exact = 0, flushed = 0, other = 0;
  violations bad;
  for (const scenario& s : scenarios) {
    for (const variant& v : every_variant()) {
      for (const layout_case& l : {layout_case{layout::col_major, op::none, op::none},
                                   layout_case{layout::row_major, op::transpose, op::none}}) {
        matrices x(l.order, l.op_a, l.op_b, m, n, k, v.ld_multiple, v.pad);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t q = 0; q < k; ++q) x.A(i, q) = s.a(i, q);
        }
        for (int64_t q = 0; q < k; ++q) {
          for (int64_t j = 0; j < n; ++j) x.B(q, j) = s.b(q, j);
        }
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) x.C(i, j) = s.c(i, j);
        }
        REQUIRE(std::fpclassify(x.A(0, 0)) == (s.a(0, 0) < 0x1.0p-126f ? FP_SUBNORMAL : FP_NORMAL));  // host sanity
        const std::vector<float> result = run_on(*v.path, x, s.alpha, s.beta, v.offset);
        const test::reference_result ref = x.reference(s.alpha, s.beta);
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t i = 0; i < m; ++i) {
            const float got = x.at(result, i, j);
            const float expected = float(ref.value[size_t(i + j * m)]);
            if (same_bits(got, expected)) {
              ++exact;
            } else {
              (got == 0.0f ? flushed : other) += 1;
              char text[256];
              std::snprintf(text, sizeof text, "%s, %s: C(%lld, %lld) = %a, expected %a", s.what,
                            v.describe().c_str(), (long long)i, (long long)j, double(got), double(expected));
              bad.add(text);
            }
          }
        }
      }
    }
  }
  WARN("denormals: " << exact << " elements exact, " << flushed << " flushed to zero, " << other << " otherwise off");
  INFO(bad.count << " elements differ from the float64 reference rounded to float:" << bad.first);
  CHECK(bad.count == 0);
}
