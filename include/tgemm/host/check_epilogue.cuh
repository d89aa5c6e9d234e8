/// \file host/check_epilogue.cuh
/// \brief The checks of a call with a tgemm::epilogue, and its translation into the kernels' terms
/// (device::epilogue_terms).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "../device/epilogue_terms.cuh"
#include "../epilogue.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "arguments.cuh"

namespace tgemm {
namespace detail {

/// Checks an epilogue's own members: its activation, its clamp bounds, its vector strides.
template <class C>
status check_epilogue_members(const epilogue<C>& ep) {
  if (!is_valid(ep.act)) {
    return fail(status::invalid_epilogue, cudaSuccess,
                "epilogue.act = %d is not a tgemm::activation (none = 0, relu, gelu_tanh, gelu_erf, silu = 4)",
                int(ep.act));
  }
  if (std::isnan(double(ep.clamp_min)) || std::isnan(double(ep.clamp_max)) || ep.clamp_min > ep.clamp_max) {
    return fail(status::invalid_epilogue, cudaSuccess,
                "epilogue.clamp_min = %g and clamp_max = %g do not bound a range (NaN, or min above max)",
                double(ep.clamp_min), double(ep.clamp_max));
  }
  const struct {
    const char* name;
    int64_t stride;
  } strides[] = {{"stride_row_bias", ep.stride_row_bias},
                 {"stride_column_bias", ep.stride_column_bias},
                 {"stride_row_scale", ep.stride_row_scale},
                 {"stride_column_scale", ep.stride_column_scale}};
  for (const auto& x : strides) {
    if (x.stride < 0) {
      return fail(status::invalid_epilogue, cudaSuccess, "epilogue.%s = %lld is negative", x.name,
                  (long long)x.stride);
    }
  }
  return status::success;
}

/// Checks that an epilogue's vectors are aligned to their elements (they are read one element at a time).
template <class C>
status check_epilogue_vectors(const epilogue<C>& ep) {
  using S = typename epilogue<C>::scalar_type;
  const struct {
    const char* name;
    const void* pointer;
    int bytes;
  } vectors[] = {{"epilogue.row_scale", ep.row_scale, int(sizeof(S))},
                 {"epilogue.column_scale", ep.column_scale, int(sizeof(S))},
                 {"epilogue.row_bias", ep.row_bias, element_bytes<C>},
                 {"epilogue.column_bias", ep.column_bias, element_bytes<C>}};
  for (const auto& v : vectors) {
    if (v.pointer != nullptr && reinterpret_cast<uintptr_t>(v.pointer) % uintptr_t(v.bytes) != 0) {
      return fail(status::misaligned_operand, cudaSuccess,
                  "%s (at %p) is not aligned to %d bytes, as its elements must be", v.name, v.pointer, v.bytes);
    }
  }
  return status::success;
}

/// A row-major call's terms in the kernels' column-major form: the caller's rows are the kernels' columns.
template <class C, class S>
void swap_rows_and_columns(device::epilogue_terms<C, S>& t) {
  std::swap(t.row_scale, t.column_scale), std::swap(t.stride_row_scale, t.stride_column_scale);
  std::swap(t.row_bias, t.column_bias), std::swap(t.stride_row_bias, t.stride_column_bias);
}

/// The kernels' terms of a checked epilogue (without a separate D), in the column-major form of a call in `order`;
/// the vectors' product strides kept only for a batch (`batched`).
template <class C>
device::epilogue_terms<C, typename epilogue<C>::scalar_type> terms_of(const epilogue<C>& ep, layout order,
                                                                      bool batched) {
  using S = typename epilogue<C>::scalar_type;
  device::epilogue_terms<C, S> t{};
  t.row_scale = ep.row_scale, t.stride_row_scale = batched ? ep.stride_row_scale : 0;
  t.column_scale = ep.column_scale, t.stride_column_scale = batched ? ep.stride_column_scale : 0;
  t.row_bias = ep.row_bias, t.stride_row_bias = batched ? ep.stride_row_bias : 0;
  t.column_bias = ep.column_bias, t.stride_column_bias = batched ? ep.stride_column_bias : 0;
  t.act = ep.act;
  t.clamp = ep.clamp_min > -std::numeric_limits<S>::infinity() || ep.clamp_max < std::numeric_limits<S>::infinity();
  t.lower = ep.clamp_min, t.upper = ep.clamp_max;
  if (order == layout::row_major) swap_rows_and_columns(t);
  return t;
}

/// Validates a call with a fused epilogue and fills `out` (the kernels' form, with out.fused set): the epilogue's
/// own members, then D (its leading dimension, extent and batch stride, named as D), then the rest of the call as
/// check_arguments() checks it with D as the matrix written. C is checked as read-only input when the result goes
/// to a separate D and beta is not 0, and ignored when beta is 0.
template <class Types>
status check_fused_arguments(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k,
                             typename Types::scalar_type alpha, const typename Types::element_a* a, int64_t lda,
                             const typename Types::element_b* b, int64_t ldb, typename Types::scalar_type beta,
                             typename Types::element_c* c, int64_t ldc, const epilogue<typename Types::element_c>& ep,
                             canonical_call<Types>& out, batch_shape batch) {
  using C = typename Types::element_c;
  using S = typename Types::scalar_type;
  static_assert(std::is_same<S, typename epilogue<C>::scalar_type>::value, "the epilogue's scalars are alpha's type");
  if (status s = check_epilogue_members(ep); s != status::success) return s;
  const bool separate_d = ep.d != nullptr && !(ep.d == c && ep.ldd == ldc && (batch.count <= 1 ||
                                                                                ep.stride_d == batch.stride_c));
  C* written = c;
  int64_t ld_written = ldc;
  if (separate_d) {
    const bool empty = m == 0 || n == 0 || batch.count == 0;
    if (m >= 0 && n >= 0) {
      if (status s = check_leading_dimension("ldd", "D", order, op::none, m, n, ep.ldd); s != status::success) {
        return s;
      }
    }
    if (!empty && m > 0 && n > 0 && batch.count > 1) {
      const int64_t span = span_of(order, op::none, m, n, ep.ldd);
      if (ep.stride_d < span) {
        return fail(status::invalid_batch_stride, cudaSuccess,
                    "epilogue.stride_d = %lld makes the products' D overlap: one D spans %lld elements (ldd = %lld)",
                    (long long)ep.stride_d, (long long)span, (long long)ep.ldd);
      }
    }
    if (beta != S(0) && !empty && m > 0 && n > 0 && batch.count > 0) {  // C is read, not written
      if (status s = check_leading_dimension("ldc", "C", order, op::none, m, n, ldc); s != status::success) return s;
      if (batch.count > 1 && batch.stride_c < 0) {
        return fail(status::invalid_batch_stride, cudaSuccess, "stride_c = %lld is negative", (long long)batch.stride_c);
      }
      if (status s = check_extent("C", order, op::none, m, n, ldc, element_bytes<C>, batch.count, batch.stride_c);
          s != status::success) {
        return s;
      }
      if (c == nullptr) {
        return fail(status::null_pointer, cudaSuccess,
                    "C is null, but the call reads it (beta = %g; the result goes to epilogue.d)", double(beta));
      }
    }
    written = ep.d;
    ld_written = ep.ldd;
  }
  const int64_t c_stride = batch.stride_c;
  if (separate_d) batch.stride_c = ep.stride_d;
  if (status s = check_arguments(order, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, written, ld_written, out,
                                 batch);
      s != status::success) {
    return s;
  }
  // The vectors (and a C read apart from D) are read one element at a time: aligned to their element, nothing more.
  if (!out.empty) {
    if (status s = check_epilogue_vectors(ep); s != status::success) return s;
    const void* source = separate_d && beta != S(0) ? c : nullptr;
    if (source != nullptr && reinterpret_cast<uintptr_t>(source) % uintptr_t(element_bytes<C>) != 0) {
      return fail(status::misaligned_operand, cudaSuccess,
                  "C (at %p) is not aligned to %d bytes, as its elements must be", source, element_bytes<C>);
    }
  }
  device::epilogue_terms<C, S>& t = out.terms;
  t = terms_of(ep, layout::col_major, out.batch.count > 1);
  if (separate_d && beta != S(0)) t.source = c, t.ld_source = ldc, t.stride_source = out.batch.count > 1 ? c_stride : 0;
  if (order == layout::row_major) swap_rows_and_columns(t);
  out.fused = true;
  return status::success;
}

}  // namespace detail
}  // namespace tgemm
