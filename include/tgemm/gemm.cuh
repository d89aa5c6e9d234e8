/// \file gemm.cuh
/// \brief The one header users include: everything tgemm offers.
///
/// \code
/// #include <tgemm/gemm.cuh>
/// tgemm::status s = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m, n, k,
///                               1.0f, A, m, B, k, 0.0f, C, m, stream);
/// if (s != tgemm::status::success) std::fprintf(stderr, "%s\n", tgemm::last_error().message.c_str());
/// \endcode
#pragma once

#include "version.hpp"
#include "types.cuh"
#include "status.cuh"
#include "policy.cuh"
#include "tuning.cuh"
#include "seed_policies.cuh"
#include "arch.cuh"
#include "device/problem.cuh"
#include "device/gemm.cuh"
#include "device/naive.cuh"
#include "kernel/gemm_kernel.cuh"
#include "host/arguments.cuh"
#include "host/launch.cuh"
#include "host/dispatch.cuh"
#include "host/mdspan.cuh"
