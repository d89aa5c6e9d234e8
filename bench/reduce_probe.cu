// The split-K reduction's loop shapes side by side (docs/performance.md, "The split-K reduction"): d7e9e64's kernel
// (`old`), the library's kernels (`lib`, and `lib-fused`: reduce_split_k_fused with no terms), 585e282's kernel
// (`585e282`: both paths in one kernel, the fused one taken at run time), and variants of the loop that sums each element's slices: `cur` (1293407's kernel: one element loop, the
// fused branch inside it), `cur+quad` (a batch of 4 before the one-by-one rest), `apart`/`apart+quad` (plain and fused
// element loops apart), `pred4`/`pred8` (batches of 4 or 8 loads, those past the last slice predicated off and counted
// as +0), `unswitch` (a separate element loop for fewer than 8 slices), `fixed` (an element loop per count 1-8, every
// load before the first add; d7e9e64's loop above 8). Every variant's C is compared bit for bit with `old`'s first.
// Per case: 7 rounds, each variant 200 launches back to back between two events (rotated order); the median
// microseconds per launch. Partials are random normal and stay in the L2 between launches, as the gemm that writes them
// leaves them. Usage: tgemm_reduce_probe [REPS] (REPS: extra launches of each variant per case, for ncu; default 0).
#include <tgemm/kernel/reduce_split_k.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "check_cuda.hpp"

using namespace tgemm;
using terms_t = device::epilogue_terms_t<float, float, device::no_user_op>;
constexpr int RB = 8;

// d7e9e64's kernel
__global__ void __launch_bounds__(256)
    k_old(const float* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                   int64_t m, int64_t n, float alpha, float beta, float* __restrict__ c, int64_t ldc) {
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t col_step = stride / m, row_step = stride - col_step * m;
  int64_t col = first / m, row = first - col * m;
  for (; col < n; row += row_step, col += col_step) {
    if (row >= m) row -= m, ++col;
    if (col >= n) break;
    const float* p = partials + row + col * ld_partials;
    float sum = 0.0f;
    int s = 0;
    for (; s + RB <= slices; s += RB) {
      float batch[RB];
#pragma unroll
      for (int j = 0; j < RB; ++j) batch[j] = p[(s + j) * slice_stride];
#pragma unroll
      for (int j = 0; j < RB; ++j) sum += batch[j];
    }
    for (; s < slices; ++s) sum += p[s * slice_stride];
    float* x = c + row + col * ldc;
    *x = beta == 0.0f ? alpha * sum : alpha * sum + beta * *x;
  }
}

// Summation of one element's slices, in slice order. Quad: a batch of 4 for the rest.
template <bool Quad, class Partial, class Scalar>
__device__ __forceinline__ Scalar sum_slices(const Partial* p, int64_t slice_stride, int slices) {
  Scalar sum = Scalar(0);
  int s = 0;
  for (; s + RB <= slices; s += RB) {
    Scalar batch[RB];
#pragma unroll
    for (int j = 0; j < RB; ++j) batch[j] = convert<Scalar>(p[(s + j) * slice_stride]);
#pragma unroll
    for (int j = 0; j < RB; ++j) sum += batch[j];
  }
  if constexpr (Quad) {
    if (s + RB / 2 <= slices) {
      Scalar batch[RB / 2];
#pragma unroll
      for (int j = 0; j < RB / 2; ++j) batch[j] = convert<Scalar>(p[(s + j) * slice_stride]);
#pragma unroll
      for (int j = 0; j < RB / 2; ++j) sum += batch[j];
      s += RB / 2;
    }
  }
  for (; s < slices; ++s) sum += convert<Scalar>(p[s * slice_stride]);
  return sum;
}

