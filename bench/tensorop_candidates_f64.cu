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
      make<f64_candidate<256, 64, 64, 32, 4, 3>>(),
      make<f64_candidate<128, 128, 32, 64, 4, 3, 16, 4>>(),
      make<f64_candidate<128, 128, 32, 64, 4, 3, 16, 16>>(),
      make<f64_candidate<128, 64, 32, 32, 8, 4>>(),
      // Two or three blocks a multiprocessor (eight warps capped at 128 registers a thread, four at 255 or 170).
      make<held_to<f64_candidate<128, 64, 32, 32, 4, 4>, 2>>(),
      make<held_to<f64_candidate<128, 64, 32, 32, 8, 4>, 2>>(),
      make<held_to<f64_candidate<64, 64, 32, 32, 4, 4>, 2>>(),
      make<held_to<f64_candidate<64, 64, 32, 32, 4, 4>, 3>>(),
      make<held_to<f64_candidate<128, 64, 64, 32, 4, 4>, 2>>(),
  };
}

}  // namespace tgemm::bench
