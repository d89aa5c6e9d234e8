// Argument checking of tgemm::gemm(), tgemm::can_implement<P>() and tgemm::launch<P>(), and what last_error()
// says about it. Every call here fails (or succeeds) before any device work, so fake device pointers are fine and
// the tests run the same with or without a GPU. Calls with fully valid arguments would reach the device: those are
// made only through can_implement<P>(), which never touches one; the one exception is the empty problem (m or n
// zero), which gemm() and launch<P>() must finish before asking for a device.
#include "catch.hpp"

#include <tgemm/gemm.cuh>
#include <tgemm/host/check_epilogue.cuh>

#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;

/// A fake device pointer: never dereferenced, 256-byte aligned, `offset_bytes` past a round address.
float* fake(uintptr_t base, uintptr_t offset_bytes = 0) { return reinterpret_cast<float*>(base + offset_bytes); }

float* const fake_a = fake(0x10000);
float* const fake_b = fake(0x20000);
float* const fake_c = fake(0x30000);

/// One call's arguments.
struct call_args {
  layout order = layout::col_major;
  op op_a = op::none;
  op op_b = op::none;
  int64_t m = 4, n = 5, k = 6;
  float alpha = 1.0f;
  const float* a = fake_a;
  int64_t lda = 4;
  const float* b = fake_b;
  int64_t ldb = 6;
  float beta = 0.0f;
  float* c = fake_c;
  int64_t ldc = 4;
};

/// A call with one thing changed, for the tables below.
template <class F>
call_args with(F&& change) {
  call_args args;
  change(args);
  return args;
}

status call_gemm(const call_args& x) {
  return tgemm::gemm(x.order, x.op_a, x.op_b, x.m, x.n, x.k, x.alpha, x.a, x.lda, x.b, x.ldb, x.beta, x.c, x.ldc);
}

template <class Policy>
status call_can_implement(const call_args& x) {
  return tgemm::can_implement<Policy>(x.order, x.op_a, x.op_b, x.m, x.n, x.k, x.alpha, x.a, x.lda, x.b, x.ldb,
                                      x.beta, x.c, x.ldc);
}

template <class Policy>
status call_launch(const call_args& x) {
  return tgemm::launch<Policy>(x.order, x.op_a, x.op_b, x.m, x.n, x.k, x.alpha, x.a, x.lda, x.b, x.ldb, x.beta,
                               x.c, x.ldc);
}

/// Forgets the previous failure, so that a check of last_error() can only see the call under test.
void reset_last_error() { tgemm::detail::fail(status::success, cudaSuccess, "%s", "reset by the test"); }

/// Requires that `result` is `expected`, with last_error() recording it and its message containing `message`.
void require_failure(status result, status expected, const std::string& message) {
  INFO("returned " << tgemm::to_string(result) << ", last_error: " << tgemm::to_string(tgemm::last_error().code)
                   << ": " << tgemm::last_error().message);
  REQUIRE(result == expected);
  REQUIRE(tgemm::last_error().code == expected);
  REQUIRE(tgemm::last_error().cuda == cudaSuccess);
  REQUIRE(tgemm::last_error().message.find(message) != std::string::npos);
}

struct bad_row {
  const char* what;
  call_args args;
  status expected;
  std::string message;
};

constexpr int64_t huge_ld = int64_t(1) << 61;  // 2 lines of it fit in int64, but not their size in bytes

