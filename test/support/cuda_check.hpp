// CUDA calls in tests: every one checked, and device memory that frees itself.
#pragma once

#include "catch.hpp"
#include "check_cuda.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

/// Fails the test, naming the call and the CUDA error, unless `call` returns cudaSuccess.
#define TGEMM_CUDA_REQUIRE(call)                                           \
  do {                                                                     \
    const cudaError_t tgemm_error_ = (call);                               \
    INFO(::tgemm::test::describe_cuda_error(tgemm_error_, #call));         \
    REQUIRE(tgemm_error_ == cudaSuccess);                                  \
  } while (0)

namespace tgemm::test {

/// Whether the current device is an sm_90 GPU (H100, H200), which runs the sm_90a kernels of the tests' builds: what
/// the tests that name a Hopper-kernel path expect it to take.
inline bool runs_sm90a_kernels() {
  int device = 0, major = 0;
  TGEMM_CUDA_REQUIRE(cudaGetDevice(&device));
  TGEMM_CUDA_REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major == 9;
}

/// cudaMalloc'd memory for `count` elements of T (plus `guard` spare elements after them, for out-of-bounds
/// checks), freed on scope exit.
template <class T>
class device_buffer {
 public:
  explicit device_buffer(size_t count) : count_(count) {
    if (count_ > 0) TGEMM_CUDA_REQUIRE(cudaMalloc(&data_, count_ * sizeof(T)));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  T* get() const { return data_; }
  size_t size() const { return count_; }

  void upload(const std::vector<T>& host) {
    REQUIRE(host.size() <= count_);
    if (!host.empty()) TGEMM_CUDA_REQUIRE(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) TGEMM_CUDA_REQUIRE(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace tgemm::test
