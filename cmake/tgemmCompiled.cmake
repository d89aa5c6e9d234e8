# tgemm's compiled mode: tgemm_add_compiled_library(<name> [ARCHITECTURES <arch>...]) builds the kernels of
# tgemm::gemm() once, into a static library, for the given architectures (default: the caller's
# CMAKE_CUDA_ARCHITECTURES). Whatever links <name> gets TGEMM_COMPILED defined, so its translation units include
# only declarations of tgemm::gemm() and compile none of its kernels. See docs/build_modes.md.
#
#   find_package(tgemm REQUIRED)              # or add_subdirectory(tgemm)
#   tgemm_add_compiled_library(my_tgemm)
#   target_link_libraries(my_app PRIVATE my_tgemm)
# One source per element family, so that a parallel build compiles them side by side.
set(TGEMM_COMPILED_SOURCES "${CMAKE_CURRENT_LIST_DIR}/tgemm_compiled.cu" "${CMAKE_CURRENT_LIST_DIR}/tgemm_compiled_f16.cu"
    "${CMAKE_CURRENT_LIST_DIR}/tgemm_compiled_bf16.cu" "${CMAKE_CURRENT_LIST_DIR}/tgemm_compiled_tf32.cu" CACHE INTERNAL "tgemm's compiled-mode sources")

function(tgemm_add_compiled_library name)
  cmake_parse_arguments(arg "" "" "ARCHITECTURES" ${ARGN})
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "tgemm_add_compiled_library(${name}) compiles CUDA: enable the language first "
                        "(project(... LANGUAGES CXX CUDA) or enable_language(CUDA))")
  endif()
  add_library(${name} STATIC ${TGEMM_COMPILED_SOURCES})
  target_link_libraries(${name} PUBLIC tgemm::tgemm)
  target_compile_definitions(${name} PUBLIC TGEMM_COMPILED)
  target_compile_features(${name} PUBLIC cxx_std_17 cuda_std_17)
  set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  if(arg_ARCHITECTURES)
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${arg_ARCHITECTURES}")
  endif()
endfunction()
