// A source of tgemm's compiled mode: the float kernels of tgemm::gemm() on the tensor cores (math_mode::tf32 and
// math_mode::tf32x3). See tgemm_compiled.cu.
#define TGEMM_COMPILED_PART 4
#include "tgemm_compiled.cu"
