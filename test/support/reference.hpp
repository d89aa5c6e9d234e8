// The float64 host reference GEMM and the error bound every GPU result is held to.
#pragma once

#include <tgemm/types.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace tgemm::test {

/// Element (i, j) of a matrix stored in `order` with leading dimension ld.
inline int64_t index_of(layout order, int64_t i, int64_t j, int64_t ld) {
  return order == layout::col_major ? i + j * ld : i * ld + j;
}

/// Element (i, l) of op(X) for X stored in `order`.
inline int64_t op_index_of(layout order, op operation, int64_t i, int64_t l, int64_t ld) {
  return operation == op::none ? index_of(order, i, l, ld) : index_of(order, l, i, ld);
}

/// Elements a stored operand occupies: ld times the number of lines (rows or columns) it spans.
inline int64_t stored_elements(layout order, op operation, int64_t rows, int64_t cols, int64_t ld) {
  const int64_t x_rows = operation == op::none ? rows : cols;
  const int64_t x_cols = operation == op::none ? cols : rows;
  const int64_t lines = order == layout::col_major ? x_cols : x_rows;
  return ld * lines;
}

/// The smallest valid leading dimension for op(X) of rows x cols, as CBLAS defines it.
inline int64_t min_ld(layout order, op operation, int64_t rows, int64_t cols) {
  const int64_t x_rows = operation == op::none ? rows : cols;
  const int64_t x_cols = operation == op::none ? cols : rows;
  const int64_t contiguous = order == layout::col_major ? x_rows : x_cols;
  return contiguous > 1 ? contiguous : 1;
}

/// The exact result in float64 and, per element, the magnitude that bounds its rounding error:
/// |alpha| sum_l |op(A)(i,l)| |op(B)(l,j)| + |beta| |C(i,j)|.
struct reference_result {
  std::vector<double> value;      // m x n, column-major, ld = m
  std::vector<double> magnitude;  // m x n, column-major, ld = m
};

/// Calls body(first, last) on contiguous ranges that cover [0, rows), each on a thread of its own: as many threads
/// as the machine has (at most `max_threads` when positive), fewer when the work (rows x work_per_row) is too small
/// to repay starting them. Each row is computed by one call exactly as a serial loop would, so a reference computed
/// this way is the same bit for bit on any number of threads; only the time changes (the GPU tests' float64
/// references were most of their run time on one core). The body must not use Catch2's macros (not thread-safe).
template <class Body>
void for_row_ranges(int64_t rows, double work_per_row, Body body, int max_threads = 0) {
  constexpr double work_per_thread = 1 << 22;  // multiply-adds that repay a thread's start many times over
  int64_t threads = std::max<int64_t>(1, int64_t(std::thread::hardware_concurrency()));
  if (max_threads > 0) threads = std::min<int64_t>(threads, max_threads);
  threads = std::min<int64_t>({threads, rows, int64_t(double(rows) * work_per_row / work_per_thread) + 1});
  if (threads <= 1) {
    if (rows > 0) body(int64_t(0), rows);
    return;
  }
  std::vector<std::thread> pool;
  const int64_t chunk = (rows + threads - 1) / threads;
  for (int64_t first = 0; first < rows; first += chunk) pool.emplace_back(body, first, std::min(rows, first + chunk));
  for (std::thread& t : pool) t.join();
}

/// C = alpha op(A) op(B) + beta C in float64 (C is read only when beta != 0, as BLAS says). `max_threads` caps the
/// threads it runs on (0: every core; see for_row_ranges).
inline reference_result reference_gemm(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                                       const float* c, int64_t ldc, int max_threads = 0) {
  reference_result r;
  r.value.assign(size_t(m * n), 0.0);
  r.magnitude.assign(size_t(m * n), 0.0);
  for_row_ranges(m, 2.0 * double(n) * double(k), [&](int64_t first, int64_t last) {
    std::vector<double> a_row(static_cast<size_t>(k)), a_abs(static_cast<size_t>(k));
    for (int64_t i = first; i < last; ++i) {
      for (int64_t l = 0; l < k; ++l) {
        a_row[size_t(l)] = a[op_index_of(order, op_a, i, l, lda)];
        a_abs[size_t(l)] = std::fabs(a_row[size_t(l)]);
      }
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0.0, abs_sum = 0.0;
        if (alpha != 0.0f) {
          for (int64_t l = 0; l < k; ++l) {
            const double bv = b[op_index_of(order, op_b, l, j, ldb)];
            sum += a_row[size_t(l)] * bv;
            abs_sum += a_abs[size_t(l)] * std::fabs(bv);
          }
        }
        double value = double(alpha) * sum;
        double magnitude = std::fabs(double(alpha)) * abs_sum;
        if (beta != 0.0f) {
          const double cv = c[index_of(order, i, j, ldc)];
          value += double(beta) * cv;
          magnitude += std::fabs(double(beta)) * std::fabs(cv);
        }
        r.value[size_t(i + j * m)] = value;
        r.magnitude[size_t(i + j * m)] = magnitude;
      }
    }
  }, max_threads);
  return r;
}

