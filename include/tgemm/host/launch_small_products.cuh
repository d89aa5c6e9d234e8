/// \file host/launch_small_products.cuh
/// \brief The launch of kernel::gemm_small_products (many products of at most 64 x 64): which team size serves the
/// products' extents, and how many blocks. Used by its GPU test and the batched benchmark; tgemm's calls do not use
/// the kernel yet (it has not been measured on a GPU).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../device/epilogue_terms.cuh"
#include "../kernel/gemm_small_products.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "launcher.cuh"

namespace tgemm::detail {

/// The largest m and n kernel::gemm_small_products takes.
inline constexpr int64_t small_products_max_extent = 64;

/// Launches kernel::gemm_small_products over `count` products of `products` (a kernel::strided_products or
/// kernel::indirect_products; m x n each in the column-major form,
/// m and n at most small_products_max_extent) on `stream`: teams of 32 x 32 where both extents allow, else 64 x 64, in
/// at most `max_blocks` blocks (0: a block per team's worth of products). Fused applies `terms`. Acc: double for
/// double operands, float otherwise. Returns the launch's status (nothing else is checked here).
template <bool Fused, template <class, class, class> class Source, class TA, class TB, class TC, class Scalar>
status launch_small_products(const Source<TA, TB, TC>& products, int64_t count, int64_t m, int64_t n, op op_a, op op_b,
                             Scalar alpha, Scalar beta, const device::epilogue_terms<TC, Scalar>& terms,
                             int64_t max_blocks, cudaStream_t stream, int device) {
  using acc = std::conditional_t<std::is_same<TA, double>::value, double, float>;
  const auto launch = [&](auto extent) {
    constexpr int e = decltype(extent)::value;
    constexpr int teams = kernel::small_products_threads / ((e / 4) * (e / 4));
    int64_t blocks = (count + teams - 1) / teams;
    if (max_blocks > 0) blocks = std::min(blocks, max_blocks);
    return launch_kernel(&kernel::gemm_small_products<e, acc, Fused, Source<TA, TB, TC>, TA, TB, TC, Scalar>,
                         dim3(unsigned(blocks)), dim3(kernel::small_products_threads), 0, stream, device,
                         "launching the small-products kernel", products, count, op_a, op_b, alpha, beta, terms);
  };
  if (std::max(m, n) <= 32) return launch(std::integral_constant<int, 32>{});
  return launch(std::integral_constant<int, 64>{});
}

}  // namespace tgemm::detail
