// A source of tgemm's compiled mode: the double kernels of tgemm::gemm() (DMMA tensor cores). See
// tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 5
#include "tgemm_compiled.cu"
