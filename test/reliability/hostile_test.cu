// Hostile inputs: a table of invalid calls, generated for both storage orders and all four op pairs, through
// tgemm::gemm(), and can_implement<P>() and launch<P>() of every policy tgemm ships (paths.hpp); plus mdspan views
// whose extents disagree or that have no unit stride. Every call must return its own status before any device work,
// with last_error() holding that status, no CUDA error, and a message that names the argument (and its value).
//
// [host] cases: fake device pointers, no device work; ctest runs them with CUDA_VISIBLE_DEVICES set to the empty
// string, so even a call that wrongly passed validation could not reach a GPU.
// [gpu] case: the same table on real device memory; after each call C must be unchanged bit for bit and no CUDA
// error may be pending, and afterwards a valid call on every path must succeed and be right.
#include "catch.hpp"
#include "cuda_check.hpp"
#include "matrices.hpp"
#include "paths.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <tgemm/gemm.cuh>

#include <cuda/std/mdspan>

#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace tgemm;
using tgemm::reliability::gemm_path;

namespace {

enum class pointer { valid, null, byte_misaligned };

/// One invalid call: the arguments, the status it must return and what its message must contain.
struct hostile_call {
  std::string what;
  layout order = layout::col_major;
  op op_a = op::none, op_b = op::none;
  int64_t m = 3, n = 5, k = 7;
  float alpha = 1.0f, beta = 0.5f;
  pointer a = pointer::valid, b = pointer::valid, c = pointer::valid;
  int64_t lda = 1, ldb = 1, ldc = 1;
  status expected = status::success;
  std::vector<std::string> mentions;  // substrings the message must contain
};

std::string str(int64_t x) { return std::to_string(x); }

/// A valid call of shape m x n x k (3 x 5 x 7: every operand has a different smallest leading dimension).
hostile_call valid_call(layout order, op op_a, op op_b, int64_t m = 3, int64_t n = 5, int64_t k = 7) {
  hostile_call c;
  c.order = order, c.op_a = op_a, c.op_b = op_b, c.m = m, c.n = n, c.k = k;
  c.lda = test::min_ld(order, op_a, m, k);
  c.ldb = test::min_ld(order, op_b, k, n);
  c.ldc = test::min_ld(order, op::none, m, n);
  c.what = std::string(to_string(order)) + " " + to_string(op_a) + "/" + to_string(op_b);
  return c;
}

/// Every invalid call: each wrong in exactly one way, for every storage order and op pair.
std::vector<hostile_call> hostile_calls() {
  std::vector<hostile_call> rows;
  const auto add = [&](hostile_call c, const std::string& what, status expected, std::vector<std::string> mentions) {
    c.what += ": " + what;
    c.expected = expected;
    c.mentions = std::move(mentions);
    rows.push_back(std::move(c));
  };
  const int64_t huge = int64_t(1) << 31;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (op op_a : {op::none, op::transpose}) {
      for (op op_b : {op::none, op::transpose}) {
        const hostile_call base = valid_call(order, op_a, op_b);

        // Enumerations out of range.
        for (int bad : {0, 100, 103, -1, INT_MAX}) {
          hostile_call c = base;
          c.order = static_cast<layout>(bad);
          add(c, "order = " + std::to_string(bad), status::invalid_layout, {"order = " + std::to_string(bad)});
        }
        for (int bad : {0, 110, 113, -111}) {
          hostile_call c = base;
          c.op_a = static_cast<op>(bad);
          add(c, "op_a = " + std::to_string(bad), status::invalid_op, {"op_a = " + std::to_string(bad)});
          c = base;
          c.op_b = static_cast<op>(bad);
          add(c, "op_b = " + std::to_string(bad), status::invalid_op, {"op_b = " + std::to_string(bad)});
        }

        // Negative sizes (also with the pointers null and alpha = 0: sizes are checked first).
        for (int64_t bad : {int64_t(-1), int64_t(-4096), std::numeric_limits<int64_t>::min()}) {
          for (const char* dimension : {"m", "n", "k"}) {
            hostile_call c = base;
            (dimension[0] == 'm' ? c.m : dimension[0] == 'n' ? c.n : c.k) = bad;
            add(c, std::string(dimension) + " = " + str(bad), status::invalid_dimension,
                {std::string(dimension) + " = " + str(bad) + " is negative"});
            c.a = c.b = pointer::null;
            c.alpha = 0.0f;
            add(c, std::string(dimension) + " = " + str(bad) + ", null A and B, alpha = 0", status::invalid_dimension,
                {std::string(dimension) + " = " + str(bad) + " is negative"});
          }
        }

        // Each leading dimension too small: one less than its minimum, 0, negative.
        for (const char* which : {"lda", "ldb", "ldc"}) {
          const int64_t minimum = which[2] == 'a' ? base.lda : which[2] == 'b' ? base.ldb : base.ldc;
          for (int64_t bad : {minimum - 1, int64_t(0), int64_t(-1), std::numeric_limits<int64_t>::min()}) {
            hostile_call c = base;
            (which[2] == 'a' ? c.lda : which[2] == 'b' ? c.ldb : c.ldc) = bad;
            add(c, std::string(which) + " = " + str(bad) + " (minimum " + str(minimum) + ")",
                status::invalid_leading_dimension,
                {std::string(which) + " = " + str(bad) + " is too small: it must be at least " + str(minimum)});
          }
        }
        {  // leading dimensions are checked even when k = 0 (as CBLAS does)
          hostile_call c = valid_call(order, op_a, op_b, 3, 5, 0);
          c.ldc = c.ldc - 1;
          add(c, "ldc too small with k = 0", status::invalid_leading_dimension, {"ldc = " + str(c.ldc)});
        }

        // Null pointers of matrices the call reads or writes.
        {
          hostile_call c = base;
          c.a = pointer::null;
          add(c, "null A", status::null_pointer, {"A is null"});
          c = base;
          c.b = pointer::null;
          add(c, "null B", status::null_pointer, {"B is null"});
          c = base;
          c.c = pointer::null;
          add(c, "null C", status::null_pointer, {"C is null"});
          c.alpha = 0.0f;
          add(c, "null C with alpha = 0", status::null_pointer, {"C is null"});
          c = valid_call(order, op_a, op_b, 3, 5, 0);
          c.c = pointer::null;
          add(c, "null C with k = 0", status::null_pointer, {"C is null"});
        }

        // Sizes whose byte counts overflow int64: a huge leading dimension, or huge dimensions.
        for (const char* which : {"A", "B", "C"}) {
          for (int64_t bad : {int64_t(1) << 62, std::numeric_limits<int64_t>::max()}) {
            hostile_call c = base;
            (which[0] == 'A' ? c.lda : which[0] == 'B' ? c.ldb : c.ldc) = bad;
            add(c, std::string(which) + " with leading dimension " + str(bad), status::size_overflow,
                {std::string(which) + " spans", "leading dimension " + str(bad), "overflows a 64-bit integer"});
          }
        }
        add(valid_call(order, op_a, op_b, huge, 5, huge), "A of 2^31 x 2^31", status::size_overflow, {"A spans"});
        add(valid_call(order, op_a, op_b, 3, huge, huge), "B of 2^31 x 2^31", status::size_overflow, {"B spans"});
        add(valid_call(order, op_a, op_b, huge, huge, 1), "C of 2^31 x 2^31", status::size_overflow, {"C spans"});

        // A float pointer that is not even 4-byte aligned: misaligned for every path, the dispatcher included.
        // Leading dimensions of 8 suit every operand and every vector width, so only the pointer is wrong.
        {
          hostile_call aligned_lds = base;
          aligned_lds.lda = aligned_lds.ldb = aligned_lds.ldc = 8;
          hostile_call c = aligned_lds;
          c.a = pointer::byte_misaligned;
          add(c, "A one byte off", status::misaligned_operand, {"A (at "});
          c = aligned_lds;
          c.b = pointer::byte_misaligned;
          add(c, "B two bytes off", status::misaligned_operand, {"B (at "});
          c = aligned_lds;
          c.c = pointer::byte_misaligned;
          add(c, "C three bytes off", status::misaligned_operand, {"C (at "});
        }
      }
    }
  }
  return rows;
}