std::vector<bad_row> bad_rows() {
  std::vector<bad_row> rows = {
      {"invalid layout", with([](call_args& x) { x.order = static_cast<layout>(7); }), status::invalid_layout,
       "order = 7 is not a tgemm::layout"},
      {"invalid layout beats every other error",
       with([](call_args& x) { x.order = static_cast<layout>(0); x.m = -1; x.a = nullptr; x.lda = 0; }),
       status::invalid_layout, "order = 0 is not a tgemm::layout"},
      {"invalid op_a", with([](call_args& x) { x.op_a = static_cast<op>(7); }), status::invalid_op,
       "op_a = 7 is not a tgemm::op"},
      {"invalid op_b", with([](call_args& x) { x.op_b = static_cast<op>(113); }), status::invalid_op,
       "op_b = 113 is not a tgemm::op"},
      {"negative m", with([](call_args& x) { x.m = -1; }), status::invalid_dimension, "m = -1 is negative"},
      {"negative n", with([](call_args& x) { x.n = -2; }), status::invalid_dimension, "n = -2 is negative"},
      {"negative k", with([](call_args& x) { x.k = -3; }), status::invalid_dimension, "k = -3 is negative"},
      {"negative k, alpha = 0", with([](call_args& x) { x.k = -1; x.alpha = 0.0f; }), status::invalid_dimension,
       "k = -1 is negative"},

      // Leading dimensions: m = 4, n = 5, k = 6, so every operand has a different minimum.
      {"col-major lda < m", with([](call_args& x) { x.lda = 3; }), status::invalid_leading_dimension,
       "lda = 3 is too small: it must be at least 4"},
      {"col-major A^T: lda < k", with([](call_args& x) { x.op_a = op::transpose; x.lda = 5; }),
       status::invalid_leading_dimension, "lda = 5 is too small: it must be at least 6"},
      {"col-major ldb < k", with([](call_args& x) { x.ldb = 5; }), status::invalid_leading_dimension,
       "ldb = 5 is too small: it must be at least 6"},
      {"col-major B^T: ldb < n", with([](call_args& x) { x.op_b = op::transpose; x.ldb = 4; }),
       status::invalid_leading_dimension, "ldb = 4 is too small: it must be at least 5"},
      {"col-major ldc < m", with([](call_args& x) { x.ldc = 3; }), status::invalid_leading_dimension,
       "ldc = 3 is too small: it must be at least 4"},
      {"col-major A^T B^T: ldc < m",
       with([](call_args& x) { x.op_a = x.op_b = op::transpose; x.lda = 6; x.ldb = 5; x.ldc = 2; }),
       status::invalid_leading_dimension, "ldc = 2 is too small: it must be at least 4"},
      {"row-major lda < k", with([](call_args& x) { x.order = layout::row_major; x.lda = 5; x.ldb = 5; x.ldc = 5; }),
       status::invalid_leading_dimension, "lda = 5 is too small: it must be at least 6"},
      {"row-major A^T: lda < m",
       with([](call_args& x) { x.order = layout::row_major; x.op_a = op::transpose; x.lda = 3; x.ldb = 5; x.ldc = 5; }),
       status::invalid_leading_dimension, "lda = 3 is too small: it must be at least 4"},
      {"row-major ldb < n", with([](call_args& x) { x.order = layout::row_major; x.lda = 6; x.ldb = 4; x.ldc = 5; }),
       status::invalid_leading_dimension, "ldb = 4 is too small: it must be at least 5"},
      {"row-major B^T: ldb < k",
       with([](call_args& x) { x.order = layout::row_major; x.op_b = op::transpose; x.lda = 6; x.ldb = 5; x.ldc = 5; }),
       status::invalid_leading_dimension, "ldb = 5 is too small: it must be at least 6"},
      {"row-major ldc < n", with([](call_args& x) { x.order = layout::row_major; x.lda = 6; x.ldb = 5; x.ldc = 4; }),
       status::invalid_leading_dimension, "ldc = 4 is too small: it must be at least 5"},
      {"row-major A^T B^T: ldc < n",
       with([](call_args& x) {
         x.order = layout::row_major; x.op_a = x.op_b = op::transpose; x.lda = 4; x.ldb = 6; x.ldc = 4;
       }),
       status::invalid_leading_dimension, "ldc = 4 is too small: it must be at least 5"},
      {"lda = 0 with m = 0 (the minimum is 1)", with([](call_args& x) { x.m = 0; x.lda = 0; x.ldc = 1; }),
       status::invalid_leading_dimension, "lda = 0 is too small: it must be at least 1"},
      {"ld checked even when k = 0", with([](call_args& x) { x.k = 0; x.ldc = 1; }),
       status::invalid_leading_dimension, "ldc = 1 is too small: it must be at least 4"},
      {"negative lda", with([](call_args& x) { x.lda = -4; }), status::invalid_leading_dimension,
       "lda = -4 is too small: it must be at least 4"},

      // Null pointers of matrices the call touches.
      {"null A", with([](call_args& x) { x.a = nullptr; }), status::null_pointer, "A is null"},
      {"null B", with([](call_args& x) { x.b = nullptr; }), status::null_pointer, "B is null"},
      {"null C", with([](call_args& x) { x.c = nullptr; }), status::null_pointer, "C is null"},
      {"null C with k = 0", with([](call_args& x) { x.c = nullptr; x.k = 0; x.ldb = 1; }), status::null_pointer,
       "C is null"},
      {"null C with alpha = 0", with([](call_args& x) { x.c = nullptr; x.alpha = 0.0f; }), status::null_pointer,
       "C is null"},
      {"row-major null A keeps its name", with([](call_args& x) {
         x.order = layout::row_major; x.lda = 6; x.ldb = 5; x.ldc = 5; x.a = nullptr;
       }),
       status::null_pointer, "A is null"},
      {"row-major null B keeps its name", with([](call_args& x) {
         x.order = layout::row_major; x.lda = 6; x.ldb = 5; x.ldc = 5; x.b = nullptr;
       }),
       status::null_pointer, "B is null"},

      // Byte sizes that overflow int64: 2 lines of 2^61 floats are 2^64 bytes; 6 lines overflow the element count.
      {"A bytes overflow", with([](call_args& x) { x.k = 2; x.ldb = 2; x.lda = huge_ld; }), status::size_overflow,
       "A spans 2 lines of leading dimension 2305843009213693952"},
      {"A elements overflow", with([](call_args& x) { x.lda = huge_ld; }), status::size_overflow,
       "A spans 6 lines of leading dimension"},
      {"B bytes overflow", with([](call_args& x) { x.n = 2; x.ldb = huge_ld; }), status::size_overflow,
       "B spans 2 lines of leading dimension 2305843009213693952"},
      {"C bytes overflow", with([](call_args& x) { x.n = 2; x.ldc = huge_ld; }), status::size_overflow,
       "C spans 2 lines of leading dimension 2305843009213693952"},
      {"C overflow even when k = 0", with([](call_args& x) { x.k = 0; x.ldb = 1; x.n = 2; x.ldc = huge_ld; }),
       status::size_overflow, "C spans 2 lines"},
      {"row-major A overflow keeps its name",
       with([](call_args& x) { x.order = layout::row_major; x.m = 2; x.lda = huge_ld; x.ldb = 5; x.ldc = 5; }),
       status::size_overflow, "A spans 2 lines"},
      {"overflow is reported before a null pointer", with([](call_args& x) { x.lda = huge_ld; x.b = nullptr; }),
       status::size_overflow, "A spans 6 lines"},
      {"a misaligned float pointer", with([](call_args& x) { x.b = fake(0x20000, 2); }), status::misaligned_operand,
       "B (at "},
  };
  return rows;
}

}  // namespace

TEST_CASE("every bad argument is rejected by gemm(), can_implement() and launch() with its own status and message",
          "[arguments]") {
  for (const bad_row& row : bad_rows()) {
    SECTION(row.what) {
      const call_args& x = row.args;
      INFO("row: " << row.what);

      reset_last_error();
      require_failure(call_gemm(x), row.expected, row.message);
      if (row.expected == status::size_overflow) {
        REQUIRE(tgemm::last_error().message.find("overflows a 64-bit integer") != std::string::npos);
      }

      reset_last_error();
      require_failure(call_can_implement<tgemm::seed::vectorized>(x), row.expected, row.message);
      reset_last_error();
      require_failure(call_can_implement<tgemm::seed::register_blocked>(x), row.expected, row.message);
      reset_last_error();
      require_failure(call_can_implement<tgemm::seed::naive>(x), row.expected, row.message);

      reset_last_error();
      require_failure(call_launch<tgemm::seed::vectorized>(x), row.expected, row.message);
      reset_last_error();
      require_failure(call_launch<tgemm::seed::naive>(x), row.expected, row.message);
    }
  }
}

TEST_CASE("a leading-dimension message names the operand, the order and the shape", "[arguments]") {
  call_args x;
  x.order = layout::row_major;
  x.op_b = op::transpose;
  x.lda = 6;
  x.ldb = 2;
  x.ldc = 5;
  reset_last_error();
  require_failure(call_gemm(x), status::invalid_leading_dimension,
                  "ldb = 2 is too small: it must be at least 6, the columns of B as stored (row_major, 6 x 5 after op)");
  x.order = layout::col_major;
  x.op_b = op::none;
  x.lda = 1;
  reset_last_error();
  require_failure(call_gemm(x), status::invalid_leading_dimension,
                  "lda = 1 is too small: it must be at least 4, the rows of A as stored (col_major, 4 x 6 after op)");
}

TEST_CASE("null A and B are accepted when the call does not read them", "[arguments]") {
  const auto accepts = [](const call_args& x) {
    reset_last_error();
    const status s = call_can_implement<tgemm::seed::vectorized>(x);
    INFO(tgemm::to_string(s) << ": " << tgemm::last_error().message);
    REQUIRE(s == status::success);
    REQUIRE(call_can_implement<tgemm::seed::register_blocked>(x) == status::success);
    REQUIRE(call_can_implement<tgemm::seed::double_buffered>(x) == status::success);
    REQUIRE(call_can_implement<tgemm::seed::naive>(x) == status::success);
    REQUIRE(call_can_implement<tgemm::tuning::sm90::general>(x) == status::success);
  };
  for (layout order : {layout::col_major, layout::row_major}) {
    for (op op_a : {op::none, op::transpose}) {
      for (op op_b : {op::none, op::transpose}) {
        CAPTURE(tgemm::to_string(order), tgemm::to_string(op_a), tgemm::to_string(op_b));
        call_args x;
        x.order = order;
        x.op_a = op_a;
        x.op_b = op_b;
        x.lda = x.ldb = x.ldc = 8;  // enough for every operand in every order
        x.a = nullptr;
        x.b = nullptr;
        call_args k_zero = x;  // C = beta C
        k_zero.k = 0;
        accepts(k_zero);
        call_args alpha_zero = x;
        alpha_zero.alpha = 0.0f;
        accepts(alpha_zero);
        call_args alpha_minus_zero = x;
        alpha_minus_zero.alpha = -0.0f;
        accepts(alpha_minus_zero);
        // k = 0: neither the size nor the alignment of A and B is checked either.
        call_args unchecked = k_zero;
        unchecked.a = fake(0x10000, 1);
        unchecked.b = fake(0x20000, 2);
        unchecked.lda = huge_ld;
        unchecked.ldb = huge_ld + 1;
        accepts(unchecked);
      }
    }
  }
}

