/// \file device/mainloop/tensorop_multistage.cuh
/// \brief mainloop::tensorop_multistage<Stages>: mma.sync on the tensor cores, fed by a cp.async pipeline through
/// swizzled shared memory and ldmatrix (64-bit loads for double).
///
/// Each operand's k slice is copied as it lies in memory: 16-byte chunks along its contiguous dimension (m or k
/// for A, k or n for B), so all four op(A) op(B) combinations load the same way and differ only in whether
/// ldmatrix transposes. The chunks of a row are permuted (XOR with the row, see swizzled_tile) so that both the
/// copies and ldmatrix's eight-row reads touch eight different 16-byte bank groups: no bank conflicts, no padding.
#pragma once

#include <cstdint>

#include "../../arch/cp_async.cuh"
#include "../../arch/dmma.cuh"
#include "../../arch/ldmatrix.cuh"
#include "../../arch/mma_sync.cuh"
#include "../../numeric.cuh"
#include "../../policy/mainloop_tags.cuh"
#include "../../types.cuh"
#include "../epilogue.cuh"
#include "block_mainloop.cuh"

namespace tgemm::device {

namespace detail {

/// Where element (row, col) of a Rows x RowElements tile sits in shared memory. The tile is stored row after row in
/// 16-byte chunks of ChunkElements elements; the low three bits of a chunk's index are XORed with a pattern: the row
/// (rows of at least 128 bytes; RowShift 1 doubles it) or the 128-byte line (shorter rows). With the row, any eight
/// consecutive rows at one column fall in eight different bank groups (what ldmatrix reads); with the doubled row,
/// four consecutive rows at two neighbouring chunks do (what the 32-bit fragment loads of a TF32 operand stored
/// along m or n read); with the line, eight consecutive rows of a short-rowed tile do.
template <int Rows, int RowElements, int ChunkElements, int RowShift = 0>
struct swizzled_tile {
  static constexpr int row_chunks = RowElements / ChunkElements;  ///< 16-byte chunks per row.
  static_assert(row_chunks == 2 || row_chunks == 4 || row_chunks % 8 == 0,
                "a swizzled tile's rows are 32 or 64 bytes, or a multiple of 128 bytes");
  static_assert(RowShift == 0 || row_chunks % 8 == 0, "the doubled-row pattern needs rows of 128 bytes or more");
  /// Element offset of (row, col).
  static __device__ __forceinline__ int offset(int row, int col) {
    const int linear = row * row_chunks + col / ChunkElements;
    const int pattern = row_chunks >= 8 ? ((row << RowShift) & 7) : ((linear >> 3) & 7);
    return (linear ^ pattern) * ChunkElements + (col % ChunkElements);
  }
};

/// Copies the k slices of one operand into swizzled stages. The stored tile has Rows rows of RowElements
/// contiguous elements; RowsAlongK says whether its rows run along k (the operand is contiguous along m or n) or
/// along m or n (contiguous along k). Chunks outside the readable extents are zero-filled.
template <class Element, int Rows, int RowElements, int Threads, int BlockK, bool RowsAlongK, int RowShift>
struct tensor_tile_loader {
  static constexpr int chunk = 16 / int(sizeof(Element));  ///< Elements per 16-byte copy.
  using tile = swizzled_tile<Rows, RowElements, chunk, RowShift>;
  static constexpr int chunks = Rows * tile::row_chunks;  ///< 16-byte chunks of one slice.
  static_assert(chunks % Threads == 0, "every thread copies the same number of 16-byte chunks");
  static constexpr int per_thread = chunks / Threads;

  const Element* next;  ///< Element (0, 0) of the next slice.
  int64_t ld;           ///< The operand's leading dimension.
  int64_t mn_left;      ///< Readable extent along m or n, from the tile's first row (column).
  int64_t k_left;       ///< Readable extent along k, from the next slice's first k.
  int thread;

