// The one source of tgemm's compiled mode (the CMake target tgemm::compiled builds it): it instantiates the kernels
// of tgemm::gemm() for the architectures of the build that compiles it, so that every other translation unit
// (compiled with TGEMM_COMPILED defined) includes only declarations. See docs/build_modes.md.
#define TGEMM_COMPILED_IMPLEMENTATION
#include <tgemm/gemm.cuh>
