// A source of tgemm's compiled mode (tgemm_add_compiled_library(... INDIRECT)): the __nv_bfloat16 (C in __nv_bfloat16 or float) kernels of
// tgemm::gemm_batched() and tgemm::gemm_grouped_device(). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 13
#include "tgemm_compiled.cu"
