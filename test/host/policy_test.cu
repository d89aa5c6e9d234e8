// Names (to_string), the policies' derived constants, and the per-architecture tuning chain.
#include "catch.hpp"

#include <tgemm/gemm.cuh>

#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;

constexpr bool same_text(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

/// shared_bytes as the documentation describes it: stages x block_k x (padded A row + padded B row) floats.
template <class P>
constexpr int expected_shared_bytes() {
  return P::stages * P::block_k * ((P::block_m + 4) + (P::block_n + 4)) * 4;
}

/// The rules every tiled policy obeys, restated from the policy's documentation.
template <class P>
void check_tiled_invariants() {
  INFO(P::name());
  STATIC_REQUIRE(std::is_same<typename P::mainloop_tag, tgemm::mainloop::simt_multistage<P::stages>>::value);
  STATIC_REQUIRE(P::warp_threads_m * P::warp_threads_n == 32);
  STATIC_REQUIRE(P::warp_threads_m == P::warp_m / P::thread_m);
  STATIC_REQUIRE(P::warp_threads_n == P::warp_n / P::thread_n);
  STATIC_REQUIRE(P::warps_m == P::block_m / P::warp_m);
  STATIC_REQUIRE(P::warps_n == P::block_n / P::warp_n);
  STATIC_REQUIRE(P::threads == P::warps_m * P::warps_n * 32);
  STATIC_REQUIRE(P::threads <= 1024);
  STATIC_REQUIRE(P::fragment_m == (P::thread_m < 4 ? P::thread_m : 4));
  STATIC_REQUIRE(P::fragment_n == (P::thread_n < 4 ? P::thread_n : 4));
  STATIC_REQUIRE(P::thread_m % P::fragment_m == 0);
  STATIC_REQUIRE(P::thread_n % P::fragment_n == 0);
  STATIC_REQUIRE(P::shared_bytes == expected_shared_bytes<P>());
  STATIC_REQUIRE(P::shared_bytes % 16 == 0);
  // The kernel views its dynamic shared memory, of shared_bytes, as a shared_storage<P>.
  STATIC_REQUIRE(sizeof(tgemm::device::shared_storage<P>) == size_t(P::shared_bytes));
  STATIC_REQUIRE(P::block_k % P::unroll == 0);
  STATIC_REQUIRE((P::block_m * P::block_k) % (P::threads * P::vector_width) == 0);
  STATIC_REQUIRE((P::block_n * P::block_k) % (P::threads * P::vector_width) == 0);
  STATIC_REQUIRE(P::raster_group >= 1);
}

}  // namespace

TEST_CASE("every status has its own name", "[status]") {
  const std::vector<std::pair<status, std::string>> all = {
      {status::success, "success"},
      {status::invalid_layout, "invalid_layout"},
      {status::invalid_op, "invalid_op"},
      {status::invalid_dimension, "invalid_dimension"},
      {status::invalid_leading_dimension, "invalid_leading_dimension"},
      {status::size_overflow, "size_overflow"},
      {status::null_pointer, "null_pointer"},
      {status::misaligned_operand, "misaligned_operand"},
      {status::invalid_extents, "invalid_extents"},
      {status::unsupported_layout, "unsupported_layout"},
      {status::no_cuda_device, "no_cuda_device"},
      {status::arch_not_compiled, "arch_not_compiled"},
      {status::cuda_error, "cuda_error"},
      {status::out_of_memory, "out_of_memory"},
      {status::workspace_too_small, "workspace_too_small"},
      {status::unsupported_device, "unsupported_device"},
      {status::invalid_option, "invalid_option"},
      {status::invalid_batch_stride, "invalid_batch_stride"},
      {status::invalid_epilogue, "invalid_epilogue"},
  };
  std::set<std::string> names;
  for (int i = 0; i < int(all.size()); ++i) {
    const auto& [value, name] = all[size_t(i)];
    CAPTURE(i, name);
    REQUIRE(int(value) == i);  // the enumeration is dense from 0, so this list is all of it
    const char* text = tgemm::to_string(value);
    REQUIRE(text != nullptr);
    REQUIRE(std::string(text) == name);
    REQUIRE(std::string(text) != "unknown status");
    names.insert(text);
  }
  REQUIRE(names.size() == all.size());
  STATIC_REQUIRE(int(status::success) == 0);
  STATIC_REQUIRE(same_text(tgemm::to_string(status::misaligned_operand), "misaligned_operand"));

  REQUIRE(std::string(tgemm::to_string(static_cast<status>(int(status::invalid_epilogue) + 1))) ==
          "unknown status");
  REQUIRE(std::string(tgemm::to_string(static_cast<status>(-1))) == "unknown status");
  REQUIRE(std::string(tgemm::to_string(static_cast<status>(1000))) == "unknown status");
}

