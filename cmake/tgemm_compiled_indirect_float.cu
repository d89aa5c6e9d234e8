// A source of tgemm's compiled mode (tgemm_add_compiled_library(... INDIRECT)): the float (strict FP32) kernels of
// tgemm::gemm_batched() and tgemm::gemm_grouped_device(). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 11
#include "tgemm_compiled.cu"
