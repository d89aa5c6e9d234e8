/// \file policy/tensorop_policy.cuh
/// \brief tensorop_policy: the numbers of a tensor-core GEMM kernel (mainloop::tensorop_multistage), each
/// constraint checked with a plain message.
#pragma once

#include <string>
#include <type_traits>

#include "../numeric.cuh"
#include "../types.cuh"
#include "mainloop_tags.cuh"
#include "policy_name.cuh"
#include "shapes.cuh"

namespace tgemm {

namespace detail {
/// Rows of a swizzled shared-memory tile span 2, 4 or a multiple of 8 chunks of 16 bytes.
constexpr bool is_swizzle_row(int chunks) { return chunks == 2 || chunks == 4 || (chunks > 0 && chunks % 8 == 0); }
}  // namespace detail

/// A tensor-core policy: blocks of warps, each warp a grid of mma.sync tiles (mainloop::tensorop_multistage).
///
/// \tparam Block        block_shape<m, n, k>: the C tile of a thread block and the k depth of one stage.
/// \tparam Warp         warp_shape<m, n>: the C tile of one warp, a grid of Instruction tiles.
/// \tparam Instruction  mma_shape<m, n, k> of the instruction: mma_shape<16, 8, 16> for __half and __nv_bfloat16,
///                      mma_shape<16, 8, 8> for float (TF32), mma_shape<16, 8, 4>, <16, 8, 8> or <16, 8, 16> for
///                      double (DMMA; sm_80 runs each as m8n8k4 instructions, see arch/dmma.cuh).
/// \tparam Stages       shared-memory stages of the cp.async pipeline (at least 2).
/// \tparam Element      the element type of A and B: __half, __nv_bfloat16, float (with Math tf32 or tf32x3) or
///                      double.
/// \tparam ElementC     the element type of C: Element, or float for 16-bit elements. alpha and beta are float and
///                      products are summed in float; for double, everything is double.
/// \tparam Math         for float elements: math_mode::tf32 (inputs rounded to TF32) or math_mode::tf32x3 (three
///                      TF32 products, close to FP32 accuracy); 16-bit elements leave it strict.
/// \tparam RasterGroup  block rows launched together so that neighbouring blocks share operand tiles in L2.
template <class Block, class Warp, class Instruction, int Stages, class Element, class ElementC = Element,
          math_mode Math = math_mode::strict, int RasterGroup = 8>
struct tensorop_policy {
  /// The mainloop this policy drives.
  using mainloop_tag = mainloop::tensorop_multistage<Stages>;
  using element_a = Element;      ///< The element type of A.
  using element_b = Element;      ///< The element type of B.
  using element_c = ElementC;     ///< The element type of C.
  /// True for double elements (DMMA instructions).
  static constexpr bool is_f64 = std::is_same<Element, double>::value;
  /// The type of alpha and beta: double for double elements, float otherwise.
  using scalar_type = std::conditional_t<is_f64, double, float>;
  /// The type the tensor cores sum the products in: double for double elements, float otherwise.
  using accumulator_type = scalar_type;
  /// The instruction's tile.
  using instruction = Instruction;

  static constexpr int block_m = Block::m;  ///< Rows of C per thread block.
  static constexpr int block_n = Block::n;  ///< Columns of C per thread block.
  static constexpr int block_k = Block::k;  ///< Depth of the k slice one pipeline stage holds.
  static constexpr int warp_m = Warp::m;    ///< Rows of C per warp.
  static constexpr int warp_n = Warp::n;    ///< Columns of C per warp.
  static constexpr int stages = Stages;     ///< Shared-memory stages of the k pipeline.
  static constexpr int raster_group = RasterGroup;  ///< Block rows launched together (see policy::raster_group).
  static constexpr math_mode math = Math;           ///< How float products are computed (tf32 or tf32x3).
  /// The oldest GPU architecture (as `__CUDA_ARCH__`) with the instructions: mma.sync m16n8k16 / m16n8k8, and
  /// m8n8k4 for double (sm_80).
  static constexpr int minimum_arch = 800;

