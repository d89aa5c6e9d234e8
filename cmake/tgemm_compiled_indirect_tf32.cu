// A source of tgemm's compiled mode (tgemm_add_compiled_library(... INDIRECT)): the float on the tensor cores (TF32 and 3xTF32) kernels of
// tgemm::gemm_batched() and tgemm::gemm_grouped_device(). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 14
#include "tgemm_compiled.cu"
