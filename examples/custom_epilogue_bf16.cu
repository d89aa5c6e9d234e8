// tgemm_custom_epilogue_bf16: custom_epilogue.cu for bfloat16 on the tensor cores, with a fused bias + GELU.
//
// The kernel below computes, for column-major bfloat16 A (m x k), B (k x n) and a float bias vector (m),
//
//     D(i, j) = bf16(gelu(sum_l A(i, l) B(l, j) + bias(i)))
//
// in one pass: tgemm::device::gemm() multiplies on the tensor cores (mma.sync, products summed in float) and hands
// every finished float accumulator to a functor, which adds the bias, applies GELU in its tanh form,
//
//     gelu(x) = x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))),
//
// and stores one bfloat16. The float result never touches memory: D is written once, at half the bytes of float.
//
// mma.sync on bfloat16 needs sm_80 or newer; on an older GPU the program says so and fails. The size
// (300 x 200 x 136) is not a multiple of the tile, so the edge handling is exercised. The result is checked
// against a float64 loop on the host; the program prints PASS or FAIL (exit status 1).
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

void check_cuda(cudaError_t error, const char* call, int line) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "custom_epilogue_bf16.cu:%d: %s failed: %s (%s)\n", line, call, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(EXIT_FAILURE);
}
#define CHECK_CUDA(call) check_cuda((call), #call, __LINE__)

using bf16 = __nv_bfloat16;

//! [policy]
// A tensor-core policy: 128 x 128 block tile, 2 x 4 warps of 64 x 32 (each a grid of 4 x 4 mma.sync m16n8k16
// tiles), 32-deep k slices in three cp.async stages. A and B are bfloat16, and so is C (the BLAS epilogue's type,
// unused here: the functor below writes D itself). 3 stages x 32 x (128 + 128) x 2 bytes = 48 KiB, exactly what a
// plain __shared__ variable may hold; a fourth stage would need dynamic shared memory and
// cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize).
using policy = tgemm::tensorop_policy<tgemm::block_shape<128, 128, 32>, tgemm::warp_shape<64, 32>,
                                      tgemm::mma_shape<16, 8, 16>, 3, bf16, bf16>;
static_assert(sizeof(tgemm::device::shared_storage<policy>) <= 48 * 1024,
              "static __shared__ storage is limited to 48 KiB; larger policies need dynamic shared memory");
//! [policy]

//! [epilogue]
// GELU, tanh form, in float. tanhf (not the tanh.approx instruction) keeps the error near float's roundoff.
__device__ __forceinline__ float gelu_tanh(float x) {
  const float u = 0.7978845608f * (x + 0.044715f * x * x * x);  // sqrt(2 / pi) * (x + 0.044715 x^3)
  return 0.5f * x * (1.0f + tanhf(u));
}

// The epilogue: called once for every element of the block's tile that lies inside D, with the element's row and
// column (column-major convention) and its float accumulator. It rounds to bfloat16 once, at the very end.
struct bias_gelu_bf16 {
  const float* bias;  // m values, one per row of D
  bf16* d;            // column-major D
  int64_t ldd;

  __device__ void operator()(int64_t row, int64_t col, float value) const {
    d[row + col * ldd] = __float2bfloat16_rn(gelu_tanh(value + bias[row]));
  }
};
//! [epilogue]

//! [kernel]
// One thread block per block_m x block_n tile of D; the block must have exactly Policy::threads threads in x.
// The problem type follows the policy: problem_of<Policy> holds bfloat16 pointers here.
template <class Policy, class Epilogue>
__global__ void __launch_bounds__(Policy::threads)
    gemm_with_epilogue(tgemm::device::problem_of<Policy> p, Epilogue epilogue) {
  __shared__ tgemm::device::shared_storage<Policy> smem;
  // Every thread of the block calls device::gemm (it synchronises the block internally).
  tgemm::device::gemm<Policy>(p, int64_t(blockIdx.x), int64_t(blockIdx.y), smem, epilogue);
}
//! [kernel]

/// Rounds x up to a multiple of `multiple`.
int64_t round_up(int64_t x, int64_t multiple) { return (x + multiple - 1) / multiple * multiple; }

