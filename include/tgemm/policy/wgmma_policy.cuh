/// \file policy/wgmma_policy.cuh
/// \brief tgemm::wgmma_policy: the Hopper (sm_90a) kernel's tile, pipeline depth and element types.
///
/// One block computes a block_m x block_n tile of C with block_m / 64 consumer warpgroups (each a 64-row strip,
/// wgmma m64n{block_n}k16, or k8 for TF32) and one producer warpgroup whose first thread issues the TMA copies;
/// `stages` slices of block_k elements (one 128-byte swizzle row: 64 16-bit elements or 32 floats) of A and B are
/// in flight. 16-bit operands may be K-major or MN-major (wgmma's transpose flags); TF32 reads B K-major only, and an
/// A stored along m through registers; 3xTF32 reads K-major split copies (reads_mn_major_a, reads_mn_major_b).
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>

#include "../numeric.cuh"
#include "../types.cuh"
#include "mainloop_tags.cuh"
#include "policy_name.cuh"
#include "shapes.cuh"

namespace tgemm {

/// A Hopper tile: Block = block_shape<m, n, k>, `Stages` shared-memory slices, Element (A and B) 16-bit or float,
/// ElementC the same type or float; float accumulators and scalars. Float elements multiply as TF32
/// (Math = math_mode::tf32) or as 3xTF32 (math_mode::tf32x3: each operand split beforehand into big and small TF32
/// parts, kernel/split_tf32.cuh; a stage holds both parts, each k step issues three wgmmas, and the consumers keep
/// three sets of accumulators: the tile's sum, the stage's big products and the cross products, so 3xTF32 tiles
/// take block_n = 128). Pingpong: two consumer warpgroups on different 64-row tiles, taking turns (one's epilogue
/// runs while the other's wgmmas do), instead of one tile shared between block_m / 64 of them. ClusterM = 2: blocks
/// run in clusters of two on neighbouring tile rows of the same tile column, and each copies half of every B slice
/// and multicasts it to both (TMA), so that B leaves L2 once per pair instead of once per block.
template <class Block, int Stages, class Element, class ElementC = Element,
          math_mode Math = std::is_same<Element, float>::value ? math_mode::tf32 : math_mode::strict,
          bool Pingpong = false, int ClusterM = 1>
struct wgmma_policy {
  using mainloop_tag = mainloop::tma_wgmma_warp_specialized<Stages>;  ///< The mainloop that runs this policy.
  using element_a = Element;    ///< The element type of A.
  using element_b = Element;    ///< The element type of B.
  using element_c = ElementC;   ///< The element type of C.
  using scalar_type = float;    ///< alpha and beta.
  using accumulator_type = float;  ///< What the tensor cores add into.
  static constexpr math_mode math = Math;  ///< How float elements multiply (tf32, tf32x3); strict for 16-bit ones.
  /// Float operands go to wgmma as TF32.
  static constexpr bool tf32 = std::is_same<Element, float>::value;
  /// 3xTF32: A and B arrive split into big and small parts (operand_parts copies of each in a stage).
  static constexpr bool split = Math == math_mode::tf32x3;
  /// Copies of each operand slice in a stage: big and small parts for 3xTF32, else one.
  static constexpr int operand_parts = split ? 2 : 1;
  /// Whether the kernel reads an A stored along m in place: 16-bit A through wgmma's transpose flag, TF32 A through
  /// registers (TF32 wgmma has no transpose flag); 3xTF32 reads its split copies, which are K-major.
  static constexpr bool reads_mn_major_a = !split;
  /// Whether the kernel reads a B stored along n in place: 16-bit only (TF32 wgmma reads B K-major from shared
  /// memory; the planner copies it first).
  static constexpr bool reads_mn_major_b = !tf32;

