// The mdspan front end (tgemm::detail::to_blas_call: views to BLAS arguments) and the float64 host reference of
// test/support/reference.hpp that the GPU tests trust. Views here are over host arrays: the adapter only reads
// their mappings, and the reference reads the arrays themselves.
#include "catch.hpp"
#include "reference.hpp"

#include <tgemm/gemm.cuh>

#include <cuda/std/mdspan>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using ext = cuda::std::dextents<int64_t, 2>;
using cuda::std::layout_left;
using cuda::std::layout_right;
using cuda::std::layout_stride;

void reset_last_error() { tgemm::detail::fail(status::success, cudaSuccess, "%s", "reset by the test"); }

/// How a test stores a matrix: column- or row-major, with `pad` extra elements per line.
struct storage {
  bool row_major;
  int64_t pad;
  const char* name;
};

const storage storages[] = {
    {false, 0, "col"}, {true, 0, "row"}, {false, 3, "col+3"}, {true, 2, "row+2"}};

/// A layout_stride view of rows x cols elements of `data` stored as `s` says.
template <class T>
cuda::std::mdspan<T, ext, layout_stride> strided_view(T* data, int64_t rows, int64_t cols, storage s) {
  const auto strides = s.row_major ? cuda::std::array<int64_t, 2>{cols + s.pad, 1}
                                   : cuda::std::array<int64_t, 2>{1, rows + s.pad};
  return {data, layout_stride::mapping<ext>(ext(rows, cols), strides)};
}

/// The leading dimension and order to_blas_call should read from a view stored as `s`.
int64_t ld_of(int64_t rows, int64_t cols, storage s) { return s.row_major ? cols + s.pad : rows + s.pad; }

/// Element (i, j) of a view, through its mapping.
template <class View>
double element(const View& v, int64_t i, int64_t j) {
  return double(v.data_handle()[v.mapping()(i, j)]);
}

}  // namespace

TEST_CASE("to_blas_call: every combination of strided storages for A, B and C", "[mdspan]") {
  const int64_t m = 3, n = 4, k = 5;
  // Values small integers, so every product below is exact in float and double alike.
  std::vector<float> a_data(64), b_data(64), c_data(64);
  for (size_t i = 0; i < a_data.size(); ++i) {
    a_data[i] = float(int(i % 7) - 3);
    b_data[i] = float(int(i % 5) - 2);
    c_data[i] = float(int(i % 3) - 1);
  }
  for (const storage& sa : storages) {
    for (const storage& sb : storages) {
      for (const storage& sc : storages) {
        CAPTURE(sa.name, sb.name, sc.name);
        const auto a = strided_view<const float>(a_data.data(), m, k, sa);
        const auto b = strided_view<const float>(b_data.data(), k, n, sb);
        const auto c = strided_view<float>(c_data.data(), m, n, sc);
        tgemm::detail::blas_call<float, float, float> call;
        REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
        CHECK(call.order == (sc.row_major ? layout::row_major : layout::col_major));
        CHECK(call.op_a == (sa.row_major == sc.row_major ? op::none : op::transpose));
        CHECK(call.op_b == (sb.row_major == sc.row_major ? op::none : op::transpose));
        CHECK(call.m == m);
        CHECK(call.n == n);
        CHECK(call.k == k);
        CHECK(call.a == a_data.data());
        CHECK(call.b == b_data.data());
        CHECK(call.c == c_data.data());
        CHECK(call.lda == ld_of(m, k, sa));
        CHECK(call.ldb == ld_of(k, n, sb));
        CHECK(call.ldc == ld_of(m, n, sc));

        // The BLAS arguments describe the same product as the views: the reference on the BLAS arguments
        // equals the product computed through the views' own mappings.
        REQUIRE(tgemm::can_implement<tgemm::seed::naive>(call.order, call.op_a, call.op_b, call.m, call.n, call.k,
                                                         2.0f, call.a, call.lda, call.b, call.ldb, -1.0f, call.c,
                                                         call.ldc) == status::success);
        const auto ref = tgemm::test::reference_gemm(call.order, call.op_a, call.op_b, call.m, call.n, call.k, 2.0f,
                                                     call.a, call.lda, call.b, call.ldb, -1.0f, call.c, call.ldc);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double expected = -element(c, i, j);
            for (int64_t l = 0; l < k; ++l) expected += 2.0 * element(a, i, l) * element(b, l, j);
            CAPTURE(i, j);
            REQUIRE(ref.value[size_t(i + j * m)] == expected);
          }
        }
      }
    }
  }
}

