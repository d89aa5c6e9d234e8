/// \file policy/policy.cuh
/// \brief Policies: the compile-time numbers that shape a GEMM kernel, each constraint checked with a plain message.
///
/// A policy is a type. `tgemm::policy<block_shape<...>, warp_shape<...>, thread_shape<...>, ...>` describes the
/// SIMT tiled kernel used by every fast FP32 path; `tgemm::naive_policy` selects the one-thread-per-element kernel
/// that the tutorial starts from. Every layer reads a policy through the same members: `mainloop_tag` (which
/// mainloop runs, see policy/mainloop_tags.cuh), the element types (`element_a`, `element_b`, `element_c`,
/// `scalar_type`, `accumulator_type`), the tile extents (`block_m`, ...), `threads`, `vector_width` and
/// `shared_bytes`.
#pragma once

#include <string>
#include <type_traits>

#include "../numeric.cuh"
#include "mainloop_tags.cuh"
#include "policy_name.cuh"
#include "shapes.cuh"

namespace tgemm {

namespace detail {
constexpr bool is_fragmentable(int x) { return x == 1 || x == 2 || x % 4 == 0; }
constexpr int min_int(int a, int b) { return a < b ? a : b; }
}  // namespace detail

/// A tiled SIMT policy (mainloop::simt_multistage<Stages>).
///
/// \tparam Block        block_shape<m, n, k>: the C tile of a thread block and the k depth of one stage.
/// \tparam Warp         warp_shape<m, n>: the C tile of one warp; a block holds (block/warp) warps.
/// \tparam Thread       thread_shape<m, n>: the C tile each thread keeps in registers; a warp holds 32 threads.
/// \tparam VectorWidth  elements per global load and per C store (1, 2 or 4); pointers and leading dimensions
///                      must be multiples of it (checked by can_implement()).
/// \tparam Stages       shared-memory stages of the k pipeline: 1 loads then computes; 2 or more overlap the
///                      next loads (cp.async on sm_80 and newer) with the current FMAs.
/// \tparam Unroll       unroll factor of the loop over one stage's k slice; must divide Block::k.
/// \tparam Accumulator  float or double: the type the products are summed in.
/// \tparam RasterGroup  block rows launched together so that neighbouring blocks share operand tiles in L2.
/// \tparam Element      the element type of A, B and C (and of alpha and beta): float or double.
template <class Block, class Warp, class Thread, int VectorWidth, int Stages, int Unroll = Block::k,
          class Accumulator = float, int RasterGroup = 8, class Element = float>
struct policy {
  /// The mainloop this policy drives: SIMT multiply-adds with a `Stages`-deep shared-memory pipeline.
  using mainloop_tag = mainloop::simt_multistage<Stages>;
  /// The element type of A.
  using element_a = Element;
  /// The element type of B.
  using element_b = Element;
  /// The element type of C.
  using element_c = Element;
  /// The type of alpha and beta.
  using scalar_type = Element;
  /// The type the products are summed in: float or double (Accumulator).
  using accumulator_type = Accumulator;

  /// Rows of C per thread block (Block::m).
  static constexpr int block_m = Block::m;
  /// Columns of C per thread block (Block::n).
  static constexpr int block_n = Block::n;
  /// Depth of the k slice one pipeline stage holds (Block::k).
  static constexpr int block_k = Block::k;
  /// Rows of C per warp (Warp::m).
  static constexpr int warp_m = Warp::m;
  /// Columns of C per warp (Warp::n).
  static constexpr int warp_n = Warp::n;
  /// Rows of C each thread accumulates in registers (Thread::m).
  static constexpr int thread_m = Thread::m;
  /// Columns of C each thread accumulates in registers (Thread::n).
  static constexpr int thread_n = Thread::n;
  /// Elements per global load and per C store (VectorWidth).
  static constexpr int vector_width = VectorWidth;
  /// Shared-memory stages of the k pipeline (Stages).
  static constexpr int stages = Stages;
  /// Unroll factor of the loop over one stage's k slice (Unroll).
  static constexpr int unroll = Unroll;
  /// Block rows launched together so that neighbouring blocks share operand tiles in L2 (RasterGroup).
  static constexpr int raster_group = RasterGroup;

  static_assert(std::is_same<Element, float>::value || std::is_same<Element, double>::value,
                "the SIMT mainloop multiplies float or double elements");
  static_assert(block_m > 0 && block_n > 0 && block_k > 0, "block_shape: every extent must be positive");
  static_assert(warp_m > 0 && warp_n > 0, "warp_shape: every extent must be positive");
  static_assert(thread_m > 0 && thread_n > 0, "thread_shape: every extent must be positive");
  static_assert(block_m % 4 == 0 && block_n % 4 == 0,
                "block_shape::m and ::n must be multiples of 4 so that shared-memory rows stay 16-byte aligned");
  static_assert(block_m % warp_m == 0, "block_shape::m must be a multiple of warp_shape::m");
  static_assert(block_n % warp_n == 0, "block_shape::n must be a multiple of warp_shape::n");
  static_assert(warp_m % thread_m == 0, "warp_shape::m must be a multiple of thread_shape::m");
  static_assert(warp_n % thread_n == 0, "warp_shape::n must be a multiple of thread_shape::n");