/// The pointers a table row passes: `valid` ones are given, the others derived from them.
struct operand_pointers {
  float* a;
  float* b;
  float* c;
};

float* resolve(pointer kind, float* valid, int misaligned_bytes) {
  switch (kind) {
    case pointer::valid: return valid;
    case pointer::null: return nullptr;
    case pointer::byte_misaligned:
      return reinterpret_cast<float*>(reinterpret_cast<uintptr_t>(valid) + uintptr_t(misaligned_bytes));
  }
  return valid;
}

/// Runs `call` through a path (can_implement too, for a policy) and returns what went wrong ("" if nothing).
std::string judge(status got, const hostile_call& row, const char* function) {
  const error_info& e = last_error();
  const std::string where = std::string(function) + ": ";
  if (got != row.expected) {
    return where + "returned " + to_string(got) + " (\"" + e.message + "\"), expected " + to_string(row.expected);
  }
  if (e.code != row.expected) return where + "last_error().code is " + to_string(e.code);
  if (e.cuda != cudaSuccess) return where + "last_error().cuda is " + cudaGetErrorName(e.cuda);
  for (const std::string& mention : row.mentions) {
    if (e.message.find(mention) == std::string::npos) {
      return where + "message \"" + e.message + "\" does not contain \"" + mention + "\"";
    }
  }
  return "";
}