TEST_CASE("layouts and ops have the CBLAS values and their names", "[status]") {
  STATIC_REQUIRE(int(layout::row_major) == 101);
  STATIC_REQUIRE(int(layout::col_major) == 102);
  STATIC_REQUIRE(int(op::none) == 111);
  STATIC_REQUIRE(int(op::transpose) == 112);
  STATIC_REQUIRE(same_text(tgemm::to_string(layout::row_major), "row_major"));
  STATIC_REQUIRE(same_text(tgemm::to_string(layout::col_major), "col_major"));
  STATIC_REQUIRE(same_text(tgemm::to_string(op::none), "none"));
  STATIC_REQUIRE(same_text(tgemm::to_string(op::transpose), "transpose"));
  REQUIRE(std::string(tgemm::to_string(static_cast<layout>(7))) == "invalid layout");
  REQUIRE(std::string(tgemm::to_string(static_cast<op>(0))) == "invalid op");
  STATIC_REQUIRE(tgemm::is_valid(layout::row_major));
  STATIC_REQUIRE(tgemm::is_valid(layout::col_major));
  STATIC_REQUIRE_FALSE(tgemm::is_valid(static_cast<layout>(103)));
  STATIC_REQUIRE(tgemm::is_valid(op::none));
  STATIC_REQUIRE(tgemm::is_valid(op::transpose));
  STATIC_REQUIRE_FALSE(tgemm::is_valid(static_cast<op>(113)));
}

