// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED)): the __nv_bfloat16 (C in __nv_bfloat16 or float) kernels of
// tgemm::gemm() calls with a fused epilogue (tgemm::epilogue). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 8
#include "tgemm_compiled.cu"
