// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED INDIRECT)): the __nv_bfloat16 (C in __nv_bfloat16 or float) kernels of
// tgemm::gemm_batched() and tgemm::gemm_grouped_device() calls with a fused epilogue. See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 18
#include "tgemm_compiled.cu"