TEST_CASE("m == 0 or n == 0 is success with null pointers, and gemm() returns before any device work",
          "[arguments]") {
  call_args x;
  x.a = x.b = x.c = nullptr;
  SECTION("m = 0") {
    x.m = 0;
    x.lda = x.ldc = 1;
  }
  SECTION("n = 0") { x.n = 0; }
  SECTION("m = n = k = 0") {
    x.m = x.n = x.k = 0;
    x.lda = x.ldb = x.ldc = 1;
  }
  SECTION("n = 0, row-major, huge leading dimensions (no size is checked)") {
    x.order = layout::row_major;
    x.n = 0;
    x.lda = huge_ld;
    x.ldb = huge_ld;
    x.ldc = huge_ld;
  }
  reset_last_error();
  INFO(tgemm::last_error().message);
  REQUIRE(call_can_implement<tgemm::seed::vectorized>(x) == status::success);
  REQUIRE(call_can_implement<tgemm::seed::naive>(x) == status::success);
  // An empty problem needs no device: these succeed on any machine, GPU or not.
  REQUIRE(call_gemm(x) == status::success);
  REQUIRE(call_launch<tgemm::seed::vectorized>(x) == status::success);
  REQUIRE(call_launch<tgemm::seed::naive>(x) == status::success);
  REQUIRE(tgemm::last_error().code == status::success);  // nothing failed since the reset
}

TEST_CASE("vector policies reject misaligned A and B, naming the operand as the caller did", "[arguments][alignment]") {
  struct row {
    const char* what;
    call_args args;
    const char* operand;  // how the message names it
  };
  const auto col = [](call_args& x) {
    x.lda = 8;
    x.ldb = 8;
    x.ldc = 8;
  };
  const auto row_major = [](call_args& x) {
    x.order = layout::row_major;
    x.lda = 8;
    x.ldb = 8;
    x.ldc = 8;
  };
  const std::vector<row> rows = {
      {"col-major A one float off", with([&](call_args& x) { col(x); x.a = fake(0x10000, 4); }), "A"},
      {"col-major B one float off", with([&](call_args& x) { col(x); x.b = fake(0x20000, 4); }), "B"},
      {"col-major lda = 5", with([&](call_args& x) { col(x); x.lda = 5; }), "A"},
      {"col-major ldb = 7", with([&](call_args& x) { col(x); x.ldb = 7; }), "B"},
      {"col-major A^T lda = 9", with([&](call_args& x) { col(x); x.op_a = op::transpose; x.lda = 9; }), "A"},
      {"row-major A one float off", with([&](call_args& x) { row_major(x); x.a = fake(0x10000, 4); }), "A"},
      {"row-major B one float off", with([&](call_args& x) { row_major(x); x.b = fake(0x20000, 12); }), "B"},
      {"row-major lda = 10", with([&](call_args& x) { row_major(x); x.lda = 10; }), "A"},
      {"row-major ldb = 5", with([&](call_args& x) { row_major(x); x.ldb = 5; }), "B"},
      {"row-major A^T B^T, ldb = 6",
       with([&](call_args& x) { row_major(x); x.op_a = x.op_b = op::transpose; x.ldb = 6; }), "B"},
  };
  for (const row& r : rows) {
    SECTION(r.what) {
      reset_last_error();
      const std::string name = tgemm::seed::vectorized::name();
      require_failure(call_can_implement<tgemm::seed::vectorized>(r.args), status::misaligned_operand,
                      std::string("floats at a time, so ") + r.operand + " (at ");
      REQUIRE(tgemm::last_error().message.find("policy " + name + " ") != std::string::npos);
      REQUIRE(tgemm::last_error().message.find(" 4 floats at a time") != std::string::npos);
      REQUIRE(tgemm::last_error().message.find("must be 16-byte aligned with a leading dimension that is a multiple "
                                               "of 4") != std::string::npos);
      reset_last_error();
      require_failure(call_launch<tgemm::seed::vectorized>(r.args), status::misaligned_operand,
                      std::string("so ") + r.operand + " (at ");
      reset_last_error();
      require_failure(call_can_implement<tgemm::tuning::sm90::general>(r.args), status::misaligned_operand,
                      std::string("so ") + r.operand + " (at ");

      // Scalar policies take any float-aligned operand.
      INFO(tgemm::last_error().message);
      REQUIRE(call_can_implement<tgemm::seed::register_blocked>(r.args) == status::success);
      REQUIRE(call_can_implement<tgemm::seed::shared_tiled>(r.args) == status::success);
      REQUIRE(call_can_implement<tgemm::seed::naive>(r.args) == status::success);
      REQUIRE(call_can_implement<tgemm::tuning::sm90::unaligned>(r.args) == status::success);
    }
  }
}

TEST_CASE("vector policies need only float alignment of C: the epilogue falls back to narrower stores",
          "[arguments][alignment]") {
  const auto col = [](call_args& x) { x.lda = x.ldb = x.ldc = 8; };
  const auto row_major = [](call_args& x) {
    x.order = layout::row_major;
    x.lda = x.ldb = x.ldc = 8;
  };
  const std::vector<std::pair<const char*, call_args>> rows = {
      {"col-major C one float off", with([&](call_args& x) { col(x); x.c = fake(0x30000, 4); })},
      {"col-major C two floats off", with([&](call_args& x) { col(x); x.c = fake(0x30000, 8); })},
      {"col-major ldc = 6", with([&](call_args& x) { col(x); x.ldc = 6; })},
      {"row-major C one float off", with([&](call_args& x) { row_major(x); x.c = fake(0x30000, 4); })},
      {"row-major ldc = 9", with([&](call_args& x) { row_major(x); x.ldc = 9; })},
      {"k = 0, C one float off", with([&](call_args& x) { col(x); x.k = 0; x.c = fake(0x30000, 4); })},
  };
  for (const auto& [what, args] : rows) {
    CAPTURE(what);
    reset_last_error();
    const status s = call_can_implement<tgemm::seed::vectorized>(args);
    INFO(tgemm::to_string(s) << ": " << tgemm::last_error().message);
    REQUIRE(s == status::success);
    REQUIRE(call_can_implement<tgemm::seed::double_buffered>(args) == status::success);
    REQUIRE(call_can_implement<tgemm::tuning::sm90::general>(args) == status::success);
  }
}

