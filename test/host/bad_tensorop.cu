// Compile-fail cases for the tensor-core types: tgemm::tensorop_policy's static_asserts (and tgemm::wgmma_policy's on
// clusters), and tgemm::gemm() called
// with an element combination it does not multiply, or with a tgemm::user_epilogue in compiled mode
// (test/host/CMakeLists.txt compiles this file once per case, in compiled mode so that no kernel is built, and
// expects each case but 0 to fail with its own message).
#if defined(TGEMM_BAD_TENSOROP_CASE) && TGEMM_BAD_TENSOROP_CASE == 11
#undef TGEMM_COMPILED  // the check is in the user epilogue's terms, which only the header-only mode instantiates
#include <string>
#endif
#include <tgemm/gemm.cuh>

#ifndef TGEMM_BAD_TENSOROP_CASE
#error "define TGEMM_BAD_TENSOROP_CASE (0 compiles; 1 and up must each fail with their own static_assert)"
#endif

using tgemm::block_shape;
using tgemm::mma_shape;
using tgemm::tensorop_policy;
using tgemm::warp_shape;

#if TGEMM_BAD_TENSOROP_CASE == 0
// Consistent: a Hopper tile in clusters of two.
using pair_policy = tgemm::wgmma_policy<block_shape<64, 256, 64>, 4, __half, __half, tgemm::math_mode::strict, true, 2>;
static_assert(pair_policy::cluster_m == 2 && pair_policy::threads == 384, "two blocks a cluster; three warpgroups");
// Consistent: a bf16 and a double policy, and supported gemm() calls (bf16 -> float, float with TF32, double).
using double_policy =
    tensorop_policy<block_shape<64, 64, 16>, warp_shape<32, 32>, mma_shape<16, 8, 4>, 4, double, double>;
static_assert(double_policy::threads == 128, "four warps");
tgemm::status call_double(const double* a, double* c) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 8, 8, 8, 1.0, a, 8, a, 8, 0.0, c, 8);
}
using bad_policy = tensorop_policy<block_shape<128, 128, 32>, warp_shape<64, 32>, mma_shape<16, 8, 16>, 3, __nv_bfloat16>;
tgemm::status call(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, const float* x, float* y) {
  const tgemm::status s = tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 8, 8, 8, 1.0f, a, 8,
                                      b, 8, 0.0f, c, 8);
  tgemm::options tf32;
  tf32.math = tgemm::math_mode::tf32;
  return s != tgemm::status::success ? s
                                     : tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 8, 8, 8,
                                                   1.0f, x, 8, x, 8, 0.0f, y, 8, nullptr, tf32);
}
#elif TGEMM_BAD_TENSOROP_CASE == 1
// int matrices.
using bad_policy = tensorop_policy<block_shape<128, 128, 32>, warp_shape<64, 32>, mma_shape<16, 8, 16>, 3, __half>;
tgemm::status call(const int* a, int* c) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 8, 8, 8, 1.0f, a, 8, a, 8, 0.0f, c, 8);
}
#elif TGEMM_BAD_TENSOROP_CASE == 2
// A and B of different types.
using bad_policy = tensorop_policy<block_shape<128, 128, 32>, warp_shape<64, 32>, mma_shape<16, 8, 16>, 3, __half>;
tgemm::status call(const __half* a, const __nv_bfloat16* b, float* c) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 8, 8, 8, 1.0f, a, 8, b, 8, 0.0f, c, 8);
}
#elif TGEMM_BAD_TENSOROP_CASE == 3
// Float elements on the tensor cores without a TF32 math mode.
using bad_policy = tensorop_policy<block_shape<128, 128, 32>, warp_shape<64, 32>, mma_shape<16, 8, 8>, 3, float>;
#elif TGEMM_BAD_TENSOROP_CASE == 4
// A 16-bit policy with the TF32 instruction shape.
using bad_policy = tensorop_policy<block_shape<128, 128, 32>, warp_shape<64, 32>, mma_shape<16, 8, 8>, 3, __half>;
#elif TGEMM_BAD_TENSOROP_CASE == 5
// block_shape::k of 24: not a multiple of the instruction's 16.
using bad_policy = tensorop_policy<block_shape<128, 128, 24>, warp_shape<64, 32>, mma_shape<16, 8, 16>, 3, __half>;
#elif TGEMM_BAD_TENSOROP_CASE == 6
// A double C.
using bad_policy =
    tensorop_policy<block_shape<128, 128, 32>, warp_shape<64, 32>, mma_shape<16, 8, 16>, 3, __half, double>;
