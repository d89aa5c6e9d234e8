// Every policy, every order and op pair, shapes around its tiles, alpha/beta cases: through launch<Policy>. The
// policies' launch<P>() are the reliability paths (test/reliability/paths.hpp): compiled once, in that library, for
// every test executable that sweeps or fuzzes them.
#pragma once

#include "gemm_case.hpp"
#include "paths.hpp"

#include <array>
#include <string>
#include <vector>

namespace tgemm::test {

/// Problem shapes for a block tile: 1, tile - 1, tile, tile + 1, primes, several k slices, and k = 0.
inline std::vector<std::array<int64_t, 3>> sweep_shapes(int64_t bm, int64_t bn, int64_t bk) {
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

/// Runs one policy's launch<P>() (a path of all_paths()) on every case and checks each against the reference.
inline void sweep_policy(const reliability::gemm_path& path) {
  INFO("policy " << path.name << " (" << path.policy_name << ")");
  int cases = 0;
  for (layout order : {layout::col_major, layout::row_major}) {
    for (const auto& ops : op_pairs) {
      for (const auto& shape : sweep_shapes(path.block_m, path.block_n, path.block_k)) {
        for (const auto& ab : alpha_beta_cases) {
          gemm_case c;
          c.order = order;
          c.op_a = ops[0];
          c.op_b = ops[1];
          c.m = shape[0], c.n = shape[1], c.k = shape[2];
          c.alpha = ab[0], c.beta = ab[1];
          // Leading dimensions are multiples of the policy's vector width (as it requires); every other case
          // pads them further.
          c.ld_multiple = path.vector_width;
          if (cases % 2 == 1) c.pad_a = c.pad_b = c.pad_c = 3 * path.vector_width;
          run_and_check(c, [&](const float* a, const float* b, float* cc) {
            return path.run(c.order, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, a, c.lda(), b, c.ldb(), c.beta, cc,
                            c.ldc(), nullptr);
          });
          ++cases;
        }
      }
    }
  }
  SUCCEED(cases << " cases checked for " << path.name);
}

/// The policy paths (not the dispatcher) whose names contain `tag` ("seed::") or, with `exclude`, do not.
inline std::vector<reliability::gemm_path> policy_paths(const std::string& tag, bool exclude) {
  std::vector<reliability::gemm_path> out;
  for (const reliability::gemm_path& path : reliability::all_paths()) {
    if (path.dispatcher) continue;
    if ((path.name.find(tag) != std::string::npos) != exclude) out.push_back(path);
  }
  return out;
}

}  // namespace tgemm::test
