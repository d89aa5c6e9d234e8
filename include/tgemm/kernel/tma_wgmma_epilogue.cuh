/// \file kernel/tma_wgmma_epilogue.cuh
/// \brief The Hopper kernel's fused-epilogue stores (kernel/gemm_tma_wgmma.cuh): a tile's accumulators through the
/// epilogue terms (bias, scales, activation, a caller's operation) into C, through a staging tile and TMA stores
/// or straight from the registers.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../arch/named_barrier.cuh"
#include "../arch/stmatrix.cuh"
#include "../arch/tma.cuh"
#include "../arch/wgmma.cuh"
#include "../device/epilogue_terms.cuh"
#include "../numeric.cuh"
#include "../types.cuh"
#include "tma_wgmma_arguments.cuh"

namespace tgemm::kernel {

/// A fused epilogue's activated value of (row, col) as stored where the terms carry a caller's operation: clamped (the
/// linear family's relu is in the bounds), then through the operation where (row, col) lies inside C's m x n (the TMA
/// stores compute whole tiles and clip them; the operation may read vectors of C's extent). (The built-in terms alone
/// store the clamped value, spelled out where it is stored: routing it through a function changed the kernels'
/// schedule.)
template <class Terms>
__device__ __forceinline__ float user_value(const Terms& terms, const device::preloaded_bounds& bounds, float v,
                                            int64_t row, int64_t col, int m, int n) {
  const float clamped = device::detail::clamp_keeping_nan(v, bounds.lower, bounds.upper);
  return row < m && col < n ? terms.apply_user(clamped, row, col) : clamped;
}

/// Step 3 of store_fused_tile (below) for terms with a caller's operation, through the staging tile and TMA stores:
/// the built-in stores' passes, each value clamped and then through the operation. A warp whose 16 rows and the
/// tile's columns all lie inside C (every tile but those of the last tile row and column), with active terms, calls
/// the operation on each value untested; the others test each value (user_value). The choice is made per group of
/// 8 values, not once per tile: a tile's 128 values in one branch-free block let ptxas hoist an index-reading
/// operation's arithmetic for all of them at once, and the ping-pong tile spilled (104-136 bytes). A function of its
/// own so that the built-in stores stay as they were.
template <class Policy, class Output, class Terms>
__device__ __forceinline__ void store_user_tma_tile(const Output& out, const Terms& terms,
                                                    const device::preloaded_bounds& bounds,
                                                    const float (&acc)[Policy::block_n / 2], int64_t row0,
                                                    int64_t col0, int tile_m, int product, int consumer, int warp,
                                                    int lane, uint8_t* store_tile, bool store_issuer,
                                                    const CUtensorMap& map_c) {
#if TGEMM_HAS_WGMMA
  using element_c = typename Policy::element_c;
  constexpr int bn = Policy::block_n;
  constexpr int store_columns = Policy::epilogue_store_columns;
  const int64_t lane_col = col0 + 2 * (lane % 4);
  const bool inside = terms.active && row0 + 16 <= out.m && col0 + bn <= out.n;
#pragma unroll
  for (int pass = 0; pass < bn / store_columns; ++pass) {
    if (store_issuer) arch::tma_store_wait_read<0>();
    arch::named_barrier_sync(1 + consumer, 128);  // the tile's last copy has read it
#pragma unroll
    for (int group = 0; group < store_columns / 16; ++group) {
      const int j = pass * (store_columns / 8) + 2 * group;
      uint32_t packed[4];
      // The group's 8 values, each through value(accumulator index, row, col).
      const auto pack_group = [&](auto&& value) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // rows g (+ 8), columns 2t and 2t + 1 of chunk j + i / 2
          const int index = 4 * (j + i / 2) + 2 * (i % 2);
          const int64_t row = row0 + lane / 4 + 8 * (i % 2), col = lane_col + 8 * (j + i / 2);
          packed[i] = pack_pair<element_c>(value(index, row, col), value(index + 1, row, col + 1));
        }
      };
      if (inside) {
        pack_group([&](int index, int64_t row, int64_t col) {
          return terms.call_user(device::detail::clamp_keeping_nan(acc[index], bounds.lower, bounds.upper), row, col);
        });
      } else {
        pack_group([&](int index, int64_t row, int64_t col) {
          return user_value(terms, bounds, acc[index], row, col, out.m, out.n);
        });
      }
      const int matrix = lane / 8, column = 16 * group + 8 * (matrix / 2) + lane % 8;
      const int unit = (2 * warp + matrix % 2) ^ (column % 8);
      arch::stmatrix_x4_transposed(store_tile + column * 128 + unit * 16, packed);
    }
    arch::fence_proxy_async_shared();
    arch::named_barrier_sync(1 + consumer, 128);  // the whole staging tile is written
    if (store_issuer) {
      const int strip = Policy::pingpong ? 0 : consumer;  // the consumer's 64 rows of the tile
      arch::tma_store_3d(&map_c, store_tile, tile_m * Policy::block_m + strip * 64, int(col0) + pass * store_columns,
                         product);
      arch::tma_store_commit();
    }
  }
