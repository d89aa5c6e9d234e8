// A source of tgemm's compiled mode (tgemm_add_compiled_library(... FUSED INDIRECT)): the float on the tensor cores (TF32 and 3xTF32) kernels of
// tgemm::gemm_batched() and tgemm::gemm_grouped_device() calls with a fused epilogue. See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 19
#include "tgemm_compiled.cu"
