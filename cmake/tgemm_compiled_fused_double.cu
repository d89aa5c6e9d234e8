// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED)): the double kernels of
// tgemm::gemm() calls with a fused epilogue (tgemm::epilogue). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 10
#include "tgemm_compiled.cu"