TEST_CASE("vector policies accept 16-byte-aligned operands with leading dimensions that are multiples of 4",
          "[arguments][alignment]") {
  for (layout order : {layout::col_major, layout::row_major}) {
    for (op op_a : {op::none, op::transpose}) {
      for (op op_b : {op::none, op::transpose}) {
        call_args x;
        x.order = order;
        x.op_a = op_a;
        x.op_b = op_b;
        x.lda = 8;
        x.ldb = 12;
        x.ldc = 8;
        x.a = fake(0x10000, 16);
        x.b = fake(0x20000, 32);
        reset_last_error();
        INFO(tgemm::last_error().message);
        REQUIRE(call_can_implement<tgemm::seed::vectorized>(x) == status::success);
        REQUIRE(call_can_implement<tgemm::seed::double_buffered>(x) == status::success);
      }
    }
  }
}

TEST_CASE("a float pointer that is not 4-byte aligned is misaligned for every policy and for gemm()",
          "[arguments][alignment]") {
  struct row {
    const char* what;
    call_args args;
    const char* message;
  };
  const std::vector<row> rows = {
      // Leading dimensions of 8 suit every order and op and every vector width, so only the pointer is wrong.
      {"A + 1 byte", with([](call_args& x) { x.lda = x.ldb = x.ldc = 8; x.a = fake(0x10000, 1); }), "A (at "},
      {"B + 2 bytes", with([](call_args& x) { x.lda = x.ldb = x.ldc = 8; x.b = fake(0x20000, 2); }), "B (at "},
      {"C + 3 bytes", with([](call_args& x) { x.lda = x.ldb = x.ldc = 8; x.c = fake(0x30000, 3); }), "C (at "},
      {"row-major A + 2 bytes", with([](call_args& x) {
         x.order = layout::row_major; x.lda = x.ldb = x.ldc = 8; x.a = fake(0x10000, 2);
       }),
       "A (at "},
      {"row-major B + 1 byte", with([](call_args& x) {
         x.order = layout::row_major; x.lda = x.ldb = x.ldc = 8; x.b = fake(0x20000, 1);
       }),
       "B (at "},
      {"row-major A^T, C + 1 byte", with([](call_args& x) {
         x.order = layout::row_major; x.op_a = op::transpose; x.lda = x.ldb = x.ldc = 8; x.c = fake(0x30000, 1);
       }),
       "C (at "},
      {"alpha = 0: C + 2 bytes", with([](call_args& x) { x.alpha = 0.0f; x.c = fake(0x30000, 2); }), "C (at "},
  };
  for (const row& r : rows) {
    SECTION(r.what) {
      reset_last_error();
      require_failure(call_gemm(r.args), status::misaligned_operand, r.message);
      REQUIRE(tgemm::last_error().message.find("is not aligned to 4 bytes") != std::string::npos);
      reset_last_error();
      require_failure(call_can_implement<tgemm::seed::naive>(r.args), status::misaligned_operand, r.message);
      reset_last_error();
      require_failure(call_launch<tgemm::seed::naive>(r.args), status::misaligned_operand, r.message);
      reset_last_error();
      require_failure(call_can_implement<tgemm::seed::register_blocked>(r.args), status::misaligned_operand,
                      r.message);
      reset_last_error();
      require_failure(call_can_implement<tgemm::seed::vectorized>(r.args), status::misaligned_operand, r.message);
    }
  }
  SECTION("A and B are not checked when they are not read") {
    call_args x;
    x.k = 0;
    x.ldb = 1;
    x.a = fake(0x10000, 1);
    x.b = fake(0x20000, 3);
    REQUIRE(call_can_implement<tgemm::seed::naive>(x) == status::success);
  }
}

TEST_CASE("a grid that cannot hold the problem is invalid_dimension, before any device work", "[arguments]") {
  SECTION("naive: 65536 block columns fit, as for every policy (one kernel body, one grid layout)") {
    call_args x;
    x.m = 1;
    x.k = 1;
    x.n = int64_t(65535) * 16 + 1;  // 65536 columns of 16 x 16 blocks: too many for a 2-D grid's y
    x.lda = x.ldb = x.ldc = 1;
    REQUIRE(call_can_implement<tgemm::seed::naive>(x) == status::success);
    REQUIRE(call_can_implement<tgemm::seed::register_blocked>(x) == status::success);
    x.n = int64_t(1) << 56;  // but 2^52 blocks do not fit (2^31 - 1) x 65535
    reset_last_error();
    require_failure(call_can_implement<tgemm::seed::naive>(x), status::invalid_dimension,
                    "more than one grid can hold");
    reset_last_error();
    require_failure(call_launch<tgemm::seed::naive>(x), status::invalid_dimension, "more than one grid can hold");
  }
  SECTION("tiled: more blocks than a grid of (2^31 - 1) x 65535") {
    // m = 1, n = 2^56: 2^49 blocks of 128 columns, while B and C (2^60 bytes each) have sizes that fit in int64.
    call_args x;
    x.m = 1;
    x.k = 1;
    x.n = int64_t(1) << 56;
    x.lda = x.ldb = x.ldc = 4;
    reset_last_error();
    require_failure(call_can_implement<tgemm::seed::vectorized>(x), status::invalid_dimension,
                    "more than one grid can hold");
    reset_last_error();
    require_failure(call_launch<tgemm::seed::vectorized>(x), status::invalid_dimension,
                    "more than one grid can hold");
  }
}

TEST_CASE("the too-many-blocks message of a tiled policy states the number of blocks", "[arguments]") {
  // m = 1, n = 2^56 with 128 x 128 tiles: ceil(1 / 128) * ceil(2^56 / 128) = 2^49 blocks.
  call_args x;
  x.m = 1;
  x.k = 1;
  x.n = int64_t(1) << 56;
  x.lda = x.ldb = x.ldc = 4;
  reset_last_error();
  require_failure(call_can_implement<tgemm::seed::vectorized>(x), status::invalid_dimension,
                  "more than one grid can hold");
  INFO("last_error: " << tgemm::last_error().message);
  REQUIRE(tgemm::last_error().message.find("needs 562949953421312 thread blocks") != std::string::npos);
}

TEST_CASE("last_error() keeps the last failure: success does not clear it, and it is per thread", "[arguments]") {
  call_args bad;
  bad.m = -7;
  REQUIRE(call_gemm(bad) == status::invalid_dimension);
  call_args good;
  good.ldb = 8;
  REQUIRE(call_can_implement<tgemm::seed::vectorized>(good) == status::success);
  REQUIRE(tgemm::last_error().code == status::invalid_dimension);
  REQUIRE(tgemm::last_error().message == "m = -7 is negative");

  status other_thread = status::success;
  std::string other_message;
  std::thread([&] {
    other_thread = tgemm::last_error().code;  // a fresh thread has seen no failure
    call_args x;
    x.n = -9;
    (void)call_gemm(x);
    other_message = tgemm::last_error().message;
  }).join();
  REQUIRE(other_thread == status::success);
  REQUIRE(other_message == "n = -9 is negative");
  REQUIRE(tgemm::last_error().message == "m = -7 is negative");
}