  /// True for float elements (TF32 instructions), false for 16-bit ones.
  static constexpr bool is_tf32 = std::is_same<Element, float>::value;
  static_assert(std::is_same<Element, __half>::value || std::is_same<Element, __nv_bfloat16>::value || is_tf32 ||
                    is_f64,
                "tensorop_policy multiplies __half, __nv_bfloat16, float (TF32) or double elements");
  static_assert(std::is_same<ElementC, Element>::value || (std::is_same<ElementC, float>::value && !is_f64),
                "tensorop_policy writes C as the element type of A and B, or as float (16-bit elements only)");
  static_assert(is_tf32 || Math == math_mode::strict, "16-bit elements have one math: leave Math strict");
  static_assert(!is_tf32 || Math == math_mode::tf32 || Math == math_mode::tf32x3,
                "float elements on the tensor cores need Math = math_mode::tf32 or math_mode::tf32x3");
  static_assert(is_tf32 || is_f64 || (Instruction::m == 16 && Instruction::n == 8 && Instruction::k == 16),
                "16-bit elements use the mma_shape<16, 8, 16> instruction");
  static_assert(!is_f64 || (Instruction::m == 16 && Instruction::n == 8 &&
                            (Instruction::k == 4 || Instruction::k == 8 || Instruction::k == 16)),
                "double uses the mma_shape<16, 8, 4>, <16, 8, 8> or <16, 8, 16> instruction");
  static_assert(!is_tf32 || (Instruction::m == 16 && Instruction::n == 8 && Instruction::k == 8),
                "TF32 uses the mma_shape<16, 8, 8> instruction");
  static_assert(block_m > 0 && block_n > 0 && block_k > 0, "block_shape: every extent must be positive");
  static_assert(block_m % warp_m == 0, "block_shape::m must be a multiple of warp_shape::m");
  static_assert(block_n % warp_n == 0, "block_shape::n must be a multiple of warp_shape::n");
  static_assert(warp_m % Instruction::m == 0, "warp_shape::m must be a multiple of the instruction's m (16)");
  static_assert(warp_n % (2 * Instruction::n) == 0,
                "warp_shape::n must be a multiple of 16: ldmatrix reads B for two instruction tiles at once");
  static_assert(block_k % Instruction::k == 0, "block_shape::k must be a multiple of the instruction's k");
  /// Elements per 16-byte chunk of shared memory (and per cp.async).
  static constexpr int chunk_elements = 16 / element_bytes<Element>;
  static_assert(detail::is_swizzle_row(block_m / chunk_elements) && detail::is_swizzle_row(block_n / chunk_elements) &&
                    detail::is_swizzle_row(block_k / chunk_elements),
                "every block_shape extent must span 2, 4 or a multiple of 8 chunks of 16 bytes (the swizzled rows "
                "of shared memory): for 16-bit elements 16, 32 or a multiple of 64; for float 8, 16 or a multiple "
                "of 32");
  static_assert(!is_tf32 || (block_m / chunk_elements >= 8 && block_n / chunk_elements >= 8),
                "TF32 tiles read along m or n need rows of at least 128 bytes: block_shape::m and ::n at least 32");
  static_assert(!is_f64 || (block_m % 16 == 0 && block_n % 16 == 0 && block_k % 16 == 0),
                "double tiles need rows of a multiple of 128 bytes in every orientation: every block_shape extent "
                "a multiple of 16");
  static_assert(stages >= 2 && stages <= 8, "tensorop_policy needs between 2 and 8 stages");
  static_assert(raster_group >= 1, "raster_group must be positive");

  /// Instruction tiles of a warp along m.
  static constexpr int warp_tiles_m = warp_m / Instruction::m;
  /// Instruction tiles of a warp along n.
  static constexpr int warp_tiles_n = warp_n / Instruction::n;
  /// Warps of a block along m.
  static constexpr int warps_m = block_m / warp_m;
  /// Warps of a block along n.
  static constexpr int warps_n = block_n / warp_n;
  /// Threads per block: launch with a one-dimensional block of this size.
  static constexpr int threads = warps_m * warps_n * 32;
  static_assert(threads <= 1024, "a block may hold at most 1024 threads");

  /// Each thread's accumulators, seen as a register tile for the epilogue: two rows (g and g + 8) per instruction
  /// tile along m, two columns (2t and 2t + 1) per instruction tile along n.
  static constexpr int thread_m = 2 * warp_tiles_m;
  /// See thread_m.
  static constexpr int thread_n = 2 * warp_tiles_n;
  /// Elements per 16-byte copy of A or B: pointers and leading dimensions must be multiples of it.
  static constexpr int vector_width = 16 / element_bytes<Element>;
  /// The epilogue writes element by element (a thread's two rows are 8 apart).
  static constexpr int store_width = 1;
  static_assert((block_m * block_k) % (threads * vector_width) == 0,
                "the A tile (block_m x block_k) must split evenly into 16-byte copies, one per thread per step");
  static_assert((block_n * block_k) % (threads * vector_width) == 0,
                "the B tile (block_n x block_k) must split evenly into 16-byte copies, one per thread per step");

  /// Shared memory one block needs: every stage holds an A slice and a B slice (swizzled, not padded).
  static constexpr int shared_bytes = stages * block_k * (block_m + block_n) * element_bytes<Element>;
  static_assert(shared_bytes <= 227 * 1024, "the policy needs more shared memory than any GPU gives a block (227 KiB)");

  /// A readable name such as "tensorop_bf16_b128x256x32_w64x64_i16x8x16_s4_c_bf16" ("tensorop_tf32x3_..." for
  /// float elements).
  static std::string name() {
    return detail::policy_name("tensorop_%s_b%dx%dx%d_w%dx%d_i%dx%dx%d_s%d_c_%s",
                               is_tf32 ? to_string(Math) : element_traits<Element>::tag, block_m, block_n, block_k,
                               warp_m, warp_n, Instruction::m, Instruction::n, Instruction::k, stages,
                               element_traits<ElementC>::tag);
  }
};

}  // namespace tgemm
