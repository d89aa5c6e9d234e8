// The TF32 and 3xTF32 mma.sync tiles timed by tgemm_tensorop_candidates --type tf32.
#include "tensorop_candidates.hpp"

namespace tgemm::bench {
namespace {
template <int M, int N, int K, int WM, int WN, int S, math_mode Math>
using tf32_candidate =
    tensorop_policy<block_shape<M, N, K>, warp_shape<WM, WN>, mma_shape<16, 8, 8>, S, float, float, Math>;
}  // namespace

std::vector<contender<float>> tf32_candidates() {
  return {
      make<tf32_candidate<128, 128, 16, 64, 32, 4, math_mode::tf32>>(),
      make<tf32_candidate<128, 128, 32, 64, 32, 3, math_mode::tf32>>(),
      make<tf32_candidate<128, 256, 16, 64, 64, 4, math_mode::tf32>>(),
      make<tf32_candidate<256, 128, 16, 64, 64, 4, math_mode::tf32>>(),
      make<tf32_candidate<128, 128, 16, 64, 64, 4, math_mode::tf32>>(),
      make<tf32_candidate<128, 128, 16, 64, 32, 4, math_mode::tf32x3>>(),
      make<tf32_candidate<128, 128, 32, 64, 32, 3, math_mode::tf32x3>>(),
      make<tf32_candidate<128, 64, 16, 32, 32, 4, math_mode::tf32x3>>(),
  };
}

}  // namespace tgemm::bench
