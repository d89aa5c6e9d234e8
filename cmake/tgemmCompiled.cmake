# tgemm's compiled mode: tgemm_add_compiled_library(<name> [FUSED] [INDIRECT] [ARCHITECTURES <arch>...] [TYPES <family>...]) builds
# the kernels of tgemm::gemm() once, into a static library, for the given architectures (default: the caller's
# CMAKE_CUDA_ARCHITECTURES) and element families: float (strict FP32, always built) plus any of half, bfloat16,
# tf32 (TF32 and 3xTF32) and double; all of them by default. A gemm() call of a family left out fails to link (an undefined
# tgemm::detail::...::gemm_typed), so leave one out only when nothing calls it: it saves its compile time. Whatever links <name> gets TGEMM_COMPILED defined, so its translation units include
# only declarations of tgemm::gemm() and compile none of its kernels. FUSED also builds each family's kernels for
# calls with a fused epilogue (tgemm::epilogue: bias, activation, ...), which are their own instantiations; without
# it such a call fails to link (an undefined ...::gemm_fused_typed). INDIRECT also builds the kernels of
# tgemm::gemm_batched() and tgemm::gemm_grouped_device() (with FUSED, their fused ones too); without it such a call
# fails to link (an undefined ...::run_indirect_typed, or ...::gemm_batched for the float call without options).
# See docs/build_modes.md.
#
#   find_package(tgemm REQUIRED)              # or add_subdirectory(tgemm)
#   tgemm_add_compiled_library(my_tgemm)
#   target_link_libraries(my_app PRIVATE my_tgemm)
# One source per element family, so that a parallel build compiles them side by side.
set(TGEMM_COMPILED_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "where tgemm's compiled-mode sources are")

function(tgemm_add_compiled_library name)
  cmake_parse_arguments(arg "FUSED;INDIRECT" "" "ARCHITECTURES;TYPES" ${ARGN})
  if(NOT arg_TYPES)
    set(arg_TYPES float half bfloat16 tf32 double)
  endif()
  set(sources "${TGEMM_COMPILED_DIR}/tgemm_compiled.cu")  # float, and the functions every family shares
  if(arg_FUSED)
    list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_fused.cu")
  endif()
  # INDIRECT: one more source per family (float always, like the rest of float), two with FUSED.
  set(indirect_families float ${arg_TYPES})
  list(REMOVE_DUPLICATES indirect_families)
  foreach(family IN LISTS indirect_families)
    if(arg_INDIRECT AND family MATCHES "^(float|half|bfloat16|tf32|double)$")
      list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_indirect_${family}.cu")
      if(arg_FUSED)
        list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_indirect_fused_${family}.cu")
      endif()
    endif()
  endforeach()
  foreach(family IN LISTS arg_TYPES)
    if(arg_FUSED AND NOT family STREQUAL "float")
      list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_fused_${family}.cu")
    endif()
    if(family STREQUAL "half")
      list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_f16.cu")
    elseif(family STREQUAL "bfloat16")
      list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_bf16.cu")
    elseif(family STREQUAL "tf32")
      list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_tf32.cu")
    elseif(family STREQUAL "double")
      list(APPEND sources "${TGEMM_COMPILED_DIR}/tgemm_compiled_f64.cu")
    elseif(NOT family STREQUAL "float")
      message(FATAL_ERROR "tgemm_add_compiled_library(${name}): TYPES takes float, half, bfloat16, tf32 and double, not "
                          "'${family}'")
    endif()
  endforeach()
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "tgemm_add_compiled_library(${name}) compiles CUDA: enable the language first "
                        "(project(... LANGUAGES CXX CUDA) or enable_language(CUDA))")
  endif()
  add_library(${name} STATIC ${sources})
  target_link_libraries(${name} PUBLIC tgemm::tgemm)
  target_compile_definitions(${name} PUBLIC TGEMM_COMPILED)
  target_compile_features(${name} PUBLIC cxx_std_17 cuda_std_17)
  set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  if(arg_ARCHITECTURES)
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${arg_ARCHITECTURES}")
  endif()
endfunction()
