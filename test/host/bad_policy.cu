// Compile-fail cases for tgemm::policy's static_asserts (test/host/CMakeLists.txt runs the CUDA compiler on this
// file once per case and expects the build to fail with that case's message).
//
// Each case breaks exactly one rule and keeps every other rule satisfied, so that the only diagnostic is the one
// the test looks for (cases 19 to 21, zero extents, also divide by zero further on). Case 0 is consistent and must
// compile.
#include <tgemm/policy/policy.cuh>

#ifndef TGEMM_BAD_POLICY_CASE
#error "define TGEMM_BAD_POLICY_CASE (0 compiles; 1 and up must each fail with their own static_assert)"
#endif

using tgemm::block_shape;
using tgemm::policy;
using tgemm::thread_shape;
using tgemm::warp_shape;

#if TGEMM_BAD_POLICY_CASE == 0
// Consistent (tgemm::seed::register_blocked).
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 1
// (32 / 4) * (32 / 4) = 64 threads per warp.
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 32>, thread_shape<4, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 2
// 96 % 64 != 0 (warp: (64 / 8) * (16 / 4) = 32 threads; 4 warps).
using bad_policy = policy<block_shape<96, 64, 8>, warp_shape<64, 16>, thread_shape<8, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 3
// 96 % 64 != 0 along n (warp: (16 / 4) * (64 / 8) = 32 threads; 4 warps).
using bad_policy = policy<block_shape<64, 96, 8>, warp_shape<16, 64>, thread_shape<4, 8>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 4
// thread_m = 3 (warp: (24 / 3) * (16 / 4) = 32 threads; 16 warps, 512 threads).
using bad_policy = policy<block_shape<96, 64, 16>, warp_shape<24, 16>, thread_shape<3, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 5
// vector_width = 3 (every extent a multiple of 3 and 4; 6 warps; tiles of 1152 = 2 * 192 * 3 elements).
using bad_policy = policy<block_shape<96, 96, 12>, warp_shape<48, 32>, thread_shape<12, 4>, 3, 1>;
#elif TGEMM_BAD_POLICY_CASE == 6
// unroll = 3 does not divide block_k = 8.
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1, 3>;
#elif TGEMM_BAD_POLICY_CASE == 7
// stages = 0.
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 0>;
#elif TGEMM_BAD_POLICY_CASE == 8
// int accumulator.
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1, 8, int>;
#elif TGEMM_BAD_POLICY_CASE == 9
// block_m = 2 (one warp of 2 x 16 threads across m, 4 along n: 128 threads; tiles of 128 and 4096 elements).
using bad_policy = policy<block_shape<2, 64, 64>, warp_shape<2, 16>, thread_shape<1, 1>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 10
// 8 stages of 64 x (132 + 132) floats: 540672 bytes.
using bad_policy = policy<block_shape<128, 128, 64>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 8>;
#elif TGEMM_BAD_POLICY_CASE == 11
// 8 x 8 warps of 32 threads: 2048 threads.
using bad_policy = policy<block_shape<256, 256, 8>, warp_shape<32, 32>, thread_shape<4, 8>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 12
// 512 threads; the A tile has 64 * 4 = 256 elements (the B tile 512 splits evenly).
using bad_policy = policy<block_shape<64, 128, 4>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 13
// raster_group = 0.
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1, 8, float, 0>;
#elif TGEMM_BAD_POLICY_CASE == 14
// 36 % 8 != 0 (warp: (36 / 8 rounded down) * (32 / 4) = 32 threads, so only this rule breaks).
using bad_policy = policy<block_shape<36, 32, 8>, warp_shape<36, 32>, thread_shape<8, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 15
// block_k = 2 with vector_width 4 (2 warps of (128 / 16) * (64 / 16) threads; tiles of 256 = 64 * 4 elements).
using bad_policy = policy<block_shape<128, 128, 2>, warp_shape<128, 64>, thread_shape<16, 16>, 4, 1>;
#elif TGEMM_BAD_POLICY_CASE == 16
// thread_n = 3 (warp: (16 / 4) * (24 / 3) = 32 threads; 16 warps, 512 threads; tiles of 1024 and 1536 elements).
using bad_policy = policy<block_shape<64, 96, 16>, warp_shape<16, 24>, thread_shape<4, 3>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 17
// 36 % 8 != 0 along n (warp: (32 / 4) * (36 / 8 rounded down) = 32 threads; one warp; tiles of 256 and 288).
using bad_policy = policy<block_shape<32, 36, 8>, warp_shape<32, 36>, thread_shape<4, 8>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 18
// 512 threads; the B tile has 64 * 4 = 256 elements (the A tile 512 splits evenly).
using bad_policy = policy<block_shape<128, 64, 4>, warp_shape<16, 32>, thread_shape<4, 4>, 1, 1>;
// Non-positive extents: the positivity message comes first; the divisions by zero that follow from it in
// later rules add their own diagnostics, which these tests do not look at.
#elif TGEMM_BAD_POLICY_CASE == 19
using bad_policy = policy<block_shape<64, 0, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 20
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<0, 16>, thread_shape<4, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 21
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<0, 4>, 1, 1>;
#elif TGEMM_BAD_POLICY_CASE == 22
// Elements the SIMT mainloop cannot multiply.
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1, 8, double, 8, int>;
#elif TGEMM_BAD_POLICY_CASE == 23
// 4 doubles are 32 bytes: more than one vector access moves.
using bad_policy = policy<block_shape<64, 64, 16>, warp_shape<32, 16>, thread_shape<4, 4>, 4, 1, 8, double, 8, double>;
#elif TGEMM_BAD_POLICY_CASE == 24
// A double policy must accumulate in double.
using bad_policy = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 2, 1, 8, float, 8, double>;
#elif TGEMM_BAD_POLICY_CASE == 25
// A mainloop tag nobody implements: the device layer's open template stops the build with a plain message.
#include <tgemm/device/gemm.cuh>
#include <tgemm/policy/seed.cuh>
struct unknown_mainloop {};
struct bad_policy : tgemm::seed::register_blocked {
  using mainloop_tag = unknown_mainloop;
};
using bad_storage = tgemm::device::shared_storage<bad_policy>;
constexpr int bad_storage_size = int(sizeof(bad_storage));
#else
#error "unknown TGEMM_BAD_POLICY_CASE"
#endif

// Instantiates the class, and with it every static_assert of its body.
constexpr int bad_policy_size = int(sizeof(bad_policy));
// Reading the derived constants is what a kernel would do first.
int bad_policy_threads() { return bad_policy::threads + bad_policy::shared_bytes + bad_policy_size; }
