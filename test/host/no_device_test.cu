// The "no usable CUDA device" path: valid calls on a machine without a GPU (or without a driver) fail cleanly
// with status::no_cuda_device instead of crashing or reporting a generic CUDA error.
//
// Tagged [no-device]: host.no_device runs these with CUDA_VISIBLE_DEVICES set to the empty string, so that the
// runtime sees no device even where there is one; host.unit excludes them, because on a GPU machine without that
// setting these valid calls on fake pointers would launch kernels.
#include "catch.hpp"

#include <tgemm/gemm.cuh>

#include <cuda/std/mdspan>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;

float* fake(uintptr_t address) { return reinterpret_cast<float*>(address); }

void reset_last_error() { tgemm::detail::fail(status::success, cudaSuccess, "%s", "reset by the test"); }

/// Requires a no_cuda_device failure with a CUDA error behind it and a message that says so.
void require_no_device(status result) {
  const tgemm::error_info& error = tgemm::last_error();
  INFO("returned " << tgemm::to_string(result) << "; last_error: " << tgemm::to_string(error.code) << ", "
                   << cudaGetErrorName(error.cuda) << ": " << error.message);
  REQUIRE(result == status::no_cuda_device);
  REQUIRE(error.code == status::no_cuda_device);
  REQUIRE(error.cuda != cudaSuccess);
  REQUIRE(tgemm::detail::means_no_device(error.cuda));
  REQUIRE(error.message.find("device") != std::string::npos);
  REQUIRE(error.message.find(cudaGetErrorName(error.cuda)) != std::string::npos);
}

}  // namespace

TEST_CASE("without a usable CUDA device, valid calls return no_cuda_device", "[no-device]") {
  {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    INFO("CUDA_VISIBLE_DEVICES=" << (visible != nullptr ? visible : "(unset)"));
    int devices = -1;
    const cudaError_t error = cudaGetDeviceCount(&devices);
    (void)cudaGetLastError();
    INFO("cudaGetDeviceCount: " << cudaGetErrorName(error) << ", " << devices << " devices");
    // The premise of this test: the runtime sees no device (ctest sets CUDA_VISIBLE_DEVICES to "").
    REQUIRE((error != cudaSuccess || devices == 0));
  }

  // 256-byte aligned fake device pointers and valid leading dimensions: every argument check passes.
  float* const a = fake(0x10000);
  float* const b = fake(0x20000);
  float* const c = fake(0x30000);
  const int64_t m = 64, n = 48, k = 32;

  SECTION("gemm(), column-major") {
    reset_last_error();
    require_no_device(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m));
  }
  SECTION("gemm(), row-major with transposes and unaligned leading dimensions") {
    reset_last_error();
    require_no_device(tgemm::gemm(layout::row_major, op::transpose, op::transpose, m, n, k, 1.0f, a, m + 1, b,
                                  k + 1, 1.0f, c, n + 1));
  }
  SECTION("gemm() with k = 0 (C = beta C)") {
    reset_last_error();
    require_no_device(tgemm::gemm(layout::col_major, op::none, op::none, m, n, 0, 1.0f, nullptr, m, nullptr, 1,
                                  2.0f, c, m));
  }
  SECTION("launch<> with a tiled policy") {
    reset_last_error();
    require_no_device(tgemm::launch<tgemm::seed::vectorized>(layout::col_major, op::none, op::transpose, m, n, k,
                                                             1.0f, a, m, b, n, 0.5f, c, m));
  }
  SECTION("launch<> with the naive policy") {
    reset_last_error();
    require_no_device(tgemm::launch<tgemm::seed::naive>(layout::row_major, op::none, op::none, m, n, k, 1.0f, a, k,
                                                        b, n, 0.0f, c, n));
  }
  SECTION("launch<> with alpha = 0 (C = beta C)") {
    reset_last_error();
    require_no_device(tgemm::launch<tgemm::seed::naive>(layout::col_major, op::none, op::none, m, n, k, 0.0f, nullptr,
                                                        m, nullptr, k, 3.0f, c, m));
  }
  SECTION("the mdspan gemm()") {
    using ext = cuda::std::dextents<int64_t, 2>;
    cuda::std::mdspan<const float, ext, cuda::std::layout_left> a_view(a, m, k);
    cuda::std::mdspan<const float, ext, cuda::std::layout_right> b_view(b, k, n);
    cuda::std::mdspan<float, ext, cuda::std::layout_left> c_view(c, m, n);
    reset_last_error();
    require_no_device(tgemm::gemm(2.0f, a_view, b_view, 0.0f, c_view));
  }
  SECTION("the failure repeats: nothing is cached from a failed device query") {
    for (int i = 0; i < 3; ++i) {
      reset_last_error();
      require_no_device(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, c, m));
    }
  }
  SECTION("can_implement() still works: it touches no device") {
    REQUIRE(tgemm::can_implement<tgemm::seed::vectorized>(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m,
                                                          b, k, 0.0f, c, m) == status::success);
  }
  SECTION("argument errors still come first") {
    reset_last_error();
    REQUIRE(tgemm::gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m - 1, b, k, 0.0f, c, m) ==
            status::invalid_leading_dimension);
    REQUIRE(tgemm::last_error().cuda == cudaSuccess);
  }
}