void forget_last_error() { tgemm::detail::fail(status::success, cudaSuccess, "%s", "stale message from the test"); }

/// Calls the row on every path; `after_each` runs after every call (the GPU variant checks C there). Returns the
/// failures, each naming the row and the path.
std::vector<std::string> run_table(const std::vector<hostile_call>& rows, operand_pointers valid,
                                   const std::function<std::string()>& after_each) {
  std::vector<std::string> failures;
  for (const hostile_call& row : rows) {
    const float* a = resolve(row.a, valid.a, 1);
    const float* b = resolve(row.b, valid.b, 2);
    float* c = resolve(row.c, valid.c, 3);
    for (const gemm_path& path : tgemm::reliability::all_paths()) {
      const auto record = [&](const std::string& problem) {
        if (!problem.empty()) failures.push_back(row.what + " on " + path.name + ": " + problem);
      };
      if (path.can_implement != nullptr) {
        forget_last_error();
        record(judge(path.can_implement(row.order, row.op_a, row.op_b, row.m, row.n, row.k, row.alpha, a, row.lda, b,
                                        row.ldb, row.beta, c, row.ldc),
                     row, "can_implement"));
        record(after_each());
      }
      forget_last_error();
      record(judge(path.run(row.order, row.op_a, row.op_b, row.m, row.n, row.k, row.alpha, a, row.lda, b, row.ldb,
                            row.beta, c, row.ldc, nullptr),
                   row, path.dispatcher ? "gemm" : "launch"));
      record(after_each());
    }
  }
  return failures;
}

/// mdspan views that cannot describe a GEMM: extents that disagree, no unit stride. Through the mdspan gemm().
struct view_call {
  std::string what;
  std::function<status()> call;
  status expected;
  std::vector<std::string> mentions;
};

std::vector<view_call> view_calls(float* a, float* b, float* c) {
  namespace cs = cuda::std;
  using extents = cs::dextents<int64_t, 2>;
  using left = cs::mdspan<const float, extents, cs::layout_left>;
  using right = cs::mdspan<const float, extents, cs::layout_right>;
  using strided = cs::mdspan<const float, extents, cs::layout_stride>;
  using c_left = cs::mdspan<float, extents, cs::layout_left>;
  using c_strided = cs::mdspan<float, extents, cs::layout_stride>;
  using mapping = cs::layout_stride::mapping<extents>;
  const auto strides = [](int64_t s0, int64_t s1) { return cs::array<int64_t, 2>{s0, s1}; };
  std::vector<view_call> out;
  out.push_back({"A has 3 rows, C 4", [=] { return gemm(1.0f, left(a, 3, 7), left(b, 7, 5), 0.0f, c_left(c, 4, 5)); },
                 status::invalid_extents, {"A has 3 rows but C has 4"}});
  out.push_back({"B has 6 columns, C 5",
                 [=] { return gemm(1.0f, left(a, 3, 7), right(b, 7, 6), 0.0f, c_left(c, 3, 5)); },
                 status::invalid_extents, {"B has 6 columns but C has 5"}});
  out.push_back({"A has 7 columns, B 8 rows",
                 [=] { return gemm(1.0f, right(a, 3, 7), left(b, 8, 5), 0.0f, c_left(c, 3, 5)); },
                 status::invalid_extents, {"A has 7 columns but B has 8 rows"}});
  out.push_back({"A with strides (2, 6)",
                 [=] {
                   return gemm(1.0f, strided(a, mapping(extents(3, 7), strides(2, 6))), left(b, 7, 5), 0.0f,
                               c_left(c, 3, 5));
                 },
                 status::unsupported_layout, {"A has strides (2, 6)"}});
  out.push_back({"B with strides (10, 2)",
                 [=] {
                   return gemm(1.0f, left(a, 3, 7), strided(b, mapping(extents(7, 5), strides(10, 2))), 0.0f,
                               c_left(c, 3, 5));
                 },
                 status::unsupported_layout, {"B has strides (10, 2)"}});
  out.push_back({"C with strides (3, 9)",
                 [=] {
                   return gemm(1.0f, left(a, 3, 7), left(b, 7, 5), 0.0f,
                               c_strided(c, mapping(extents(3, 5), strides(3, 9))));
                 },
                 status::unsupported_layout, {"C has strides (3, 9)"}});
  return out;
}