TEST_CASE("the seed policies have the documented shapes and derived constants", "[policy]") {
  using tgemm::seed::double_buffered;
  using tgemm::seed::register_blocked;
  using tgemm::seed::shared_tiled;
  using tgemm::seed::vectorized;

  check_tiled_invariants<shared_tiled>();
  check_tiled_invariants<register_blocked>();
  check_tiled_invariants<vectorized>();
  check_tiled_invariants<double_buffered>();

  SECTION("shared_tiled: 16 x 16 x 16, one element per thread") {
    using P = shared_tiled;
    STATIC_REQUIRE(P::block_m == 16 && P::block_n == 16 && P::block_k == 16);
    STATIC_REQUIRE(P::warp_threads_m == 16 && P::warp_threads_n == 2);
    STATIC_REQUIRE(P::warps_m == 1 && P::warps_n == 8);
    STATIC_REQUIRE(P::threads == 256);
    STATIC_REQUIRE(P::fragment_m == 1 && P::fragment_n == 1);
    STATIC_REQUIRE(P::vector_width == 1 && P::stages == 1 && P::unroll == 16 && P::raster_group == 8);
    STATIC_REQUIRE(P::shared_bytes == 16 * (20 + 20) * 4);
    STATIC_REQUIRE(std::is_same<P::accumulator_type, float>::value);
    REQUIRE(P::name() == "tiled_b16x16x16_w16x2_t1x1_v1_s1_u16_f32");
  }
  SECTION("register_blocked: 4 x 4 per thread") {
    using P = register_blocked;
    STATIC_REQUIRE(P::block_m == 64 && P::block_n == 64 && P::block_k == 8);
    STATIC_REQUIRE(P::warp_threads_m == 8 && P::warp_threads_n == 4);
    STATIC_REQUIRE(P::threads == 256);
    STATIC_REQUIRE(P::fragment_m == 4 && P::fragment_n == 4);
    STATIC_REQUIRE(P::vector_width == 1 && P::stages == 1 && P::unroll == 8);
    STATIC_REQUIRE(P::shared_bytes == 8 * (68 + 68) * 4);
    REQUIRE(P::name() == "tiled_b64x64x8_w32x16_t4x4_v1_s1_u8_f32");
  }
  SECTION("vectorized: 8 x 8 per thread, float4 loads") {
    using P = vectorized;
    STATIC_REQUIRE(P::block_m == 128 && P::block_n == 128 && P::block_k == 8);
    STATIC_REQUIRE(P::warp_threads_m == 4 && P::warp_threads_n == 8);
    STATIC_REQUIRE(P::warps_m == 4 && P::warps_n == 2);
    STATIC_REQUIRE(P::threads == 256);
    STATIC_REQUIRE(P::fragment_m == 4 && P::fragment_n == 4);
    STATIC_REQUIRE(P::vector_width == 4 && P::stages == 1);
    STATIC_REQUIRE(P::shared_bytes == 8 * (132 + 132) * 4);
    REQUIRE(P::name() == "tiled_b128x128x8_w32x64_t8x8_v4_s1_u8_f32");
  }
  SECTION("double_buffered: vectorized with two stages") {
    using P = double_buffered;
    STATIC_REQUIRE(P::block_m == vectorized::block_m && P::block_n == vectorized::block_n &&
                   P::block_k == vectorized::block_k && P::threads == vectorized::threads);
    STATIC_REQUIRE(P::stages == 2);
    STATIC_REQUIRE(P::shared_bytes == 2 * vectorized::shared_bytes);
    REQUIRE(P::name() == "tiled_b128x128x8_w32x64_t8x8_v4_s2_u8_f32");
  }
}

TEST_CASE("naive_policy: one thread per element of C in 16 x 16 blocks", "[policy]") {
  using P = tgemm::naive_policy;
  STATIC_REQUIRE(std::is_same<tgemm::seed::naive, P>::value);
  STATIC_REQUIRE(std::is_same<P::mainloop_tag, tgemm::mainloop::naive>::value);
  STATIC_REQUIRE(P::shared_bytes == 0);
  STATIC_REQUIRE(P::block_m == 16);
  STATIC_REQUIRE(P::block_n == 16);
  STATIC_REQUIRE(P::threads == 256);
  STATIC_REQUIRE(P::vector_width == 1);
  STATIC_REQUIRE(std::is_same<P::accumulator_type, float>::value);
  REQUIRE(P::name() == "naive");
}

TEST_CASE("policy parameters: defaults, unroll, accumulator and raster group", "[policy]") {
  using defaults = tgemm::policy<tgemm::block_shape<64, 32, 16>, tgemm::warp_shape<32, 32>, tgemm::thread_shape<8, 4>, 2, 4>;
  STATIC_REQUIRE(defaults::unroll == 16);  // Block::k
  STATIC_REQUIRE(defaults::raster_group == 8);
  STATIC_REQUIRE(std::is_same<defaults::accumulator_type, float>::value);
  STATIC_REQUIRE(defaults::warp_threads_m == 4 && defaults::warp_threads_n == 8);
  STATIC_REQUIRE(defaults::threads == 64);
  STATIC_REQUIRE(defaults::shared_bytes == 4 * 16 * (68 + 36) * 4);
  check_tiled_invariants<defaults>();
  REQUIRE(defaults::name() == "tiled_b64x32x16_w32x32_t8x4_v2_s4_u16_f32");

  using custom = tgemm::policy<tgemm::block_shape<32, 64, 8>, tgemm::warp_shape<16, 32>, tgemm::thread_shape<2, 8>, 1, 2,
                               4, double, 3>;
  STATIC_REQUIRE(custom::unroll == 4);
  STATIC_REQUIRE(custom::raster_group == 3);
  STATIC_REQUIRE(std::is_same<custom::accumulator_type, double>::value);
  STATIC_REQUIRE(custom::fragment_m == 2 && custom::fragment_n == 4);
  STATIC_REQUIRE(custom::threads == 128);
  check_tiled_invariants<custom>();
  REQUIRE(custom::name() == "tiled_b32x64x8_w16x32_t2x8_v1_s2_u4_f64");
}

