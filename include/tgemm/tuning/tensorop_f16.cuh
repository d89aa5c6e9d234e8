/// \file tuning/tensorop_f16.cuh
/// \brief The tuning table for __half and __nv_bfloat16 on the tensor cores (mma.sync, sm_80 and newer): one entry
/// per architecture, every number the dispatcher uses for these types.
///
/// The table is a template over the element types (A and B, and C: the same 16-bit type or float); the entries
/// form a chain like the float table's (tuning/simt_f32.cuh), read by the same selector.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../policy/tensorop_policy.cuh"
#include "../policy/wgmma_policy.cuh"
#include "simt_f32.cuh"

namespace tgemm::tuning {

/// The dispatcher's thresholds for 16-bit tensor-core GEMMs (those not listed are simt_f32_thresholds').
template <class ElementC>
struct tensorop_f16_thresholds : simt_f32_thresholds {
  /// Misaligned operands are always repacked: the tensor-core kernels copy 16 bytes at a time and have no scalar
  /// variant (so the `unaligned` slot is never chosen).
  static constexpr double pack_min_flops = 0;
  /// No layout repacking: every op(A) op(B) combination streams in with cp.async (ldmatrix transposes).
  static constexpr double layout_pack_flops = 1e300;
  /// A misaligned operand keeps its layout and is only realigned (a straight copy with 16-byte stores): on an H200
  /// the transposing repack moved 4095^3 bf16's two operands at about 0.35 TB/s (0.38 ms of its 0.70).
  static constexpr bool pack_keeps_layout = true;
  /// Split-K partial products are float for every C: a 16-bit C's split steps run the float-C entry's kernels
  /// (`partials_entry`) and the reduction rounds once, into C.
  static constexpr int64_t max_partials_bytes = int64_t(512) << 20;
  /// A 16-bit C splits k on thin problems only (at most narrow_extent rows or columns). On an H200 (bf16 and fp16,
  /// tgemm_bench_tensorop --set thin, paired with the unsplit plans) thin products ran 1.7-3.0x faster split, from
  /// 1 x 8192 x 8192 to 32 x 8192 x 8192; the medium tile split four ways lost: 1024^3 0.80x, 512^3 0.84x (1000^3
  /// 1.07x), its float partials' round trip costing more than the fuller GPU gains.
  static constexpr bool float_partials_thin_only = true;
  /// Ragged edges are not peeled off: the strips would run as extra thin problems, while the large tile covers them
  /// reading zeros beyond the edge; a repacked operand's padding makes that free. (4097^3 bf16 in one pass: 33 x 17
  /// tiles, 5 waves instead of 4, plus two packs.)
  static constexpr double peel_speed = 0;
  /// The tensor-core epilogue stores element by element, so C is never staged.
  static constexpr int64_t staged_c_min_elements = INT64_MAX;
  /// No padded twins of the general kernels: the tensor-core mainloop takes its readable extents at run time, so
  /// the plain kernel serves a padded step too (it reads only up to m and n, zero-filling the rest).
  static constexpr bool padded_kernels = false;
};

/// The float-C twin of a 16-bit-C entry, `Entry<Element, float>`, whose kernels write split-K partials as float;
/// void when C is float already.
template <template <class, class> class Entry, class Element, class ElementC>
using float_partials_entry_for = std::conditional_t<std::is_same<ElementC, float>::value, void, Entry<Element, float>>;

/// The large tile: 128 x 256 x 32, eight warps of 64 x 64 (4 x 8 instruction tiles of m16n8k16).
template <int Stages, class Element, class ElementC>
using tensorop_f16_large_policy =
    tensorop_policy<block_shape<128, 256, 32>, warp_shape<64, 64>, mma_shape<16, 8, 16>, Stages, Element, ElementC>;

/// The medium tile: 128 x 128 x 64, eight warps of 64 x 32, three stages (96 KiB).
template <class Element, class ElementC>
using tensorop_f16_medium_policy =
    tensorop_policy<block_shape<128, 128, 64>, warp_shape<64, 32>, mma_shape<16, 8, 16>, 3, Element, ElementC>;

/// A 64 x 64 tile, four warps of 32 x 32, for small problems.
template <class Element, class ElementC>
using tensorop_f16_small_policy =
    tensorop_policy<block_shape<64, 64, 32>, warp_shape<32, 32>, mma_shape<16, 8, 16>, 4, Element, ElementC>;

/// The tile of thin problems (at most narrow_extent rows): 16 x 128 x 128, four warps of 16 x 32, three stages
/// (108 KiB). A thin product streams B once and does little else, so the tile wastes no tensor-core work on rows
/// that do not exist and reads k in deep slices: measured on an H200 (bf16, tgemm_bench_tensorop --set thin, split
/// k with float partials on both sides; bench/results/h200-thin-tiles.txt) against the 64 x 64 small tile:
/// 16 x 8192 x 8192 1.42x (0.97x cuBLAS), 1 x and 8 x 8192 x 8192 1.66x and 1.42x, 16 x 4096 x 4096 1.23x;
/// 32 x 8192 x 8192 (two rows of tiles) 1.30x, where a separate 32 x 128 x 64 tile in four stages gave 1.38x but
/// would add a kernel per op pair and C type. 64-deep slices (four stages, 1.35x) and a 16 x 256 x 64 tile (1.36x)
/// were slower at 16 x 8192 x 8192.
template <class Element, class ElementC>
using tensorop_f16_thin_m_policy =
    tensorop_policy<block_shape<16, 128, 128>, warp_shape<16, 32>, mma_shape<16, 8, 16>, 3, Element, ElementC>;

/// The tile of problems with at most narrow_extent columns: tensorop_f16_thin_m_policy transposed (128 x 16 x 128,
/// four warps of 32 x 16). 8192 x 16 x 8192 bf16 on an H200: 1.28x the small tile (0.89x cuBLAS).
template <class Element, class ElementC>
using tensorop_f16_thin_n_policy =
    tensorop_policy<block_shape<128, 16, 128>, warp_shape<32, 16>, mma_shape<16, 8, 16>, 3, Element, ElementC>;

/// A 32 x 32 x 32 tile in one warp, two stages (8 KiB), for batches of products that one or two such tiles cover,
/// run in one grid. Measured on an H200 (bf16, GPU time of device::gemm() launched once per tile, queued launches,
/// median of 40; scratch probe, NN, tight strides), ms: 4096 x 32^3 0.0157 against 0.0276 for the small tile (cuBLAS
/// 0.0199), 16384 x 32^3 0.0415 against 0.0925 (cuBLAS 0.0582), 8192 x 16^3 0.0239 (cuBLAS 0.0313), 2048 x (32, 64,
/// 48) 0.0202 against 0.0223 (two tiles a product). 64 x 64 products keep the small tile (1024 x 64^3: 0.0185 on four
/// of these against 0.0150). 64-deep slices were slower (0.0199, 0.0624, 0.0308), and so were 24 blocks a
/// multiprocessor forced by the launch bounds (0.0260, 0.0777: 85 registers). Three stages helped the probe where k
/// spans two slices (0.0172 at 2048 x (32, 64, 48)), untried through tgemm's own kernels.
template <class Element, class ElementC>
using tensorop_f16_products_policy =
    tensorop_policy<block_shape<32, 32, 32>, warp_shape<32, 32>, mma_shape<16, 8, 16>, 2, Element, ElementC>;

/// Ampere A100 (sm_80): 164 KiB of shared memory per SM.
template <class Element, class ElementC>
struct tensorop_f16_sm80 : tensorop_f16_thresholds<ElementC> {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 800;
  /// No older entry: the end of the chain (older GPUs lack the instruction; the host refuses them).
  using previous = void;
  /// Large problems: 128 x 256 tiles, eight warps, three stages.
  using general = tensorop_f16_large_policy<3, Element, ElementC>;
  using general_tn = general;  ///< Every op pair loads alike: the same tile.
  using general_tt = general;  ///< Every op pair loads alike: the same tile.
  /// Problems whose large tiles would leave multiprocessors idle: 128 x 128.
  using medium = tensorop_f16_medium_policy<Element, ElementC>;
  /// Problems too small to fill the GPU with the larger tiles.
  using small = tensorop_f16_small_policy<Element, ElementC>;
  /// Problems with at most narrow_extent rows: the 16-row tile.
  using narrow_m = tensorop_f16_thin_m_policy<Element, ElementC>;
  /// Problems with at most narrow_extent columns: the 16-column tile.
  using narrow_n = tensorop_f16_thin_n_policy<Element, ElementC>;
  using tiny_m = narrow_m;  ///< The same tile: one kernel per op pair serves every thin row count.
  using tiny_n = narrow_n;  ///< The same tile: one kernel per op pair serves every thin column count.
  using unaligned = small;  ///< Never chosen (misaligned operands are repacked); the same kernel, so none extra.
  /// Batches of small products: the small tile (not measured apart on this architecture; the planner then keeps to
  /// its other rules, since the products tile is no smaller than the small one).
  using products = small;
  /// The entry whose kernels write a split step's float partials (void: C is float, the partials are C's type).
  using partials_entry = float_partials_entry_for<tensorop_f16_sm80, Element, ElementC>;
};

/// Hopper (sm_90): 228 KiB of shared memory per SM: the large tile gets four stages. Measured on an H200 (bf16,
/// 8192^3, tgemm_tensorop_candidates): 128 x 256 x 32 in four stages 472 TFLOP/s, three stages 467, 256 x 128 x 32
/// 462, 128 x 128 x 32 (four warps of 64 x 64) 428, 128 x 128 x 64 (eight warps of 64 x 32) 423; 64-deep slices
/// of the 64 x 64 warp tiles spill registers.
template <class Element, class ElementC>
struct tensorop_f16_sm90 : tensorop_f16_sm80<Element, ElementC> {
  /// The first architecture (as `__CUDA_ARCH__`) this entry is tuned for.
  static constexpr int arch = 900;
  /// The next older entry of the chain.
  using previous = tensorop_f16_sm80<Element, ElementC>;
  /// Large problems: 128 x 256 tiles, eight warps, four stages.
  using general = tensorop_f16_large_policy<4, Element, ElementC>;
  using general_tn = general;  ///< Every op pair loads alike: the same tile.
  using general_tt = general;  ///< Every op pair loads alike: the same tile.
  /// On an sm_90a image: TMA + wgmma, 128 x 256 x 64 tiles in four stages, every layout (bf16 on an H200,
  /// tgemm_bench_hopper: 720 TFLOP/s at 4096^3 against 434-446 for the mma.sync tile above; see
  /// bench/results/h200-hopper-first.md).
  using wgmma = wgmma_policy<block_shape<128, 256, 64>, 4, Element, ElementC>;
  /// Problems too small to fill the GPU with those tiles: 64 x 128 x 64 tiles (one consumer warpgroup) in eight
  /// stages, unsplit (see simt_f32_thresholds::wgmma_small). Alone, not in clusters of two (ClusterM = 2, B
  /// multicast): pairs ran 4-23 % slower on an H100 (3 % faster at 8192^3 only), 128 x 4096 x 4096 203 -> 166
  /// TFLOP/s (docs/performance.md).
  using wgmma_small = wgmma_policy<block_shape<64, 128, 64>, 8, Element, ElementC>;
  /// With a fused epilogue: ping-pong consumers on 64 x 256 tiles (one's epilogue runs while the other's wgmmas do),
  /// where the cooperative 128 x 256 tile leaves the tensor cores idle through its epilogue. On an H200
  /// (bench/pingpong_probe.cu launching both kernels, bf16 NN, bias + GELU, two runs, bit-identical results;
  /// docs/performance.md, fused epilogues), ms cooperative -> ping-pong: 2048^3 0.0388 -> 0.0344, 0.0390 -> 0.0349;
  /// 8192^3 1.7556 -> 1.7308, 1.7597 -> 1.7412; 16384 x 4096 x 1024 0.2814 -> 0.2282, 0.2860 -> 0.2454; 4096^3 level
  /// (0.1945 -> 0.1949, 0.2017 -> 0.2013). Without an epilogue to hide, the cooperative tile stays ahead (4096^3 plain 0.94-0.95x:
  /// 64-row tiles copy 1.67 times the bytes per product), so plain calls keep wgmma. 128 x 128 ping-pong tiles (two
  /// m64n128 per k step) were slower than both (4096^3 fused 0.93-0.96x of the cooperative).
  using wgmma_fused = wgmma_policy<block_shape<64, 256, 64>, 4, Element, ElementC, math_mode::strict, true>;
  /// See simt_f32_thresholds::wgmma_fused_pingpong_max_k. Fused calls deeper than 2048 run the cooperative tile's
  /// fused kernel: with the epilogue's one multiply-add a value it no longer needs the ping-pong tile to hide its
  /// stores there, and it copies fewer bytes per product. Paired on an H100 (bench/pingpong_probe.cu, kernels of
  /// ec72474, bias + GELU; bench/results/h100-issue15-ec72474.txt), cooperative / ping-pong 64 x 256 in 4 stages:
  /// 4096^3 0.1892 / 0.1986 ms, 8192^3 1.7233 / 1.7283; at 2048^3 the ping-pong tile leads (0.0358 / 0.0328) and at
  /// 16384 x 4096 x 1024 they are level (0.2339 / 0.2318). Its eight kernels cost a fused 16-bit translation unit
  /// about 40 s of compiling (cmake/tgemm_compiled_fused_bfloat16.cu, sm_90a: 72 -> 114 s).
  static constexpr int64_t wgmma_fused_pingpong_max_k = 2048;
  /// A float C is written four bytes an element, without TMA stores, at the end of each small tile: with k = 4096
  /// the split large tile stayed ahead (H200, bf16 -> float: 256 x 2048 x 4096 0.0233 ms against 0.0256 unsplit, 64
  /// x 4096 x 4096 0.0255 against 0.0259; bench/results/h200-hopper-few-tiles.txt), so float C stops at 2048.
  static constexpr int64_t wgmma_small_max_k = std::is_same<ElementC, float>::value ? 2048 : 4096;
  /// Split k on the small tile rather than the large one (simt_f32_thresholds::wgmma_split_small). On an H200 (scratch
  /// probe, tgemm_bench_tensorop --set few_tiles, two builds paired in one device call, two rounds; raw output in
  /// bench/results/h200-device-groups-small-split-experiment.txt), ms with the large tile split -> the small one:
  /// bf16 128 x 4096 x 8192 0.0389, 0.0394 -> 0.0337, 0.0329; 512 x 1024 x 8192 0.0274, 0.0278 -> 0.0266, 0.0267;
  /// bf16 -> float (split from k = 4096 on) 128 x 4096 x 4096 0.0278, 0.0276 -> 0.0230, 0.0244; 256 x 2048 x 4096
  /// 0.0240, 0.0245 -> 0.0211, 0.0212; 64 x 4096 x 4096 0.0252, 0.0261 -> 0.0219, 0.0215; 256 x 256 x 8192 0.0209,
  /// 0.0188 -> 0.0159, 0.0148. Splitting the small tile where it runs unsplit lost (bf16 128 x 4096 x 4096 0.0191,
  /// 0.0188 -> 0.0232, 0.0228): those products keep it unsplit.
  static constexpr bool wgmma_split_small = true;
  /// Batches whose products fill at least twice as much of the small tile as of the large one take the small tile
  /// (simt_f32_thresholds::wgmma_batch_small). On an H200 (bench/results/h200-strided-batched-tma-store.txt: a probe
  /// launching the kernels directly, bf16, NN, tight strides, beta = 0, queued launches, medians of 30, two rounds),
  /// ms on the large tile (or, where it is under half used, on the plan before: the small mma.sync tile) -> the small
  /// one: 256 x 128^3 0.0142, 0.0140 -> 0.0129, 0.0129; 512 x (128, 128, 64) 0.0161, 0.0162 -> 0.0156, 0.0157; 96 x
  /// (64, 512, 512) 0.0249, 0.0250 -> 0.0223, 0.0216; 128 x (64, 1024, 256) 0.0305, 0.0300 -> 0.0289, 0.0286; 96 x
  /// (512, 64, 512) on the mma.sync tile 0.0263, 0.0260 -> 0.0239, 0.0237; 192 x (512, 64, 256) 0.0280, 0.0279 ->
  /// 0.0243, 0.0241. Even for 64 x 64 products (1024 x 64^3: 0.0144 on the mma.sync tile, 0.0143 on the small one),
  /// which keep the mma.sync tile; the others keep the large one (64 x 256^3 0.0134 against 0.0130-0.0132; 16 x
  /// 1024^3 0.0523 against 0.0674). Measured with a 16-bit C only: a float C keeps the large tile.
  static constexpr bool wgmma_batch_small = !std::is_same<ElementC, float>::value;
  /// Batches of 128-wide products (simt_f32_thresholds::wgmma_batch): 128 x 128 tiles, two consumer warpgroups, four
  /// stages, for a 16-bit C. On an H200 (bench/results/h200-strided-batched-tma-store.txt, section 1: the kernels
  /// launched directly, bf16 NN, medians of 30, two rounds), ms on the tile the plan took -> 128 x 128: 512 x (128,
  /// 128, 64) 0.0156, 0.0157 (64 x 128) -> 0.0141, 0.0141; 64 x 256^3 0.0134, 0.0134 (128 x 256) -> 0.0128, 0.0129;
  /// 256 x 128^3 0.0129, 0.0129 (64 x 128) -> 0.0130, 0.0130; 96 x (512, 64, 512) 0.0237-0.0239 (64 x 128) ->
  /// 0.0216-0.0218 (docs/performance.md, strided batches). Where the large tiles already make more than a wave, or
  /// k is deep, the large tile stayed ahead: 96 x (512, 512, 64) 0.0206-0.0213 against 0.0227-0.0230, 256 x (256,
  /// 256, 64) 0.0174 against 0.0186-0.0187, 8 x 2048^3 0.1845-0.1853 against 0.1972-0.1975.
  using wgmma_batch = std::conditional_t<std::is_same<ElementC, float>::value, void,
                                         wgmma_policy<block_shape<128, 128, 64>, 4, Element, ElementC>>;
  /// See wgmma_batch: 64 x 256^3 (k = 256) took it with the large tiles under a wave, 8 x 2048^3 did not.
  static constexpr int64_t wgmma_batch_tile_max_k = 512;
  /// Batches of products of at most 32 x 64 (or 64 x 32): tensorop_f16_products_policy, a warp a tile.
  using products = tensorop_f16_products_policy<Element, ElementC>;
  /// The entry whose kernels write a split step's float partials (void: C is float, the partials are C's type).
  using partials_entry = float_partials_entry_for<tensorop_f16_sm90, Element, ElementC>;
};

/// The newest entry of the 16-bit table for A and B of type Element and C of type ElementC.
template <class Element, class ElementC>
using tensorop_f16 = tensorop_f16_sm90<Element, ElementC>;

}  // namespace tgemm::tuning
