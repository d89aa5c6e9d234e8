/// \file host/device_facts.cuh
/// \brief What the planner knows about a device: its architecture as this build runs it, its size, and how many
/// blocks of each dispatcher kernel fit on one multiprocessor.
#pragma once

#include <cstdint>

#include "../tuning/slots.cuh"
#include "../types.cuh"

namespace tgemm::detail {

/// Index of an (op_a, op_b) pair: 0 NN, 1 NT, 2 TN, 3 TT.
constexpr int op_pair_index(op op_a, op op_b) {
  return (op_a == op::transpose ? 2 : 0) + (op_b == op::transpose ? 1 : 0);
}

/// The facts about a device that a plan depends on. The dispatcher reads them once per device (arch probe,
/// attributes, occupancy calculator); host tests write them by hand to pin plans for any GPU.
struct device_facts {
  int device = 0;           ///< The CUDA device number.
  int arch = 0;             ///< `__CUDA_ARCH__` of the image this build runs there (e.g. 800 on an sm_86 GPU).
  int multiprocessors = 0;  ///< Streaming multiprocessors.
  /// The device runs this build's sm_90a image, the one with the wgmma kernels' code (an sm_90 GPU running a
  /// plain sm_90 or older image does not).
  bool wgmma_image = false;
  /// Blocks of each dispatcher kernel that one multiprocessor holds at once, by op pair and slot (0: unknown,
  /// counted as 1).
  int resident_blocks[4][tuning::slot_count] = {};

  /// Multiprocessors, at least 1 (facts a host test leaves at 0 still give plans).
  int64_t multiprocessor_count() const { return multiprocessors > 0 ? multiprocessors : 1; }

  /// Blocks of slot `s`'s kernel for (op_a, op_b) resident on one multiprocessor (at least 1).
  int resident(op op_a, op op_b, tuning::slot s) const {
    const int blocks = resident_blocks[op_pair_index(op_a, op_b)][int(s)];
    return blocks > 0 ? blocks : 1;
  }
};

}  // namespace tgemm::detail