  /// Copies the next slice into `stage`: cp.async for whole chunks; chunks cut by the readable extent (only in
  /// slices that reach past it, a test uniform across the block) are written directly.
  __device__ __forceinline__ void load(Element* stage) {
    const int64_t row_limit = RowsAlongK ? k_left : mn_left;
    const int64_t col_limit = RowsAlongK ? mn_left : k_left;
    if (row_limit >= Rows && col_limit >= RowElements) {
#pragma unroll
      for (int i = 0; i < per_thread; ++i) {
        const int c = thread + i * Threads;
        const int row = c / tile::row_chunks, col = (c % tile::row_chunks) * chunk;
        arch::copy_16_bytes(stage + tile::offset(row, col), next + col + row * ld);
      }
    } else {
#pragma unroll
      for (int i = 0; i < per_thread; ++i) {
        const int c = thread + i * Threads;
        const int row = c / tile::row_chunks, col = (c % tile::row_chunks) * chunk;
        Element* to = stage + tile::offset(row, col);
        const Element* from = next + col + row * ld;
        const int64_t valid = row < row_limit ? col_limit - col : 0;
        if (valid >= chunk) {
          arch::copy_16_bytes(to, from);
        } else {
          // Read the valid elements one by one (no byte past the extent is addressed), zero the rest.
          alignas(16) Element values[chunk];
#pragma unroll
          for (int e = 0; e < chunk; ++e) values[e] = e < valid ? from[e] : zero<Element>();
          *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(values);
        }
      }
    }
    next += RowsAlongK ? BlockK * ld : BlockK;
    k_left -= BlockK;
  }
};

/// Where a thread's accumulators sit in the block tile: instruction tile (i / 2, j / 2) of its warp, row g or
/// g + 8 (i % 2), column 2t or 2t + 1 (j % 2), with g = lane / 4 and t = lane % 4 (mma.sync's C layout).
struct mma_thread_tile {
  int row0;  ///< Block-tile row of accumulator row 0.
  int col0;  ///< Block-tile column of accumulator column 0.
  /// Block-tile row of accumulator row i.
  __device__ __forceinline__ int row(int i) const { return row0 + (i / 2) * 16 + (i % 2) * 8; }
  /// Block-tile column of accumulator column j.
  __device__ __forceinline__ int col(int j) const { return col0 + (j / 2) * 8 + (j % 2); }
};

}  // namespace detail

/// A block's tile on the tensor cores: warps_m x warps_n warps, each a grid of 16 x 8 mma.sync tiles; k slices
/// of block_k flow through `Stages` shared-memory buffers, Stages - 1 copies in flight while one is multiplied.
template <int Stages, class Policy>
struct block_mainloop<mainloop::tensorop_multistage<Stages>, Policy> {
  using element = typename Policy::element_a;             ///< A's and B's elements.
  using accumulator = typename Policy::accumulator_type;  ///< float.
  static constexpr int stages = Stages;                   ///< Shared-memory buffers of the k pipeline.
  static constexpr int chunk = Policy::chunk_elements;    ///< Elements per 16-byte chunk.
  static constexpr int step_k = Policy::instruction::k;   ///< Depth of one instruction step.
  static constexpr bool tf32 = Policy::is_tf32;           ///< Float operands (TF32 instructions).
  static constexpr bool split = Policy::math == math_mode::tf32x3;  ///< Big and small TF32 parts (3xTF32).
  static constexpr bool f64 = Policy::is_f64;             ///< Double operands (DMMA instructions).
  /// The doubled-row swizzle (see detail::swizzled_tile): for the 32-bit fragment loads of TF32 operands stored
  /// along m or n, and for every 64-bit fragment load of double operands.
  template <bool RowsAlongK>
  static constexpr int row_shift = ((tf32 && RowsAlongK) || f64) ? 1 : 0;

  /// The shared-memory layout of an operand's slices: stored rows run along k (the operand is contiguous along m
  /// or n) or along m or n (contiguous along k). TF32 operands stored along m or n are read 32 bits at a time and
  /// double operands 64 bits at a time, which the doubled-row swizzle keeps conflict-free; everything else is read
  /// with ldmatrix.
  template <bool RowsAlongK, int Extent>
  using tile_of = detail::swizzled_tile<RowsAlongK ? Policy::block_k : Extent, RowsAlongK ? Extent : Policy::block_k,
                                        chunk, row_shift<RowsAlongK>>;

