// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED)): the __half (C in __half or float) kernels of
// tgemm::gemm() calls with a fused epilogue (tgemm::epilogue). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 7
#include "tgemm_compiled.cu"