std::vector<std::string> run_views(float* a, float* b, float* c, const std::function<std::string()>& after_each) {
  std::vector<std::string> failures;
  for (const view_call& v : view_calls(a, b, c)) {
    forget_last_error();
    const status got = v.call();
    hostile_call row;
    row.expected = v.expected;
    row.mentions = v.mentions;
    const std::string problem = judge(got, row, "gemm(mdspan)");
    if (!problem.empty()) failures.push_back(v.what + ": " + problem);
    const std::string after = after_each();
    if (!after.empty()) failures.push_back(v.what + ": " + after);
  }
  return failures;
}

std::string summary(const std::vector<std::string>& failures) {
  std::string text = std::to_string(failures.size()) + " failures";
  for (size_t i = 0; i < failures.size() && i < 20; ++i) text += "\n  " + failures[i];
  return text;
}

float* fake(uintptr_t address) { return reinterpret_cast<float*>(address); }

}  // namespace

TEST_CASE("every invalid argument is refused by gemm(), can_implement<P>() and launch<P>() with its own status "
          "and message",
          "[host][hostile]") {
  const std::vector<hostile_call> rows = hostile_calls();
  const std::vector<std::string> failures =
      run_table(rows, {fake(0x100000), fake(0x200000), fake(0x300000)}, [] { return std::string(); });
  INFO(rows.size() << " invalid calls on " << tgemm::reliability::all_paths().size() << " paths; " << summary(failures));
  CHECK(failures.empty());
}

TEST_CASE("mdspan views whose extents disagree or that have no unit stride are refused", "[host][hostile]") {
  const std::vector<std::string> failures =
      run_views(fake(0x100000), fake(0x200000), fake(0x300000), [] { return std::string(); });
  INFO(summary(failures));
  CHECK(failures.empty());
}

TEST_CASE("invalid calls leave C untouched and no CUDA error behind; the next valid call works", "[gpu][hostile]") {
  {
    int devices = 0;
    const cudaError_t error = cudaGetDeviceCount(&devices);
    INFO("this test needs a CUDA device (ctest label gpu): " << cudaGetErrorName(error) << ", " << devices
                                                              << " devices");
    REQUIRE((error == cudaSuccess && devices > 0));
  }
  constexpr size_t elements = 4096;
  test::device_buffer<float> a(elements), b(elements), c(elements);
  a.upload(test::random_values(int64_t(elements)));
  b.upload(test::random_values(int64_t(elements)));
  std::vector<float> before = test::random_values(int64_t(elements));
  for (size_t i = 0; i < elements; i += 7) before[i] = reliability::nan_value;  // bits a kernel would not keep
  c.upload(before);

  // After every call: no CUDA error pending, nothing left running, C exactly as it was.
  const auto untouched = [&]() -> std::string {
    const cudaError_t pending = cudaGetLastError();
    if (pending != cudaSuccess) return std::string("cudaGetLastError() = ") + cudaGetErrorName(pending);
    const cudaError_t synced = cudaDeviceSynchronize();
    if (synced != cudaSuccess) return std::string("cudaDeviceSynchronize() = ") + cudaGetErrorName(synced);
    std::vector<float> after(elements);
    if (cudaMemcpy(after.data(), c.get(), elements * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
      return "downloading C failed";
    }
    if (std::memcmp(after.data(), before.data(), elements * sizeof(float)) != 0) return "C changed";
    return "";
  };

  const std::vector<hostile_call> rows = hostile_calls();
  std::vector<std::string> failures = run_table(rows, {a.get(), b.get(), c.get()}, untouched);
  const std::vector<std::string> view_failures = run_views(a.get(), b.get(), c.get(), untouched);
  failures.insert(failures.end(), view_failures.begin(), view_failures.end());
  INFO(rows.size() << " invalid calls on " << tgemm::reliability::all_paths().size() << " paths; " << summary(failures));
  CHECK(failures.empty());

  // Nothing sticky was left behind: a valid call on every path succeeds and is right.
  TGEMM_CUDA_REQUIRE(cudaGetLastError());
  reliability::violations bad;
  for (const gemm_path& path : tgemm::reliability::all_paths()) {
    const reliability::matrices x(layout::col_major, op::none, op::transpose, 33, 17, 29);
    const std::vector<float> result = reliability::run_on(path, x, 1.5f, -0.5f);
    const test::reference_result ref = x.reference(1.5f, -0.5f);
    for (int64_t j = 0; j < x.n; ++j) {
      for (int64_t i = 0; i < x.m; ++i) {
        if (!reliability::within_bound(ref, x.m, x.k, i, j, x.at(result, i, j))) {
          bad.add(path.name + ": " + reliability::element("C", i, j, x.at(result, i, j)));
        }
      }
    }
  }
  INFO(bad.count << " wrong elements:" << bad.first);
  CHECK(bad.count == 0);
}