namespace {

struct left_tag {};
struct right_tag {};
struct stride_tag {};  // column-major with a padded leading dimension

template <class T>
auto make_view(left_tag, T* data, int64_t rows, int64_t cols) {
  return cuda::std::mdspan<T, ext, layout_left>(data, rows, cols);
}
template <class T>
auto make_view(right_tag, T* data, int64_t rows, int64_t cols) {
  return cuda::std::mdspan<T, ext, layout_right>(data, rows, cols);
}
template <class T>
auto make_view(stride_tag, T* data, int64_t rows, int64_t cols) {
  return strided_view(data, rows, cols, storage{false, 2, "col+2"});
}

constexpr bool is_row_major(left_tag) { return false; }
constexpr bool is_row_major(right_tag) { return true; }
constexpr bool is_row_major(stride_tag) { return false; }
constexpr int64_t ld_for(left_tag, int64_t rows, int64_t) { return rows; }
constexpr int64_t ld_for(right_tag, int64_t, int64_t cols) { return cols; }
constexpr int64_t ld_for(stride_tag, int64_t rows, int64_t) { return rows + 2; }
const char* tag_name(left_tag) { return "layout_left"; }
const char* tag_name(right_tag) { return "layout_right"; }
const char* tag_name(stride_tag) { return "layout_stride"; }

template <class F>
void for_each_tag(F&& f) {
  f(left_tag{});
  f(right_tag{});
  f(stride_tag{});
}

}  // namespace

TEST_CASE("to_blas_call: layout_left, layout_right and layout_stride views in every combination", "[mdspan]") {
  const int64_t m = 6, n = 7, k = 9;
  std::vector<float> a_data(128), b_data(128), c_data(128);
  for_each_tag([&](auto ta) {
    for_each_tag([&](auto tb) {
      for_each_tag([&](auto tc) {
        CAPTURE(tag_name(ta), tag_name(tb), tag_name(tc));
        tgemm::detail::blas_call<float, float, float> call;
        const auto a = make_view(ta, static_cast<const float*>(a_data.data()), m, k);
        const auto b = make_view(tb, static_cast<const float*>(b_data.data()), k, n);
        const auto c = make_view(tc, c_data.data(), m, n);
        REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
        CHECK(call.order == (is_row_major(tc) ? layout::row_major : layout::col_major));
        CHECK(call.op_a == (is_row_major(ta) == is_row_major(tc) ? op::none : op::transpose));
        CHECK(call.op_b == (is_row_major(tb) == is_row_major(tc) ? op::none : op::transpose));
        CHECK(call.m == m);
        CHECK(call.n == n);
        CHECK(call.k == k);
        CHECK(call.lda == ld_for(ta, m, k));
        CHECK(call.ldb == ld_for(tb, k, n));
        CHECK(call.ldc == ld_for(tc, m, n));
        CHECK(call.a == a_data.data());
        CHECK(call.b == b_data.data());
        CHECK(call.c == c_data.data());
      });
    });
  });
}

