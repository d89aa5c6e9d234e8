// Device facts pinned for the host tests' plan tables: what tgemm::gemm() plans with on four GPUs, written by hand
// so that plans can be checked without a GPU. The H200's are what the dispatcher reads on one (the GPU test
// "the H200 facts the host tests pin are the device's" compares them); the others are this build's register counts
// put through the occupancy rules of their architecture.
#pragma once

#include <tgemm/host/device_facts.cuh>

namespace tgemm::test::pinned {

using tgemm::detail::device_facts;

/// Blocks per multiprocessor of every dispatcher kernel, by op pair (NN, NT, TN, TT) and slot (in slot order:
/// general, general_tn, general_tt, medium, small, narrow_m, narrow_n, tiny_m, tiny_n, unaligned, products); 0 where the
/// planner never asks (the large slot of another op pair).
using occupancy = int[4][tgemm::tuning::slot_count];

/// Facts of a device: arch, multiprocessors and resident blocks.
inline device_facts facts(int arch, int multiprocessors, const occupancy& blocks) {
  device_facts f;
  f.arch = arch;
  f.multiprocessors = multiprocessors;
  for (int p = 0; p < 4; ++p) {
    for (int s = 0; s < tgemm::tuning::slot_count; ++s) f.resident_blocks[p][s] = blocks[p][s];
  }
  return f;
}

/// An H200 running this build's sm_90a code: 132 SMs; resident blocks as the occupancy calculator reports them
/// for these kernels (the GPU test "the facts the host tests pin are an H200's" compares them with the device).
inline device_facts h200() {
  static const occupancy blocks = {{1, 0, 0, 2, 4, 4, 5, 4, 4, 1, 16},
                                   {1, 0, 0, 2, 4, 5, 5, 4, 4, 1, 16},
                                   {0, 1, 0, 1, 4, 4, 4, 4, 4, 1, 16},
                                   {0, 0, 1, 2, 4, 5, 4, 4, 4, 1, 16}};
  return facts(900, 132, blocks);
}

/// An A100 (sm_80, 108 SMs); resident blocks from this build's sm_80 register counts and the occupancy rules.
inline device_facts a100() {
  static const occupancy blocks = {{2, 0, 0, 2, 3, 4, 5, 4, 4, 1, 3},
                                   {1, 0, 0, 1, 3, 4, 5, 4, 4, 1, 3},
                                   {0, 2, 0, 2, 3, 4, 4, 4, 4, 1, 3},
                                   {0, 0, 2, 2, 3, 4, 4, 4, 4, 1, 3}};
  return facts(800, 108, blocks);
}

/// An RTX 3090 (sm_86, 82 SMs) running sm_86 code.
inline device_facts rtx3090() {
  static const occupancy blocks = {{1, 0, 0, 1, 2, 4, 4, 2, 2, 1, 2},
                                   {2, 0, 0, 2, 2, 4, 4, 2, 2, 1, 2},
                                   {0, 2, 0, 2, 2, 4, 4, 2, 2, 1, 2},
                                   {0, 0, 1, 1, 2, 4, 4, 2, 2, 1, 2}};
  return facts(860, 82, blocks);
}

/// A T4 (sm_75, 40 SMs).
inline device_facts t4() {
  static const occupancy blocks = {{2, 0, 0, 2, 3, 3, 3, 1, 1, 1, 3},
                                   {2, 0, 0, 2, 3, 3, 3, 1, 1, 1, 3},
                                   {0, 2, 0, 2, 3, 3, 3, 1, 1, 1, 3},
                                   {0, 0, 2, 2, 3, 3, 3, 1, 1, 1, 3}};
  return facts(750, 40, blocks);
}

}  // namespace tgemm::test::pinned
