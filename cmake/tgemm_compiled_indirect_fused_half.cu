// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED INDIRECT)): the __half (C in __half or float) kernels of
// tgemm::gemm_batched() and tgemm::gemm_grouped_device() calls with a fused epilogue. See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 17
#include "tgemm_compiled.cu"