namespace {

/// What every policy a tuning entry ships must be: a valid tiled policy with the given vector width whose shared
/// memory fits its architecture.
template <class Policy, int VectorWidth, int SharedLimit>
void check_shipped_policy() {
  check_tiled_invariants<Policy>();
  STATIC_REQUIRE(Policy::vector_width == VectorWidth);
  STATIC_REQUIRE(Policy::shared_bytes <= SharedLimit);
}

/// The rules every entry of the tuning chain obeys; SharedLimit is its architecture's opt-in shared memory per
/// block (sm_75 64 KiB, sm_80 163 KiB, sm_86/89 99 KiB, sm_90 227 KiB).
template <class Entry, int SharedLimit>
void check_tuning_entry() {
  using general = typename Entry::general;
  using general_tn = typename Entry::general_tn;
  using general_tt = typename Entry::general_tt;
  using medium = typename Entry::medium;
  using small = typename Entry::small;
  using narrow_m = typename Entry::narrow_m;
  using narrow_n = typename Entry::narrow_n;
  using tiny_m = typename Entry::tiny_m;
  using tiny_n = typename Entry::tiny_n;
  using unaligned = typename Entry::unaligned;
  using products = typename Entry::products;
  CAPTURE(Entry::arch);

  // Vector loads everywhere but in the policy for misaligned operands.
  check_shipped_policy<general, 4, SharedLimit>();
  check_shipped_policy<general_tn, 4, SharedLimit>();
  check_shipped_policy<general_tt, 4, SharedLimit>();
  check_shipped_policy<medium, 4, SharedLimit>();
  check_shipped_policy<small, 4, SharedLimit>();
  check_shipped_policy<narrow_m, 4, SharedLimit>();
  check_shipped_policy<narrow_n, 4, SharedLimit>();
  check_shipped_policy<tiny_m, 4, SharedLimit>();
  check_shipped_policy<tiny_n, 4, SharedLimit>();
  check_shipped_policy<unaligned, 1, SharedLimit>();
  check_shipped_policy<products, 4, SharedLimit>();

  // The narrow tiles are exactly as narrow as the problems they are picked for.
  STATIC_REQUIRE(narrow_m::block_m == Entry::narrow_extent);
  STATIC_REQUIRE(narrow_n::block_n == Entry::narrow_extent);
  STATIC_REQUIRE(narrow_m::block_n > narrow_m::block_m);
  STATIC_REQUIRE(narrow_n::block_m > narrow_n::block_n);
  STATIC_REQUIRE(tiny_m::block_m == Entry::tiny_extent);
  STATIC_REQUIRE(tiny_n::block_n == Entry::tiny_extent);
  STATIC_REQUIRE(tiny_m::block_n > tiny_m::block_m);
  STATIC_REQUIRE(tiny_n::block_m > tiny_n::block_n);

  // The medium tile is no larger than the general one, the small tile smaller than the medium one, and both are
  // slower than the large tiles per wave.
  STATIC_REQUIRE(medium::block_m * medium::block_n <= general::block_m * general::block_n);
  STATIC_REQUIRE(small::block_m * small::block_n < medium::block_m * medium::block_n);
  STATIC_REQUIRE(Entry::medium_speed > 0.0 && Entry::medium_speed <= 1.0);
  STATIC_REQUIRE(Entry::small_speed > 0.0 && Entry::small_speed <= Entry::medium_speed);
  // The products tile is the small one or smaller (the planner takes it only where it is smaller).
  STATIC_REQUIRE(products::block_m <= small::block_m && products::block_n <= small::block_n);

  // The slot list (TGEMM_TUNING_SLOTS) maps each slot to its member, and the host's values view agrees.
  using namespace tgemm::tuning;
  STATIC_REQUIRE(slot_count == 11);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::general>, general>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::medium>, medium>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::narrow_m>, narrow_m>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::narrow_n>, narrow_n>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::tiny_m>, tiny_m>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::tiny_n>, tiny_n>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::unaligned>, unaligned>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::general_tn>, general_tn>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::general_tt>, general_tt>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::small>, small>::value);
  STATIC_REQUIRE(std::is_same<slot_policy_t<Entry, slot::products>, products>::value);
  const tuning_values values = values_of<Entry>();
  REQUIRE(values.arch == Entry::arch);
  for_each_slot([&](auto s) {
    using P = slot_policy_t<Entry, decltype(s)::value>;
    CAPTURE(to_string(decltype(s)::value));
    const policy_numbers& n = values[decltype(s)::value];
    REQUIRE((n.block_m == P::block_m && n.block_n == P::block_n && n.block_k == P::block_k));
    REQUIRE((n.threads == P::threads && n.shared_bytes == P::shared_bytes));
    REQUIRE((n.vector_width == P::vector_width && n.store_width == P::store_width));
    REQUIRE(n.name() == P::name());
  });
  REQUIRE(values.narrow_extent == Entry::narrow_extent);
  REQUIRE(values.tiny_extent == Entry::tiny_extent);
  REQUIRE(values.medium_speed == Entry::medium_speed);
  REQUIRE(values.small_speed == Entry::small_speed);
  REQUIRE(values.staged_c_min_elements == Entry::staged_c_min_elements);
}

}  // namespace

