// Policies that only the tests use: corners of the policy space the tuning tables do not cover.
#pragma once

#include <tgemm/policy/policy.cuh>

namespace tgemm::test {

/// Products summed in double.
using double_accumulator = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 2, 2, 4, double>;
/// A four-stage pipeline of 16-deep slices, two floats per load.
using deep_pipeline = policy<block_shape<64, 128, 16>, warp_shape<32, 32>, thread_shape<4, 8>, 2, 4, 4>;
/// 2 x 2 per thread: fragments narrower than a vector.
using narrow_fragments = policy<block_shape<32, 32, 16>, warp_shape<16, 8>, thread_shape<2, 2>, 2, 2, 4>;

}  // namespace tgemm::test
