/// \file kernel/gemm_indirect_kernel.cuh
/// \brief The GEMM kernel for products described in device memory: pointer arrays (tgemm::gemm_batched()) and
/// groups whose sizes only the GPU knows (tgemm::gemm_grouped_device()). The host cannot see those pointers or sizes,
/// so each block reads its product's description, checks it, and runs device::gemm() on it, or a slower direct
/// loop where the product's operands are not aligned for the policy's vector loads.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../config.cuh"
#include "../device/epilogue_terms.cuh"
#include "../device/gemm.cuh"
#include "../group_device.cuh"
#include "../numeric.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "gemm_kernel.cuh"
#include "tile_scheduler.cuh"

namespace tgemm::kernel {

/// One product of an indirect launch, in the column-major form of device::problem, and its C.
template <class TA, class TB, class TC>
struct indirect_product {
  device::basic_problem<TA, TB> operands;  ///< A, B and the sizes.
  TC* c = nullptr;                         ///< C, column-major.
  int64_t ldc = 0;                         ///< C's leading dimension.
};

/// Where the products of an indirect launch come from: device arrays of pointers with one shape for all
/// (tgemm::gemm_batched(), cublasGemmBatchedEx's problem), or an array of tgemm::gemm_group_device (tgemm::
/// gemm_grouped_device()) when `groups` is set. One type for both, so that the two calls share one set of kernels
/// (each set is eight tile kernels per tuning table: compile time). Pointer arrays come already in column-major form
/// (a row-major call's host swapped the A and B arrays and m and n); groups are turned into it here, each checked
/// against the host's bounds and its own leading dimensions, with its status written to `status_out` (if not null).
template <class TA, class TB, class TC>
struct indirect_products {
  // Pointer arrays (groups == nullptr).
  const TA* const* a = nullptr;  ///< Product i's A is a[i] (unread when k == 0 or alpha == 0).
  const TB* const* b = nullptr;  ///< Product i's B is b[i].
  TC* const* c = nullptr;        ///< Product i's C is c[i].
  int64_t m = 0;    ///< The column-major form's rows (groups: the bound of its rows).
  int64_t n = 0;    ///< The column-major form's columns (groups: the bound of its columns).
  int64_t k = 0;    ///< The depth (groups: the bound max_k).
  int64_t lda = 0;  ///< A's leading dimension (pointer arrays; checked on the host).
  int64_t ldb = 0;  ///< B's leading dimension.
  int64_t ldc = 0;  ///< C's leading dimension.
  // Groups.
  const gemm_group_device<TA, TB, TC>* groups = nullptr;  ///< The caller's descriptions (null: pointer arrays).
  int32_t* status_out = nullptr;  ///< One status per group (status::success or why it was skipped), or null.
  bool row_major = false;         ///< The call's storage order: row-major groups run as C^T = op(B)^T op(A)^T.
  op op_a = op::none;  ///< The caller's op(A) (the kernel's ops are the column-major form's).
  op op_b = op::none;  ///< The caller's op(B).

  /// The least leading dimension of a group's operand rows x cols after `operation`, stored in the call's order.
  __device__ __forceinline__ int64_t least_ld(op operation, int64_t rows, int64_t cols) const {
    const int64_t stored_rows = (operation == op::none) != row_major ? rows : cols;
    return stored_rows > 1 ? stored_rows : 1;
  }

  /// Reads product i; returns status::success, or why the product is skipped (a null pointer it would use; for
  /// groups also sizes past the bounds, leading dimensions too small, pointers not aligned to their elements).
  __device__ __forceinline__ status read(int64_t i, bool reads_operands, indirect_product<TA, TB, TC>& p) const {
    if (groups == nullptr) {
      const bool reads = reads_operands && k > 0;  // else the host let the A and B arrays be null
      p.operands = {m, n, k, reads ? a[i] : nullptr, lda, reads ? b[i] : nullptr, ldb};
      p.c = c[i];
      p.ldc = ldc;
      if (p.c == nullptr || (reads && (p.operands.a == nullptr || p.operands.b == nullptr))) {
        return status::null_pointer;
      }
      return status::success;
    }
    const gemm_group_device<TA, TB, TC> g = groups[i];
    if (g.m < 0 || g.n < 0 || g.k < 0 || g.m > (row_major ? n : m) || g.n > (row_major ? m : n) || g.k > k) {
      return status::invalid_dimension;
    }
    if (g.lda < least_ld(op_a, g.m, g.k) || g.ldb < least_ld(op_b, g.k, g.n) || g.ldc < least_ld(op::none, g.m, g.n)) {
      return status::invalid_leading_dimension;
    }
    const bool empty = g.m == 0 || g.n == 0, reads = !empty && reads_operands && g.k > 0;
    if ((reads && (g.a == nullptr || g.b == nullptr)) || (!empty && g.c == nullptr)) return status::null_pointer;
    if ((reads && (reinterpret_cast<uintptr_t>(g.a) % sizeof(TA) != 0 ||
                   reinterpret_cast<uintptr_t>(g.b) % sizeof(TB) != 0)) ||
        (!empty && reinterpret_cast<uintptr_t>(g.c) % sizeof(TC) != 0)) {
      return status::misaligned_operand;
    }
    if (row_major) {
      p.operands = {g.n, g.m, g.k, reinterpret_cast<const TA*>(g.b), g.ldb, reinterpret_cast<const TB*>(g.a), g.lda};
    } else {
      p.operands = {g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb};
    }
    p.c = g.c;
    p.ldc = g.ldc;
    return status::success;
  }