// Variant: Mode 0 = current (runtime fused branch in the loop); 1 = loops apart on Fused; Quad: 4-batch tail.
template <bool Fused, bool Quad, class Partial, class Element, class Scalar, class User>
__device__ __forceinline__ void reduce_elements(const Partial* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                   int64_t m, int64_t n, Scalar alpha, Scalar beta, Element* __restrict__ c, int64_t ldc,
                   const device::epilogue_terms_t<Element, Scalar, User>& terms) {
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t col_step = stride / m, row_step = stride - col_step * m;
  int64_t col = first / m, row = first - col * m;
  for (; col < n; row += row_step, col += col_step) {
    if (row >= m) row -= m, ++col;
    if (col >= n) break;
    const Scalar sum = sum_slices<Quad, Partial, Scalar>(partials + row + col * ld_partials, slice_stride, slices);
    Element* x = c + row + col * ldc;
    if constexpr (Fused) {
      const bool read_c = beta != Scalar(0);
      const Element old = read_c ? *device::source_of(terms, c, ldc, row, col) : zero<Element>();
      *x = device::finish(terms, sum, alpha, beta, old, read_c, row, col);
    } else {
      *x = beta == Scalar(0) ? convert<Element>(alpha * sum) : convert<Element>(alpha * sum + beta * convert<Scalar>(*x));
    }
  }
}

template <int Mode, bool Quad, class Partial, class Element, class Scalar, class User = device::no_user_op>
__global__ void __launch_bounds__(256)
    k_var(const Partial* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                   int64_t m, int64_t n, Scalar alpha, Scalar beta, Element* __restrict__ c, int64_t ldc, bool fused,
                   const device::epilogue_terms_t<Element, Scalar, User> terms) {
  if constexpr (Mode == 1) {
    if (fused) reduce_elements<true, Quad, Partial, Element, Scalar, User>(partials, ld_partials, slice_stride, slices, m, n, alpha, beta, c, ldc, terms);
    else reduce_elements<false, Quad, Partial, Element, Scalar, User>(partials, ld_partials, slice_stride, slices, m, n, alpha, beta, c, ldc, terms);
    return;
  }
  // Mode 0: the current body, with sum_slices
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t col_step = stride / m, row_step = stride - col_step * m;
  int64_t col = first / m, row = first - col * m;
  for (; col < n; row += row_step, col += col_step) {
    if (row >= m) row -= m, ++col;
    if (col >= n) break;
    const Scalar sum = sum_slices<Quad, Partial, Scalar>(partials + row + col * ld_partials, slice_stride, slices);
    Element* x = c + row + col * ldc;
    if (fused) {
      const bool read_c = beta != Scalar(0);
      const Element old = read_c ? *device::source_of(terms, c, ldc, row, col) : zero<Element>();
      *x = device::finish(terms, sum, alpha, beta, old, read_c, row, col);
      continue;
    }
    *x = beta == Scalar(0) ? convert<Element>(alpha * sum) : convert<Element>(alpha * sum + beta * convert<Scalar>(*x));
  }
}

// V5: predicated batches of Q (a slice past the last adds +0: sum starts at +0, so never -0, and x + 0 == x).
template <int Q, class Partial, class Scalar>
__device__ __forceinline__ Scalar sum_pred(const Partial* p, int64_t slice_stride, int slices) {
  Scalar sum = Scalar(0);
  for (int s = 0; s < slices; s += Q) {
    Scalar batch[Q];
#pragma unroll
    for (int j = 0; j < Q; ++j) batch[j] = s + j < slices ? convert<Scalar>(p[(s + j) * slice_stride]) : Scalar(0);
#pragma unroll
    for (int j = 0; j < Q; ++j) sum += batch[j];
  }
  return sum;
}
// V7: a fixed count, fully unrolled.
template <int S, class Partial, class Scalar>
__device__ __forceinline__ Scalar sum_fixed(const Partial* p, int64_t slice_stride) {
  Scalar batch[S];
#pragma unroll
  for (int j = 0; j < S; ++j) batch[j] = convert<Scalar>(p[j * slice_stride]);
  Scalar sum = Scalar(0);
#pragma unroll
  for (int j = 0; j < S; ++j) sum += batch[j];
  return sum;
}

template <class Sum, class Partial, class Element, class Scalar>
__device__ __forceinline__ void elements(Sum sum_of, const Partial* __restrict__ partials, int64_t ld_partials,
                   int64_t m, int64_t n, Scalar alpha, Scalar beta, Element* __restrict__ c, int64_t ldc) {
  const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t col_step = stride / m, row_step = stride - col_step * m;
  int64_t col = first / m, row = first - col * m;
  for (; col < n; row += row_step, col += col_step) {
    if (row >= m) row -= m, ++col;
    if (col >= n) break;
    const Scalar sum = sum_of(partials + row + col * ld_partials);
    Element* x = c + row + col * ldc;
    *x = beta == Scalar(0) ? convert<Element>(alpha * sum) : convert<Element>(alpha * sum + beta * convert<Scalar>(*x));
  }
}

