/// \file gemm.cuh
/// \brief The one header users include: everything tgemm offers.
///
/// \code
/// #include <tgemm/gemm.cuh>
/// tgemm::status s = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k,
///                               1.0f, A, m, B, k, 0.0f, C, m, stream);
/// if (s != tgemm::status::success) std::fprintf(stderr, "%s\n", tgemm::last_error().message.c_str());
/// \endcode
///
/// Header-only by default; with TGEMM_COMPILED defined (CMake: link tgemm::compiled) this header declares
/// tgemm::gemm() and the kernels are compiled once, in the library (see config.cuh and docs/build_modes.md).
#pragma once

#include "config.cuh"
#include "numeric.cuh"
#include "status.cuh"
#include "types.cuh"
#include "version.hpp"

#include "host/gemm.cuh"
#include "host/gemm_indirect.cuh"
#include "host/grouped.cuh"
#include "host/mdspan.cuh"

#include "arch/probe.cuh"
#include "device/gemm.cuh"
#include "host/launch.cuh"
#include "host/plan_print.cuh"
#include "host/tuning_hook.cuh"
#include "kernel/gemm_kernel.cuh"
#include "policy/policy.cuh"
#include "policy/seed.cuh"
#include "tuning/selector.cuh"

#if TGEMM_DEFINES_DISPATCHER
#include "host/dispatcher.cuh"
#include "host/grouped_hopper.cuh"
#include "host/indirect_dispatcher.cuh"
#endif