#else
  (void)out, (void)terms, (void)bounds, (void)acc, (void)row0, (void)col0, (void)tile_m, (void)product;
  (void)consumer, (void)warp, (void)lane, (void)store_tile, (void)store_issuer, (void)map_c;
#endif
}

/// Step 1 of store_fused_tile for the accumulators of one 64-column group: sum x (row factor x column factor) + (row
/// bias + column bias [+ beta C when ReadC]), in place. Without ColumnTerms (the call has neither column factors nor
/// column biases) each value is the one multiply-add sum x row factor + row bias: the column terms' loads, their
/// product with the row factor and their sum with the row bias cost three instructions per value otherwise.
template <class Policy, bool ReadC, bool ColumnTerms, int SplitCount>
__device__ __forceinline__ void fused_values(int group, float (&acc)[Policy::block_n / 2],
                                             const float (&acc_small)[SplitCount],
                                             const device::preloaded_terms<float> (&rows)[2],
                                             const device::column_terms_from<typename Policy::element_c>& columns,
                                             const bool (&row_inside)[2],
                                             const typename Policy::element_c* const (&source_row)[2],
                                             int64_t ld_source, float beta) {
  constexpr int group_chunks = 8;  // 64 columns
#pragma unroll
  for (int chunk = 0; chunk < group_chunks; ++chunk) {
    const int j = group * group_chunks + chunk;
    device::preloaded_terms<float> cols[2];
    if constexpr (ColumnTerms) {
#pragma unroll
      for (int e = 0; e < 2; ++e) cols[e] = columns.at(8 * j + e);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int offset = 8 * j + e, i = 4 * j + 2 * h + e;  // the column, from the thread's first; the accumulator
        float sum = acc[i];
        if constexpr (Policy::split) sum += finite_or_zero(acc_small[i]);  // numeric.cuh: why
        float addend = ColumnTerms ? rows[h].bias + cols[e].bias : rows[h].bias;
        if constexpr (ReadC) {
          if (row_inside[h] && offset < columns.left) {
            addend = fmaf(beta, convert<float>(source_row[h][offset * ld_source]), addend);
          }
        }
        acc[i] = fmaf(sum, ColumnTerms ? rows[h].scale * cols[e].scale : rows[h].scale, addend);
      }
    }
  }
}

