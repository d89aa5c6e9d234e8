// The Hopper kernel's test case (test/gpu/wgmma_test.cu, wgmma_cluster_test.cu): one call through a callable of
// tgemm::gemm()'s arguments (the experimental entry of one policy, a grid of a few persistent blocks, the split-K
// kernel and its reduction, or tgemm::gemm() itself), checked element by element against the float64 host loop on
// the same (rounded) inputs, with error bounds from the elements' unit roundoff and k.
#pragma once

#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_tma_wgmma.cuh>
#include <tgemm/policy/wgmma_policy.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "element_values.hpp"
#include "random.hpp"
#include "reference.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tgemm::test::wgmma {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using tgemm::test::device_buffer;

/// The four op pairs of a call.
inline constexpr op op_pairs[4][2] = {
    {op::none, op::none}, {op::none, op::transpose}, {op::transpose, op::none}, {op::transpose, op::transpose}};

/// The relative error of each input as the tensor cores read it: float goes in as TF32, rounded to nearest with 10
/// explicit mantissa bits by the TMA copy (arch/tma.cuh), so up to 2^-11; 16-bit inputs are exact.
template <class T>
inline double input_unit() {
  return std::is_same<T, float>::value ? std::ldexp(1.0, -11) : 0.0;
}

/// The unit roundoff of C's element type (0 for float: its rounding is inside the k-dependent factor).
template <class T>
inline double output_unit() {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return std::ldexp(1.0, -8);
  if constexpr (std::is_same<T, __half>::value) return std::ldexp(1.0, -11);
  return 0.0;
}

/// Half the spacing of C's smallest subnormals: the absolute error of rounding a result that small (a relative
/// bound alone fails on it: an fp16 C of -1.6845e-06, 28.3 subnormal steps, was rightly stored as 28 steps).
template <class T>
inline double output_floor() {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) return std::ldexp(1.0, -134);
  if constexpr (std::is_same<T, __half>::value) return std::ldexp(1.0, -25);
  return std::ldexp(1.0, -150);
}

inline bool is_sm90() {
  int device = 0, arch = 0;
  TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
  TGEMM_CUDA_REQUIRE(tgemm::detail::read_compute_capability(device, arch));
  return arch == 900;
}

/// Leading dimension: the smallest valid one rounded up to 8 elements (16 bytes, what TMA needs), plus `pad`.
inline int64_t aligned_ld(layout order, op operation, int64_t rows, int64_t cols, int64_t pad) {
  return (tgemm::test::min_ld(order, operation, rows, cols) + 7) / 8 * 8 + pad;
}