  /// `stages` slices of A and B, each swizzled (see detail::swizzled_tile).
  struct alignas(128) shared_storage {
    element a[Stages][Policy::block_m * Policy::block_k];  ///< A slices.
    element b[Stages][Policy::block_n * Policy::block_k];  ///< B slices.
  };

  /// The block's tile (tile_row, tile_col) of op(A) op(B), handed to the epilogue.
  template <op OpA, op OpB, class Problem, class Epilogue>
  static __device__ __forceinline__ void run(const Problem& p, int64_t readable_m, int64_t readable_n, int64_t tile_row,
                                             int64_t tile_col, shared_storage& smem, const Epilogue& epilogue) {
    constexpr int bm = Policy::block_m, bn = Policy::block_n, bk = Policy::block_k;
    // A transposed is contiguous along k: its stored rows are rows of op(A). Otherwise its rows run along k.
    constexpr bool a_rows_along_k = OpA == op::none;
    // B not transposed is contiguous along k: its stored rows are columns of op(B).
    constexpr bool b_rows_along_k = OpB == op::transpose;
    using a_loader = detail::tensor_tile_loader<element, a_rows_along_k ? bk : bm, a_rows_along_k ? bm : bk,
                                                Policy::threads, bk, a_rows_along_k, row_shift<a_rows_along_k>>;
    using b_loader = detail::tensor_tile_loader<element, b_rows_along_k ? bk : bn, b_rows_along_k ? bn : bk,
                                                Policy::threads, bk, b_rows_along_k, row_shift<b_rows_along_k>>;
    const int thread = threadIdx.x;
    const int64_t row_begin = tile_row * bm, col_begin = tile_col * bn;
    a_loader load_a{a_rows_along_k ? p.a + row_begin : p.a + row_begin * p.lda, p.lda, readable_m - row_begin, p.k,
                    thread};
    b_loader load_b{b_rows_along_k ? p.b + col_begin : p.b + col_begin * p.ldb, p.ldb, readable_n - col_begin, p.k,
                    thread};

    accumulator acc[Policy::thread_m][Policy::thread_n];
#pragma unroll
    for (int i = 0; i < Policy::thread_m; ++i) {
#pragma unroll
      for (int j = 0; j < Policy::thread_n; ++j) acc[i][j] = accumulator(0);
    }

    const int warp = thread / 32, lane = thread % 32;
    const int warp_row = (warp % Policy::warps_m) * Policy::warp_m;
    const int warp_col = (warp / Policy::warps_m) * Policy::warp_n;
    const int64_t k_tiles = (p.k + bk - 1) / bk;

#pragma unroll
    for (int s = 0; s < stages - 1; ++s) {
      if (s < k_tiles) {
        load_a.load(smem.a[s]);
        load_b.load(smem.b[s]);
      }
      arch::copy_commit();  // one group per slice, even an empty one, keeps the wait counts exact
    }
    // Software pipeline: the fragments of the next 16-deep step are read (ldmatrix) while the current step's
    // mmas run, across the stage boundary too, so the tensor cores wait neither for shared memory nor for the
    // barrier. The barrier sits before the last step of a slice, whose fragments are already in registers.
    constexpr int steps = bk / step_k;
    fragments frag[2];
    // 3xTF32 sums each slice's products in `slice` and adds them to `acc` with IEEE float additions: the tensor
    // cores' own accumulation is not rounded to nearest, and carried over the whole of k it left 3xTF32 six times
    // less accurate than strict FP32 on an H200 (a 384 x 320 x 2048 product); added slice by slice it is not. The
    // cross products of big and small parts go to `slice_small`, apart: an infinite input has a NaN small part
    // (Inf - Inf), and its big part times the other operand's small part is an Inf whose sign need not be the
    // product's. A non-finite small sum therefore only ever comes from non-finite inputs, which the big sum
    // already carries as FP32 would (Inf, or NaN for Inf * 0 and NaN inputs), and it is dropped.
    accumulator slice[split ? Policy::thread_m : 1][split ? Policy::thread_n : 1];
    accumulator slice_small[split ? Policy::thread_m : 1][split ? Policy::thread_n : 1];
    auto& target = select_target(acc, slice);
    auto& target_small = select_target(acc, slice_small);
    int read_stage = 0, write_stage = stages - 1;
    arch::copy_wait<stages - 2>();
    __syncthreads();
    load_fragments<OpA, OpB>(smem.a[read_stage], smem.b[read_stage], 0, warp_row, warp_col, lane, frag[0]);
    for (int64_t t = 0; t < k_tiles; ++t) {
      // Refill the stage slice t - 1 used: everyone passed the barrier after reading it.
      if (t + stages - 1 < k_tiles) {
        load_a.load(smem.a[write_stage]);
        load_b.load(smem.b[write_stage]);
      }
      arch::copy_commit();
      if constexpr (split) zero(slice), zero(slice_small);
#pragma unroll
      for (int step = 0; step < steps; ++step) {
        if (step == steps - 1) {
          arch::copy_wait<stages - 2>();  // slice t + 1 has landed (this thread's copies) ...
          __syncthreads();                // ... everyone's, and slice t is no longer read from shared memory
          read_stage = read_stage + 1 == stages ? 0 : read_stage + 1;
          write_stage = write_stage + 1 == stages ? 0 : write_stage + 1;
        }
        const int next = step + 1 == steps ? 0 : step + 1;
        load_fragments<OpA, OpB>(smem.a[read_stage], smem.b[read_stage], next * step_k, warp_row, warp_col, lane,
                                 frag[(step + 1) % 2]);
        multiply_fragments(frag[step % 2], target, target_small);
      }
      if constexpr (split) {
#pragma unroll
        for (int i = 0; i < Policy::thread_m; ++i) {
#pragma unroll
          for (int j = 0; j < Policy::thread_n; ++j) {
            acc[i][j] += slice[i][j] + finite_or_zero(slice_small[i][j]);
          }
        }
      }
    }
    arch::copy_wait<0>();  // no copy may still be writing shared memory when the block moves on

    const detail::mma_thread_tile layout{warp_row + lane / 4, warp_col + 2 * (lane % 4)};
    detail::write_tile<Policy>(epilogue, p.m, p.n, row_begin, col_begin, layout, acc);
  }