/// The stores of one tile of the Fused kernel (kernel::gemm_tma_wgmma), in three steps over the thread's accumulators,
/// in place: each value before the activation (one multiply-add: `rows` holds the factors, alpha folded in, and
/// biases of the thread's two rows, g and g + 8 of its warp's 16, read before the tile's main loop; its columns' are
/// read once per 8 columns, device::preloaded_terms; beta C joins the addend when read_c), then the activation, whose
/// family is switched on once per tile (device::activation_family: each family's code is a loop of a few
/// instructions per value, with no branch per value), then the clamp and the stores. Only the activation exists once
/// per family: a whole copy of the stores per family, as before, made the fused kernels four times the plain ones'
/// code and most of their compile time. A 16-bit C with out.tma_store leaves through the staging tile and TMA stores
/// as the plain kernel's does; otherwise each lane writes its elements, reading C (from terms.source when D is
/// separate) when read_c.
template <class Policy, bool TmaEpilogue, int SplitCount, class User>
__device__ __forceinline__ void store_fused_tile(const tma_wgmma_output<typename Policy::element_c, User>& out,
                                                 const device::epilogue_terms_t<typename Policy::element_c, float,
                                                                                User>& terms,
                                                 const device::preloaded_terms<float> (&rows)[2],
                                                 float (&acc)[Policy::block_n / 2],
                                                 const float (&acc_small)[SplitCount],
                                                 typename Policy::element_c* c_out, int64_t row0, int64_t col0,
                                                 int tile_m, int product, int consumer, int warp, int lane, bool read_c,
                                                 uint8_t* store_tile, bool store_issuer, const CUtensorMap& map_c) {
#if TGEMM_HAS_WGMMA
  using element_c = typename Policy::element_c;
  using terms_type = device::epilogue_terms_t<element_c, float, User>;
  constexpr int bn = Policy::block_n;
  constexpr bool approximate = sizeof(element_c) < 4;
  const device::activation_constants<float> k(terms.act);
  const device::preloaded_bounds bounds(terms, k);
  // The thread's columns of 8-column chunk j: col0 + 8 j + 2 (lane % 4) + e, e = 0, 1. Its rows g and g + 8 start
  // in C at its first column (and in the C that beta scales: terms.source when D is separate), so that each element
  // costs a 32-bit comparison of its column and one address step rather than 64-bit index arithmetic. (Each step
  // makes its own pointers: held through the activation they made the large tile's kernel spill.)
  const int64_t lane_col = col0 + 2 * (lane % 4);
  const device::column_terms_from<element_c> columns(terms, lane_col, out.n);
  bool row_inside[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) row_inside[h] = row0 + lane / 4 + 8 * h < out.m;
  // 1. Each value before the activation: sum x (row factor x column factor) + (row bias + column bias [+ beta C]),
  const int64_t ld_source = terms.source ? terms.ld_source : out.ldc;
  const element_c* source_row[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int64_t row = row0 + lane / 4 + 8 * h;
    source_row[h] = terms.source ? terms.source + row + lane_col * ld_source : c_out + row + lane_col * out.ldc;
  }
  // Whether the call has column terms (else step 1 is one multiply-add a value; with beta C it keeps them all).
  const bool column_terms = columns.scale != nullptr || columns.bias != nullptr;
  // 2. The activation (the linear family's relu is in the bounds: device::preloaded_bounds). Steps 1 and 2 go 64
  // columns at a time: with no store or branch between them, ptxas would issue every column's loads at once and spill
  // the large tile's registers.
  constexpr int group_columns = 64;
  static_assert(bn % group_columns == 0, "the fused stores take the tile's columns 64 at a time");
#pragma unroll
  for (int group = 0; group < bn / group_columns; ++group) {
    // beta C joins the addend only when C is read: a test of beta per value, with C's address, cost the TMA path
    // (beta = 0) about eight instructions per value.
    if (read_c) {
      fused_values<Policy, true, true>(group, acc, acc_small, rows, columns, row_inside, source_row, ld_source,
                                       out.beta);
    } else if (column_terms) {
      fused_values<Policy, false, true>(group, acc, acc_small, rows, columns, row_inside, source_row, ld_source,
                                        out.beta);
    } else {
      fused_values<Policy, false, false>(group, acc, acc_small, rows, columns, row_inside, source_row, ld_source,
                                         out.beta);
    }
    const int first = group * (group_columns / 2);  // the group's accumulators: first, first + 1, ...
    switch (device::family_of(terms.act)) {
      case device::activation_family::tanh_form:
#pragma unroll
        for (int i = first; i < first + group_columns / 2; ++i) {
          acc[i] = device::detail::activate_family<device::activation_family::tanh_form, approximate>(k, acc[i]);
        }
        break;
      case device::activation_family::erf:
#pragma unroll
        for (int i = first; i < first + group_columns / 2; ++i) {
          acc[i] = device::detail::activate_family<device::activation_family::erf, approximate>(k, acc[i]);
        }
        break;
      default: break;
    }
  }
  // 3. The clamp, the rounding to C's type and the stores.
  if constexpr (TmaEpilogue) {
    if (out.tma_store) {  // beta = 0 (C not read): as the plain kernel's TMA epilogue (rows outside C are clipped)
      if constexpr (terms_type::has_user_op) {
        store_user_tma_tile<Policy>(out, terms, bounds, acc, row0, col0, tile_m, product, consumer, warp, lane,
                                    store_tile, store_issuer, map_c);
        return;
      }
      constexpr int store_columns = Policy::epilogue_store_columns;
      // The clamp, in place, once per tile and only where the bounds are finite: infinite ones (no clamp, no relu)
      // leave every value as it is, NaN included, and two instructions a value are saved.
      if (bounds.lower != -__int_as_float(0x7f800000) || bounds.upper != __int_as_float(0x7f800000)) {
#pragma unroll
        for (int i = 0; i < bn / 2; ++i) acc[i] = device::detail::clamp_keeping_nan(acc[i], bounds.lower, bounds.upper);
      }
#pragma unroll
      for (int pass = 0; pass < bn / store_columns; ++pass) {
        if (store_issuer) arch::tma_store_wait_read<0>();
        arch::named_barrier_sync(1 + consumer, 128);  // the tile's last copy has read it
#pragma unroll
        for (int group = 0; group < store_columns / 16; ++group) {
          const int j = pass * (store_columns / 8) + 2 * group;
          uint32_t packed[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) {  // rows g (+ 8), columns 2t and 2t + 1 of chunk j + i / 2
            const int index = 4 * (j + i / 2) + 2 * (i % 2);
            packed[i] = pack_pair<element_c>(acc[index], acc[index + 1]);
          }
          const int matrix = lane / 8, column = 16 * group + 8 * (matrix / 2) + lane % 8;
          const int unit = (2 * warp + matrix % 2) ^ (column % 8);
          arch::stmatrix_x4_transposed(store_tile + column * 128 + unit * 16, packed);
        }
        arch::fence_proxy_async_shared();
        arch::named_barrier_sync(1 + consumer, 128);  // the whole staging tile is written
        if (store_issuer) {
          const int strip = Policy::pingpong ? 0 : consumer;  // the consumer's 64 rows of the tile
          arch::tma_store_3d(&map_c, store_tile, tile_m * Policy::block_m + strip * 64,
                             int(col0) + pass * store_columns, product);
          arch::tma_store_commit();
        }
      }
      return;
    }
  }
  element_c* c_row[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) c_row[h] = c_out + (row0 + lane / 4 + 8 * h) + lane_col * out.ldc;
#pragma unroll
  for (int j = 0; j < bn / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int offset = 8 * j + e, i = 4 * j + 2 * h + e;
        if (row_inside[h] && offset < columns.left) {
          if constexpr (terms_type::has_user_op) {
            c_row[h][offset * out.ldc] =
                convert<element_c>(user_value(terms, bounds, acc[i], row0 + lane / 4 + 8 * h, lane_col + offset,
                                              out.m, out.n));
          } else {
            c_row[h][offset * out.ldc] =
                convert<element_c>(device::detail::clamp_keeping_nan(acc[i], bounds.lower, bounds.upper));
          }
        }
      }
    }
  }
#else
  (void)out, (void)terms, (void)rows, (void)acc, (void)acc_small, (void)c_out, (void)row0, (void)col0, (void)tile_m;
  (void)product;
  (void)consumer, (void)warp, (void)lane, (void)read_c, (void)store_tile, (void)store_issuer, (void)map_c;
#endif
}

}  // namespace tgemm::kernel
