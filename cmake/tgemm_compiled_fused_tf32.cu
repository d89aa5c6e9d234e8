// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED)): the float on the tensor cores (TF32 and 3xTF32) kernels of
// tgemm::gemm() calls with a fused epilogue (tgemm::epilogue). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 9
#include "tgemm_compiled.cu"