// 585e282's kernel: the per-count loops and the fused branch in one body.
__global__ void __launch_bounds__(256)
    k_585e282(const float* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices, int64_t m,
              int64_t n, float alpha, float beta, float* __restrict__ c, int64_t ldc, bool fused, const terms_t terms) {
  if (fused) {
    kernel::detail::for_each_element(m, n, [&](int64_t row, int64_t col) {
      const float sum = kernel::detail::sum_slices<float>(partials + row + col * ld_partials, slice_stride, slices);
      const bool read_c = beta != 0.0f;
      const float old = read_c ? *device::source_of(terms, c, ldc, row, col) : 0.0f;
      c[row + col * ldc] = device::finish(terms, sum, alpha, beta, old, read_c, row, col);
    });
    return;
  }
  const auto store = [&](float sum, int64_t row, int64_t col) {
    float* x = c + row + col * ldc;
    *x = beta == 0.0f ? alpha * sum : alpha * sum + beta * *x;
  };
  const auto fixed = [&](auto count) {
    kernel::detail::for_each_element(m, n, [&](int64_t row, int64_t col) {
      store(kernel::detail::add_slices<decltype(count)::value>(0.0f, partials + row + col * ld_partials, slice_stride),
            row, col);
    });
  };
  switch (slices) {
    case 1: return fixed(std::integral_constant<int, 1>{});
    case 2: return fixed(std::integral_constant<int, 2>{});
    case 3: return fixed(std::integral_constant<int, 3>{});
    case 4: return fixed(std::integral_constant<int, 4>{});
    case 5: return fixed(std::integral_constant<int, 5>{});
    case 6: return fixed(std::integral_constant<int, 6>{});
    case 7: return fixed(std::integral_constant<int, 7>{});
    case 8: return fixed(std::integral_constant<int, 8>{});
    default:
      kernel::detail::for_each_element(m, n, [&](int64_t row, int64_t col) {
        store(kernel::detail::sum_slices<float>(partials + row + col * ld_partials, slice_stride, slices), row, col);
      });
  }
}

template <int Mode, class Partial, class Element, class Scalar>
__global__ void __launch_bounds__(256)
    k_new(const Partial* __restrict__ partials, int64_t ld_partials, int64_t slice_stride, int slices,
                   int64_t m, int64_t n, Scalar alpha, Scalar beta, Element* __restrict__ c, int64_t ldc) {
  if constexpr (Mode == 4 || Mode == 8) {
    elements([&](const Partial* p) { return sum_pred<Mode, Partial, Scalar>(p, slice_stride, slices); }, partials, ld_partials, m, n, alpha, beta, c, ldc);
  } else if constexpr (Mode == 1) {  // unswitch on slices < 8
    if (slices < RB) elements([&](const Partial* p) { Scalar sum = Scalar(0); for (int s = 0; s < slices; ++s) sum += convert<Scalar>(p[s * slice_stride]); return sum; }, partials, ld_partials, m, n, alpha, beta, c, ldc);
    else elements([&](const Partial* p) { return sum_slices<false, Partial, Scalar>(p, slice_stride, slices); }, partials, ld_partials, m, n, alpha, beta, c, ldc);
  } else {  // fixed counts 2..8
    switch (slices) {
#define TG_CASE(S) case S: elements([&](const Partial* p) { return sum_fixed<S, Partial, Scalar>(p, slice_stride); }, partials, ld_partials, m, n, alpha, beta, c, ldc); return;
      TG_CASE(1) TG_CASE(2) TG_CASE(3) TG_CASE(4) TG_CASE(5) TG_CASE(6) TG_CASE(7) TG_CASE(8)
      default: elements([&](const Partial* p) { return sum_slices<false, Partial, Scalar>(p, slice_stride, slices); }, partials, ld_partials, m, n, alpha, beta, c, ldc);
    }
  }
}