TEST_CASE("a row-major call is solved as the column-major C^T = op(B)^T op(A)^T", "[arguments]") {
  tgemm::detail::canonical_call<tgemm::detail::gemm_types<float>> call;
  SECTION("row-major: operands swap, keep their operations and their names") {
    REQUIRE(tgemm::detail::check_arguments(layout::row_major, op::transpose, op::none, 4, 5, 6, 2.0f, fake_a, 4,
                                           fake_b, 5, 3.0f, fake_c, 5, call) == status::success);
    CHECK(call.problem.m == 5);
    CHECK(call.problem.n == 4);
    CHECK(call.problem.k == 6);
    CHECK(call.problem.a == fake_b);
    CHECK(call.problem.lda == 5);
    CHECK(call.problem.b == fake_a);
    CHECK(call.problem.ldb == 4);
    CHECK(call.op_a == op::none);
    CHECK(call.op_b == op::transpose);
    CHECK(std::string(call.name_a) == "B");
    CHECK(std::string(call.name_b) == "A");
    CHECK(call.update.alpha == 2.0f);
    CHECK(call.update.beta == 3.0f);
    CHECK(call.update.c == fake_c);
    CHECK(call.update.ldc == 5);
    CHECK(call.reads_operands);
    CHECK_FALSE(call.empty);
  }
  SECTION("col-major: as given") {
    REQUIRE(tgemm::detail::check_arguments(layout::col_major, op::none, op::transpose, 4, 5, 6, 2.0f, fake_a, 4,
                                           fake_b, 5, 3.0f, fake_c, 4, call) == status::success);
    CHECK(call.problem.m == 4);
    CHECK(call.problem.n == 5);
    CHECK(call.problem.k == 6);
    CHECK(call.problem.a == fake_a);
    CHECK(call.problem.b == fake_b);
    CHECK(call.op_a == op::none);
    CHECK(call.op_b == op::transpose);
    CHECK(std::string(call.name_a) == "A");
    CHECK(std::string(call.name_b) == "B");
  }
  SECTION("k = 0 does not read the operands; m = 0 is empty") {
    REQUIRE(tgemm::detail::check_arguments(layout::col_major, op::none, op::none, 4, 5, 0, 1.0f, nullptr, 4,
                                           nullptr, 1, 0.0f, fake_c, 4, call) == status::success);
    CHECK_FALSE(call.reads_operands);
    CHECK_FALSE(call.empty);
    REQUIRE(tgemm::detail::check_arguments(layout::col_major, op::none, op::none, 0, 5, 3, 1.0f, nullptr, 1,
                                           nullptr, 3, 0.0f, nullptr, 1, call) == status::success);
    CHECK(call.empty);
    CHECK_FALSE(call.reads_operands);
  }
}

namespace {

/// A strided-batch call: `x` for every product, `count` of them, strides in elements.
status call_batched(const call_args& x, int64_t count, int64_t stride_a, int64_t stride_b, int64_t stride_c) {
  return tgemm::gemm_strided_batched(x.order, x.op_a, x.op_b, x.m, x.n, x.k, x.alpha, x.a, x.lda, stride_a, x.b, x.ldb,
                                     stride_b, x.beta, x.c, x.ldc, stride_c, count);
}

}  // namespace

TEST_CASE("strided batches: a bad count or stride has its own status and message, before any device work",
          "[arguments][batched]") {
  const call_args x;  // 4 x 5 x 6, C spans 4 x 5 = 20 elements
  struct bad_batch {
    int64_t count, stride_a, stride_b, stride_c;
    status expected;
    const char* message_part;
  };
  const bad_batch table[] = {
      {-1, 24, 30, 20, status::invalid_dimension, "batch_count = -1 is negative"},
      {2, -24, 30, 20, status::invalid_batch_stride, "stride_a = -24 is negative"},
      {2, 24, -1, 20, status::invalid_batch_stride, "stride_b = -1 is negative"},
      {2, 24, 30, -20, status::invalid_batch_stride, "stride_c = -20 is negative"},
      {2, 24, 30, 19, status::invalid_batch_stride, "stride_c = 19 makes the products' C overlap: one C spans 20"},
      {3, 0, 0, 0, status::invalid_batch_stride, "stride_c = 0 makes the products' C overlap"},
      {2, int64_t(1) << 62, 30, 20, status::size_overflow, "the 2 products of A"},
  };
  for (const bad_batch& b : table) {
    CAPTURE(b.count, b.stride_a, b.stride_b, b.stride_c);
    reset_last_error();
    REQUIRE(call_batched(x, b.count, b.stride_a, b.stride_b, b.stride_c) == b.expected);
    REQUIRE(tgemm::last_error().code == b.expected);
    INFO(tgemm::last_error().message);
    REQUIRE(tgemm::last_error().message.find(b.message_part) != std::string::npos);
  }
  // Row-major: C is 4 x 5 stored with ldc 5 along rows, so it spans 4 lines of 5.
  call_args row = x;
  row.order = layout::row_major, row.lda = 6, row.ldb = 5, row.ldc = 5;
  REQUIRE(call_batched(row, 2, 24, 30, 19) == status::invalid_batch_stride);
  REQUIRE(tgemm::last_error().message.find("one C spans 20 elements (ldc = 5)") != std::string::npos);
}

TEST_CASE("strided batches: an empty batch, or one product, needs no stride, and the empty batch no device",
          "[arguments][batched]") {
  call_args x;
  // Zero products: success with null pointers and any strides, before asking for a device.
  call_args none = x;
  none.a = none.b = none.c = nullptr;
  reset_last_error();
  REQUIRE(call_batched(none, 0, -5, -5, -5) == status::success);
  REQUIRE(tgemm::last_error().code == status::success);
  // One product: the strides are never used, so any value is accepted (and bad arguments still fail as for gemm()).
  x.lda = 3;
  REQUIRE(call_batched(x, 1, -5, -5, -5) == status::invalid_leading_dimension);
  // The batch's other arguments are checked as tgemm::gemm() checks them, first.
  call_args null_c = x;
  null_c.lda = 4, null_c.c = nullptr;
  REQUIRE(call_batched(null_c, 2, 24, 30, 20) == status::null_pointer);
}

TEST_CASE("strided batches: a row-major call swaps A's and B's strides with the operands", "[arguments][batched]") {
  using types = tgemm::detail::gemm_types<float>;
  tgemm::detail::canonical_call<types> call;
  const tgemm::detail::batch_shape batch{3, 100, 200, 300};
  REQUIRE(tgemm::detail::check_arguments<types>(layout::row_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 6,
                                                fake_b, 5, 0.0f, fake_c, 5, call, batch) == status::success);
  CHECK(call.problem.a == fake_b);
  CHECK(call.batch.stride_a == 200);
  CHECK(call.batch.stride_b == 100);
  CHECK(call.batch.stride_c == 300);
  CHECK(call.batch.count == 3);
  REQUIRE(tgemm::detail::check_arguments<types>(layout::col_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 4,
                                                fake_b, 6, 0.0f, fake_c, 4, call, batch) == status::success);
  CHECK(call.batch.stride_a == 100);
  CHECK(call.batch.stride_b == 200);
}

