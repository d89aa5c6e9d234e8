// Compile-only: the dispatcher and every per-architecture default policy built for the architectures the
// default build (80;90a) does not cover: sm_75 and sm_86 (whose entry sm_89 GPUs use too). Nothing runs; it proves
// each arch's device code compiles with the policy that arch's dispatch selects.
#include <tgemm/gemm.cuh>

#include <cstdio>

int main() {
  // Referencing the launchers instantiates every dispatch and policy kernel for every op pair.
  using blas_gemm = tgemm::status (*)(tgemm::layout, tgemm::op, tgemm::op, int64_t, int64_t, int64_t, float,
                                      const float*, int64_t, const float*, int64_t, float, float*, int64_t,
                                      cudaStream_t);
  blas_gemm dispatch = &tgemm::gemm;
  auto sm75 = &tgemm::launch<tgemm::tuning::sm75::general>;
  auto sm86 = &tgemm::launch<tgemm::tuning::sm86::unaligned>;
  std::printf("%p %p %p %s\n", reinterpret_cast<void*>(dispatch), reinterpret_cast<void*>(sm75),
              reinterpret_cast<void*>(sm86), tgemm::compiled_architectures().c_str());
  return 0;
}
