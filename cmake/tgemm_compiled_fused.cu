// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED)): the float (strict FP32) kernels of
// tgemm::gemm() calls with a fused epilogue (tgemm::epilogue). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 6
#include "tgemm_compiled.cu"