  /// The accumulators the mmas add to: the slice's own for 3xTF32, the block's otherwise.
  template <class Acc, class Slice>
  static __device__ __forceinline__ auto& select_target(Acc& acc, Slice& slice) {
    if constexpr (split) {
      return slice;
    } else {
      (void)slice;
      return acc;
    }
  }

  /// Sets a register tile to zero.
  template <class Tile>
  static __device__ __forceinline__ void zero(Tile& tile) {
#pragma unroll
    for (auto& row : tile) {
#pragma unroll
      for (auto& x : row) x = accumulator(0);
    }
  }

  /// One instruction step's operands in mma.sync's fragment layout: A for the warp's warp_tiles_m instruction
  /// rows, B for its warp_tiles_n instruction columns (with 3xTF32, also the small TF32 parts).
  struct mma_fragments {
    uint32_t a[Policy::warp_tiles_m][4];                    ///< A, per instruction row (TF32: the big parts).
    uint32_t b[Policy::warp_tiles_n][2];                    ///< B, per instruction column.
    uint32_t a_small[split ? Policy::warp_tiles_m : 1][4];  ///< 3xTF32: A's small parts.
    uint32_t b_small[split ? Policy::warp_tiles_n : 1][2];  ///< 3xTF32: B's small parts.
  };
  /// One DMMA step's operands (see arch/dmma.cuh): step_k / 2 doubles of A per instruction row, step_k / 4 of B
  /// per instruction column.
  struct dmma_fragments {
    double a[Policy::warp_tiles_m][f64 ? step_k / 2 : 1];  ///< A, per instruction row.
    double b[Policy::warp_tiles_n][f64 ? step_k / 4 : 1];  ///< B, per instruction column.
  };
  /// The fragments of one step.
  using fragments = std::conditional_t<f64, dmma_fragments, mma_fragments>;