  static constexpr int block_m = Block::m;  ///< Rows of C per thread block.
  static constexpr int block_n = Block::n;  ///< Columns of C per thread block (the wgmma's N).
  static constexpr int block_k = Block::k;  ///< Depth of the k slice one stage holds.
  static constexpr int stages = Stages;     ///< Shared-memory stages of the k pipeline.
  static constexpr int minimum_arch = 900;  ///< sm_90, and the build must hold the sm_90a image.
  /// Consumers on different tiles (see the template's comment): a tile is one consumer's 64 rows.
  static constexpr bool pingpong = Pingpong;
  /// Blocks per cluster, along m: 1, or 2 sharing their B slices (see the template's comment).
  static constexpr int cluster_m = ClusterM;
  /// Consumer warpgroups: one per 64 rows of the tile, or two taking turns on 64-row tiles (pingpong).
  static constexpr int consumers = pingpong ? 2 : block_m / 64;
  /// Threads per block: the consumers and one producer warpgroup.
  static constexpr int threads = 128 * (consumers + 1);
  /// Bytes of one stage: an A slice and a B slice (each in big and small parts for 3xTF32).
  static constexpr int stage_bytes = operand_parts * (block_m + block_n) * block_k * element_bytes<Element>;
  /// Columns of C a consumer warp stages at a time in the epilogue that reads C (16 rows of each, as floats).
  static constexpr int epilogue_columns = 32;
  /// Floats from one staged column to the next: 16 rows and 4 of padding, so that the accumulators' writes (8 rows by
  /// 4 column pairs per instruction) fall in 32 different banks and each column stays 16-byte aligned.
  static constexpr int epilogue_column_stride = 20;
  /// Bytes of the staging buffers of that epilogue, one per consumer warp.
  static constexpr int epilogue_read_c_bytes = consumers * 4 * epilogue_columns * epilogue_column_stride * 4;
  /// Shared memory besides the epilogue's: the stages, 1024 bytes to align them to the swizzle pattern, the barriers
  /// (full and empty per stage; ping-pong: the consumers' two turns).
  static constexpr int mainloop_shared_bytes = stages * stage_bytes + 1024 + 2 * stages * 8 + (pingpong ? 16 : 0);
  /// 16-bit C with beta = 0: columns of C per TMA store of a consumer warpgroup (its 64 rows, 128 bytes, by this
  /// many columns, 128-byte swizzled): the widest of block_n, block_n / 2, ..., 64 whose staging tiles fit beside
  /// the stages, so that the consumers write the tile to shared memory and move on while the copy engine stores it;
  /// 0 for float C (kernel/gemm_tma_wgmma.cuh says why) and when not even 64 columns fit.
  static constexpr int epilogue_store_columns = [] {
    int fits = 0;
    for (int columns = 64; columns <= block_n; columns *= 2) {
      if (mainloop_shared_bytes + consumers * 64 * 2 * columns <= 227 * 1024) fits = columns;
    }
    return element_bytes<ElementC> == 2 ? fits : 0;
  }();
  /// Bytes of one consumer warpgroup's TMA-store staging tile: 64 rows of 2 bytes by epilogue_store_columns.
  static constexpr int epilogue_store_tile_bytes = 64 * 2 * epilogue_store_columns;
  /// Bytes of the epilogue's staging buffers (16-bit C only; 0 for float C): the TMA store's tiles, which the
  /// epilogue that reads C shares.
  static constexpr int epilogue_bytes =
      element_bytes<ElementC> != 2 ? 0 : std::max(consumers * epilogue_store_tile_bytes, epilogue_read_c_bytes);
  /// Shared memory one block needs: the stages, then the epilogue's staging buffers (1024-byte aligned, as the
  /// stages are), then the barriers.
  static constexpr int shared_bytes = mainloop_shared_bytes + epilogue_bytes;
  /// Elements per 16-byte TMA unit: leading dimensions must be multiples of it, pointers 16-byte aligned.
  static constexpr int vector_width = 16 / element_bytes<Element>;
  /// Elements per store of C the planner must allow for: 1, C needs no alignment (the kernel itself uses 16-byte
  /// stores for 16-bit C only where C's pointer and leading dimension allow them).
  static constexpr int store_width = 1;

  static_assert(std::is_same<Element, __half>::value || std::is_same<Element, __nv_bfloat16>::value ||
                    std::is_same<Element, float>::value,
                "wgmma_policy multiplies __half, __nv_bfloat16 or float (TF32) elements");
  static_assert(tf32 || Math == math_mode::strict, "16-bit elements have one math: leave Math strict");
  static_assert(!tf32 || Math == math_mode::tf32 || Math == math_mode::tf32x3,
                "float elements on the Hopper kernel multiply as TF32: Math must be math_mode::tf32 or tf32x3");
  static_assert(std::is_same<ElementC, Element>::value || std::is_same<ElementC, float>::value,
                "wgmma_policy writes C as the elements' type or as float");
  static_assert(block_m == 64 || block_m == 128, "block_shape::m must be 64 or 128 (one or two consumer warpgroups)");
  static_assert(block_n == 128 || block_n == 256, "block_shape::n must be 128 or 256 (the wgmma N tgemm wraps)");
  static_assert(!pingpong || (block_m == 64 && !tf32),
                "a ping-pong tile is one consumer's 64 rows (block_shape::m = 64) of 16-bit elements");
  static_assert(!split || block_n == 128,
                "3xTF32 keeps three sets of accumulators: block_shape::n must be 128 (256 needs 384 registers)");
  static_assert(block_k * element_bytes<Element> == 128,
                "block_shape::k must span one 128-byte swizzle row: 64 16-bit elements or 32 floats");
  static_assert(stages >= 2 && stages <= 8, "wgmma_policy needs between 2 and 8 stages");
  static_assert(cluster_m == 1 || cluster_m == 2, "ClusterM must be 1 or 2 (blocks per cluster along m)");
  static_assert(cluster_m == 1 || !split, "3xTF32 tiles do not run in clusters: leave ClusterM 1");
  static_assert(shared_bytes <= 227 * 1024,
                "the policy needs more shared memory than an H100/H200 block gets (227 KiB)");

  /// A readable name such as "wgmma_bf16_b128x256x64_s4_c_f32" (or "wgmma_tf32_..." for float elements; "_pingpong"
  /// and "_cluster2" after the stages where they apply).
  static std::string name() {
    return detail::policy_name("wgmma_%s_b%dx%dx%d_s%d%s%s_c_%s",
                               split ? "tf32x3" : tf32 ? "tf32" : element_traits<Element>::tag, block_m, block_n,
                               block_k, stages, pingpong ? "_pingpong" : "", cluster_m > 1 ? "_cluster2" : "",
                               element_traits<ElementC>::tag);
  }
};

/// The policy whose split-K kernel writes the float partial products of Policy's problems: the same tile, stages
/// and math with a float C (Policy itself when its C is float). void for 3xTF32 (whose plans do not split k) and for
/// a void Policy.
template <class Policy>
struct wgmma_partials {
  /// The partials' policy, or void.
  using type = std::conditional_t<Policy::split, void,
                                  wgmma_policy<block_shape<Policy::block_m, Policy::block_n, Policy::block_k>,
                                               Policy::stages, typename Policy::element_a, float, Policy::math,
                                               false, Policy::cluster_m>>;
};
template <>
struct wgmma_partials<void> {
  /// No policy: no partials.
  using type = void;
};
/// Shorthand for wgmma_partials<Policy>::type.
template <class Policy>
using wgmma_partials_t = typename wgmma_partials<Policy>::type;

}  // namespace tgemm
