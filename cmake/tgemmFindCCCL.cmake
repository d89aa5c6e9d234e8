# Finds CCCL (Thrust, CUB, libcu++) and provides the CCCL::CCCL target. The CUDA toolkit ships CCCL's CMake
# package next to its libraries (lib/cmake/cccl, or lib64/cmake/cccl); a newer CCCL found first wins.
# Expects find_package(CUDAToolkit) to have run.
if(NOT TARGET CCCL::CCCL)
  find_package(CCCL CONFIG QUIET HINTS "${CUDAToolkit_LIBRARY_DIR}/cmake" "${CUDAToolkit_LIBRARY_ROOT}/lib/cmake"
               "${CUDAToolkit_LIBRARY_ROOT}/lib64/cmake")
  if(NOT TARGET CCCL::CCCL)
    # An older toolkit without CCCL's package: its headers sit in the toolkit's include directory, which
    # nvcc searches anyway.
    add_library(CCCL::CCCL INTERFACE IMPORTED)
    target_include_directories(CCCL::CCCL INTERFACE ${CUDAToolkit_INCLUDE_DIRS})
  endif()
endif()
