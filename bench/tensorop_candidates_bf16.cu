// The bf16 mma.sync tiles timed by tgemm_tensorop_candidates (the default --type).
#include "tensorop_candidates.hpp"

namespace tgemm::bench {
namespace {
template <int M, int N, int K, int WM, int WN, int S>
using candidate = tensorop_policy<block_shape<M, N, K>, warp_shape<WM, WN>, mma_shape<16, 8, 16>, S, __nv_bfloat16>;
}  // namespace

std::vector<contender<__nv_bfloat16>> bf16_candidates() {
  return {
      make<candidate<128, 256, 32, 64, 64, 4>>(),
      make<candidate<128, 256, 32, 64, 64, 3>>(),
      make<candidate<256, 128, 32, 64, 64, 4>>(),
      make<candidate<256, 128, 32, 64, 64, 3>>(),
      make<candidate<128, 128, 32, 64, 64, 4>>(),
      make<candidate<128, 128, 64, 64, 32, 3>>(),
      make<candidate<128, 128, 32, 64, 32, 4>>(),
      make<candidate<64, 64, 32, 32, 32, 4>>(),
  };
}

}  // namespace tgemm::bench
