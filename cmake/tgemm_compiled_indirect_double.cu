// A source of tgemm's compiled mode (tgemm_add_compiled_library(... INDIRECT)): the double kernels of
// tgemm::gemm_batched() and tgemm::gemm_grouped_device(). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 15
#include "tgemm_compiled.cu"
