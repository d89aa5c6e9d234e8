/// \file device/tile_loader.cuh
/// \brief Moves one operand's block tile (block_mn x block_k) from global into a shared-memory stage.
///
/// Both operands are staged k-major in shared memory, `stage[k][mn]`, so that the FMA loop reads a thread's
/// fragment of rows (or columns) at one k as a contiguous vector. The global operand is either contiguous
/// along mn (A not transposed, B transposed) or along k (A transposed, B not).
///
/// - Contiguous along mn: a straight vector copy, cp.async on sm_80+ when the policy pipelines (no registers).
/// - Contiguous along k: each 16-byte vector holds 4 k of one mn and must be scattered down a stage column.
///   It is fetched into registers (one wide load) early and stored to shared memory later, after the FMAs of
///   the current slice, so the load's latency hides behind that work (register staging).
///
/// A loader may also take the layout at run time (operand_layout::at_run_time, for the kernels of a
/// run_time_layouts policy): both copies are compiled, one uniform branch picks one, and the staged copy's
/// registers are kept either way.
///
/// Most slices of most blocks lie wholly inside the matrix; those take a path with no bounds arithmetic at all
/// (on an H200 the per-element checks were about an eighth of the main loop's instructions). Only the blocks
/// on the bottom or right edge, and the last slice when block_k does not divide k, take the guarded path.
#pragma once

#include <cstdint>

#include "../arch/cp_async.cuh"
#include "vector_access.cuh"

namespace tgemm::device::detail {

/// How an operand lies in global memory, as a tile_loader sees it.
enum class operand_layout {
  along_mn,     ///< consecutive mn of one k are adjacent (A not transposed, B transposed)
  along_k,      ///< consecutive k of one mn are adjacent (A transposed, B not)
  at_run_time,  ///< either: the loader's constructor is told which
};

/// \tparam Element      the operand's element type.
/// \tparam TileMN       block_m (for A) or block_n (for B).
/// \tparam TileK        block_k.
/// \tparam Padding      elements added to each shared-memory row (the policy's shared_padding).
/// \tparam Threads      threads of the block.
/// \tparam Vector       elements per global access.
/// \tparam Layout       how the operand lies in memory (operand_layout).
/// \tparam Async        overlap the copy with compute (cp.async or register staging); false: copy at once.
template <class Element, int TileMN, int TileK, int Padding, int Threads, int Vector, operand_layout Layout, bool Async>
class tile_loader {
 public:
  static constexpr int row_stride = TileMN + Padding;
  static constexpr int vectors_per_thread = TileMN * TileK / (Vector * Threads);
  static_assert(vectors_per_thread >= 1 && TileMN * TileK % (Vector * Threads) == 0,
                "a tile must split evenly into one vector per thread per load step");
  /// A run-time layout of single elements copies both layouts with cp.async (a 4-byte copy needs no registers to
  /// transpose): the layouts then differ only in the offsets the constructor computes.
  static constexpr bool scalar_copies = Layout == operand_layout::at_run_time && Vector == 1 && Async;
  /// True when the copy may go through registers: fetch() early, store() after the current slice's FMAs.
  static constexpr bool may_stage = Layout != operand_layout::along_mn && Async && !scalar_copies;

  /// \param base       the operand in its canonical column-major form (element (mn, k) at base[mn + k*ld] when
  ///                   contiguous along mn, base[k + mn*ld] when contiguous along k).
  /// \param mn_begin   first mn index of this block's tile.
  /// \param extent_mn  m (for A) or n (for B); indices at or past it read as zero.
  /// \param extent_k   k; indices at or past it read as zero.
  /// \param along_k    for Layout = at_run_time: true when consecutive k of one mn are adjacent (else ignored).
  __device__ __forceinline__ tile_loader(const Element* __restrict__ base, int64_t ld, int64_t mn_begin,
                                         int64_t extent_mn, int64_t extent_k, int thread, bool along_k = false)
      : base_(base), extent_k_(extent_k), along_k_(along_k) {
    slice_step_ = contiguous_k() ? int64_t(TileK) : int64_t(TileK) * ld;
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      const int v = thread + i * Threads;
      int mn, k;
      if (contiguous_k()) {
        // Consecutive threads take consecutive vectors along k: a warp reads whole 32-byte sectors, 64 bytes of
        // each column for a 16-deep slice. (Handing a warp 16 columns of 32 bytes instead makes the transposing
        // stores conflict-free, but measured slower on an H200: twice the cache lines per load.)
        mn = v / (TileK / Vector);
        k = (v % (TileK / Vector)) * Vector;
      } else {
        k = v / (TileMN / Vector);
        mn = (v % (TileMN / Vector)) * Vector;
      }
      tile_k_[i] = k;
      shared_offset_[i] = k * row_stride + mn;
      const int64_t global_mn = mn_begin + mn;
      const int64_t left = extent_mn - global_mn;
      // Along mn a contiguous vector can be cut by the edge; a k-contiguous one is all in or all out.
      if (contiguous_k()) {
        mn_valid_[i] = left > 0 ? Vector : 0;
      } else {
        mn_valid_[i] = left <= 0 ? 0 : (left >= Vector ? Vector : int(left));
      }
      global_offset_[i] = mn_valid_[i] > 0 ? (contiguous_k() ? global_mn * ld + k : global_mn + k * ld) : 0;
    }
    interior_ = mn_begin + TileMN <= extent_mn;
  }

