/// \file config.cuh
/// \brief Build modes: header-only (the default) or compiled, where one source instantiates the dispatcher.
///
/// - Header-only: every translation unit that includes <tgemm/gemm.cuh> compiles the kernels of tgemm::gemm().
/// - Compiled: define TGEMM_COMPILED in every translation unit (the CMake target tgemm::compiled does this for
///   whatever links it) and compile one source with TGEMM_COMPILED_IMPLEMENTATION defined before including
///   <tgemm/gemm.cuh> (cmake/tgemm_compiled.cu is that source). Other translation units then see declarations
///   of gemm() and compile none of its kernels. launch<Policy>() and device::gemm<Policy>() stay templates in
///   both modes: they compile where they are used.
///
/// The dispatcher lives in a mode-specific inline namespace, so a program may link translation units of both
/// modes without the two definitions colliding.
#pragma once

#if defined(TGEMM_COMPILED_IMPLEMENTATION) && !defined(TGEMM_COMPILED)
#define TGEMM_COMPILED 1
#endif

#if defined(TGEMM_COMPILED)
/// Opens the namespace of the compiled dispatcher.
#define TGEMM_BEGIN_DISPATCH_NAMESPACE inline namespace compiled {
#else
/// Opens the namespace of the header-only dispatcher.
#define TGEMM_BEGIN_DISPATCH_NAMESPACE inline namespace header_only {
#endif
/// Closes TGEMM_BEGIN_DISPATCH_NAMESPACE.
#define TGEMM_END_DISPATCH_NAMESPACE }

/// 1 where this translation unit defines the dispatcher (header-only mode, or the compiled mode's one source).
#if !defined(TGEMM_COMPILED) || defined(TGEMM_COMPILED_IMPLEMENTATION)
#define TGEMM_DEFINES_DISPATCHER 1
#else
#define TGEMM_DEFINES_DISPATCHER 0
#endif

/// How the dispatcher's functions are declared: inline in header-only mode, with external linkage in compiled mode.
#if defined(TGEMM_COMPILED)
#define TGEMM_DISPATCH_API
#else
#define TGEMM_DISPATCH_API inline
#endif
/// How the dispatcher's float entry points (tgemm::gemm() and gemm_workspace_size() on float, and
/// detail::dispatcher_facts()) are declared (..._DECLARATION, on their first declaration) and defined
/// (..._DEFINITION): plain functions in compiled mode; in header-only mode function templates of nothing, so that
/// their bodies, and the float kernels they reach, compile only in the translation units that call them (an inline
/// function's body compiles in every one that includes the header: 43 kernels, most of a float caller's compile
/// time, also in a translation unit that calls only the bf16 tgemm::gemm()). Calls read the same either way.
#if defined(TGEMM_COMPILED)
#define TGEMM_FLOAT_API_DECLARATION TGEMM_DISPATCH_API
/// See TGEMM_FLOAT_API_DECLARATION.
#define TGEMM_FLOAT_API_DEFINITION TGEMM_DISPATCH_API
#else
#define TGEMM_FLOAT_API_DECLARATION template <int Unused = 0>
/// See TGEMM_FLOAT_API_DECLARATION.
#define TGEMM_FLOAT_API_DEFINITION template <int Unused>
#endif

/// The compiled library is built from one source per element family, so that they compile side by side: each
/// defines TGEMM_COMPILED_PART (1: float, and the float-only functions; 2: __half; 3: __nv_bfloat16; 4: float on the
/// tensor cores, TF32 and 3xTF32; 5: double; 6 to 10: the same families' calls with a fused epilogue,
/// tgemm::epilogue; 11 to 15 and 16 to 20: the same for tgemm::gemm_batched() and tgemm::gemm_grouped_device())
/// before including <tgemm/gemm.cuh>. Unset (0), a translation unit that defines the dispatcher defines all of it.
#if !defined(TGEMM_COMPILED_PART)
#define TGEMM_COMPILED_PART 0
#endif
/// 1 where this translation unit defines the dispatcher's part `part` (see TGEMM_COMPILED_PART).
#define TGEMM_DEFINES_PART(part) (TGEMM_COMPILED_PART == 0 || TGEMM_COMPILED_PART == (part))
