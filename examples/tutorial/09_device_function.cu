// Step 9: tgemm inside your own kernel. A fully connected layer, Y = relu(X W + bias), in one pass.
//
// A GEMM is often followed by something cheap: a bias, an activation, a scale, a conversion. Done as a second
// kernel, that step reads the whole of C back from memory and writes it again. tgemm::device::gemm<Policy>()
// computes one block's tile of the product and hands every finished element to a functor of yours while it is
// still in registers (an "epilogue"), so the extra work costs almost nothing and C is written once.
//
// The layer: X is batch x inputs, W is inputs x features, bias has one value per feature, Y is batch x features,
// all row-major. device::gemm works in column-major terms (BLAS's), and a row-major matrix is the column-major
// matrix of its transpose: Y^T = W^T X^T. So the device problem is m = features, n = batch, k = inputs, with W
// as "A" (leading dimension features) and X as "B" (leading dimension inputs). The epilogue receives
// (row, col) = (feature, sample) and writes Y[sample][feature].
//
// The program runs the fused kernel and, for comparison, tgemm::gemm() followed by a separate bias + ReLU kernel.
// Note that the comparison is between policies too: the fused kernel uses the small seed::double_buffered rung,
// tgemm::gemm() the policy tuned for the GPU. At 4096 the separate pass costs little next to the product, so the
// tuned policy wins (examples/README.md has the numbers); pair a fused epilogue with a tuned policy.
//
// Usage: tgemm_tutorial_09_device_function [n]   (batch = inputs = features = n, default 4096; n a multiple of 4)
#include <tgemm/gemm.cuh>

#include "common.cuh"

//! [epilogue]
/// Y[sample][feature] = max(0, value + bias[feature]), for a row-major Y with `features` columns.
struct bias_relu {
  const float* bias;
  float* y;
  int64_t features;
  __device__ void operator()(int64_t feature, int64_t sample, float value) const {
    y[sample * features + feature] = fmaxf(value + bias[feature], 0.0f);
  }
};
//! [epilogue]

//! [kernel]
using policy = tgemm::seed::double_buffered;  // 16.5 KiB of shared memory: fits a static __shared__ variable

/// One block per policy::block_m x policy::block_n tile; launch with policy::threads threads per block.
__global__ void __launch_bounds__(policy::threads) fused_layer(tgemm::device::problem p, bias_relu epilogue) {
  __shared__ tgemm::device::shared_storage<policy> smem;
  tgemm::device::gemm<policy>(p, blockIdx.x, blockIdx.y, smem, epilogue);  // every thread calls it
}
//! [kernel]

/// The unfused second pass: reads Y, adds the bias, applies the ReLU, writes Y.
__global__ void bias_relu_pass(float* y, const float* bias, int batch, int features) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < int64_t(batch) * features) y[i] = fmaxf(y[i] + bias[i % features], 0.0f);
}

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  const int batch = size, inputs = size, features = size;
  tutorial::problem p(batch, features, inputs);  // A = X (batch x inputs), B = W (inputs x features), C = Y
  const std::vector<float> bias = tutorial::random_values(size_t(features), 3);
  const tutorial::device_buffer d_bias(bias);

  //! [launch]
  // The column-major view of the row-major layer, and a host-side check of what device::gemm will assume.
  const tgemm::device::problem problem{features, batch, inputs, p.d_b.data(), features, p.d_a.data(), inputs};
  const tgemm::status s = tgemm::can_implement<policy>(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none,
                                                       features, batch, inputs, 1.0f, p.d_b.data(), features,
                                                       p.d_a.data(), inputs, 0.0f, p.d_c.data(), features);
  if (s != tgemm::status::success) {
    std::fprintf(stderr, "can_implement: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
    return EXIT_FAILURE;
  }
  const dim3 grid((features + policy::block_m - 1) / policy::block_m, (batch + policy::block_n - 1) / policy::block_n);
  const auto run_fused = [&] {
    fused_layer<<<grid, policy::threads>>>(problem, bias_relu{d_bias.data(), p.d_c.data(), features});
    TUTORIAL_CHECK(cudaGetLastError());
  };
  //! [launch]
  const auto run_unfused = [&] {
    const tgemm::status g = tgemm::gemm(tgemm::layout::row_major, tgemm::op::none, tgemm::op::none, batch, features,
                                        inputs, 1.0f, p.d_a.data(), inputs, p.d_b.data(), features, 0.0f,
                                        p.d_c.data(), features);
    if (g != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm: %s: %s\n", tgemm::to_string(g), tgemm::last_error().message.c_str());
      std::exit(EXIT_FAILURE);
    }
    const int64_t elements = int64_t(batch) * features;
    bias_relu_pass<<<unsigned((elements + 255) / 256), 256>>>(p.d_c.data(), d_bias.data(), batch, features);
    TUTORIAL_CHECK(cudaGetLastError());
  };

  // The reference: relu(dot + bias). The bias adds one term to the error scale; relu never widens a difference.
  const auto layer = [&](int64_t, int64_t feature, double dot, double magnitude) {
    const double b = bias[size_t(feature)];
    return tutorial::expected_value{std::max(0.0, dot + b), magnitude + std::fabs(b)};
  };
  const auto check = [&](const char* label) {
    const std::vector<float> y = p.d_c.to_host();
    return tutorial::check_product(label, batch, features, inputs, tutorial::host_view{p.a.data(), inputs, 1},
                                   tutorial::host_view{p.b.data(), features, 1},
                                   tutorial::host_view{y.data(), features, 1}, layer);
  };
  run_fused();
  bool ok = check("fused device::gemm");
  p.clear_c();
  run_unfused();
  ok = check("gemm + bias_relu kernel") && ok;

  tutorial::print_time("fused device::gemm", batch, features, inputs, tutorial::median_ms(run_fused));
  tutorial::print_time("gemm + bias_relu kernel", batch, features, inputs, tutorial::median_ms(run_unfused));
  return tutorial::finish(ok);
}