TEST_CASE("to_blas_call: hand-checked cases", "[mdspan]") {
  std::vector<float> a_data(64), b_data(64), c_data(64);
  const float* a_ptr = a_data.data();
  const float* b_ptr = b_data.data();
  float* c_ptr = c_data.data();
  tgemm::detail::blas_call<float, float, float> call;

  SECTION("all layout_right: a row-major call without transposes") {
    cuda::std::mdspan<const float, ext, layout_right> a(a_ptr, 2, 3);
    cuda::std::mdspan<const float, ext, layout_right> b(b_ptr, 3, 4);
    cuda::std::mdspan<float, ext, layout_right> c(c_ptr, 2, 4);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    CHECK(call.order == layout::row_major);
    CHECK(call.op_a == op::none);
    CHECK(call.op_b == op::none);
    CHECK((call.m == 2 && call.n == 4 && call.k == 3));
    CHECK((call.lda == 3 && call.ldb == 4 && call.ldc == 4));
  }
  SECTION("column-major C, row-major A: A is read transposed with ld = k") {
    cuda::std::mdspan<const float, ext, layout_right> a(a_ptr, 2, 3);
    cuda::std::mdspan<const float, ext, layout_left> b(b_ptr, 3, 4);
    cuda::std::mdspan<float, ext, layout_left> c(c_ptr, 2, 4);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    CHECK(call.order == layout::col_major);
    CHECK(call.op_a == op::transpose);
    CHECK(call.op_b == op::none);
    CHECK((call.lda == 3 && call.ldb == 3 && call.ldc == 2));
  }
  SECTION("padded row-major C, column-major padded B") {
    cuda::std::mdspan<const float, ext, layout_right> a(a_ptr, 2, 3);
    cuda::std::mdspan<const float, ext, layout_stride> b(
        b_ptr, layout_stride::mapping<ext>(ext(3, 4), cuda::std::array<int64_t, 2>{1, 5}));
    cuda::std::mdspan<float, ext, layout_stride> c(
        c_ptr, layout_stride::mapping<ext>(ext(2, 4), cuda::std::array<int64_t, 2>{8, 1}));
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    CHECK(call.order == layout::row_major);
    CHECK(call.op_a == op::none);
    CHECK(call.op_b == op::transpose);
    CHECK((call.lda == 3 && call.ldb == 5 && call.ldc == 8));
  }
  SECTION("int extents") {
    using int_ext = cuda::std::dextents<int, 2>;
    cuda::std::mdspan<const float, int_ext, layout_left> a(a_ptr, 5, 2);
    cuda::std::mdspan<const float, int_ext, layout_right> b(b_ptr, 2, 3);
    cuda::std::mdspan<float, int_ext, layout_stride> c(
        c_ptr, layout_stride::mapping<int_ext>(int_ext(5, 3), cuda::std::array<int, 2>{1, 7}));
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    CHECK(call.order == layout::col_major);
    CHECK(call.op_a == op::none);
    CHECK(call.op_b == op::transpose);
    CHECK((call.m == 5 && call.n == 3 && call.k == 2));
    CHECK((call.lda == 5 && call.ldb == 3 && call.ldc == 7));
  }
  SECTION("static extents") {
    cuda::std::mdspan<const float, cuda::std::extents<int, 4, 2>, layout_left> a(a_ptr);
    cuda::std::mdspan<const float, cuda::std::extents<int, 2, 3>, layout_left> b(b_ptr);
    cuda::std::mdspan<float, cuda::std::extents<int64_t, 4, 3>, layout_left> c(c_ptr);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    CHECK(call.order == layout::col_major);
    CHECK((call.m == 4 && call.n == 3 && call.k == 2));
    CHECK((call.lda == 4 && call.ldb == 2 && call.ldc == 4));
  }
  SECTION("a dimension of extent 1 has no meaningful stride") {
    // A 1 x 5 row of a column-major matrix with 7 rows: strides (any, 7).
    cuda::std::mdspan<const float, ext, layout_stride> a(
        a_ptr, layout_stride::mapping<ext>(ext(1, 5), cuda::std::array<int64_t, 2>{3, 7}));
    // A 5 x 1 column of a row-major matrix with 6 columns: strides (6, any).
    cuda::std::mdspan<const float, ext, layout_stride> b(
        b_ptr, layout_stride::mapping<ext>(ext(5, 1), cuda::std::array<int64_t, 2>{6, 9}));
    cuda::std::mdspan<float, ext, layout_left> c(c_ptr, 1, 1);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    CHECK(call.order == layout::col_major);
    CHECK(call.op_a == op::none);  // read as column-major 1 x 5 with ld 7
    CHECK(call.lda == 7);
    CHECK(call.op_b == op::transpose);  // read as row-major 5 x 1 with ld 6
    CHECK(call.ldb == 6);
    CHECK(call.ldc == 1);
    CHECK((call.m == 1 && call.n == 1 && call.k == 5));
  }
  SECTION("empty views give leading dimension 1") {
    cuda::std::mdspan<const float, ext, layout_left> a(a_ptr, 0, 3);
    cuda::std::mdspan<const float, ext, layout_right> b(b_ptr, 3, 0);
    cuda::std::mdspan<float, ext, layout_left> c(c_ptr, 0, 0);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    CHECK((call.m == 0 && call.n == 0 && call.k == 3));
    CHECK(call.lda == 1);
    CHECK(call.ldb == 1);
    CHECK(call.ldc == 1);
  }
}