TEST_CASE("the tuning policies are consistent and fit their architecture's shared memory", "[policy][tuning]") {
  using namespace tgemm::tuning;
  check_tuning_entry<sm75, 64 * 1024>();
  check_tuning_entry<sm80, 163 * 1024>();
  check_tuning_entry<sm86, 99 * 1024>();
  check_tuning_entry<sm90, 227 * 1024>();

  STATIC_REQUIRE(sm90::narrow_extent == 32);
  STATIC_REQUIRE(sm90::tiny_extent == 16 && sm90::tiny_extent < sm90::narrow_extent);
  STATIC_REQUIRE(sm75::general::stages == 2);
  STATIC_REQUIRE(sm80::general::stages == 3);
  STATIC_REQUIRE(sm86::general::stages == 2);
  STATIC_REQUIRE(sm90::general::stages == 4);
  STATIC_REQUIRE(sm90::general_tn::stages == 3);
  STATIC_REQUIRE(sm80::general::shared_bytes == 3 * 8 * (132 + 132) * 4);
  STATIC_REQUIRE(sm90::general::shared_bytes == 4 * 8 * (260 + 132) * 4);
  STATIC_REQUIRE(sm90::general_tn::shared_bytes == 3 * 16 * (260 + 132) * 4);
  STATIC_REQUIRE(sm90::general::threads == 256 && sm90::general_tn::threads == 256 && sm90::general_tt::threads == 256);
  STATIC_REQUIRE(sm90::general::warp_threads_m == 4 && sm90::general::warp_threads_n == 8);
  STATIC_REQUIRE(sm90::general_tt::warp_threads_m == 8 && sm90::general_tt::warp_threads_n == 4);
  // Before sm_90 one large tile serves every layout.
  STATIC_REQUIRE(std::is_same<sm80::general_tn, sm80::general>::value && std::is_same<sm80::general_tt, sm80::general>::value);
  STATIC_REQUIRE(std::is_same<sm90::small, sm80::small>::value && sm90::small::threads == 128);
  STATIC_REQUIRE(sm80::narrow_m::threads == 128);
  STATIC_REQUIRE(sm80::narrow_n::threads == 128);
  // Before sm_90 the medium tile is the general one.
  STATIC_REQUIRE(std::is_same<sm75::medium, sm75::general>::value);
  STATIC_REQUIRE(std::is_same<sm80::medium, sm80::general>::value);
  STATIC_REQUIRE(std::is_same<sm86::medium, sm86::general>::value);
  // The scalar policy tiles as the medium one does.
  STATIC_REQUIRE(sm90::unaligned::block_m == sm90::medium::block_m && sm90::unaligned::block_n == sm90::medium::block_n &&
                 sm90::unaligned::block_k == sm90::medium::block_k && sm90::unaligned::stages == sm90::medium::stages);

  REQUIRE(sm75::general::name() == "tiled_b128x128x8_w32x64_t8x8_v4_s2_u8_f32");
  REQUIRE(sm75::unaligned::name() == "tiled_b128x128x8_w32x64_t8x8_v1_s2_u8_f32_any_ab");
  REQUIRE(sm80::general::name() == "tiled_b128x128x8_w32x64_t8x8_v4_s3_u8_f32");
  REQUIRE(sm80::narrow_m::name() == "tiled_b32x128x16_w32x32_t4x8_v4_s3_u16_f32_any_a");
  REQUIRE(sm80::narrow_n::name() == "tiled_b128x32x16_w32x32_t8x4_v4_s3_u16_f32_any_b");
  REQUIRE(sm90::tiny_m::name() == "tiled_b16x128x32_w16x64_t4x8_v4_s2_u32_f32_any_a");
  REQUIRE(sm90::tiny_n::name() == "tiled_b128x16x32_w64x16_t8x4_v4_s2_u32_f32_any_b");
  STATIC_REQUIRE(sm90::tiny_m::threads == 64 && sm90::tiny_n::threads == 64);
  // One pair of tiny tiles serves every architecture (two stages fit sm_75's shared memory).
  STATIC_REQUIRE(std::is_same<sm75::tiny_m, sm90::tiny_m>::value && std::is_same<sm75::tiny_n, sm90::tiny_n>::value);
  REQUIRE(sm86::unaligned::name() == "tiled_b128x128x8_w32x64_t8x8_v1_s2_u8_f32_any_ab");
  REQUIRE(sm90::general::name() == "tiled_b256x128x8_w64x64_t16x8_v4_s4_u8_f32");
  REQUIRE(sm90::general_tn::name() == "tiled_b256x128x16_w64x64_t16x8_v4_s3_u16_f32");
  REQUIRE(sm90::general_tt::name() == "tiled_b128x256x16_w64x64_t8x16_v4_s3_u16_f32");
  REQUIRE(sm90::small::name() == "tiled_b64x64x32_w32x32_t4x8_v4_s3_u32_f32");
  REQUIRE(sm90::medium::name() == "tiled_b128x128x16_w32x64_t8x8_v4_s3_u16_f32");
  REQUIRE(sm90::unaligned::name() == "tiled_b128x128x16_w32x64_t8x8_v1_s3_u16_f32_any_ab");
  // The thin tiles read their thin operand's layout at run time, the scalar-load tile both (one kernel for the op
  // pairs whose loads differ only in that); every other tile compiles one kernel per op pair.
  using tgemm::detail::run_time_layouts_of;
  STATIC_REQUIRE(run_time_layouts_of<sm90::tiny_m>::a && !run_time_layouts_of<sm90::tiny_m>::b);
  STATIC_REQUIRE(run_time_layouts_of<sm90::narrow_m>::a && !run_time_layouts_of<sm90::narrow_m>::b);
  STATIC_REQUIRE(!run_time_layouts_of<sm90::tiny_n>::a && run_time_layouts_of<sm90::tiny_n>::b);
  STATIC_REQUIRE(!run_time_layouts_of<sm90::narrow_n>::a && run_time_layouts_of<sm90::narrow_n>::b);
  STATIC_REQUIRE(run_time_layouts_of<sm90::unaligned>::a && run_time_layouts_of<sm90::unaligned>::b);
  STATIC_REQUIRE(!run_time_layouts_of<sm90::general>::a && !run_time_layouts_of<sm90::medium>::b &&
                 !run_time_layouts_of<sm90::small>::a && !run_time_layouts_of<sm90::products>::b);
  // The wrapper keeps the policy's numbers.
  STATIC_REQUIRE(std::is_base_of<sm90::unaligned::base_policy, sm90::unaligned>::value &&
                 sm90::unaligned::shared_bytes == sm90::unaligned::base_policy::shared_bytes);
}

