/// \file policy/shapes.cuh
/// \brief The tile shapes a policy is built from: the block's tile of C, a warp's, a thread's.
#pragma once

namespace tgemm {

/// The tile of C one thread block computes, and the depth of one k step.
template <int M, int N, int K>
struct block_shape {
  static constexpr int m = M;  ///< Rows of C per block.
  static constexpr int n = N;  ///< Columns of C per block.
  static constexpr int k = K;  ///< Depth of the k slice staged in shared memory per step.
};

/// The tile of C one warp computes.
template <int M, int N>
struct warp_shape {
  static constexpr int m = M;  ///< Rows of C per warp.
  static constexpr int n = N;  ///< Columns of C per warp.
};

/// The tile of C one thread accumulates in registers.
template <int M, int N>
struct thread_shape {
  static constexpr int m = M;  ///< Rows of C per thread.
  static constexpr int n = N;  ///< Columns of C per thread.
};

/// The tile one tensor-core instruction multiplies: an m x k tile of A by a k x n tile of B, per warp.
template <int M, int N, int K>
struct mma_shape {
  static constexpr int m = M;  ///< Rows of the instruction's product.
  static constexpr int n = N;  ///< Columns of the instruction's product.
  static constexpr int k = K;  ///< Depth of the instruction's product.
};

}  // namespace tgemm
