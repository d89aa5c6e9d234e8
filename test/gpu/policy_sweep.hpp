// Every policy, every order and op pair, shapes around its tiles, alpha/beta cases: through launch<Policy>.
#pragma once

#include "gemm_case.hpp"

#include <array>
#include <tuple>
#include <type_traits>

namespace tgemm::test {

/// Policies that only the tests use: corners of the policy space the defaults do not cover.
using double_accumulator = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 2, 2, 4, double>;
using deep_pipeline = policy<block_shape<64, 128, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 2, 4, 4>;
using narrow_fragments = policy<block_shape<32, 32, 16>, warp_shape<16, 8>, thread_shape<2, 2>, 2, 2, 4>;

/// The k depth a policy steps by (the naive kernel has none: use 16).
template <class Policy>
constexpr int64_t k_step() {
  if constexpr (std::is_same<typename Policy::mainloop_tag, mainloop::naive>::value) {
    return 16;
  } else {
    return Policy::block_k;
  }
}

/// Problem shapes for a policy: 1, tile - 1, tile, tile + 1, primes, several k slices, and k = 0.
template <class Policy>
std::vector<std::array<int64_t, 3>> sweep_shapes() {
  constexpr int64_t bm = Policy::block_m, bn = Policy::block_n;
  constexpr int64_t bk = k_step<Policy>();
  return {
      {1, 1, 1},
      {bm, bn, bk},
      {bm - 1, bn + 1, bk + 1},
      {bm + 1, bn - 1, bk - 1 > 0 ? bk - 1 : 1},
      {2 * bm + 3, bn + 5, 5 * bk + 3},
      {1, 2 * bn + 1, 37},
      {2 * bm - 1, 1, 53},
      {97, 61, 131},
      {bm + 1, bn + 1, 0},
      {7, 3, 2},
  };
}

/// (alpha, beta) pairs: beta = 0 runs on NaN-filled C; alpha = 0 must not need A or B.
inline const float alpha_beta_cases[][2] = {{1.0f, 0.0f}, {-1.5f, 0.75f}, {0.0f, -2.0f}, {0.5f, 1.0f}};

template <class Policy>
void sweep_policy() {
  INFO("policy " << Policy::name());
  int cases = 0;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : sweep_shapes<Policy>()) {
        for (const auto& ab : alpha_beta_cases) {
          gemm_case c;
          c.order = order;
          c.op_a = ops[0];
          c.op_b = ops[1];
          c.m = shape[0], c.n = shape[1], c.k = shape[2];
          c.alpha = ab[0], c.beta = ab[1];
          // Leading dimensions are multiples of the policy's vector width (as it requires); every other case
          // pads them further.
          c.ld_multiple = Policy::vector_width;
          if (cases % 2 == 1) c.pad_a = c.pad_b = c.pad_c = 3 * Policy::vector_width;
          run_and_check(c, [&](const float* a, const float* b, float* cc) {
            return launch<Policy>(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(), c.beta, cc,
                                  c.ldc());
          });
          ++cases;
        }
      }
    }
  }
  SUCCEED(cases << " cases checked for " << Policy::name());
}

}  // namespace tgemm::test
