// The double (DMMA) tiles timed by tgemm_tensorop_candidates --type f64.
#include "tensorop_candidates.hpp"

namespace tgemm::bench {
namespace {
template <int M, int N, int WM, int WN, int K, int S, int BK = 16, int RasterGroup = 8>
using f64_candidate = tensorop_policy<block_shape<M, N, BK>, warp_shape<WM, WN>, mma_shape<16, 8, K>, S, double, double,
                                      math_mode::strict, RasterGroup>;
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
  };
}

}  // namespace tgemm::bench