  /// Writes group i's status (pointer arrays report nothing back, as cuBLAS's batched calls: a skipped product leaves
  /// its C as it was).
  __device__ __forceinline__ void report(int64_t i, status s) const {
    if (status_out != nullptr) status_out[i] = int32_t(s);
  }
};

/// Whether a product's A and B can be read Policy::vector_width elements at a time (C needs nothing: the epilogue
/// checks its own alignment).
template <class Policy, class TA, class TB, class TC>
__device__ __forceinline__ bool vector_loads_fit(const indirect_product<TA, TB, TC>& p) {
  constexpr int w = Policy::vector_width;
  return p.operands.k == 0 ||
         (reinterpret_cast<uintptr_t>(p.operands.a) % (sizeof(TA) * w) == 0 && p.operands.lda % w == 0 &&
          reinterpret_cast<uintptr_t>(p.operands.b) % (sizeof(TB) * w) == 0 && p.operands.ldb % w == 0);
}

/// The tile (tile_row, tile_col) of a product the policy's loads cannot read as vectors: each thread computes
/// elements of the tile with a plain loop over k (operands from global memory, accumulated in the policy's
/// accumulator type) and writes alpha sum + beta C (C not read when beta is 0), or with Fused the epilogue's result
/// (`terms`: the product's own). Correct for any alignment, and
/// several times slower than the tiled path: the price of a misaligned product the host could not see.
template <class Policy, op OpA, op OpB, bool Fused, class TA, class TB, class TC, class Scalar, class Terms>
__device__ void direct_tile(const indirect_product<TA, TB, TC>& p, int64_t tile_row, int64_t tile_col, Scalar alpha,
                            Scalar beta, const Terms& terms) {
  using accumulator = typename Policy::accumulator_type;
  const device::basic_problem<TA, TB>& q = p.operands;
  for (int e = threadIdx.x; e < Policy::block_m * Policy::block_n; e += Policy::threads) {
    const int64_t row = tile_row * Policy::block_m + e % Policy::block_m;
    const int64_t col = tile_col * Policy::block_n + e / Policy::block_m;
    if (row >= q.m || col >= q.n) continue;
    accumulator sum = accumulator(0);
    for (int64_t l = 0; l < q.k; ++l) {
      const TA x = OpA == op::none ? q.a[row + l * q.lda] : q.a[l + row * q.lda];
      const TB y = OpB == op::none ? q.b[l + col * q.ldb] : q.b[col + l * q.ldb];
      sum = convert<accumulator>(x) * convert<accumulator>(y) + sum;
    }
    TC& c = p.c[row + col * p.ldc];
    if constexpr (Fused) {
      const bool read_c = beta != Scalar(0);
      c = device::finish(terms, sum, alpha, beta, read_c ? c : TC{}, read_c, row, col);
    } else {
      const Scalar scaled = alpha * Scalar(sum);
      c = convert<TC>(beta != Scalar(0) ? scaled + beta * convert<Scalar>(c) : scaled);
    }
  }
}

/// The indirect GEMM kernel: blockIdx.z picks product first + z, blockIdx.x/y one tile of a grid sized for the
/// largest product (tile_grid: the bounds' tiles); blocks past their own product's extent return at once. The
/// tile (0, 0) block of each product reports its status (indirect_products::report). Products whose k is 0, or all of
/// them when alpha is 0, get C = beta C without A or B being read. Fused kernels fold `terms` (product i's:
/// terms.product(i)) into their stores; the others ignore it.
template <class Source, op OpA, op OpB, class Products, bool Fused = false, class User = device::no_user_op>
__global__ void __launch_bounds__(Source::template at<TGEMM_DEVICE_ARCH>::threads)
    gemm_indirect_kernel(const Products products, const typename host_policy<Source>::scalar_type alpha,
                         const typename host_policy<Source>::scalar_type beta, const tile_grid grid,
                         const int64_t first,
                         const device::epilogue_terms_t<typename host_policy<Source>::element_c,
                                                        typename host_policy<Source>::scalar_type, User> terms) {
  using policy = typename Source::template at<TGEMM_DEVICE_ARCH>;
  using scalar = typename policy::scalar_type;
  using element_a = typename policy::element_a;
  using element_b = typename policy::element_b;
  using element_c = typename policy::element_c;
  int64_t tile_row, tile_col;
  if (!tile_of_block<policy::raster_group>(grid, tile_row, tile_col)) return;
  const int64_t index = first + blockIdx.z;
  indirect_product<element_a, element_b, element_c> p;
  const status checked = products.read(index, alpha != scalar(0), p);
  if (tile_row == 0 && tile_col == 0 && threadIdx.x == 0) products.report(index, checked);
  if (checked != status::success) return;
  if (tile_row * policy::block_m >= p.operands.m || tile_col * policy::block_n >= p.operands.n) return;
  if (alpha == scalar(0)) p.operands.k = 0;  // C = beta C: A and B are not read
  if (vector_loads_fit<policy>(p)) {
    auto& smem = *static_cast<device::shared_storage<policy>*>(dynamic_shared_memory());
    if constexpr (Fused) {
      device::basic_fused_combination<element_c, scalar, User> output;
      output.alpha = alpha, output.beta = beta, output.c = p.c, output.ldc = p.ldc;
      output.terms = terms;
      output.product = index;  // the epilogue reads terms.product(index)
      device::gemm<policy, OpA, OpB>(p.operands, tile_row, tile_col, smem, output);
    } else {
      const device::basic_linear_combination<element_c, scalar> output{alpha, beta, p.c, p.ldc};
      device::gemm<policy, OpA, OpB>(p.operands, tile_row, tile_col, smem, output);
    }
  } else {
    direct_tile<policy, OpA, OpB, Fused>(p, tile_row, tile_col, alpha, beta, terms.product(index));
  }
}

}  // namespace tgemm::kernel