TEST_CASE("fused epilogue: the kernels' terms, row-major swaps, and a separate D", "[arguments][epilogue]") {
  using types = tgemm::detail::gemm_types<float>;
  tgemm::detail::canonical_call<types> call;
  float row_bias[16], column_bias[5], row_scale[4], column_scale[5], d[64];  // row_bias: three products of 4
  tgemm::epilogue<float> ep;
  ep.act = tgemm::activation::silu;
  ep.row_bias = row_bias, ep.column_bias = column_bias, ep.row_scale = row_scale, ep.column_scale = column_scale;
  SECTION("col-major, in place: the members as given, no clamp, no source") {
    REQUIRE(tgemm::detail::check_fused_arguments(layout::col_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 4,
                                                 fake_b, 6, 1.0f, fake_c, 4, ep, call,
                                                 tgemm::detail::batch_shape{}) == status::success);
    CHECK(call.fused);
    CHECK(call.terms.row_bias == row_bias);
    CHECK(call.terms.column_bias == column_bias);
    CHECK(call.terms.row_scale == row_scale);
    CHECK(call.terms.column_scale == column_scale);
    CHECK(call.terms.act == tgemm::activation::silu);
    CHECK_FALSE(call.terms.clamp);
    CHECK(call.terms.source == nullptr);
    CHECK(call.update.c == fake_c);
  }
  SECTION("row-major: the caller's rows are the kernels' columns") {
    REQUIRE(tgemm::detail::check_fused_arguments(layout::row_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 6,
                                                 fake_b, 5, 1.0f, fake_c, 5, ep, call,
                                                 tgemm::detail::batch_shape{}) == status::success);
    CHECK(call.terms.row_bias == column_bias);
    CHECK(call.terms.column_bias == row_bias);
    CHECK(call.terms.row_scale == column_scale);
    CHECK(call.terms.column_scale == row_scale);
  }
  SECTION("a separate D is written and C read from the source (only with beta != 0); a clamp is recorded") {
    ep.d = d, ep.ldd = 8, ep.clamp_max = 6;
    REQUIRE(tgemm::detail::check_fused_arguments(layout::col_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 4,
                                                 fake_b, 6, 2.0f, fake_c, 4, ep, call,
                                                 tgemm::detail::batch_shape{}) == status::success);
    CHECK(call.update.c == d);
    CHECK(call.update.ldc == 8);
    CHECK(call.terms.source == fake_c);
    CHECK(call.terms.ld_source == 4);
    CHECK(call.terms.clamp);
    CHECK(call.terms.upper == 6.0f);
    REQUIRE(tgemm::detail::check_fused_arguments(layout::col_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 4,
                                                 fake_b, 6, 0.0f, nullptr, 4, ep, call,
                                                 tgemm::detail::batch_shape{}) == status::success);
    CHECK(call.terms.source == nullptr);  // beta = 0: C is not read (and may be null)
  }
  SECTION("a batch keeps the vectors' strides and walks D with stride_d") {
    ep.d = d, ep.ldd = 4, ep.stride_d = 20, ep.stride_row_bias = 4;
    REQUIRE(tgemm::detail::check_fused_arguments(layout::col_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 4,
                                                 fake_b, 6, 0.0f, fake_c, 4, ep, call,
                                                 tgemm::detail::batch_shape{3, 24, 30, 20}) == status::success);
    CHECK(call.batch.stride_c == 20);
    CHECK(call.terms.stride_row_bias == 4);
    CHECK(call.terms.product(2).row_bias == row_bias + 8);
    CHECK(call.terms.at(1, 2).column_bias == column_bias + 2);
  }
}

namespace {
/// A caller's epilogue operation for the host checks (its call operator is never run here).
struct tagged_op {
  int tag = 0;
  __host__ __device__ float operator()(float v, int64_t, int64_t, int64_t) const { return v + float(tag); }
};
}  // namespace

TEST_CASE("user epilogue: the operation and the caller's coordinates travel with the kernels' terms",
          "[arguments][epilogue]") {
  using types = tgemm::detail::with_user_op<tgemm::detail::gemm_types<float>, tagged_op>;
  static_assert(std::is_same<types::terms_type, tgemm::device::user_epilogue_terms<float, float, tagged_op>>::value,
                "the call's types carry the operation into its terms");
  tgemm::detail::canonical_call<types> call;
  CHECK_FALSE(call.terms.active);  // default terms (a split slice's partial product): the operation is not applied
  float row_bias[12], column_bias[5];
  tgemm::epilogue<float> ep;
  ep.row_bias = row_bias, ep.column_bias = column_bias, ep.stride_row_bias = 4;
  const auto user = tgemm::with_op(ep, tagged_op{7});
  static_assert(std::is_same<tgemm::detail::user_op_of<std::decay_t<decltype(user)>>::type, tagged_op>::value,
                "with_op makes a user_epilogue of the operation's type");
  const tgemm::epilogue<float>& built_in = user;
  // Row-major: the built-ins swap rows and columns as for any fused call, and the operation is told to swap back.
  REQUIRE(tgemm::detail::check_fused_arguments(layout::row_major, op::none, op::none, 4, 5, 6, 1.0f, fake_a, 6, fake_b,
                                               5, 1.0f, fake_c, 5, built_in, call,
                                               tgemm::detail::batch_shape{3, 24, 30, 20}) == status::success);
  tgemm::detail::attach_user_op(user, layout::row_major, call.terms);
  CHECK(call.terms.active);
  CHECK(call.terms.swapped);
  CHECK(call.terms.user.op.tag == 7);
  CHECK(call.terms.user.op(1.0f, 0, 0, 0) == 8.0f);  // the caller's object itself, copied
  CHECK(call.terms.row_bias == column_bias);
  CHECK(call.terms.column_bias == row_bias);
  // A peeled block and a product of the batch: the built-in offsets as before, the operation's coordinates with them.
  const auto moved = call.terms.at(2, 3).product(2);
  CHECK(moved.row0 == 2);
  CHECK(moved.col0 == 3);
  CHECK(moved.batch == 2);
  CHECK(moved.column_bias == row_bias + 3 + 2 * 4);
  CHECK(moved.user.op.tag == 7);
  CHECK(moved.active);
  // Assignment keeps the operation (a lambda has none of its own: the terms hold it in a union).
  types::terms_type copy;
  copy = moved;
  CHECK(copy.user.op.tag == 7);
  CHECK(copy.batch == 2);
  // Pointer arrays: the indirect call carries the operation too.
  tgemm::detail::indirect_call<float, float, float, tagged_op> indirect;
  const float* const* arrays = reinterpret_cast<const float* const*>(fake_a);
  REQUIRE(tgemm::detail::check_batched(layout::col_major, op::none, op::none, 4, 5, 6, 1.0f, arrays, 4, arrays, 6, 0.0f,
                                       reinterpret_cast<float* const*>(fake_c), 4, 3, &built_in, tgemm::options{},
                                       indirect) == status::success);
  tgemm::detail::attach_user_op(user, layout::col_major, indirect.terms);
  CHECK(indirect.fused);
  CHECK_FALSE(indirect.terms.swapped);
  CHECK(indirect.terms.product(1).batch == 1);
  CHECK(indirect.terms.product(1).row_bias == row_bias + 4);
}

