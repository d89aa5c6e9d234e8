/// \file kernel/gemm_small_products.cuh
/// \brief Many small products of one size (a strided batch or device arrays of pointers, m and n at most 64): their
/// cost is reading A and B and writing C once, so a block multiplies several at a time and every byte it loads is
/// used. The tile kernels spend a 64 x 64 (or larger) tile on each product: a 32 x 32 product fills a quarter of it,
/// and each block makes one short pass. Here a team of threads owns one product: it stages op(A) and op(B) in shared
/// memory a slice of k at a time (converted to the accumulator type, zero past the product's edges), and each thread
/// sums a 4 x 4 block of C on the CUDA cores: at these sizes the memory, not the multiply-adds, bounds the product.
///
/// Extent (32 or 64) is the largest m and n a launch takes: teams of (Extent / 4)^2 threads, 256 / that many products
/// per block (4 of 32 x 32, 1 of 64 x 64). The op pair is a run-time argument (it only changes the staging loads'
/// index arithmetic), so one kernel per Extent and types serves all four. Not used by tgemm's calls yet: its GPU test
/// (test/gpu/small_products_test.cu) launches it directly until it has been measured on a GPU.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "../device/epilogue_terms.cuh"
#include "../numeric.cuh"
#include "../status.cuh"
#include "../types.cuh"
#include "gemm_indirect_kernel.cuh"

namespace tgemm::kernel {

/// Threads per block of gemm_small_products. Its launch bounds ask for one block per multiprocessor, so that ptxas
/// does not cap the registers (it chose 80 for the 64 x 64 bf16 kernel and spilled; uncapped it uses 107-117 with
/// none). How many blocks a multiprocessor should hold, and whether the next product's loads should overlap this
/// one's sums, is for a measurement on a GPU.
inline constexpr int small_products_threads = 256;

/// The products of a strided batch as gemm_small_products reads them (the indirect kernels' interface: read(), report()):
/// product i's A, B and C are i strides on from the first ones (a stride of 0 repeats an operand).
template <class TA, class TB, class TC>
struct strided_products {
  const TA* a = nullptr;  ///< The first product's A, column-major.
  const TB* b = nullptr;  ///< The first product's B.
  TC* c = nullptr;        ///< The first product's C.
  int64_t m = 0, n = 0, k = 0;                ///< Every product's extents (column-major form).
  int64_t lda = 0, ldb = 0, ldc = 0;          ///< Leading dimensions.
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  ///< Elements between consecutive products' matrices.