TEST_CASE("to_blas_call rejects views whose extents disagree, naming the dimension", "[mdspan]") {
  std::vector<float> data(64);
  const float* in = data.data();
  float* out = data.data();
  tgemm::detail::blas_call<float, float, float> call;
  reset_last_error();
  SECTION("m") {
    cuda::std::mdspan<const float, ext, layout_left> a(in, 4, 5);
    cuda::std::mdspan<const float, ext, layout_left> b(in, 5, 2);
    cuda::std::mdspan<float, ext, layout_left> c(out, 3, 2);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::invalid_extents);
    REQUIRE(tgemm::last_error().code == status::invalid_extents);
    REQUIRE(tgemm::last_error().message == "A has 4 rows but C has 3 (both must be m)");
  }
  SECTION("n") {
    cuda::std::mdspan<const float, ext, layout_right> a(in, 3, 5);
    cuda::std::mdspan<const float, ext, layout_right> b(in, 5, 6);
    cuda::std::mdspan<float, ext, layout_right> c(out, 3, 2);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::invalid_extents);
    REQUIRE(tgemm::last_error().code == status::invalid_extents);
    REQUIRE(tgemm::last_error().message == "B has 6 columns but C has 2 (both must be n)");
  }
  SECTION("k") {
    cuda::std::mdspan<const float, ext, layout_left> a(in, 3, 4);
    cuda::std::mdspan<const float, ext, layout_right> b(in, 5, 2);
    cuda::std::mdspan<float, ext, layout_left> c(out, 3, 2);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::invalid_extents);
    REQUIRE(tgemm::last_error().code == status::invalid_extents);
    REQUIRE(tgemm::last_error().message == "A has 4 columns but B has 5 rows (both must be k)");
  }
  SECTION("the mdspan gemm() returns the same before any device work") {
    cuda::std::mdspan<const float, ext, layout_left> a(in, 3, 4);
    cuda::std::mdspan<const float, ext, layout_left> b(in, 5, 2);
    cuda::std::mdspan<float, ext, layout_left> c(out, 3, 2);
    REQUIRE(tgemm::gemm(1.0f, a, b, 0.0f, c) == status::invalid_extents);
    REQUIRE(tgemm::last_error().message.find("(both must be k)") != std::string::npos);
  }
}

TEST_CASE("to_blas_call rejects a strided view with no unit stride, naming the view", "[mdspan]") {
  std::vector<float> data(64);
  const float* in = data.data();
  float* out = data.data();
  tgemm::detail::blas_call<float, float, float> call;
  const auto no_unit = [](auto* p, int64_t rows, int64_t cols) {
    using T = std::remove_pointer_t<decltype(p)>;
    return cuda::std::mdspan<T, ext, layout_stride>(
        p, layout_stride::mapping<ext>(ext(rows, cols), cuda::std::array<int64_t, 2>{2, 2 * rows}));
  };
  reset_last_error();
  SECTION("A") {
    cuda::std::mdspan<const float, ext, layout_left> b(in, 3, 2);
    cuda::std::mdspan<float, ext, layout_left> c(out, 2, 2);
    REQUIRE(tgemm::detail::to_blas_call(no_unit(in, 2, 3), b, c, call) == status::unsupported_layout);
    REQUIRE(tgemm::last_error().code == status::unsupported_layout);
    REQUIRE(tgemm::last_error().message.find("A has strides (2, 4)") != std::string::npos);
  }
  SECTION("B") {
    cuda::std::mdspan<const float, ext, layout_left> a(in, 2, 3);
    cuda::std::mdspan<float, ext, layout_left> c(out, 2, 2);
    REQUIRE(tgemm::detail::to_blas_call(a, no_unit(in, 3, 2), c, call) == status::unsupported_layout);
    REQUIRE(tgemm::last_error().message.find("B has strides (2, 6)") != std::string::npos);
  }
  SECTION("C") {
    cuda::std::mdspan<const float, ext, layout_left> a(in, 2, 3);
    cuda::std::mdspan<const float, ext, layout_left> b(in, 3, 2);
    REQUIRE(tgemm::detail::to_blas_call(a, b, no_unit(out, 2, 2), call) == status::unsupported_layout);
    REQUIRE(tgemm::last_error().message.find("C has strides (2, 4)") != std::string::npos);
    reset_last_error();
    REQUIRE(tgemm::gemm(1.0f, a, b, 0.0f, no_unit(out, 2, 2)) == status::unsupported_layout);
    REQUIRE(tgemm::last_error().code == status::unsupported_layout);
  }
}