TEST_CASE("fused epilogue: each bad member has its own status and message, before any device work",
          "[arguments][epilogue]") {
  const call_args x;
  float d[64];
  struct bad {
    const char* what;
    tgemm::epilogue<float> ep;
    float beta;
    status expected;
    const char* message_part;
  };
  const auto make = [](auto change) {
    tgemm::epilogue<float> e;
    change(e);
    return e;
  };
  const bad table[] = {
      {"activation", make([](auto& e) { e.act = static_cast<tgemm::activation>(-1); }), 0, status::invalid_epilogue,
       "epilogue.act = -1 is not a tgemm::activation"},
      {"clamp order", make([](auto& e) { e.clamp_min = 2, e.clamp_max = 1; }), 0, status::invalid_epilogue,
       "clamp_min = 2 and clamp_max = 1"},
      {"negative stride", make([](auto& e) { e.stride_column_scale = -3; }), 0, status::invalid_epilogue,
       "epilogue.stride_column_scale = -3 is negative"},
      {"ldd", make([&](auto& e) { e.d = d, e.ldd = 3; }), 0, status::invalid_leading_dimension,
       "ldd = 3 is too small"},
      {"null C read", make([&](auto& e) { e.d = d, e.ldd = 4; }), 1, status::null_pointer, "C is null"},
      {"misaligned scale",
       make([&](auto& e) { e.row_scale = reinterpret_cast<const float*>(reinterpret_cast<const char*>(d) + 1); }), 0,
       status::misaligned_operand, "epilogue.row_scale"},
  };
  for (const bad& b : table) {
    INFO(b.what);
    reset_last_error();
    float* c = std::string(b.what) == "null C read" ? nullptr : x.c;
    REQUIRE(tgemm::gemm(x.order, x.op_a, x.op_b, x.m, x.n, x.k, x.alpha, x.a, x.lda, x.b, x.ldb, b.beta, c, x.ldc,
                        b.ep) == b.expected);
    INFO(tgemm::last_error().message);
    REQUIRE(tgemm::last_error().message.find(b.message_part) != std::string::npos);
  }
  // D's batch stride must keep the products apart, named as D's.
  tgemm::epilogue<float> e;
  e.d = d, e.ldd = 4, e.stride_d = 19;
  REQUIRE(tgemm::gemm_strided_batched(x.order, x.op_a, x.op_b, x.m, x.n, x.k, x.alpha, x.a, x.lda, 24, x.b, x.ldb, 30,
                                      x.beta, x.c, x.ldc, 20, 2, e) == status::invalid_batch_stride);
  REQUIRE(tgemm::last_error().message.find("epilogue.stride_d = 19 makes the products' D overlap") !=
          std::string::npos);
}

TEST_CASE("grouped: a bad count, null groups or a bad group has its status, the group named, before any device work",
          "[arguments][grouped]") {
  const call_args x;
  // Groups 0 and 1 are empty (m = 0, n = 0: success before asking for a device), so the call reaches group 2
  // without a GPU; group 2 is x unless a case changes it.
  std::vector<tgemm::gemm_group<float>> groups(3);
  for (tgemm::gemm_group<float>& g : groups) {
    g.m = x.m, g.n = x.n, g.k = x.k, g.a = x.a, g.lda = x.lda, g.b = x.b, g.ldb = x.ldb, g.c = x.c, g.ldc = x.ldc;
  }
  groups[0].m = 0, groups[1].n = 0;
  groups[0].a = groups[0].b = groups[1].a = groups[1].b = nullptr, groups[0].c = groups[1].c = nullptr;

  reset_last_error();
  REQUIRE(tgemm::gemm_grouped(layout::col_major, groups.data(), -1) == status::invalid_dimension);
  REQUIRE(tgemm::last_error().message.find("group_count = -1 is negative") != std::string::npos);
  REQUIRE(tgemm::gemm_grouped<float, float, float>(layout::col_major, nullptr, 2) == status::null_pointer);
  REQUIRE(tgemm::last_error().message.find("groups is null") != std::string::npos);
  reset_last_error();
  REQUIRE(tgemm::gemm_grouped<float, float, float>(layout::col_major, nullptr, 0) == status::success);
  REQUIRE(tgemm::gemm_grouped(layout::col_major, groups.data(), 2) == status::success);  // only the empty ones
  REQUIRE(tgemm::last_error().code == status::success);
  size_t bytes = 1;
  REQUIRE(tgemm::gemm_grouped_workspace_size(layout::col_major, groups.data(), 2, bytes) == status::success);
  REQUIRE(bytes == 0);

  groups[2].lda = 3;  // below m = 4
  REQUIRE(tgemm::gemm_grouped(layout::col_major, groups.data(), 3) == status::invalid_leading_dimension);
  INFO(tgemm::last_error().message);
  REQUIRE(tgemm::last_error().message.rfind("groups[2]: ", 0) == 0);
  REQUIRE(tgemm::last_error().message.find("lda = 3") != std::string::npos);
  REQUIRE(tgemm::gemm_grouped_workspace_size(layout::col_major, groups.data(), 3, bytes) ==
          status::invalid_leading_dimension);

  groups[2].lda = x.lda, groups[2].c = nullptr, groups[2].beta = 1.0f;  // C must be read
  REQUIRE(tgemm::gemm_grouped(layout::col_major, groups.data(), 3) == status::null_pointer);
  REQUIRE(tgemm::last_error().message.rfind("groups[2]: ", 0) == 0);

  tgemm::epilogue<float> ep;
  ep.clamp_min = 2, ep.clamp_max = 1;
  groups[2].c = x.c, groups[2].beta = 0.0f, groups[2].ep = &ep;
  REQUIRE(tgemm::gemm_grouped(layout::col_major, groups.data(), 3) == status::invalid_epilogue);
  REQUIRE(tgemm::last_error().message.rfind("groups[2]: ", 0) == 0);
  REQUIRE(tgemm::last_error().message.find("clamp_min = 2 and clamp_max = 1") != std::string::npos);

  groups[2].ep = nullptr, groups[2].op_a = static_cast<op>(7);
  REQUIRE(tgemm::gemm_grouped(layout::col_major, groups.data(), 3) == status::invalid_op);
  REQUIRE(tgemm::last_error().message.rfind("groups[2]: ", 0) == 0);
}

/// The host's checks of tgemm::gemm_batched() (what the call runs before launching; called here directly, so that
/// this host test compiles none of its kernels), with alpha 1 and beta 0.
status batched_check(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, const float* const* a,
                     int64_t lda, const float* const* b, int64_t ldb, float* const* c, int64_t ldc, int64_t count,
                     const tgemm::epilogue<float>* ep = nullptr, const tgemm::options& opts = {},
                     tgemm::detail::indirect_call<float, float, float>* out = nullptr) {
  tgemm::detail::indirect_call<float, float, float> call;
  const status s =
      tgemm::detail::check_batched(order, op_a, op_b, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc, count, ep, opts, call);
  if (out != nullptr) *out = call;
  return s;
}

/// Likewise for tgemm::gemm_grouped_device().
status grouped_device_check(layout order, op op_a, op op_b, const tgemm::gemm_group_device<float>* groups,
                            int64_t count, tgemm::group_bounds bounds, const tgemm::epilogue<float>* ep = nullptr,
                            const tgemm::options& opts = {},
                            tgemm::detail::indirect_call<float, float, float>* out = nullptr) {
  tgemm::detail::indirect_call<float, float, float> call;
  const status s = tgemm::detail::check_grouped_device(order, op_a, op_b, 1.0f, groups, count, bounds, 0.0f, ep,
                                                       nullptr, opts, call);
  if (out != nullptr) *out = call;
  return s;
}