TEST_CASE("the tuning chain runs newest to oldest", "[tuning]") {
  using namespace tgemm::tuning;
  STATIC_REQUIRE(std::is_same<default_chain, sm90>::value);
  STATIC_REQUIRE(std::is_same<sm90::previous, sm86>::value);
  STATIC_REQUIRE(std::is_same<sm86::previous, sm80>::value);
  STATIC_REQUIRE(std::is_same<sm80::previous, sm75>::value);
  STATIC_REQUIRE(std::is_void<sm75::previous>::value);
  STATIC_REQUIRE(sm75::arch == 750 && sm80::arch == 800 && sm86::arch == 860 && sm90::arch == 900);
}

namespace {

/// The architectures the dispatch tables are checked at, and the entry each must select.
template <int Arch, class Expected>
void check_dispatch() {
  using namespace tgemm::tuning;
  CAPTURE(Arch);
  STATIC_REQUIRE(std::is_same<select_t<default_chain, Arch>, Expected>::value);
  STATIC_REQUIRE(std::is_same<typename tgemm::tuning::select<default_chain, Arch>::type, Expected>::value);
  // The one rule, as a constexpr function the host calls at run time with the device's architecture.
  STATIC_REQUIRE(entry_arch<default_chain>(Arch) == Expected::arch);
  REQUIRE(values_for<default_chain>(Arch).arch == Expected::arch);
  // The host-side twin calls f with the very same entry.
  const int host_arch = with_tuning<default_chain>(Arch, [](auto entry) { return decltype(entry)::arch; });
  REQUIRE(host_arch == Expected::arch);
  const bool same_type = with_tuning<default_chain>(
      Arch, [](auto entry) { return std::is_same<decltype(entry), select_t<default_chain, Arch>>::value; });
  REQUIRE(same_type);
  int calls = 0;
  with_tuning<default_chain>(Arch, [&](auto) { ++calls; });
  REQUIRE(calls == 1);
}

}  // namespace