  /// Product i (always present: the host checked the call).
  __device__ __forceinline__ status read(int64_t i, bool reads_operands, indirect_product<TA, TB, TC>& p) const {
    const bool reads = reads_operands && k > 0;
    p.operands = {m, n, k, reads ? a + i * stride_a : nullptr, lda, reads ? b + i * stride_b : nullptr, ldb};
    p.c = c + i * stride_c;
    p.ldc = ldc;
    return status::success;
  }
  /// Nothing to report: a strided batch has no per-product status.
  __device__ __forceinline__ void report(int64_t, status) const {}
};

namespace detail {

/// Elements of a slice of k that a team stages at a time: 128 bytes of each line (32 floats, 16 doubles).
template <class Acc>
inline constexpr int small_products_slice = 128 / int(sizeof(Acc));

/// The shared memory of one team: op(A)'s slice as [l][i] and op(B)'s as [l][j], lines padded by 4 elements so that
/// the staging stores of the operands read along k (4-way) do not all meet in one bank (32-way).
template <int Extent, class Acc>
struct small_products_team_storage {
  static constexpr int line = Extent + 4;
  Acc a[small_products_slice<Acc>][line];
  Acc b[small_products_slice<Acc>][line];
};

/// Stages op(X)'s lines [l0, l0 + slice) into `to` ([l][e], e < Extent along the product's m (A) or n (B)): element
/// (e, l) of op(X) is x[e + l ld] when X is read as stored (`along_e`: the contiguous extent is e) and x[l + e ld]
/// otherwise. Elements past `extent` or past k are 0. The team's `rank` of `team` threads takes every team-th
/// element, consecutive ranks consecutive addresses in memory.
template <int Extent, class Acc, class T>
__device__ __forceinline__ void stage_slice(Acc (*to)[Extent + 4], const T* x, int64_t ld, bool along_e,
                                            int64_t extent, int64_t k, int64_t l0, int rank, int team) {
  constexpr int slice = small_products_slice<Acc>;
  for (int e = rank; e < Extent * slice; e += team) {
    const int fast = along_e ? e % Extent : e % slice, slow = along_e ? e / Extent : e / slice;
    const int i = along_e ? fast : slow, l = along_e ? slow : fast;
    const int64_t kl = l0 + l;
    Acc v = Acc(0);
    if (x != nullptr && i < extent && kl < k) v = convert<Acc>(along_e ? x[i + kl * ld] : x[kl + int64_t(i) * ld]);
    to[l][i] = v;
  }
}

}  // namespace detail

/// The products first + [0, count) of `products` (each m x n x k with m, n <= Extent, all of one size), op(A) and
/// op(B) per op_a and op_b (the column-major form), C = alpha op(A) op(B) + beta C (C not read when beta is 0; A and B
/// not read when alpha or k is 0), or with Fused the epilogue's result (`terms`, product i's terms.product(i)).
/// Products whose description fails its checks (a null pointer in an array) are skipped. Acc is the type of the sums
/// and the staging (float; double for double).
template <int Extent, class Acc, bool Fused, class Products, class TA, class TB, class TC, class Scalar>
__global__ void __launch_bounds__(small_products_threads, 1)
    gemm_small_products(const Products products, const int64_t count, const op op_a, const op op_b,
                        const Scalar alpha, const Scalar beta, const device::epilogue_terms<TC, Scalar> terms) {
  static_assert(Extent == 32 || Extent == 64, "teams of 64 threads (32 x 32) or 256 (64 x 64)");
  constexpr int side = Extent / 4;  // threads along each of m and n: 4 x 4 outputs each
  constexpr int team = side * side;
  constexpr int teams = small_products_threads / team;
  constexpr int slice = detail::small_products_slice<Acc>;
  static_assert(small_products_threads % team == 0, "whole teams per block");
  static_assert(teams * sizeof(detail::small_products_team_storage<Extent, Acc>) <= 48 * 1024,
                "the teams' staging fits in static shared memory");
  __shared__ detail::small_products_team_storage<Extent, Acc> storage[teams];
  const int which = int(threadIdx.x) / team, rank = int(threadIdx.x) % team;
  const int tx = rank % side, ty = rank / side;  // rows tx + side r, columns ty + side c (r, c < 4)
  detail::small_products_team_storage<Extent, Acc>& mine = storage[which];
  const bool reads = alpha != Scalar(0);

  for (int64_t first = int64_t(blockIdx.x) * teams; first < count; first += int64_t(gridDim.x) * teams) {
    const int64_t index = first + which;
    indirect_product<TA, TB, TC> p;  // past the last product: no operands, nothing stored
    bool runs = false;
    if (index < count) {
      const status checked = products.read(index, reads, p);
      if (rank == 0) products.report(index, checked);
      runs = checked == status::success;
    }
    // Every team of the block walks the same k slices (the products share k), so that the block's barriers match.
    const int64_t k = reads ? products.k : 0;
    const device::basic_problem<TA, TB>& q = p.operands;
    Acc sum[4][4] = {};
    for (int64_t l0 = 0; l0 < k; l0 += slice) {
      detail::stage_slice<Extent>(mine.a, runs ? q.a : nullptr, q.lda, op_a == op::none, q.m, k, l0, rank, team);
      detail::stage_slice<Extent>(mine.b, runs ? q.b : nullptr, q.ldb, op_b == op::transpose, q.n, k, l0, rank,
                                  team);
      __syncthreads();
#pragma unroll 2
      for (int l = 0; l < slice; ++l) {
        Acc x[4], y[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) x[r] = mine.a[l][tx + side * r];
#pragma unroll
        for (int c = 0; c < 4; ++c) y[c] = mine.b[l][ty + side * c];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
#pragma unroll
          for (int c = 0; c < 4; ++c) sum[r][c] = x[r] * y[c] + sum[r][c];
        }
      }
      __syncthreads();  // the slice is read before the next one is staged
    }
    if (!runs) continue;
    const bool read_c = beta != Scalar(0);
    if constexpr (Fused) {
      // The values before the activation, then one call activating all 16 (device::activate_values: one copy of
      // the activations' code per kernel, as the tile kernels do), then the clamps and stores.
      const device::epilogue_terms<TC, Scalar> product_terms = terms.product(index);
      Acc values[16];
#pragma unroll
      for (int c = 0; c < 4; ++c) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = tx + side * r, col = ty + side * c;
          const bool inside = row < q.m && col < q.n;
          const TC old = inside && read_c ? p.c[row + col * p.ldc] : TC{};
          values[4 * c + r] = device::fused_value(product_terms, sum[r][c], alpha, beta, old, read_c, row, col);
        }
      }
      device::activate_values<TC>(product_terms.act, values, 16);
#pragma unroll
      for (int c = 0; c < 4; ++c) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = tx + side * r, col = ty + side * c;
          if (row < q.m && col < q.n) p.c[row + col * p.ldc] = device::fused_output(product_terms, values[4 * c + r]);
        }
      }
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = tx + side * r, col = ty + side * c;
          if (row >= q.m || col >= q.n) continue;
          TC& out = p.c[row + col * p.ldc];
          const Scalar scaled = alpha * Scalar(sum[r][c]);
          out = convert<TC>(read_c ? scaled + beta * convert<Scalar>(out) : scaled);
        }
      }
    }
  }
}

}  // namespace tgemm::kernel
