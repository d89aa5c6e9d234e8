/// \file policy/mainloop_tags.cuh
/// \brief Mainloop tags: which algorithm a policy's blocks run over k. The set is open.
///
/// A policy names its mainloop with a tag type (`Policy::mainloop_tag`). The device layer implements a tag by
/// specialising tgemm::device::block_mainloop<Tag, Policy> in a header of its own (`device/mainloop/TAG.cuh`);
/// a tag nobody implements stops the build with a plain message. Adding a mainloop (tensor cores, wgmma) is a
/// new tag here, a new file there, and one line in the tuning table that uses it.
#pragma once

/// Mainloop tags (empty types naming an algorithm; the numbers live in the policy).
namespace tgemm::mainloop {

/// One thread per element of C, operands read straight from global memory: the tutorial's first rung.
struct naive {};

/// Multiply-adds on the CUDA cores over per-thread register tiles, with k slices staged in shared memory through
/// `Stages` buffers (1: load, then compute; 2 or more: the next slices are copied, with cp.async on sm_80 and
/// newer, while the current one is multiplied).
template <int Stages>
struct simt_multistage {
  /// Shared-memory buffers of the k pipeline.
  static constexpr int stages = Stages;
};

/// Warp-wide mma.sync on the tensor cores (sm_80 and newer): k slices copied with cp.async into `Stages`
/// swizzled shared-memory buffers, read into fragments with ldmatrix.
template <int Stages>
struct tensorop_multistage {
  /// Shared-memory buffers of the k pipeline.
  static constexpr int stages = Stages;
};

/// sm_90a: TMA copies into 128-byte-swizzled stages, a producer warpgroup and wgmma consumer warpgroups
/// (kernel/gemm_tma_wgmma.cuh).
template <int Stages>
struct tma_wgmma_warp_specialized {
  /// Shared-memory buffers of the k pipeline.
  static constexpr int stages = Stages;
};

}  // namespace tgemm::mainloop
