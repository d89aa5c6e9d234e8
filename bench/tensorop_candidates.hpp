// The tuning candidates' common parts: a contender (a name and a function that runs one n^3 col-major product) and
// make<Policy>(), which wraps tgemm::launch<Policy>. Each element family's list lives in a translation unit of its own
// (tensorop_candidates_{bf16,tf32,f64}.cu) so that a parallel build compiles their kernels side by side.
#pragma once

#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tgemm::bench {

/// One timed entry: its name and a function that computes C = A B for n x n x n col-major operands.
template <class Element>
struct contender {
  std::string name;
  tgemm::status (*run)(int64_t, const Element*, const Element*, Element*);
};

template <class P>
tgemm::status run_policy(int64_t n, const typename P::element_a* a, const typename P::element_a* b,
                         typename P::element_a* c) {
  return tgemm::launch<P>(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, n, n, n, 1.0f, a, n, b, n, 0.0f,
                          c, n);
}

/// Policy P as a contender named P::name().
template <class P>
contender<typename P::element_a> make() {
  return {P::name(), &run_policy<P>};
}

/// The candidate policies of each family (bf16 mma.sync tiles; TF32 and 3xTF32 tiles; double DMMA tiles).
std::vector<contender<__nv_bfloat16>> bf16_candidates();
std::vector<contender<float>> tf32_candidates();
std::vector<contender<double>> f64_candidates();

}  // namespace tgemm::bench