#elif TGEMM_BAD_TENSOROP_CASE == 7
// double with an 8 x 8 x 4 instruction (sm_80's own DMMA shape; double policies name 16 x 8 steps).
using bad_policy = tensorop_policy<block_shape<64, 64, 16>, warp_shape<32, 32>, mma_shape<8, 8, 4>, 4, double>;
#elif TGEMM_BAD_TENSOROP_CASE == 8
// A double tile 8 deep (64-byte rows along k).
using bad_policy = tensorop_policy<block_shape<64, 64, 8>, warp_shape<32, 32>, mma_shape<16, 8, 4>, 4, double>;
#elif TGEMM_BAD_TENSOROP_CASE == 9
// double A and B with a float C.
using bad_policy =
    tensorop_policy<block_shape<64, 64, 16>, warp_shape<32, 32>, mma_shape<16, 8, 4>, 4, double, float>;
#elif TGEMM_BAD_TENSOROP_CASE == 10
// A tgemm::user_epilogue in a translation unit of the compiled mode, where its kernels cannot compile.
struct twice {
  __device__ float operator()(float v, int64_t, int64_t, int64_t) const { return 2 * v; }
};
tgemm::status call_user_epilogue(const float* a, float* c) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 8, 8, 8, 1.0f, a, 8, a, 8, 0.0f, c, 8,
                     tgemm::with_op(tgemm::epilogue<float>{}, twice{}));
}
using bad_policy = tensorop_policy<block_shape<64, 64, 16>, warp_shape<32, 32>, mma_shape<16, 8, 4>, 4, double>;
#elif TGEMM_BAD_TENSOROP_CASE == 11
// A user epilogue operation that is not trivially copyable (it travels to the GPU as a kernel argument).
struct named_op {
  std::string name;
  __device__ float operator()(float v, int64_t, int64_t, int64_t) const { return v; }
};
tgemm::status call_named_op(const float* a, float* c) {
  return tgemm::gemm(tgemm::layout::col_major, tgemm::op::none, tgemm::op::none, 8, 8, 8, 1.0f, a, 8, a, 8, 0.0f, c, 8,
                     tgemm::with_op(tgemm::epilogue<float>{}, named_op{}));
}
using bad_policy = tensorop_policy<block_shape<64, 64, 16>, warp_shape<32, 32>, mma_shape<16, 8, 4>, 4, double>;
#elif TGEMM_BAD_TENSOROP_CASE == 12
// A Hopper tile in clusters of three (pairs only).
using bad_policy = tgemm::wgmma_policy<block_shape<128, 256, 64>, 4, __nv_bfloat16, __nv_bfloat16,
                                       tgemm::math_mode::strict, false, 3>;
#elif TGEMM_BAD_TENSOROP_CASE == 13
// A 3xTF32 Hopper tile in clusters (its split copies are not multicast).
using bad_policy = tgemm::wgmma_policy<block_shape<128, 128, 32>, 3, float, float, tgemm::math_mode::tf32x3, false, 2>;
#else
#error "unknown TGEMM_BAD_TENSOROP_CASE"
#endif

// Instantiates the class, and with it every static_assert of its body.
constexpr int bad_policy_size = int(sizeof(bad_policy));
int bad_policy_threads() { return bad_policy::threads + bad_policy::shared_bytes + bad_policy_size; }