TEST_CASE("select_t and with_tuning pick the same chain entry for every architecture", "[tuning]") {
  using namespace tgemm::tuning;
  check_dispatch<0, sm75>();  // the host pass: the oldest entry
  check_dispatch<520, sm75>();
  check_dispatch<700, sm75>();
  check_dispatch<749, sm75>();
  check_dispatch<750, sm75>();
  check_dispatch<799, sm75>();
  check_dispatch<800, sm80>();
  check_dispatch<859, sm80>();
  check_dispatch<860, sm86>();
  check_dispatch<870, sm86>();
  check_dispatch<890, sm86>();
  check_dispatch<899, sm86>();
  check_dispatch<900, sm90>();
  check_dispatch<1000, sm90>();
  check_dispatch<1200, sm90>();
  // TGEMM_DEVICE_ARCH is 0 in the host pass (nvcc's device pass also parses this function, with __CUDA_ARCH__).
#if !defined(__CUDA_ARCH__)
  STATIC_REQUIRE(TGEMM_DEVICE_ARCH == 0);
  STATIC_REQUIRE(std::is_same<select_t<default_chain, TGEMM_DEVICE_ARCH>, sm75>::value);
#endif
  // A chain can start anywhere: select on a shorter chain.
  STATIC_REQUIRE(std::is_same<select_t<sm80, 900>, sm80>::value);
  STATIC_REQUIRE(std::is_same<select_t<sm80, 0>, sm75>::value);
  REQUIRE(with_tuning<sm80>(900, [](auto entry) { return decltype(entry)::arch; }) == 800);
  REQUIRE(with_tuning<sm75>(1200, [](auto entry) { return decltype(entry)::arch; }) == 750);
}