  /// Reads the fragments of the instruction step at `k` of a stage: ldmatrix (transposing 16-bit operands stored
  /// along m or n), or 32-bit loads for TF32 operands stored along m or n; then TF32 operands are rounded (and, with
  /// 3xTF32, split into big and small parts).
  template <op OpA, op OpB>
  static __device__ __forceinline__ void load_fragments(const element* stage_a, const element* stage_b, int k,
                                                        int warp_row, int warp_col, int lane, fragments& f) {
    if constexpr (f64) {
      load_dmma_fragments<OpA, OpB>(stage_a, stage_b, k, warp_row, warp_col, lane, f);
    } else {
      load_mma_fragments<OpA, OpB>(stage_a, stage_b, k, warp_row, warp_col, lane, f);
    }
  }

  /// load_fragments for double: 64-bit loads in DMMA's fragment layout (see arch/dmma.cuh). Lanes 0-15 read four
  /// rows of two 16-byte chunks, which the doubled-row swizzle spreads over all eight bank groups (so do lanes
  /// 16-31).
  ///
  /// The offsets are written as a per-thread base plus a compile-time constant, which the swizzle allows (it only
  /// permutes chunks within groups of eight): with the offsets left to swizzled_tile::offset, ptxas kept one
  /// register per (step, fragment) offset, 216-250 registers a thread in all. With g = lane / 4, t = lane % 4:
  /// - a tile whose rows run along k (operand contiguous along m or n), element (k + t + 4 u, x + g):
  ///   the row pattern is 2t (k + 4u is a multiple of 4), so the offset is
  ///   2 RC (k + 4u) + 16 (x / 16) + [2 RC t + 2 ((g / 2) ^ 2t ^ 4 ((x / 8) % 2)) + g % 2], RC = 16-byte chunks a row;
  /// - a tile whose rows run along m or n (operand contiguous along k), element (x + g, k + t + 4u): the row
  ///   pattern is 2 (g % 4), and with c = (k + 4u) / 2 the offset is
  ///   2 RC x + 16 (c / 8) + [2 RC g + t + 2 ((c % 8) ^ 2 (g % 4))].
  /// The bracketed part is the base: two per operand (by (x / 8) % 2) or four (by (c % 8) / 2).
  template <bool RowsAlongK, int Extent>
  struct dmma_offsets {
    static constexpr int rc = (RowsAlongK ? Extent : Policy::block_k) / chunk;  ///< 16-byte chunks a stored row.
    static_assert(rc % 8 == 0 && row_shift<RowsAlongK> == 1,
                  "the DMMA offsets assume rows of whole 128-byte lines and the doubled-row swizzle");
    int base[RowsAlongK ? 2 : 4];  ///< See above.
    /// The bases for a warp whose tile starts at `origin` along m or n.
    __device__ __forceinline__ dmma_offsets(int origin, int lane) {
      const int g = lane / 4, t = lane % 4;
#pragma unroll
      for (int v = 0; v < (RowsAlongK ? 2 : 4); ++v) {
        base[v] = RowsAlongK ? origin + 2 * rc * t + 2 * ((g / 2) ^ (2 * t) ^ (4 * v)) + g % 2
                             : 2 * rc * (origin + g) + t + 2 * ((2 * v) ^ (2 * (g % 4)));
      }
    }
    /// The offset of element (x + g, k + t + 4u) in operand terms (x: the 8-row group's offset from the warp's
    /// origin, a multiple of 8; k: a multiple of 4).
    __device__ __forceinline__ int at(int x, int k) const {
      if constexpr (RowsAlongK) {
        return base[(x / 8) % 2] + 2 * rc * k + 16 * (x / 16);
      } else {
        const int c = k / 2;
        return base[(c % 8) / 2] + 2 * rc * x + 16 * (c / 8);
      }
    }
  };