/// Random bfloat16 values in [-1, -0.25] and [0.25, 1]: never zero. Drawn in float, rounded to nearest bfloat16;
/// the reference uses the rounded values, so it sees exactly what the GPU multiplies.
std::vector<bf16> random_values(size_t count, std::mt19937& generator) {
  std::uniform_real_distribution<float> magnitude(0.25f, 1.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<bf16> values(count);
  for (bf16& x : values) x = __float2bfloat16_rn(negative(generator) ? -magnitude(generator) : magnitude(generator));
  return values;
}

uint16_t bits_of(bf16 x) {
  uint16_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

/// The same GELU in float64.
double gelu_tanh_reference(double x) {
  const double pi = 3.14159265358979323846;
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
}

}  // namespace

int main() {
  // bfloat16 mma.sync exists from sm_80 on. Failing (rather than skipping) is deliberate: where this example runs
  // at all, it is expected to run.
  int device = 0, major = 0, minor = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major < 8) {
    std::fprintf(stderr,
                 "custom_epilogue_bf16: device %d has compute capability %d.%d; bfloat16 tensor-core mma.sync "
                 "needs 8.0 (sm_80) or newer\n",
                 device, major, minor);
    std::printf("FAIL\n");
    return EXIT_FAILURE;
  }

  const int64_t m = 300, n = 200, k = 136;

  // The policy moves policy::vector_width (8) bfloat16 values, 16 bytes, at a time, so A and B must start 16-byte
  // aligned (cudaMalloc guarantees that) and have leading dimensions that are multiples of 8. A's natural one,
  // m = 300, is not: pad it. B's, k = 136, is, but gets 8 spare rows anyway, to show that nothing past k is read.
  // D gets a few spare rows, filled with a marker, to catch stray writes.
  const int64_t lda = round_up(m, policy::vector_width);
  const int64_t ldb = round_up(k, policy::vector_width) + 8;
  const int64_t ldd = round_up(m, policy::vector_width) + 8;
  const bf16 nan = __float2bfloat16_rn(std::nanf(""));

  // Operands, with NaN in the padding rows: padding is never part of the product, so it must never be read.
  std::mt19937 generator(7u);
  std::vector<bf16> a(size_t(lda * k), nan), b(size_t(ldb * n), nan);
  const std::vector<bf16> a_values = random_values(size_t(m * k), generator);
  const std::vector<bf16> b_values = random_values(size_t(k * n), generator);
  for (int64_t l = 0; l < k; ++l) {
    for (int64_t i = 0; i < m; ++i) a[size_t(i + l * lda)] = a_values[size_t(i + l * m)];
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t l = 0; l < k; ++l) b[size_t(l + j * ldb)] = b_values[size_t(l + j * k)];
  }
  std::vector<float> bias(static_cast<size_t>(m));
  std::uniform_real_distribution<float> bias_value(-0.5f, 0.5f);
  for (float& x : bias) x = bias_value(generator);

  bf16 *d_a = nullptr, *d_b = nullptr, *d_d = nullptr;
  float* d_bias = nullptr;
  CHECK_CUDA(cudaMalloc(&d_a, a.size() * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_b, b.size() * sizeof(bf16)));
  CHECK_CUDA(cudaMalloc(&d_bias, bias.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_d, size_t(ldd * n) * sizeof(bf16)));
  CHECK_CUDA(cudaMemcpy(d_a, a.data(), a.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_b, b.data(), b.size() * sizeof(bf16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_bias, bias.data(), bias.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(d_d, 0xFF, size_t(ldd * n) * sizeof(bf16)));  // every element 0xFFFF, a NaN: "unwritten"

  // device::gemm does not check its arguments; the host-side tgemm::can_implement<Policy>() checks the same
  // shapes, leading dimensions and alignment that tgemm::launch<Policy>() would, without touching the device.
  // (D stands in for C: same shape, same element type.)
  const tgemm::status s = tgemm::can_implement<policy>(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, m,
                                                       n, k, 1.0f, d_a, lda, d_b, ldb, 0.0f, d_d, ldd);
  if (s != tgemm::status::success) {
    std::fprintf(stderr, "can_implement<%s>: %s: %s\n", policy::name().c_str(), tgemm::to_string(s),
                 tgemm::last_error().message.c_str());
    return EXIT_FAILURE;
  }

  //! [launch]
  // The grid is ours to choose: here simply one block per tile, tile (x, y) = (blockIdx.x, blockIdx.y).
  const tgemm::device::problem_of<policy> problem{m, n, k, d_a, lda, d_b, ldb};
  const bias_gelu_bf16 epilogue{d_bias, d_d, ldd};
  const dim3 grid(unsigned((m + policy::block_m - 1) / policy::block_m),
                  unsigned((n + policy::block_n - 1) / policy::block_n));
  const dim3 block(policy::threads);
  gemm_with_epilogue<policy><<<grid, block>>>(problem, epilogue);
  CHECK_CUDA(cudaGetLastError());       // launch errors (bad configuration, no kernel image for this GPU)
  CHECK_CUDA(cudaDeviceSynchronize());  // errors while the kernel ran
  //! [launch]

  std::vector<bf16> d(size_t(ldd * n));
  CHECK_CUDA(cudaMemcpy(d.data(), d_d, d.size() * sizeof(bf16), cudaMemcpyDeviceToHost));

  // Reference in float64, on the bfloat16-rounded inputs. Products of two bfloat16 values are exact in double, and
  // so is their sum here (27 significant bits at most), so `dot` is the exact product. The bound on each element:
  //   - the float accumulation on the tensor cores: e_acc = (k + 4) 2^-23 sum_l |a b| (k roundings and a margin
  //     for the order the tensor cores add in), plus 2^-24 |x| for the float addition of the bias, x = dot + bias;
  //   - GELU's slope is at most 1.129 in magnitude (its maximum, near x = 1.5), so that error becomes at most
  //     1.13 e_x after it;
  //   - evaluating GELU in float (a few float roundings and tanhf's 2 ulp, each at most 2^-24 |x| on the result,
  //     about 6 of them; near x << 0, 1 + tanh cancels, so this is absolute in |x|, not relative in gelu(x)):
  //     2^-20 |x| leaves a margin;
  //   - the final rounding to bfloat16 (8 significant bits): 2^-8 of the float result, at most 2^-8 (|expected| +
  //     the errors above).
  // The last term dominates and is tight (a result just above a power of two can move by almost 2^-8 of itself),
  // so a worst error close to 1 of the bound is normal.
  int64_t wrong = 0, stray = 0;
  double worst = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      double dot = 0.0, magnitude = 0.0;
      for (int64_t l = 0; l < k; ++l) {
        const double product =
            double(__bfloat162float(a[size_t(i + l * lda)])) * double(__bfloat162float(b[size_t(l + j * ldb)]));
        dot += product;
        magnitude += std::fabs(product);
      }
      const double x = dot + double(bias[size_t(i)]);
      const double expected = gelu_tanh_reference(x);
      const double e_x = double(k + 4) * std::ldexp(magnitude, -23) + std::ldexp(std::fabs(x), -24);
      const double e_float = 1.13 * e_x + std::ldexp(std::fabs(x) + e_x, -20);
      const double tolerance = e_float + std::ldexp(std::fabs(expected) + e_float, -8);
      const double got = double(__bfloat162float(d[size_t(i + j * ldd)]));
      const double error = std::fabs(got - expected);
      if (!(error <= tolerance)) {  // NaN (never written, or padding read) fails too
        if (wrong < 5) {
          std::printf("  D(%lld, %lld) = %.9g, expected %.9g (bound %.3g)\n", (long long)i, (long long)j, got,
                      expected, tolerance);
        }
        ++wrong;
      } else {
        worst = std::max(worst, error / tolerance);
      }
    }
    for (int64_t i = m; i < ldd; ++i) {
      if (bits_of(d[size_t(i + j * ldd)]) != 0xFFFFu) ++stray;  // rows past m must be untouched
    }
  }

  // Timing: a warm-up launch, then the median of 20.
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  gemm_with_epilogue<policy><<<grid, block>>>(problem, epilogue);
  CHECK_CUDA(cudaGetLastError());
  std::vector<float> times(20);
  for (float& ms : times) {
    CHECK_CUDA(cudaEventRecord(start));
    gemm_with_epilogue<policy><<<grid, block>>>(problem, epilogue);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  }
  std::sort(times.begin(), times.end());
  const double ms = 0.5 * (double(times[9]) + double(times[10]));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));

  CHECK_CUDA(cudaFree(d_a));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaFree(d_bias));
  CHECK_CUDA(cudaFree(d_d));

  std::printf("device   : compute capability %d.%d\n", major, minor);
  std::printf("policy   : %s (%d threads per block, %zu bytes of shared memory)\n", policy::name().c_str(),
              policy::threads, sizeof(tgemm::device::shared_storage<policy>));
  std::printf("problem  : D = bf16(gelu(A * B + bias)), bfloat16 A and B, m = %lld, n = %lld, k = %lld, grid %u x %u\n",
              (long long)m, (long long)n, (long long)k, grid.x, grid.y);
  std::printf("check    : %lld of %lld elements wrong, %lld stray writes past row m, worst error %.3f of its bound\n",
              (long long)wrong, (long long)(m * n), (long long)stray, worst);
  std::printf("time     : %.3f ms per launch (median of %zu)\n", ms, times.size());
  const bool ok = wrong == 0 && stray == 0;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
