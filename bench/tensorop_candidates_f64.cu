// The double (DMMA) tiles timed by tgemm_tensorop_candidates --type f64.
#include "tensorop_candidates.hpp"

namespace tgemm::bench {
namespace {
template <int M, int N, int WM, int WN, int K, int S, int BK = 16, int RasterGroup = 8>
using f64_candidate = tensorop_policy<block_shape<M, N, BK>, warp_shape<WM, WN>, mma_shape<16, 8, K>, S, double, double,
                                      math_mode::strict, RasterGroup>;

/// P compiled for Blocks resident blocks per multiprocessor: `__launch_bounds__` caps its registers at 65536 / (Blocks
/// x threads), so that Blocks blocks fit where P alone holds one (189-245 registers a thread) and one block's barrier
/// waits overlap the other's DMMAs.
template <class P, int Blocks>
struct held_to : P {
  static constexpr int min_blocks_per_sm = Blocks;  ///< See kernel::min_blocks_per_sm.
  /// P's name and the blocks, e.g. "..._c_f64_2blocks".
  static std::string name() { return P::name() + "_" + std::to_string(Blocks) + "blocks"; }
};
}  // namespace

std::vector<contender<double>> f64_candidates() {
  return {
      make<f64_candidate<128, 128, 32, 64, 4, 3>>(),
      make<f64_candidate<128, 128, 32, 64, 4, 4>>(),
      make<f64_candidate<128, 128, 32, 64, 4, 2, 32>>(),
      make<f64_candidate<128, 128, 32, 64, 8, 3>>(),
      make<f64_candidate<128, 128, 64, 32, 4, 4>>(),
      make<f64_candidate<128, 128, 64, 32, 4, 3>>(),
      make<f64_candidate<128, 128, 64, 32, 8, 4>>(),
      // 32-deep slices: one block-wide barrier per 32 of k instead of per 16 (the barriers are exposed with one
      // block a multiprocessor); three stages are 192 KiB.
      make<f64_candidate<128, 128, 32, 64, 4, 3, 32>>(),
      make<f64_candidate<128, 128, 64, 32, 4, 3, 32>>(),
      make<f64_candidate<128, 128, 64, 32, 8, 3, 32>>(),
      make<f64_candidate<256, 64, 64, 32, 4, 3>>(),
      make<f64_candidate<128, 128, 32, 64, 4, 3, 16, 4>>(),
      make<f64_candidate<128, 128, 32, 64, 4, 3, 16, 16>>(),
      make<f64_candidate<128, 64, 32, 32, 8, 4>>(),
      // Three 64 x 64 blocks a multiprocessor: registers capped at 170 a thread (ptxas: 156-168, no spills; with
      // 16 x 8 x 8 steps it spilled 48-120 bytes). Eight warps capped at 128 (two 128 x 64 blocks) spilled 64-328
      // bytes, two blocks of four 64 x 32 warps (255) spilled 60-80.
      make<held_to<f64_candidate<64, 64, 32, 32, 4, 4>, 3>>(),
      make<held_to<f64_candidate<64, 64, 32, 32, 4, 3>, 3>>(),
  };
}

}  // namespace tgemm::bench