  /// load_fragments for double (see dmma_offsets for the addressing).
  template <op OpA, op OpB>
  static __device__ __forceinline__ void load_dmma_fragments(const element* stage_a, const element* stage_b, int k,
                                                             int warp_row, int warp_col, int lane, fragments& f) {
    constexpr bool a_rows_along_k = OpA == op::none, b_rows_along_k = OpB == op::transpose;
    const dmma_offsets<a_rows_along_k, Policy::block_m> a_offsets(warp_row, lane);
    const dmma_offsets<b_rows_along_k, Policy::block_n> b_offsets(warp_col, lane);
#pragma unroll
    for (int mi = 0; mi < Policy::warp_tiles_m; ++mi) {
#pragma unroll
      for (int i = 0; i < step_k / 2; ++i) f.a[mi][i] = stage_a[a_offsets.at(mi * 16 + 8 * (i % 2), k + 4 * (i / 2))];
    }
#pragma unroll
    for (int ni = 0; ni < Policy::warp_tiles_n; ++ni) {
#pragma unroll
      for (int j = 0; j < step_k / 4; ++j) f.b[ni][j] = stage_b[b_offsets.at(ni * 8, k + 4 * j)];
    }
  }

  /// load_fragments for 16-bit and TF32 operands.
  template <op OpA, op OpB>
  static __device__ __forceinline__ void load_mma_fragments(const element* stage_a, const element* stage_b, int k,
                                                            int warp_row, int warp_col, int lane, fragments& f) {
    constexpr bool a_rows_along_k = OpA == op::none, b_rows_along_k = OpB == op::transpose;
    using a_tile = tile_of<a_rows_along_k, Policy::block_m>;
    using b_tile = tile_of<b_rows_along_k, Policy::block_n>;
    const int quad = lane / 8, r = lane % 8;  // ldmatrix: this lane addresses row r of matrix `quad`
    const int g = lane / 4, t = lane % 4;     // mma.sync: this lane holds row g, column t (see arch/mma_sync.cuh)
    constexpr int half_k = step_k / 2;         // k of one 8 x 8 ldmatrix matrix: 8 16-bit or 4 32-bit elements
#pragma unroll
    for (int mi = 0; mi < Policy::warp_tiles_m; ++mi) {
      const int m0 = warp_row + mi * 16;
      if constexpr (tf32 && a_rows_along_k) {
        const uint32_t* s = reinterpret_cast<const uint32_t*>(stage_a);
        f.a[mi][0] = s[a_tile::offset(k + t, m0 + g)];
        f.a[mi][1] = s[a_tile::offset(k + t, m0 + g + 8)];
        f.a[mi][2] = s[a_tile::offset(k + t + 4, m0 + g)];
        f.a[mi][3] = s[a_tile::offset(k + t + 4, m0 + g + 8)];
      } else {
        // Matrices 0..3 are (rows 0-7, k low), (rows 8-15, k low), (rows 0-7, k high), (rows 8-15, k high).
        const int m = m0 + (quad & 1) * 8, kq = k + (quad >> 1) * half_k;
        if constexpr (a_rows_along_k) {
          arch::ldmatrix_x4<true>(f.a[mi], stage_a + a_tile::offset(kq + r, m));
        } else {
          arch::ldmatrix_x4<false>(f.a[mi], stage_a + a_tile::offset(m + r, kq));
        }
      }
    }
#pragma unroll
    for (int ni = 0; ni < Policy::warp_tiles_n; ni += 2) {
      if constexpr (tf32 && b_rows_along_k) {
        const uint32_t* s = reinterpret_cast<const uint32_t*>(stage_b);
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int n = warp_col + (ni + j) * 8 + g;
          f.b[ni + j][0] = s[b_tile::offset(k + t, n)];
          f.b[ni + j][1] = s[b_tile::offset(k + t + 4, n)];
        }
      } else {
        // Matrices 0..3 are (cols 0-7, k low), (cols 0-7, k high), (cols 8-15, k low), (cols 8-15, k high).
        const int n = warp_col + ni * 8 + (quad >> 1) * 8, kq = k + (quad & 1) * half_k;
        uint32_t x[4];
        if constexpr (b_rows_along_k) {
          arch::ldmatrix_x4<true>(x, stage_b + b_tile::offset(kq + r, n));
        } else {
          arch::ldmatrix_x4<false>(x, stage_b + b_tile::offset(n + r, kq));
        }
        f.b[ni][0] = x[0], f.b[ni][1] = x[1], f.b[ni + 1][0] = x[2], f.b[ni + 1][1] = x[3];
      }
    }
    if constexpr (tf32) {
#pragma unroll
      for (int mi = 0; mi < Policy::warp_tiles_m; ++mi) {
#pragma unroll
        for (int e = 0; e < 4; ++e) round_tf32(f.a[mi][e], f.a_small[split ? mi : 0][e]);
      }
#pragma unroll
      for (int ni = 0; ni < Policy::warp_tiles_n; ++ni) {
#pragma unroll
        for (int e = 0; e < 2; ++e) round_tf32(f.b[ni][e], f.b_small[split ? ni : 0][e]);
      }
    }
  }

