/// \file device/mainloop/block_mainloop.cuh
/// \brief The open mainloop template: one thread block's tile of C, for the mainloop its policy names.
///
/// tgemm::device::block_mainloop<Tag, Policy> is specialised once per mainloop tag (see policy/mainloop_tags.cuh),
/// each in a file of its own beside this one. A specialisation provides
///
/// - `shared_storage`: the block's shared memory (a type; its size is what the host reserves);
/// - `template <op OpA, op OpB, class Epilogue> static void run(problem, readable_m, readable_n, tile_row,
///   tile_col, shared_storage&, epilogue)`: computes the block_m x block_n tile (tile_row, tile_col) of
///   op(A) op(B) and hands it to the epilogue. Rows of op(A) at or past readable_m and columns of op(B) at or
///   past readable_n read as zero; readable_m >= m and readable_n >= n.
#pragma once

namespace tgemm::device {

namespace detail {
template <class>
inline constexpr bool no_mainloop_for = false;
}  // namespace detail

/// The mainloop for a tag. This primary template is never used: a tag without a specialisation stops here.
template <class Tag, class Policy>
struct block_mainloop {
  static_assert(detail::no_mainloop_for<Tag>,
                "no mainloop implements this policy's mainloop_tag: include the header that specialises "
                "tgemm::device::block_mainloop for it (device/mainloop/<tag>.cuh), or fix the policy's mainloop_tag");
};

/// The mainloop a policy runs.
template <class Policy>
using mainloop_of = block_mainloop<typename Policy::mainloop_tag, Policy>;

/// The shared memory one block of a policy needs. Declare it `__shared__` when it fits in 48 KiB, or carve it
/// from dynamic shared memory.
template <class Policy>
using shared_storage = typename mainloop_of<Policy>::shared_storage;

}  // namespace tgemm::device