TEST_CASE("compiled_architectures() names the architectures of this build", "[tuning]") {
  const std::string names = tgemm::compiled_architectures();
  INFO(names);
  REQUIRE(!names.empty());
  REQUIRE(names.rfind("sm_", 0) == 0);
#if defined(__CUDA_ARCH_LIST__)
  constexpr int list[] = {__CUDA_ARCH_LIST__};
  for (int arch : list) REQUIRE(names.find("sm_" + std::to_string(arch / 10)) != std::string::npos);
#endif
}

TEST_CASE("error-category helpers tell no device from no image", "[status]") {
  using tgemm::detail::means_no_device;
  using tgemm::detail::means_no_image;
  REQUIRE(means_no_device(cudaErrorNoDevice));
  REQUIRE(means_no_device(cudaErrorInsufficientDriver));
  REQUIRE(means_no_device(cudaErrorStubLibrary));
  REQUIRE_FALSE(means_no_device(cudaSuccess));
  REQUIRE_FALSE(means_no_device(cudaErrorInvalidValue));
  REQUIRE_FALSE(means_no_device(cudaErrorNoKernelImageForDevice));
  REQUIRE(means_no_image(cudaErrorNoKernelImageForDevice));
  REQUIRE(means_no_image(cudaErrorInvalidDeviceFunction));
  REQUIRE_FALSE(means_no_image(cudaErrorNoDevice));
  REQUIRE_FALSE(means_no_image(cudaSuccess));
}

TEST_CASE("wgmma_policy: names, and tiles in clusters of two", "[policy]") {
  using bf16 = __nv_bfloat16;
  using tgemm::block_shape;
  using tgemm::math_mode;
  using single = tgemm::wgmma_policy<block_shape<128, 256, 64>, 4, bf16>;
  using pair = tgemm::wgmma_policy<block_shape<128, 256, 64>, 4, bf16, bf16, math_mode::strict, false, 2>;
  using pingpong_pair = tgemm::wgmma_policy<block_shape<64, 256, 64>, 4, bf16, bf16, math_mode::strict, true, 2>;
  using small_pair = tgemm::wgmma_policy<block_shape<64, 128, 64>, 8, bf16, bf16, math_mode::strict, false, 2>;
  STATIC_REQUIRE(single::cluster_m == 1 && pair::cluster_m == 2);
  // A cluster shares B through the same stages and barriers: nothing else of the block changes.
  STATIC_REQUIRE(pair::shared_bytes == single::shared_bytes && pair::threads == single::threads);
  REQUIRE(single::name() == "wgmma_bf16_b128x256x64_s4_c_bf16");
  REQUIRE(pair::name() == "wgmma_bf16_b128x256x64_s4_cluster2_c_bf16");
  REQUIRE(pingpong_pair::name() == "wgmma_bf16_b64x256x64_s4_pingpong_cluster2_c_bf16");
  // The split-K kernel of a pair writes its float partials in pairs too.
  using partials = tgemm::wgmma_partials_t<small_pair>;
  STATIC_REQUIRE(partials::cluster_m == 2 && std::is_same<partials::element_c, float>::value);
  REQUIRE(partials::name() == "wgmma_bf16_b64x128x64_s8_cluster2_c_f32");
}