int main(int argc, char** argv) {
  struct cs { int64_t m, n; int slices; };
  const cs cases[] = {{1024, 1024, 4}, {1000, 1000, 4}, {256, 256, 8}, {512, 512, 8}, {1024, 1024, 2}, {2048, 2048, 3}, {256, 256, 32}, {256, 256, 64}, {300, 300, 5}};
  int sms = 0;
  TGEMM_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int reps = argc > 1 ? std::atoi(argv[1]) : 0;
  const size_t maxe = size_t(2048) * 2048 * 32;
  float *p, *c;
  TGEMM_CHECK_CUDA(cudaMalloc(&p, maxe * 4));
  TGEMM_CHECK_CUDA(cudaMalloc(&c, 2048 * 2048 * 4));
  std::vector<float> h(maxe);
  std::mt19937 g(1);
  std::normal_distribution<float> d;
  for (auto& x : h) x = d(g);
  TGEMM_CHECK_CUDA(cudaMemcpy(p, h.data(), maxe * 4, cudaMemcpyHostToDevice));
  TGEMM_CHECK_CUDA(cudaMemcpy(c, h.data(), 2048 * 2048 * 4, cudaMemcpyHostToDevice));
  terms_t t{};
  cudaEvent_t e0, e1;
  TGEMM_CHECK_CUDA(cudaEventCreate(&e0));
  TGEMM_CHECK_CUDA(cudaEventCreate(&e1));
  for (const cs& x : cases) {
    const int64_t blocks = (x.m * x.n + 255) / 256, res = int64_t(sms) * 8;
    const dim3 grid(unsigned(blocks < res ? blocks : res));
    const int64_t ss = x.m * x.n;
    auto run = [&](int v) {
      switch (v) {
        case 0: k_old<<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m); break;
        case 1: k_var<0, false, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m, false, t); break;
        case 2: k_var<0, true, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m, false, t); break;
        case 3: k_var<1, false, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m, false, t); break;
        case 4: k_var<1, true, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m, false, t); break;
        case 5: k_new<4, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m); break;
        case 6: k_new<8, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m); break;
        case 7: k_new<1, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m); break;
        case 8: k_new<0, float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m); break;
        case 9: kernel::reduce_split_k<float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m); break;
        case 10: kernel::reduce_split_k_fused<float, float, float><<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m, t); break;
        case 11: k_585e282<<<grid, 256>>>(p, x.m, ss, x.slices, x.m, x.n, 1.0f, 0.0f, c, x.m, false, t); break;
      }
    };
    const char* names[] = {"old", "cur", "cur+quad", "apart", "apart+quad", "pred4", "pred8", "unswitch", "fixed", "lib", "lib-fused", "585e282"};
    constexpr int NV = 12;
    {
      std::vector<float> ref(x.m * x.n), got(x.m * x.n);
      run(0); TGEMM_CHECK_CUDA(cudaMemcpy(ref.data(), c, ref.size() * 4, cudaMemcpyDeviceToHost));
      for (int v = 1; v < NV; ++v) { TGEMM_CHECK_CUDA(cudaMemset(c, 0xff, ref.size() * 4)); run(v); TGEMM_CHECK_CUDA(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost)); if (memcmp(ref.data(), got.data(), ref.size() * 4)) printf("variant %d differs from old\n", v); }
    }
        std::vector<float> ts[NV];
    for (int r = 0; r < 7; ++r)
      for (int v = 0; v < NV; ++v) {
        const int vv = (v + r) % NV;
        for (int w = 0; w < 3; ++w) run(vv);
        TGEMM_CHECK_CUDA(cudaEventRecord(e0));
        for (int i = 0; i < 200; ++i) run(vv);
        TGEMM_CHECK_CUDA(cudaEventRecord(e1));
        TGEMM_CHECK_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        TGEMM_CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        ts[vv].push_back(ms / 200 * 1000);
      }
    printf("%lld x %lld x%d:", (long long)x.m, (long long)x.n, x.slices);
    for (int v = 0; v < NV; ++v) { std::sort(ts[v].begin(), ts[v].end()); printf("  %s %.2f", names[v], ts[v][3]); }
    printf(" us/launch (events, 200 back to back)\n");
    // For ncu: REPS launches of each variant
    for (int i = 0; i < reps; ++i) for (int v = 0; v < NV; ++v) run(v);
    TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  }
  TGEMM_CHECK_CUDA(cudaGetLastError());
  TGEMM_CHECK_CUDA(cudaFree(p));
  TGEMM_CHECK_CUDA(cudaFree(c));
}