/// One call of C = alpha op(A) op(B) + beta C through `call` (the experimental entry or tgemm::gemm()): random A,
/// B, C (NaN-filled when beta = 0, sentinels in the padding), checked element by element against the float64
/// product of the rounded inputs. `offset_a` shifts A by that many elements (1: misaligned for TMA);
/// `input_term` is the relative error one product of two inputs may carry (negative: from T's input_unit).
/// `aligned_c`: ldc a multiple of 8 elements (with 8 of padding), so that a 16-bit C may leave through TMA stores
/// or 16-byte vectors; else ldc is 3 past the smallest, which allows neither.
/// Returns false when the GPU is not sm_90 and the entry said unsupported_device.
template <class T, class TC, class Call>
bool check_call(const Call& call, layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                float beta, int64_t offset_a = 0, double input_term = -1.0, bool aligned_c = false) {
  const int64_t lda = aligned_ld(order, op_a, m, k, 8), ldb = aligned_ld(order, op_b, k, n, 16);
  const int64_t ldc = aligned_c ? aligned_ld(order, op::none, m, n, 8) : tgemm::test::min_ld(order, op::none, m, n) + 3;
  const int64_t a_count = tgemm::test::stored_elements(order, op_a, m, k, lda) + offset_a;
  const int64_t b_count = tgemm::test::stored_elements(order, op_b, k, n, ldb);
  const int64_t c_count = tgemm::test::stored_elements(order, op::none, m, n, ldc);
  std::vector<T> a(static_cast<size_t>(a_count)), b(static_cast<size_t>(b_count));
  std::vector<float> a_float(a.size()), b_float(b.size()), c_float(static_cast<size_t>(c_count));
  const std::vector<float> ra = tgemm::test::random_values(a_count);
  const std::vector<float> rb = tgemm::test::random_values(b_count);
  const std::vector<float> rc = tgemm::test::random_values(c_count);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = tgemm::test::from_float<T>(ra[i]);
    a_float[i] = float(tgemm::test::to_double(a[i]));
  }
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = tgemm::test::from_float<T>(rb[i]);
    b_float[i] = float(tgemm::test::to_double(b[i]));
  }
  const int64_t inner = order == layout::col_major ? m : n;  // C's contiguous extent; the rest of ldc is padding
  std::vector<TC> c(c_float.size());
  for (size_t i = 0; i < c.size(); ++i) {
    const bool padding = int64_t(i) % ldc >= inner;
    c[i] = padding || beta == 0.0f ? tgemm::test::sentinel<TC>() : tgemm::test::from_float<TC>(rc[i]);
    c_float[i] = padding || beta == 0.0f ? 0.0f : float(tgemm::test::to_double(c[i]));
  }
  device_buffer<T> d_a(a.size()), d_b(b.size());
  device_buffer<TC> d_c(c.size());
  d_a.upload(a);
  d_b.upload(b);
  d_c.upload(c);
  INFO(tgemm::element_traits<T>::name << " -> " << tgemm::element_traits<TC>::name << " " << to_string(order) << " "
                                      << to_string(op_a) << "/" << to_string(op_b) << ": m = " << m << ", n = " << n
                                      << ", k = " << k << ", alpha = " << alpha << ", beta = " << beta
                                      << ", offset_a = " << offset_a << ", ldc = " << ldc);
  const status s = call(order, op_a, op_b, m, n, k, alpha, d_a.get() + offset_a, lda, d_b.get(), ldb, beta, d_c.get(),
                        ldc);
  if (s == status::unsupported_device && !is_sm90()) return false;
  INFO(tgemm::last_error().message);
  REQUIRE(s == status::success);
  TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  const std::vector<TC> result = d_c.download();
  const tgemm::test::reference_result ref = tgemm::test::reference_gemm(
      order, op_a, op_b, m, n, k, alpha, a_float.data() + offset_a, lda, b_float.data(), ldb, beta, c_float.data(), ldc);
  // Each product of two inputs off by u_in each is off by at most (2 u_in + u_in^2) of its magnitude.
  if (input_term < 0) input_term = 2 * input_unit<T>() + input_unit<T>() * input_unit<T>();
  const double factor = tgemm::test::error_factor(k) + input_term;
  const double unit = output_unit<TC>();
  int64_t bad = 0;
  for (int64_t i = 0; i < c_count; ++i) {
    if (i % ldc >= inner && !tgemm::test::same_bits(result[size_t(i)], c[size_t(i)]) && ++bad <= 5) {
      FAIL_CHECK("padding element " << i << " of C changed");
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      const double expected = ref.value[size_t(i + j * m)];
      const double bound = factor * ref.magnitude[size_t(i + j * m)] + unit * std::fabs(expected) + output_floor<TC>();
      const double value = tgemm::test::to_double(result[size_t(tgemm::test::index_of(order, i, j, ldc))]);
      if (!(std::fabs(value - expected) <= bound) && ++bad <= 5) {
        FAIL_CHECK("C(" << i << ", " << j << ") = " << value << ", expected " << expected << " within " << bound);
      }
    }
  }
  CHECK(bad == 0);
  return true;
}