TEST_CASE("gemm_batched: the sizes, leading dimensions, arrays, count and epilogue are checked on the host",
          "[arguments][batched_pointers]") {
  const float* const* arrays = reinterpret_cast<const float* const*>(fake_a);  // never read here
  const float* const* b_arrays = reinterpret_cast<const float* const*>(fake_b);
  float* const* c_arrays = reinterpret_cast<float* const*>(fake_c);
  const layout col = layout::col_major;
  reset_last_error();
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, arrays, 4, b_arrays, 6, c_arrays, 4, -2) ==
          status::invalid_dimension);
  REQUIRE(tgemm::last_error().message == "batch_count = -2 is negative");
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, arrays, 3, b_arrays, 6, c_arrays, 4, 2) ==
          status::invalid_leading_dimension);
  REQUIRE(tgemm::last_error().message.rfind("lda = 3 is too small", 0) == 0);
  // Row-major: B is k x n stored by rows, so ldb must be at least n.
  REQUIRE(batched_check(layout::row_major, op::none, op::none, 4, 5, 6, arrays, 6, b_arrays, 4, c_arrays, 5, 2) ==
          status::invalid_leading_dimension);
  REQUIRE(tgemm::last_error().message.rfind("ldb = 4 is too small", 0) == 0);
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, nullptr, 4, b_arrays, 6, c_arrays, 4, 2) ==
          status::null_pointer);
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, arrays, 4, b_arrays, 6, nullptr, 4, 2) ==
          status::null_pointer);
  REQUIRE(batched_check(col, static_cast<op>(9), op::none, 4, 5, 6, arrays, 4, b_arrays, 6, c_arrays, 4, 2) ==
          status::invalid_op);
  tgemm::options bad;
  bad.math = static_cast<tgemm::math_mode>(5);
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, arrays, 4, b_arrays, 6, c_arrays, 4, 2, nullptr, bad) ==
          status::invalid_option);
  tgemm::epilogue<float> ep;
  ep.d = fake_c, ep.ldd = 4;
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, arrays, 4, b_arrays, 6, c_arrays, 4, 2, &ep) ==
          status::invalid_epilogue);
  REQUIRE(tgemm::last_error().message.find("a separate D is not supported") != std::string::npos);
  ep.d = nullptr, ep.stride_row_bias = -1;
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, arrays, 4, b_arrays, 6, c_arrays, 4, 2, &ep) ==
          status::invalid_epilogue);
  // Nothing to do (an empty batch, or m = 0): success, the arrays unread (null ones too), no launch planned.
  reset_last_error();
  tgemm::detail::indirect_call<float, float, float> call;
  REQUIRE(batched_check(col, op::none, op::none, 4, 5, 6, nullptr, 4, nullptr, 6, nullptr, 4, 0, nullptr, {}, &call) ==
          status::success);
  REQUIRE(call.empty);
  REQUIRE(batched_check(col, op::none, op::none, 0, 5, 6, nullptr, 1, nullptr, 6, nullptr, 1, 3, nullptr, {}, &call) ==
          status::success);
  REQUIRE(call.empty);
  REQUIRE(tgemm::last_error().code == status::success);
  // A row-major call runs as the column-major C^T = op(B)^T op(A)^T: the arrays, sizes, ops and biases swap.
  ep = tgemm::epilogue<float>{};
  ep.row_bias = fake_a, ep.stride_row_bias = 4;
  REQUIRE(batched_check(layout::row_major, op::transpose, op::none, 4, 5, 6, arrays, 4, b_arrays, 5, c_arrays, 5, 3,
                        &ep, {}, &call) == status::success);
  REQUIRE(!call.empty);
  REQUIRE(call.fused);
  REQUIRE(call.products.a == reinterpret_cast<const float* const*>(b_arrays));
  REQUIRE(call.products.b == arrays);
  REQUIRE((call.m == 5 && call.n == 4 && call.k == 6 && call.count == 3));
  REQUIRE((call.op_a == op::none && call.op_b == op::transpose));
  REQUIRE((call.terms.column_bias == fake_a && call.terms.stride_column_bias == 4 && call.terms.row_bias == nullptr));
}

TEST_CASE("gemm_grouped_device: the count, bounds, array, layout, ops, options and epilogue are checked on the host",
          "[arguments][grouped_device]") {
  const auto* groups = reinterpret_cast<const tgemm::gemm_group_device<float>*>(fake_a);  // never read here
  const layout col = layout::col_major;
  const tgemm::group_bounds bounds{64, 32, 16};
  reset_last_error();
  REQUIRE(grouped_device_check(col, op::none, op::none, groups, -1, bounds) == status::invalid_dimension);
  REQUIRE(tgemm::last_error().message == "group_count = -1 is negative");
  REQUIRE(grouped_device_check(col, op::none, op::none, groups, 2, tgemm::group_bounds{64, -1, 16}) ==
          status::invalid_dimension);
  REQUIRE(tgemm::last_error().message.find("must not be negative") != std::string::npos);
  REQUIRE(grouped_device_check(col, op::none, op::none, nullptr, 2, bounds) == status::null_pointer);
  REQUIRE(grouped_device_check(static_cast<layout>(3), op::none, op::none, groups, 2, bounds) == status::invalid_layout);
  REQUIRE(grouped_device_check(col, op::none, static_cast<op>(1), groups, 2, bounds) == status::invalid_op);
  tgemm::options bad;
  bad.math = static_cast<tgemm::math_mode>(5);
  REQUIRE(grouped_device_check(col, op::none, op::none, groups, 2, bounds, nullptr, bad) == status::invalid_option);
  tgemm::epilogue<float> ep;
  ep.act = static_cast<tgemm::activation>(11);
  REQUIRE(grouped_device_check(col, op::none, op::none, groups, 2, bounds, &ep) == status::invalid_epilogue);
  reset_last_error();
  tgemm::detail::indirect_call<float, float, float> call;
  REQUIRE(grouped_device_check(col, op::none, op::none, nullptr, 0, bounds, nullptr, {}, &call) == status::success);
  REQUIRE(call.empty);
  REQUIRE(grouped_device_check(col, op::none, op::none, groups, 2, tgemm::group_bounds{0, 32, 16}, nullptr, {},
                               &call) == status::success);
  REQUIRE(call.empty);  // no group can have a row: nothing to do
  REQUIRE(tgemm::last_error().code == status::success);
  // Row-major: the kernels see the bounds and ops of C^T; the groups keep the caller's form (the kernel swaps them).
  REQUIRE(grouped_device_check(layout::row_major, op::transpose, op::none, groups, 2, bounds, nullptr, {}, &call) ==
          status::success);
  REQUIRE((call.m == 32 && call.n == 64 && call.k == 16 && call.count == 2));
  REQUIRE((call.op_a == op::none && call.op_b == op::transpose));
  REQUIRE((call.products.groups == groups && call.products.row_major && call.products.op_a == op::transpose));
}
