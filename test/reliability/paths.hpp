// Every way a user can run a GEMM through tgemm's public API, as plain function pointers: the dispatcher
// tgemm::gemm(), and tgemm::launch<P>() / tgemm::can_implement<P>() for every distinct policy tgemm ships (the
// seed rungs and every policy of every architecture's tuning entry) and the tests' corner policies. The reliability
// tests and the GPU policy sweeps loop over them at run time; their kernels are compiled once, in paths_*.cu, for
// all the executables that link them.
//
// Catch2-free on purpose: the differential test has its own main.
#pragma once

#include <tgemm/status.cuh>
#include <tgemm/types.cuh>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tgemm::reliability {

/// The signature shared by tgemm::gemm() and tgemm::launch<P>().
using run_function = status (*)(layout, op, op, int64_t, int64_t, int64_t, float, const float*, int64_t,
                                const float*, int64_t, float, float*, int64_t, cudaStream_t);
/// The signature of tgemm::can_implement<P>().
using can_implement_function = status (*)(layout, op, op, int64_t, int64_t, int64_t, float, const float*, int64_t,
                                          const float*, int64_t, float, float*, int64_t);

/// One way to run a GEMM.
struct gemm_path {
  std::string name;                     ///< "gemm" or "launch<seed::vectorized>" (aliases joined by " = ").
  std::string policy_name;              ///< Policy::name(), or "dispatcher".
  bool dispatcher = false;              ///< true for tgemm::gemm(): any alignment, never refuses a valid call.
  int vector_width = 1;                 ///< Floats the policy loads at a time from A and B (1 for the dispatcher).
  int block_m = 0;                      ///< The policy's block tile (0 for the dispatcher).
  int block_n = 0;                      ///< See block_m.
  int block_k = 0;                      ///< The depth of its k steps (16 for the naive policy, which has none).
  int list_index = 0;                   ///< Position in all_paths(): 0 for the dispatcher.
  run_function run = nullptr;           ///< tgemm::gemm or tgemm::launch<P>.
  can_implement_function can_implement = nullptr;  ///< tgemm::can_implement<P>; null for the dispatcher.
};

/// The dispatcher first, then every distinct policy (a type reachable under several names is listed once).
const std::vector<gemm_path>& all_paths();

/// How many translation units the policies are spread over (so that a parallel build compiles them side by side):
/// TGEMM_PATH_PARTS, set by CMake, which generates one paths_part<N>.cu per part.
inline constexpr int path_parts = TGEMM_PATH_PARTS;

/// Appends the policies of part `Part` (0 <= Part < path_parts). Defined in paths_impl.cuh, instantiated by
/// paths_part<Part>.cu.
template <int Part>
void add_policy_paths(std::vector<gemm_path>& out);

}  // namespace tgemm::reliability