/// The tile-edge sweep of a 16-bit policy's callable: every op pair in both storage orders (K-major and MN-major tiles
/// of A and B in all four combinations) on shapes around the tile edges, k = 0 and 1, each then with beta != 0.
/// Returns false when the GPU is not sm_90 and the entry said unsupported_device.
template <class T, class TC, class Call>
bool check_every_layout(const Call& call) {
  const int64_t shapes[][3] = {{128, 256, 64}, {1, 1, 1}, {129, 257, 72}, {300, 513, 1000}, {1000, 64, 8},
                               {64, 1000, 200}, {200, 300, 0}};
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : shapes) {
        if (!check_call<T, TC>(call, order, ops[0], ops[1], shape[0], shape[1], shape[2], 1.0f, 0.0f)) return false;
      }
      check_call<T, TC>(call, order, ops[0], ops[1], 257, 129, 136, -1.5f, 0.75f);  // beta != 0 reads C
    }
  }
  return true;
}

/// The experimental entry with policy P, as a callable of tgemm::gemm()'s arguments.
template <class P>
struct fixed_policy {
  template <class... Arguments>
  status operator()(Arguments... arguments) const {
    return tgemm::experimental::gemm_tma_wgmma<P>(arguments...);
  }
};

/// The kernels of policy P on a column-major call with only `Blocks` persistent blocks and tile groups of two
/// rows: every block walks several tiles, so the stage ring's phases carry over from one tile to the next.
template <class P, int Blocks>
struct few_blocks {
  status operator()(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                    const typename P::element_a* a, int64_t lda, const typename P::element_b* b, int64_t ldb,
                    float beta, typename P::element_c* c, int64_t ldc) const {
    REQUIRE(order == layout::col_major);
    if (!is_sm90()) return status::unsupported_device;
    int device = 0;
    TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
    using kernels = tgemm::detail::wgmma_kernels<P>;
    REQUIRE(kernels::prepare(op_a, op_b, device) == status::success);
    return kernels::launch(op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, Blocks, 2, nullptr, device);
  }
};

/// The split-K kernel of float-C policy P with only `Blocks` persistent blocks (each walks several (slice, tile)
/// work items, so the stage ring's phases carry over from one slice to the next) writing `Slices` float partials,
/// then the reduction into C with alpha and beta: a column-major call as tgemm::gemm()'s split plans run it.
template <class P, int Blocks, int Slices>
struct sliced_blocks {
  status operator()(layout order, op op_a, op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                    const typename P::element_a* a, int64_t lda, const typename P::element_b* b, int64_t ldb,
                    float beta, float* c, int64_t ldc) const {
    REQUIRE(order == layout::col_major);
    if (!is_sm90()) return status::unsupported_device;
    int device = 0;
    TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
    using kernels = tgemm::detail::wgmma_kernels<P>;
    REQUIRE(kernels::prepare_sliced(op_a, op_b, device) == status::success);
    const int64_t steps = (k + P::block_k - 1) / P::block_k;
    const int64_t k_per_slice = (steps + Slices - 1) / Slices * P::block_k;
    const int64_t slices = (k + k_per_slice - 1) / k_per_slice;
    const int64_t ld_partials = m + 5, stride = ld_partials * n + 7;
    device_buffer<float> partials(size_t(slices * stride));
    partials.upload(std::vector<float>(partials.size(), std::nanf("")));  // each one read must have been written
    const status s = kernels::launch_sliced(op_a, op_b, m, n, k, a, lda, b, ldb, partials.get(), ld_partials, slices,
                                            k_per_slice, stride, Blocks, 2, nullptr, device);
    if (s != status::success) return s;
    tgemm::kernel::reduce_split_k<float, float, float><<<4, tgemm::kernel::reduce_threads>>>(
        partials.get(), ld_partials, stride, int(slices), m, n, alpha, beta, c, ldc);
    TGEMM_CUDA_REQUIRE(cudaGetLastError());
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    return status::success;
  }
};

}  // namespace tgemm::test::wgmma
