// The one timing helper of the benchmark (and of any test that times): single launches between CUDA events, after
// warm-up, reported as the median.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
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

}  // namespace tgemm::test
