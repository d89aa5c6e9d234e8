// A source of tgemm's compiled mode: the __nv_bfloat16 kernels of tgemm::gemm() (C in __nv_bfloat16 or float).
// See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 3
#include "tgemm_compiled.cu"