  /// Starts the copy of the next k slice (slices are taken in order: 0, block_k, 2 block_k, ...): cp.async or
  /// plain copies into `stage`, or, for a staged operand, wide loads into registers that store() finishes.
  __device__ __forceinline__ void fetch(Element* stage) {
    if (interior_ && slice_k_ + TileK <= extent_k_) {
      fetch_whole(stage);
    } else {
      fetch_guarded(stage);
    }
    slice_k_ += TileK;
    slice_offset_ += slice_step_;
  }

  /// fetch() for a caller that knows the slice is whole and the block interior (see interior()): no tests.
  __device__ __forceinline__ void fetch_interior(Element* stage) {
    fetch_whole(stage);
    slice_k_ += TileK;
    slice_offset_ += slice_step_;
  }

  /// True when the block's whole mn range lies inside the matrix: its whole k slices can use fetch_interior().
  __device__ __forceinline__ bool interior() const { return interior_; }

  /// Finishes a staged fetch: writes the registers into `stage` (nothing to do for other operands).
  __device__ __forceinline__ void store(Element* stage) const {
    if constexpr (may_stage) {
      if (staged()) {
#pragma unroll
        for (int i = 0; i < vectors_per_thread; ++i) write_column(stage, i);
      }
    }
  }

 private:
  /// True when consecutive k of one mn are adjacent in memory.
  __device__ __forceinline__ bool contiguous_k() const {
    if constexpr (Layout == operand_layout::at_run_time) {
      return along_k_;
    } else {
      return Layout == operand_layout::along_k;
    }
  }

  /// True when this copy reads vectors along k into registers (then scatters them down a stage column).
  __device__ __forceinline__ bool through_registers() const { return !scalar_copies && contiguous_k(); }

  /// True when this copy goes through registers and lands after the current slice's FMAs (see may_stage).
  __device__ __forceinline__ bool staged() const { return may_stage && contiguous_k(); }

  /// A slice wholly inside the matrix: every vector is read whole, no bounds arithmetic.
  __device__ __forceinline__ void fetch_whole(Element* stage) {
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      const Element* source = base_ + global_offset_[i] + slice_offset_;
      if (through_registers()) {
        read_vector(registers_[i], source, Vector);
        if (!staged()) write_column(stage, i);
      } else {
        arch::copy_vector<Vector, Async>(stage + shared_offset_[i], source, Vector);
      }
    }
  }

  /// A slice that crosses the bottom or right edge of the matrix or the end of k: out-of-range elements read as 0.
  __device__ __forceinline__ void fetch_guarded(Element* stage) {
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      const int64_t k_left = extent_k_ - (slice_k_ + tile_k_[i]);
      if (through_registers()) {
        const int valid = mn_valid_[i] == 0 || k_left <= 0 ? 0 : (k_left >= Vector ? Vector : int(k_left));
        const Element* source = base_ + (valid > 0 ? global_offset_[i] + slice_offset_ : 0);
        read_vector(registers_[i], source, valid);
        if (!staged()) write_column(stage, i);
      } else {
        const int valid = k_left > 0 ? mn_valid_[i] : 0;
        const Element* source = base_ + (valid > 0 ? global_offset_[i] + slice_offset_ : 0);
        arch::copy_vector<Vector, Async>(stage + shared_offset_[i], source, valid);
      }
    }
  }

  /// Loads `valid` elements (the rest zero) as one wide load when the whole vector is in range.
  __device__ __forceinline__ static void read_vector(Element (&out)[Vector], const Element* __restrict__ source,
                                                     int valid) {
    if (valid == Vector) {
      load_vector_readonly<Vector>(out, source);
    } else {
#pragma unroll
      for (int e = 0; e < Vector; ++e) out[e] = e < valid ? __ldg(source + e) : Element(0);
    }
  }

  /// Scatters vector i (Vector consecutive k of one mn) down the stage's column mn.
  __device__ __forceinline__ void write_column(Element* stage, int i) const {
#pragma unroll
    for (int e = 0; e < Vector; ++e) stage[shared_offset_[i] + e * row_stride] = registers_[i][e];
  }

  const Element* __restrict__ base_;
  int64_t slice_step_;        // elements between the starts of consecutive k slices
  int64_t extent_k_;
  int64_t slice_k_ = 0;       // first k of the next slice
  int64_t slice_offset_ = 0;  // element offset of the next slice
  int64_t global_offset_[vectors_per_thread];
  int shared_offset_[vectors_per_thread];
  int tile_k_[vectors_per_thread];
  int mn_valid_[vectors_per_thread];
  bool interior_;  // the block's whole mn range is inside the matrix
  bool along_k_;   // Layout at_run_time: the operand is contiguous along k
  Element registers_[Layout == operand_layout::along_mn || scalar_copies ? 1 : vectors_per_thread][Vector];
};

}  // namespace tgemm::device::detail
