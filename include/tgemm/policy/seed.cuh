/// \file policy/seed.cuh
/// \brief The tutorial's progression as policies: each rung adds one idea to the one before.
///
/// They are ordinary policies: tgemm::launch<tgemm::seed::vectorized>(...) runs a rung on real data, the tests
/// check every one, and the benchmark shows what each idea buys.
#pragma once

#include "policy.cuh"

/// The tutorial's rungs, from the naive kernel to a double-buffered pipeline, as ready-made policies.
namespace tgemm::seed {

/// Rung 1: one thread per element of C, no reuse of operands.
using naive = naive_policy;

/// Rung 2: 16 x 16 tiles of A and B staged in shared memory; each value loaded once per block, used 16 times.
using shared_tiled = policy<block_shape<16, 16, 16>, warp_shape<16, 2>, thread_shape<1, 1>, 1, 1>;

/// Rung 3: each thread keeps a 4 x 4 tile of C in registers, so one shared-memory read feeds four FMAs.
using register_blocked = policy<block_shape<64, 64, 8>, warp_shape<32, 16>, thread_shape<4, 4>, 1, 1>;

/// Rung 4: 8 x 8 register tiles on a 128 x 128 block, fed by 16-byte (float4) global and shared loads.
using vectorized = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 1>;

/// Rung 5: two shared-memory stages; the next slice is copied (cp.async) while this one is multiplied.
using double_buffered = policy<block_shape<128, 128, 8>, warp_shape<32, 64>, thread_shape<8, 8>, 4, 2>;

}  // namespace tgemm::seed
