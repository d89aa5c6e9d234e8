// The user-operation half of bench/tgemm_bench_epilogue.cu: tgemm::gemm() with the built-in bias and a `__device__`
// lambda computing GELU (tanh form) itself, tgemm::with_op(ep, gelu). Its kernels compile here, so this translation
// unit is in header-only mode (the rest of the benchmark uses the compiled library); built with --extended-lambda.
#undef TGEMM_COMPILED
#include <tgemm/gemm.cuh>

#include <cuda_bf16.h>

#include <cstdint>

namespace tgemm::bench {

/// D = GELU(A B + bias) with the bias built in and GELU as the caller's operation; column-major, as the benchmark's
/// other calls. The lambda computes what the built-in GELU computes: for a 16-bit D with sm_75's tanh.approx.f32 (the
/// result is rounded to 8 or 11 bits anyway), for a float D with tanhf.
template <class T>
status gemm_bias_user_gelu(int64_t m, int64_t n, int64_t k, const T* a, const T* b, const T* bias, T* d) {
  epilogue<T> ep;
  ep.row_bias = bias;
  const auto gelu = [] __device__(float x, int64_t, int64_t, int64_t) {
    const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    float t;
    if constexpr (sizeof(T) == 2) {
      asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(inner));
    } else {
      t = tanhf(inner);
    }
    const float half = 0.5f * x;
    return half + half * t;
  };
  return gemm(layout::col_major, op::none, op::none, m, n, k, 1.0f, a, m, b, k, 0.0f, d, m, with_op(ep, gelu));
}

template status gemm_bias_user_gelu<__nv_bfloat16>(int64_t, int64_t, int64_t, const __nv_bfloat16*,
                                                   const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*);
template status gemm_bias_user_gelu<float>(int64_t, int64_t, int64_t, const float*, const float*, const float*, float*);

}  // namespace tgemm::bench
