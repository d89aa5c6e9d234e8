// A source of tgemm's compiled mode: the __half kernels of tgemm::gemm() (C in __half or float). See
// tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 2
#include "tgemm_compiled.cu"
