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
/// (test/gpu/small_products_test.cu) and tgemm_bench_batched --impl small launch it through
/// host/launch_small_products.cuh until it has been measured on a GPU.
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

/// Threads per block of gemm_small_products. Its launch bounds ask for two blocks per multiprocessor where the
/// inputs are 16-bit (107-122 registers at sm_90a), one elsewhere (float's 16-byte pieces in flight take 132-162,
/// double's 153-177, a fused epilogue's up to 255): without a count ptxas capped the registers at 80 and spilled.
/// How many blocks a multiprocessor should hold, and whether the next product's loads should overlap this one's
/// sums, is for a measurement on a GPU.
inline constexpr int small_products_threads = 256;

/// The products of a strided batch as gemm_small_products reads them (the indirect kernels' interface: read() and
/// report()): product i's A, B and C are i strides on from the first ones (a stride of 0 repeats an operand).
template <class TA, class TB, class TC>
struct strided_products {
  const TA* a = nullptr;  ///< The first product's A, column-major.
  const TB* b = nullptr;  ///< The first product's B.
  TC* c = nullptr;        ///< The first product's C.
  int64_t m = 0;         ///< Rows of every product's C (column-major form).
  int64_t n = 0;         ///< Columns of C.
  int64_t k = 0;         ///< The depth.
  int64_t lda = 0;       ///< A's leading dimension.
  int64_t ldb = 0;       ///< B's leading dimension.
  int64_t ldc = 0;       ///< C's leading dimension.
  int64_t stride_a = 0;  ///< Elements between consecutive products' A (0: one A for all).
  int64_t stride_b = 0;  ///< Elements between consecutive products' B.
  int64_t stride_c = 0;  ///< Elements between consecutive products' C.

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

/// One operand's slice of k on its way to shared memory: op(X)'s lines [l0, l0 + slice) as `to` [l][i] (i < Extent
/// along the product's m for A, n for B), zero past `extent` and past k. Element (i, l) of op(X) is x[i + l ld] when
/// X is read as stored (`along_i`: i is contiguous) and x[l + i ld] otherwise. The team's `rank` of Team threads
/// takes every Team-th piece, consecutive ranks consecutive addresses in memory. Where x, ld and the edges allow,
/// 16-byte pieces: load() issues a thread's loads into registers and store() converts and stores them, so that a
/// team issues both operands' loads before its first store (a product is a few kilobytes: the loads in flight bound
/// the copy). Otherwise store() copies element by element.
template <int Extent, int Team, class Acc, class T>
struct operand_slice {
  static constexpr int slice = small_products_slice<Acc>;
  static constexpr int vector = 16 / int(sizeof(T));
  static constexpr int per_thread = Extent * slice / vector / Team;
  static_assert(slice % vector == 0 && Extent % vector == 0 && (Extent * slice / vector) % Team == 0,
                "whole 16-byte pieces along either extent, as many for each thread");
  uint4 loaded[per_thread];
  bool vectors = false;

  /// Piece t of this thread: its first element along the contiguous extent (c) and its line.
  __host__ __device__ __forceinline__ static void piece(bool along_i, int rank, int t, int& c, int& line) {
    const int v = rank + t * Team;
    if (along_i) {
      c = (v % (Extent / vector)) * vector, line = v / (Extent / vector);
    } else {
      c = (v % (slice / vector)) * vector, line = v / (slice / vector);
    }
  }

  __device__ __forceinline__ void load(const T* x, int64_t ld, bool along_i, int64_t extent, int64_t k, int64_t l0,
                                       int rank) {
    const int contiguous = along_i ? Extent : slice;
    const int64_t valid = along_i ? extent : k - l0, valid_lines = along_i ? k - l0 : extent;
    // A piece is wholly inside or wholly outside: none reads past the contiguous extent (the last line may end the
    // allocation).
    vectors = x != nullptr && reinterpret_cast<uintptr_t>(x) % 16 == 0 && ld % vector == 0 &&
              (valid >= contiguous || valid % vector == 0);
    if (!vectors) return;
#pragma unroll
    for (int t = 0; t < per_thread; ++t) {
      int c, line;
      piece(along_i, rank, t, c, line);
      const int64_t first = along_i ? c : l0 + c, at_line = along_i ? l0 + line : line;
      loaded[t] = c < valid && line < valid_lines ? *reinterpret_cast<const uint4*>(x + first + at_line * ld)
                                                  : make_uint4(0, 0, 0, 0);
    }
  }

  __device__ __forceinline__ void store(Acc (*to)[Extent + 4], const T* x, int64_t ld, bool along_i, int64_t extent,
                                        int64_t k, int64_t l0, int rank) const {
    if (vectors) {
#pragma unroll
      for (int t = 0; t < per_thread; ++t) {
        int c, line;
        piece(along_i, rank, t, c, line);
        const T* values = reinterpret_cast<const T*>(&loaded[t]);
#pragma unroll
        for (int e = 0; e < vector; ++e) {
          const Acc value = convert<Acc>(values[e]);  // all-zero bits are 0 in every type
          if (along_i) {
            to[line][c + e] = value;
          } else {
            to[c + e][line] = value;
          }
        }
      }
      return;
    }
    for (int e = rank; e < Extent * slice; e += Team) {
      const int fast = along_i ? e % Extent : e % slice, slow = along_i ? e / Extent : e / slice;
      const int i = along_i ? fast : slow, l = along_i ? slow : fast;
      const int64_t kl = l0 + l;
      Acc v = Acc(0);
      if (x != nullptr && i < extent && kl < k) v = convert<Acc>(along_i ? x[i + kl * ld] : x[kl + int64_t(i) * ld]);
      to[l][i] = v;
    }
  }
};

}  // namespace detail

/// The products first + [0, count) of `products` (each m x n x k with m, n <= Extent, all of one size), op(A) and
/// op(B) per op_a and op_b (the column-major form), C = alpha op(A) op(B) + beta C (C not read when beta is 0; A and B
/// not read when alpha or k is 0), or with Fused the epilogue's result (`terms`, product i's terms.product(i)).
/// Products whose description fails its checks (a null pointer in an array) are skipped. Acc is the type of the sums
/// and the staging (float; double for double).
template <int Extent, class Acc, bool Fused, class Products, class TA, class TB, class TC, class Scalar>
__global__ void __launch_bounds__(small_products_threads, Fused || sizeof(TA) > 2 ? 1 : 2)
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
      const TA* a = runs ? q.a : nullptr;
      const TB* b = runs ? q.b : nullptr;
      const bool a_along_m = op_a == op::none, b_along_n = op_b == op::transpose;
      detail::operand_slice<Extent, team, Acc, TA> slice_a;
      detail::operand_slice<Extent, team, Acc, TB> slice_b;
      slice_a.load(a, q.lda, a_along_m, q.m, k, l0, rank);
      slice_b.load(b, q.ldb, b_along_n, q.n, k, l0, rank);
      slice_a.store(mine.a, a, q.lda, a_along_m, q.m, k, l0, rank);
      slice_b.store(mine.b, b, q.ldb, b_along_n, q.n, k, l0, rank);
      __syncthreads();
#pragma unroll 1  // 2 or 4 made ptxas spill the double kernels with a fused epilogue
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
