/// \file device/tile_loader.cuh
/// \brief Moves one operand's block tile (block_mn x block_k) from global into a shared-memory stage.
///
/// Both operands are staged k-major in shared memory, `stage[k][mn]`, so that the FMA loop reads a thread's
/// fragment of rows (or columns) at one k as a contiguous vector. The global operand is either contiguous
/// along mn (A not transposed, B transposed: a straight vector copy) or along k (A transposed, B not: each
/// vector is scattered down a column of the stage).
#pragma once

#include <cstdint>

#include "async_copy.cuh"

namespace tgemm::device::detail {

/// \tparam TileMN       block_m (for A) or block_n (for B).
/// \tparam TileK        block_k.
/// \tparam Threads      threads of the block.
/// \tparam Vector       floats per global access.
/// \tparam ContiguousK  true when consecutive k of one mn index are adjacent in memory.
/// \tparam Async        use cp.async where available.
template <int TileMN, int TileK, int Threads, int Vector, bool ContiguousK, bool Async>
class tile_loader {
 public:
  static constexpr int row_stride = TileMN + 4;  // keep in step with tgemm::shared_row_padding
  static constexpr int vectors_per_thread = TileMN * TileK / (Vector * Threads);
  static_assert(vectors_per_thread >= 1 && TileMN * TileK % (Vector * Threads) == 0,
                "a tile must split evenly into one vector per thread per load step");

  /// \param base       the operand in its canonical column-major form (element (mn, k) at base[mn + k*ld] when
  ///                   contiguous along mn, base[k + mn*ld] when contiguous along k).
  /// \param mn_begin   first mn index of this block's tile.
  /// \param extent_mn  m (for A) or n (for B); indices at or past it read as zero.
  /// \param extent_k   k; indices at or past it read as zero.
  __device__ __forceinline__ tile_loader(const float* __restrict__ base, int64_t ld, int64_t mn_begin,
                                         int64_t extent_mn, int64_t extent_k, int thread)
      : base_(base), ld_(ld), extent_k_(extent_k) {
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      const int v = thread + i * Threads;
      int mn, k;
      if constexpr (ContiguousK) {
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
      if constexpr (ContiguousK) {
        mn_valid_[i] = left > 0 ? Vector : 0;
      } else {
        mn_valid_[i] = left <= 0 ? 0 : (left >= Vector ? Vector : int(left));
      }
      global_offset_[i] = mn_valid_[i] > 0 ? (ContiguousK ? global_mn * ld + k : global_mn + k * ld) : 0;
    }
  }

  /// Issues the copies of the k slice starting at k_begin into `stage` (stage[k][mn], rows row_stride long).
  __device__ __forceinline__ void load(float* stage, int64_t k_begin) const {
#pragma unroll
    for (int i = 0; i < vectors_per_thread; ++i) {
      const int64_t k = k_begin + tile_k_[i];
      const int64_t k_left = extent_k_ - k;
      if constexpr (ContiguousK) {
        const int valid = mn_valid_[i] == 0 || k_left <= 0 ? 0 : (k_left >= Vector ? Vector : int(k_left));
        const float* source = valid > 0 ? base_ + global_offset_[i] + k_begin : base_;
        // The vector runs along k, the stage along mn: it lands element by element down a stage column.
#if TGEMM_HAS_CP_ASYNC
        if constexpr (Async) {
#pragma unroll
          for (int e = 0; e < Vector; ++e) {
            copy_floats<1, true>(stage + shared_offset_[i] + e * row_stride, source + (e < valid ? e : 0),
                                 e < valid ? 1 : 0);
          }
          continue;
        }
#endif
        float values[Vector];
        if (valid == Vector) {
          if constexpr (Vector == 4) {
            const float4 v = *reinterpret_cast<const float4*>(source);
            values[0] = v.x, values[1] = v.y, values[2] = v.z, values[3] = v.w;
          } else if constexpr (Vector == 2) {
            const float2 v = *reinterpret_cast<const float2*>(source);
            values[0] = v.x, values[1] = v.y;
          } else {
            values[0] = *source;
          }
        } else {
#pragma unroll
          for (int e = 0; e < Vector; ++e) values[e] = e < valid ? source[e] : 0.0f;
        }
#pragma unroll
        for (int e = 0; e < Vector; ++e) stage[shared_offset_[i] + e * row_stride] = values[e];
      } else {
        const int valid = k_left > 0 ? mn_valid_[i] : 0;
        const float* source = valid > 0 ? base_ + global_offset_[i] + k_begin * ld_ : base_;
        copy_floats<Vector, Async>(stage + shared_offset_[i], source, valid);
      }
    }
  }

 private:
  const float* __restrict__ base_;
  int64_t ld_;
  int64_t extent_k_;
  int64_t global_offset_[vectors_per_thread];
  int shared_offset_[vectors_per_thread];
  int tile_k_[vectors_per_thread];
  int mn_valid_[vectors_per_thread];
};

}  // namespace tgemm::device::detail