/// The rounding-error factor for a length-k dot product in float32 plus the epilogue's roundings:
/// (k + 4) times FP32 machine epsilon (2^-23), twice the classical worst case gamma_{k+2} with u = 2^-24.
inline double error_factor(int64_t k) { return double(k + 4) * double(std::numeric_limits<float>::epsilon()); }

/// The float64 product A B of column-major A (m x k) and B (k x n), column-major m x n: the reference of the tests
/// that compare math modes' accuracy normwise.
inline std::vector<double> product_f64(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n,
                                       int64_t k) {
  std::vector<double> product(size_t(m * n), 0.0);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t l = 0; l < k; ++l) {
      const double y = b[size_t(l + j * k)];
      for (int64_t i = 0; i < m; ++i) product[size_t(i + j * m)] += double(a[size_t(i + l * m)]) * y;
    }
  }
  return product;
}

/// ||c - reference||_F / ||reference||_F.
inline double normwise_relative_error(const std::vector<float>& c, const std::vector<double>& reference) {
  double error2 = 0, norm2 = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    error2 += (double(c[i]) - reference[i]) * (double(c[i]) - reference[i]);
    norm2 += reference[i] * reference[i];
  }
  return std::sqrt(error2 / norm2);
}

/// How a GPU result compares with the reference.
struct comparison {
  double error_norm = 0;      // ||C - ref||_F
  double bound_norm = 0;      // error_factor(k) * ||magnitude||_F
  int64_t worst_row = -1, worst_col = -1;
  double worst_ratio = 0;     // max_ij |C - ref| / (error_factor(k) * magnitude_ij), over elements that exceed
  int64_t bad_elements = 0;   // elements outside their own bound, or non-finite where ref is finite
  bool passed() const { return bad_elements == 0 && error_norm <= bound_norm; }
  std::string describe() const {
    return "||C - ref||_F = " + std::to_string(error_norm) + " (bound " + std::to_string(bound_norm) + "), " +
           std::to_string(bad_elements) + " elements out of bound, worst at (" + std::to_string(worst_row) + ", " +
           std::to_string(worst_col) + ") by " + std::to_string(worst_ratio) + "x";
  }
};

/// Compares C (m x n, stored in `order` with ldc) with the reference, normwise and element by element.
inline comparison compare(const reference_result& ref, const float* c, layout order, int64_t m, int64_t n,
                          int64_t k, int64_t ldc) {
  comparison out;
  const double factor = error_factor(k);
  double error2 = 0, magnitude2 = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      const double expected = ref.value[size_t(i + j * m)];
      const double magnitude = ref.magnitude[size_t(i + j * m)];
      const double got = c[index_of(order, i, j, ldc)];
      const double error = std::fabs(got - expected);
      const double allowed = factor * magnitude + std::numeric_limits<float>::denorm_min();
      magnitude2 += magnitude * magnitude;
      if (!std::isfinite(got) || !(error <= allowed)) {
        ++out.bad_elements;
        const double ratio = std::isfinite(error) ? error / allowed : std::numeric_limits<double>::infinity();
        if (ratio > out.worst_ratio || out.worst_row < 0) {
          out.worst_ratio = ratio;
          out.worst_row = i;
          out.worst_col = j;
        }
      }
      error2 += std::isfinite(error) ? error * error : std::numeric_limits<double>::infinity();
    }
  }
  out.error_norm = std::sqrt(error2);
  out.bound_norm = factor * std::sqrt(magnitude2);
  return out;
}

}  // namespace tgemm::test
