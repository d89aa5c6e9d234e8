// The one timing helper of the benchmark (and of any test that times): single launches between CUDA events, after
// warm-up, reported as the median.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "check_cuda.hpp"

namespace tgemm::test {

/// Median milliseconds of `launch()` on the default stream, each call timed by its own pair of events. At least
/// `reps` calls; more while their total is under `budget_ms` (up to 4 x reps); fewer than reps only for calls so
/// slow that 20 budgets pass (then at least 5). Warm-up calls are the caller's business.
template <class Launch>
float median_event_ms(Launch&& launch, int reps, double budget_ms) {
  cudaEvent_t start, stop;
  TGEMM_CHECK_CUDA(cudaEventCreate(&start));
  TGEMM_CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<float> times;
  double total = 0;
  while (int(times.size()) < reps || (total < budget_ms && int(times.size()) < 4 * reps)) {
    TGEMM_CHECK_CUDA(cudaEventRecord(start));
    launch();
    TGEMM_CHECK_CUDA(cudaEventRecord(stop));
    TGEMM_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
    total += ms;
    if (total > 20 * budget_ms && int(times.size()) >= 5) break;
  }
  TGEMM_CHECK_CUDA(cudaGetLastError());
  TGEMM_CHECK_CUDA(cudaEventDestroy(start));
  TGEMM_CHECK_CUDA(cudaEventDestroy(stop));
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

/// How many operand sets a benchmark rotates through (each call on the next set): enough that one pass over them
/// exceeds twice the L2 (`l2_bytes`), so no call finds its operands left in the L2 by earlier calls, and never fewer
/// than two, even for a set larger than the L2: with one set, a call reads the L2's leftovers of the call before it,
/// which favours a memory-bound kernel that reads in the opposite order to its predecessor (1 x 8192 x 8192 bf16 GEMV,
/// H100: the same plan ran 0.0457 ms after cuBLAS and 0.0524 ms after another tgemm variant). At most max_sets.
inline int rotation_sets(size_t set_bytes, size_t l2_bytes, int max_sets) {
  const size_t wanted = (2 * l2_bytes) / (set_bytes > 0 ? set_bytes : 1) + 1;
  return int(std::min<size_t>(size_t(max_sets), std::max<size_t>(2, wanted)));
}

/// The median of `v` (its upper middle element for an even count).
inline double median_of(std::vector<float> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

/// Median milliseconds of two implementations timed side by side on the default stream.
struct paired_medians {
  double first_ms;   ///< launch(true)'s median.
  double second_ms;  ///< launch(false)'s median.
};

/// `warmup` calls of each of launch(true) and launch(false), then `reps` repetitions of one call of each (which goes
/// first alternates from one repetition to the next), every call between its own pair of CUDA events; returns each
/// one's median. What the benchmarks use to put tgemm and cuBLAS side by side.
template <class Launch>
paired_medians interleaved_medians(Launch&& launch, int reps, int warmup) {
  for (int i = 0; i < warmup; ++i) launch(true), launch(false);
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> events(4 * size_t(reps));  // per repetition: first start/stop, second start/stop
  for (cudaEvent_t& e : events) TGEMM_CHECK_CUDA(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    for (int j = 0; j < 2; ++j) {
      const bool first = (r + j) % 2 == 0;
      cudaEvent_t* pair = &events[4 * size_t(r) + (first ? 0 : 2)];
      TGEMM_CHECK_CUDA(cudaEventRecord(pair[0]));
      launch(first);
      TGEMM_CHECK_CUDA(cudaEventRecord(pair[1]));
    }
  }
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  TGEMM_CHECK_CUDA(cudaGetLastError());
  std::vector<float> first_ms(static_cast<size_t>(reps)), second_ms(static_cast<size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    TGEMM_CHECK_CUDA(cudaEventElapsedTime(&first_ms[size_t(r)], events[4 * size_t(r)], events[4 * size_t(r) + 1]));
    TGEMM_CHECK_CUDA(cudaEventElapsedTime(&second_ms[size_t(r)], events[4 * size_t(r) + 2], events[4 * size_t(r) + 3]));
  }
  for (cudaEvent_t e : events) TGEMM_CHECK_CUDA(cudaEventDestroy(e));
  return {median_of(first_ms), median_of(second_ms)};
}

}  // namespace tgemm::test
