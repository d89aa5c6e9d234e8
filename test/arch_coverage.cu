// Compile-only: the dispatcher and its sm86 policies built for sm_86 (whose entry sm_89 GPUs use too), which the
// default build (80;90a) does not cover. Nothing runs; it proves that architecture's device code compiles with the
// policies its dispatch selects. sm_75's is compiled by tgemm_reliability_arch_not_compiled (header-only, 75-real:
// the same dispatcher for sm_75), so it is not compiled twice.
#include <tgemm/gemm.cuh>

#include <cstdio>

int main() {
  // Referencing the launchers instantiates every dispatch and policy kernel for every op pair.
  using blas_gemm = tgemm::status (*)(tgemm::layout, tgemm::op, tgemm::op, int64_t, int64_t, int64_t, float,
                                      const float*, int64_t, const float*, int64_t, float, float*, int64_t,
                                      cudaStream_t);
  blas_gemm dispatch = &tgemm::gemm;
  auto sm86 = &tgemm::launch<tgemm::tuning::sm86::unaligned>;
  std::printf("%p %p %s\n", reinterpret_cast<void*>(dispatch), reinterpret_cast<void*>(sm86),
              tgemm::compiled_architectures().c_str());
  return 0;
}