  /// Threads of a warp along m.
  static constexpr int warp_threads_m = warp_m / thread_m;
  /// Threads of a warp along n.
  static constexpr int warp_threads_n = warp_n / thread_n;
  static_assert(warp_threads_m * warp_threads_n == 32,
                "a warp must hold exactly 32 threads: (warp_m / thread_m) * (warp_n / thread_n) == 32");

  /// Warps of a block along m.
  static constexpr int warps_m = block_m / warp_m;
  /// Warps of a block along n.
  static constexpr int warps_n = block_n / warp_n;
  /// Threads per block (warps_m * warps_n * 32): launch with a one-dimensional block of this size.
  static constexpr int threads = warps_m * warps_n * 32;
  static_assert(threads <= 1024, "a block may hold at most 1024 threads: shrink the block tile or grow the thread tile");

  static_assert(detail::is_fragmentable(thread_m), "thread_shape::m must be 1, 2 or a multiple of 4");
  static_assert(detail::is_fragmentable(thread_n), "thread_shape::n must be 1, 2 or a multiple of 4");
  /// A thread's rows (columns) come in fragments of up to 16 bytes of contiguous elements (4 floats), read from
  /// shared memory as one vector; fragments of one thread are a warp-slab apart so that a warp's reads are
  /// conflict-free.
  static constexpr int fragment_m = detail::min_int(thread_m, 16 / int(sizeof(Element)));
  /// Columns per fragment of a thread's register tile, laid out as fragment_m is for rows.
  static constexpr int fragment_n = detail::min_int(thread_n, 16 / int(sizeof(Element)));
  /// Elements per store of C: runs of a thread's rows, as wide as both the vector width and a fragment allow.
  static constexpr int store_width = detail::min_int(vector_width, fragment_m);

  static_assert(vector_width == 1 || vector_width == 2 || vector_width == 4, "vector_width must be 1, 2 or 4");
  static_assert(vector_width * sizeof(Element) <= 16, "a vector of vector_width elements must fit in 16 bytes");
  static_assert(block_m % vector_width == 0 && block_n % vector_width == 0 && block_k % vector_width == 0,
                "every block_shape extent must be a multiple of vector_width");
  static_assert((block_m * block_k) % (threads * vector_width) == 0,
                "the A tile (block_m x block_k) must split evenly into one vector per thread per load step");
  static_assert((block_n * block_k) % (threads * vector_width) == 0,
                "the B tile (block_n x block_k) must split evenly into one vector per thread per load step");

  static_assert(stages >= 1 && stages <= 8, "stages must be between 1 and 8");
  static_assert(unroll >= 1 && block_k % unroll == 0, "unroll must be positive and divide block_shape::k");
  static_assert(std::is_same<Accumulator, float>::value || std::is_same<Accumulator, double>::value,
                "accumulator_type must be float or double");
  static_assert(sizeof(Accumulator) >= sizeof(Element), "the accumulator must be at least as wide as the elements");
  static_assert(raster_group >= 1, "raster_group must be positive");

  /// Elements added to each shared-memory row: 16 bytes, which keeps rows 16-byte aligned and spreads the
  /// transposing stores of a k-contiguous operand over more banks.
  static constexpr int shared_padding = 16 / int(sizeof(Element));
  /// Shared memory one block needs: every stage holds an A slice and a B slice, rows padded.
  static constexpr int shared_bytes =
      stages * block_k * ((block_m + shared_padding) + (block_n + shared_padding)) * int(sizeof(Element));
  static_assert(shared_bytes <= 227 * 1024, "the policy needs more shared memory than any GPU gives a block (227 KiB)");

  /// A readable name such as "tiled_b128x128x8_w32x64_t8x8_v4_s2_u8_f32" (float elements; others are named
  /// after "tiled", e.g. "tiled_f64_b...").
  static std::string name() {
    constexpr bool is_float = std::is_same<Element, float>::value;
    return detail::policy_name("tiled%s%s_b%dx%dx%d_w%dx%d_t%dx%d_v%d_s%d_u%d_%s", is_float ? "" : "_",
                               is_float ? "" : element_traits<Element>::tag, block_m, block_n, block_k, warp_m, warp_n,
                               thread_m, thread_n, vector_width, stages, unroll, element_traits<Accumulator>::tag);
  }
};

/// The first rung of the tutorial: one thread per element of C, a 16 x 16 tile of C per block, no reuse.
struct naive_policy {
  /// The one-thread-per-element mainloop.
  using mainloop_tag = mainloop::naive;
  /// The element type of A.
  using element_a = float;
  /// The element type of B.
  using element_b = float;
  /// The element type of C.
  using element_c = float;
  /// The type of alpha and beta.
  using scalar_type = float;
  /// The naive kernel sums in float.
  using accumulator_type = float;
  static constexpr int block_m = 16;  ///< Rows of C per block (consecutive threads run down a column of C).
  static constexpr int block_n = 16;  ///< Columns of C per block.
  /// Threads per block, one per element of the block's tile.
  static constexpr int threads = block_m * block_n;
  static constexpr int vector_width = 1;  ///< Scalar loads: any alignment works.
  static constexpr int store_width = 1;   ///< Scalar stores.
  static constexpr int raster_group = 8;  ///< Block rows launched together (see policy::raster_group).
  static constexpr int shared_bytes = 0;  ///< Operands are read from global memory: no shared memory.
  /// The policy's name, "naive".
  static std::string name() { return "naive"; }
};

}  // namespace tgemm
