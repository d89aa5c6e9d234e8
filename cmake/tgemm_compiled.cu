// A source of tgemm's compiled mode (the CMake target tgemm::compiled builds it with its siblings
// tgemm_compiled_f16.cu and tgemm_compiled_bf16.cu): it instantiates the float kernels of tgemm::gemm() for the
// architectures of the build that compiles it, so that every other translation unit (compiled with TGEMM_COMPILED
// defined) includes only declarations. See docs/build_modes.md.
#define TGEMM_COMPILED_IMPLEMENTATION
#ifndef TGEMM_COMPILED_PART
#define TGEMM_COMPILED_PART 1
#endif
#include <tgemm/gemm.cuh>