TEST_CASE("the mdspan gemm() checks the BLAS arguments it builds", "[mdspan]") {
  std::vector<float> data(64);
  reset_last_error();
  SECTION("an empty product is success with no device work") {
    cuda::std::mdspan<const float, ext, layout_left> a(nullptr, 0, 3);
    cuda::std::mdspan<const float, ext, layout_left> b(nullptr, 3, 4);
    cuda::std::mdspan<float, ext, layout_left> c(nullptr, 0, 4);
    REQUIRE(tgemm::gemm(1.0f, a, b, 0.0f, c) == status::success);
  }
  SECTION("a null operand") {
    cuda::std::mdspan<const float, ext, layout_left> a(nullptr, 2, 3);
    cuda::std::mdspan<const float, ext, layout_left> b(data.data(), 3, 4);
    cuda::std::mdspan<float, ext, layout_left> c(data.data(), 2, 4);
    REQUIRE(tgemm::gemm(1.0f, a, b, 0.0f, c) == status::null_pointer);
    REQUIRE(tgemm::last_error().message.find("A is null") != std::string::npos);
  }
  SECTION("a view of floats that are not 4-byte aligned") {
    const float* odd = reinterpret_cast<const float*>(uintptr_t(0x10002));
    cuda::std::mdspan<const float, ext, layout_left> a(data.data(), 3, 2);
    cuda::std::mdspan<const float, ext, layout_right> b(odd, 2, 2);
    cuda::std::mdspan<float, ext, layout_left> c(data.data() + 8, 3, 2);
    REQUIRE(tgemm::gemm(1.0f, a, b, 0.0f, c) == status::misaligned_operand);
    REQUIRE(tgemm::last_error().message.find("B (at ") != std::string::npos);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The host reference.

namespace {

// A = [1 2 3; 4 5 6] (2 x 3), B = [7 8; 9 10; 11 12] (3 x 2), A B = [58 64; 139 154].
const double A[2][3] = {{1, 2, 3}, {4, 5, 6}};
const double B[3][2] = {{7, 8}, {9, 10}, {11, 12}};
const double AB[2][2] = {{58, 64}, {139, 154}};
const double C0[2][2] = {{1, -2}, {3, 4}};

/// Stores the rows x cols matrix x(i, j) in `order` with leading dimension ld; the padding holds NaN, which the
/// reference must never read. Written without reference.hpp's own index helpers.
template <class F>
std::vector<float> store(layout order, int64_t rows, int64_t cols, int64_t ld, F&& x) {
  const int64_t lines = order == layout::col_major ? cols : rows;
  std::vector<float> out(size_t(ld * lines), std::numeric_limits<float>::quiet_NaN());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t at = order == layout::col_major ? i + j * ld : i * ld + j;
      out[size_t(at)] = float(x(i, j));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("reference_gemm: a hand-computed 2x3 * 3x2 product in both orders and all op combinations", "[reference]") {
  const float alpha = 2.0f, beta = -1.0f;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (op op_a : {op::none, op::transpose}) {
      for (op op_b : {op::none, op::transpose}) {
        CAPTURE(tgemm::to_string(order), tgemm::to_string(op_a), tgemm::to_string(op_b));
        // The stored X is A (2 x 3) or A^T (3 x 2), so that op(X) = A; likewise B. Leading dimensions padded by 1.
        const int64_t a_rows = op_a == op::none ? 2 : 3, a_cols = op_a == op::none ? 3 : 2;
        const int64_t b_rows = op_b == op::none ? 3 : 2, b_cols = op_b == op::none ? 2 : 3;
        const int64_t lda = (order == layout::col_major ? a_rows : a_cols) + 1;
        const int64_t ldb = (order == layout::col_major ? b_rows : b_cols) + 1;
        const int64_t ldc = 2 + 1;
        const auto a = store(order, a_rows, a_cols, lda,
                             [&](int64_t i, int64_t j) { return op_a == op::none ? A[i][j] : A[j][i]; });
        const auto b = store(order, b_rows, b_cols, ldb,
                             [&](int64_t i, int64_t j) { return op_b == op::none ? B[i][j] : B[j][i]; });
        const auto c = store(order, 2, 2, ldc, [&](int64_t i, int64_t j) { return C0[i][j]; });
        REQUIRE(tgemm::test::min_ld(order, op_a, 2, 3) == lda - 1);
        REQUIRE(tgemm::test::min_ld(order, op_b, 3, 2) == ldb - 1);
        REQUIRE(tgemm::test::stored_elements(order, op_a, 2, 3, lda) == int64_t(a.size()));
        REQUIRE(tgemm::test::stored_elements(order, op_b, 3, 2, ldb) == int64_t(b.size()));

        const auto r = tgemm::test::reference_gemm(order, op_a, op_b, 2, 2, 3, alpha, a.data(), lda, b.data(), ldb,
                                                   beta, c.data(), ldc);
        REQUIRE(r.value.size() == 4);
        REQUIRE(r.magnitude.size() == 4);
        // value and magnitude are column-major with ld = m = 2.
        CHECK(r.value[0] == 2 * 58 - 1);    // (0, 0): 115
        CHECK(r.value[1] == 2 * 139 - 3);   // (1, 0): 275
        CHECK(r.value[2] == 2 * 64 + 2);    // (0, 1): 130
        CHECK(r.value[3] == 2 * 154 - 4);   // (1, 1): 304
        // Every term is positive except beta C: |alpha| sum |a||b| + |beta| |c|.
        CHECK(r.magnitude[0] == 2 * 58 + 1);
        CHECK(r.magnitude[1] == 2 * 139 + 3);
        CHECK(r.magnitude[2] == 2 * 64 + 2);
        CHECK(r.magnitude[3] == 2 * 154 + 4);
        for (int i = 0; i < 2; ++i) {
          for (int j = 0; j < 2; ++j) CHECK(r.value[size_t(i + 2 * j)] == alpha * AB[i][j] + beta * C0[i][j]);
        }
      }
    }
  }
}

TEST_CASE("reference_gemm: beta == 0 ignores C (NaN or null), alpha == 0 ignores A and B", "[reference]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto a = store(layout::col_major, 2, 3, 2, [](int64_t i, int64_t j) { return A[i][j]; });
  const auto b = store(layout::col_major, 3, 2, 3, [](int64_t i, int64_t j) { return B[i][j]; });
  SECTION("beta = 0 with NaN in C") {
    const std::vector<float> c(4, nan);
    const auto r = tgemm::test::reference_gemm(layout::col_major, op::none, op::none, 2, 2, 3, 1.0f, a.data(), 2,
                                               b.data(), 3, 0.0f, c.data(), 2);
    CHECK(r.value == std::vector<double>{58, 139, 64, 154});
    CHECK(r.magnitude == std::vector<double>{58, 139, 64, 154});
  }
  SECTION("beta = 0 with a null C") {
    const auto r = tgemm::test::reference_gemm(layout::col_major, op::none, op::none, 2, 2, 3, -1.0f, a.data(), 2,
                                               b.data(), 3, 0.0f, nullptr, 2);
    for (double v : r.value) CHECK(std::isfinite(v));
  }
  SECTION("alpha = 0 with NaN in A and B") {
    const std::vector<float> nans(6, nan);
    const std::vector<float> c = {1, 2, 3, 4};
    const auto r = tgemm::test::reference_gemm(layout::col_major, op::none, op::none, 2, 2, 3, 0.0f, nans.data(), 2,
                                               nans.data(), 3, 3.0f, c.data(), 2);
    CHECK(r.value == std::vector<double>{3, 6, 9, 12});
    CHECK(r.magnitude == std::vector<double>{3, 6, 9, 12});
  }
  SECTION("k = 0: C = beta C") {
    const std::vector<float> c = {1, -2, 3, -4};
    const auto r = tgemm::test::reference_gemm(layout::row_major, op::none, op::none, 2, 2, 0, 1.0f, nullptr, 1,
                                               nullptr, 2, -0.5f, c.data(), 2);
    CHECK(r.value == std::vector<double>{-0.5, -1.5, 1, 2});  // column-major out of a row-major C
  }
}

TEST_CASE("compare(): passes the exact result, flags a perturbed element and a NaN", "[reference]") {
  const auto a = store(layout::row_major, 2, 3, 3, [](int64_t i, int64_t j) { return A[i][j]; });
  const auto b = store(layout::row_major, 3, 2, 2, [](int64_t i, int64_t j) { return B[i][j]; });
  const auto c0 = store(layout::row_major, 2, 2, 2, [](int64_t i, int64_t j) { return C0[i][j]; });
  const auto ref = tgemm::test::reference_gemm(layout::row_major, op::none, op::none, 2, 2, 3, 2.0f, a.data(), 3,
                                               b.data(), 2, -1.0f, c0.data(), 2);
  // The exact result, row-major with ldc = 4 (padding never read).
  std::vector<float> c = {115, 130, -1e30f, -1e30f, 275, 304, -1e30f, -1e30f};
  const int64_t ldc = 4;

  SECTION("exact") {
    const auto cmp = tgemm::test::compare(ref, c.data(), layout::row_major, 2, 2, 3, ldc);
    INFO(cmp.describe());
    CHECK(cmp.passed());
    CHECK(cmp.bad_elements == 0);
    CHECK(cmp.error_norm == 0.0);
    CHECK(cmp.bound_norm > 0.0);
  }
  SECTION("one ulp off is within the bound") {
    c[5] = std::nextafter(304.0f, 400.0f);
    const auto cmp = tgemm::test::compare(ref, c.data(), layout::row_major, 2, 2, 3, ldc);
    INFO(cmp.describe());
    CHECK(cmp.passed());
    CHECK(cmp.error_norm > 0.0);
  }
  SECTION("one element off by 1") {
    c[5] = 305.0f;  // (1, 1)
    const auto cmp = tgemm::test::compare(ref, c.data(), layout::row_major, 2, 2, 3, ldc);
    INFO(cmp.describe());
    CHECK_FALSE(cmp.passed());
    CHECK(cmp.bad_elements == 1);
    CHECK(cmp.worst_row == 1);
    CHECK(cmp.worst_col == 1);
    CHECK(cmp.worst_ratio > 1.0);
    CHECK(cmp.error_norm == 1.0);
    CHECK(cmp.describe().find("1 elements out of bound, worst at (1, 1)") != std::string::npos);
  }
  SECTION("a NaN") {
    c[1] = std::numeric_limits<float>::quiet_NaN();  // (0, 1)
    const auto cmp = tgemm::test::compare(ref, c.data(), layout::row_major, 2, 2, 3, ldc);
    INFO(cmp.describe());
    CHECK_FALSE(cmp.passed());
    CHECK(cmp.bad_elements == 1);
    CHECK(cmp.worst_row == 0);
    CHECK(cmp.worst_col == 1);
  }
  SECTION("an infinity") {
    c[4] = std::numeric_limits<float>::infinity();  // (1, 0)
    const auto cmp = tgemm::test::compare(ref, c.data(), layout::row_major, 2, 2, 3, ldc);
    CHECK_FALSE(cmp.passed());
    CHECK(cmp.bad_elements == 1);
    CHECK(cmp.worst_row == 1);
    CHECK(cmp.worst_col == 0);
  }
  SECTION("the same data read column-major is wrong") {
    const auto cmp = tgemm::test::compare(ref, c.data(), layout::col_major, 2, 2, 3, ldc);
    CHECK_FALSE(cmp.passed());
  }
}

TEST_CASE("rank-3 views: a batch of matrices, the batch index first, broadcast by a batch extent of 1",
          "[mdspan][batched]") {
  using ext3 = cuda::std::dextents<int64_t, 3>;
  std::vector<float> a_data(1000), b_data(1000), c_data(1000);
  tgemm::detail::blas_call<float, float, float> call;
  tgemm::detail::batch_shape batch;
  SECTION("layout_right: row-major matrices one after another") {
    cuda::std::mdspan<const float, ext3, layout_right> a(a_data.data(), 5, 2, 3);
    cuda::std::mdspan<const float, ext3, layout_right> b(b_data.data(), 5, 3, 4);
    cuda::std::mdspan<float, ext3, layout_right> c(c_data.data(), 5, 2, 4);
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    REQUIRE(tgemm::detail::to_batch_shape(a, b, c, batch) == status::success);
    CHECK(call.order == layout::row_major);
    CHECK((call.op_a == op::none && call.op_b == op::none));
    CHECK((call.m == 2 && call.n == 4 && call.k == 3));
    CHECK((call.lda == 3 && call.ldb == 4 && call.ldc == 4));
    CHECK((batch.count == 5 && batch.stride_a == 6 && batch.stride_b == 12 && batch.stride_c == 8));
  }
  SECTION("layout_stride: column-major matrices with padded lines and gaps; one B for every product") {
    using mapping = layout_stride::mapping<ext3>;
    // A: 4 products of 2 x 3, ld 5, 20 elements apart; B: one 3 x 4, row-major (read transposed), ld 6.
    cuda::std::mdspan<const float, ext3, layout_stride> a(a_data.data(),
                                                          mapping(ext3(4, 2, 3), cuda::std::array<int64_t, 3>{20, 1, 5}));
    cuda::std::mdspan<const float, ext3, layout_stride> b(b_data.data(),
                                                          mapping(ext3(1, 3, 4), cuda::std::array<int64_t, 3>{100, 6, 1}));
    cuda::std::mdspan<float, ext3, layout_stride> c(c_data.data(),
                                                    mapping(ext3(4, 2, 4), cuda::std::array<int64_t, 3>{9, 1, 2}));
    REQUIRE(tgemm::detail::to_blas_call(a, b, c, call) == status::success);
    REQUIRE(tgemm::detail::to_batch_shape(a, b, c, batch) == status::success);
    CHECK(call.order == layout::col_major);
    CHECK((call.op_a == op::none && call.op_b == op::transpose));
    CHECK((call.lda == 5 && call.ldb == 6 && call.ldc == 2));
    CHECK((batch.count == 4 && batch.stride_a == 20 && batch.stride_b == 0 && batch.stride_c == 9));
  }
  SECTION("batch extents that disagree are invalid_extents, naming the view") {
    cuda::std::mdspan<const float, ext3, layout_right> a(a_data.data(), 3, 2, 3);
    cuda::std::mdspan<const float, ext3, layout_right> b(b_data.data(), 5, 3, 4);
    cuda::std::mdspan<float, ext3, layout_right> c(c_data.data(), 5, 2, 4);
    REQUIRE(tgemm::detail::to_batch_shape(a, b, c, batch) == status::invalid_extents);
    CHECK(tgemm::last_error().message.find("A holds 3 matrices but C 5") != std::string::npos);
    // Through the public overload, before any device work (C's stride 8 is C's span: the products are apart).
    REQUIRE(tgemm::gemm_strided_batched(1.0f, a, b, 0.0f, c) == status::invalid_extents);
    // An overlapping C from a hand-made stride is the pointer API's invalid_batch_stride.
    using mapping = layout_stride::mapping<ext3>;
    cuda::std::mdspan<const float, ext3, layout_right> a5(a_data.data(), 5, 2, 3);
    cuda::std::mdspan<float, ext3, layout_stride> overlapping(
        c_data.data(), mapping(ext3(5, 2, 4), cuda::std::array<int64_t, 3>{3, 4, 1}));
    REQUIRE(tgemm::gemm_strided_batched(1.0f, a5, b, 0.0f, overlapping) == status::invalid_batch_stride);
  }
}