  /// Rounds a float (its bits in `x`) to TF32; with 3xTF32 also stores the TF32 rounding of what is left.
  static __device__ __forceinline__ void round_tf32(uint32_t& x, uint32_t& small) {
    const float value = __uint_as_float(x);
    x = arch::to_tf32(value);
    if constexpr (split) small = arch::to_tf32(value - __uint_as_float(x));
  }

  /// The warp's mmas of one instruction step: every (instruction row, instruction column) pair. 3xTF32 adds the
  /// two cross products of big and small parts to `small_acc`, the big product to `acc`.
  static __device__ __forceinline__ void multiply_fragments(const fragments& f,
                                                            accumulator (&acc)[Policy::thread_m][Policy::thread_n],
                                                            accumulator (&small_acc)[Policy::thread_m][Policy::thread_n]) {
    (void)small_acc;  // 3xTF32 only
#pragma unroll
    for (int mi = 0; mi < Policy::warp_tiles_m; ++mi) {
#pragma unroll
      for (int nj = 0; nj < Policy::warp_tiles_n; ++nj) {
        const int ni = (mi % 2 == 0) ? nj : Policy::warp_tiles_n - 1 - nj;  // serpentine: B fragments reused
        accumulator d[4] = {acc[2 * mi][2 * ni], acc[2 * mi][2 * ni + 1], acc[2 * mi + 1][2 * ni],
                            acc[2 * mi + 1][2 * ni + 1]};
        if constexpr (f64) {
          arch::dmma_m16n8<step_k>(d, f.a[mi], f.b[ni]);
        } else if constexpr (!tf32) {
          arch::mma_m16n8k16<element>(d, f.a[mi], f.b[ni]);
        } else {
          if constexpr (split) {
            float e[4] = {small_acc[2 * mi][2 * ni], small_acc[2 * mi][2 * ni + 1], small_acc[2 * mi + 1][2 * ni],
                          small_acc[2 * mi + 1][2 * ni + 1]};
            arch::mma_m16n8k8_tf32(e, f.a_small[mi], f.b[ni]);
            arch::mma_m16n8k8_tf32(e, f.a[mi], f.b_small[ni]);
            small_acc[2 * mi][2 * ni] = e[0], small_acc[2 * mi][2 * ni + 1] = e[1];
            small_acc[2 * mi + 1][2 * ni] = e[2], small_acc[2 * mi + 1][2 * ni + 1] = e[3];
          }
          arch::mma_m16n8k8_tf32(d, f.a[mi], f.b[ni]);
        }
        acc[2 * mi][2 * ni] = d[0], acc[2 * mi][2 * ni + 1] = d[1];
        acc[2 * mi + 1][2 * ni] = d[2], acc[2 * mi + 1][2 * ni + 1] = d[3];
      }
    }
  }
};

}  // namespace tgemm::device
