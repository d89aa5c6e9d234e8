// GEMMs whose operands only the GPU sees, as a user calls them: tgemm::gemm_batched() (device arrays of pointers) and
// tgemm::gemm_grouped_device() (group sizes and pointers in device memory, host bounds), for the 16-bit types and
// double (float, strict and TF32, is indirect_float_test.cu). Both storage orders, every op pair, padded leading
// dimensions; alpha = 0, k = 0 and beta = 0 on a NaN C; products whose A and B are misaligned for vector loads (the
// direct loop); a null pointer in an array (that product skipped); a fused bias + GELU with per-product vectors;
// groups that break their bounds or leading-dimension rules (skipped, with their status written back); bad calls
// (named status, no C touched); on an H200 the 16-bit device-side groups on the grouped Hopper kernel (the plan
// record says so). Every C against the long-double host loop on the same rounded inputs
// (test/support/group_check.hpp), its padding unchanged.
#include <tgemm/gemm.cuh>

#include "catch.hpp"
#include "cuda_check.hpp"
#include "group_check.hpp"
#include "indirect_case.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {
using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;
}  // namespace

TEST_CASE("gemm_batched: bf16 and fp16, both C types, both orders, every op pair; double", "[batched_pointers]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    batched_suite<__nv_bfloat16, __nv_bfloat16>(order, tgemm::math_mode::strict);
    batched_suite<__half, float>(order, tgemm::math_mode::strict);
    batched_suite<double, double>(order, tgemm::math_mode::strict);
  }
}

TEST_CASE("gemm_batched and gemm_grouped_device with a fused bias + GELU, per product", "[batched_pointers][grouped_device]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    run_batched<__nv_bfloat16, __nv_bfloat16>(order, {op::none, op::transpose, 70, 45, 40, 1.0, 0.5, 1, true}, 6,
                                              tgemm::math_mode::strict, 2);
    run_batched<__half, float>(order, {op::transpose, op::none, 64, 64, 64, 1.0, 0.0, 0, true}, 5,
                               tgemm::math_mode::strict, 3);
    run_grouped_device<__nv_bfloat16, __nv_bfloat16>(order, op::none, op::transpose, expert_shapes(1.0, 0.0, true),
                                                     tgemm::math_mode::strict);
    run_grouped_device<__half, float>(order, op::transpose, op::none, expert_shapes(0.5, 1.0, true),
                                      tgemm::math_mode::strict);
  }
}

TEST_CASE("gemm_batched: a null C is skipped, the other products run", "[batched_pointers]") {
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::none, 64, 64, 64, 1.0, 0.0, 0}, 6,
                                            tgemm::math_mode::strict, -1, 3);
}

TEST_CASE("gemm_batched: 16-bit pointer arrays that fill the GPU run on the Hopper kernel", "[batched_pointers]") {
  // On an H200 running the sm_90a image, pointer arrays of one 16-bit type (no fused epilogue) that a strided batch of
  // their shape would run on the Hopper kernel go there when TMA can step lda and ldb (multiples of 8 elements), every
  // product read and written through one address map per operand at the coordinates of its pointers: every op pair on
  // the 128 x 256 tile (34 products of 136 x 248: a tile row that is mostly empty), 72 products with a misaligned one
  // (its direct loop) and a null C (its items skipped), beta != 0 in row-major fp16, leading dimensions padded by 8,
  // alpha = 0 and k = 0; then the 128 x 128 batch tile (products of 128 x 128 and 512 x 64: twice as much of it
  // inside C) and the 64 x 128 tile (64 x 256 products), every op pair, both orders, a misaligned product and a null
  // C, beta != 0 (C read), a C of 130 rows (not a multiple of 16 bytes: no TMA stores). Leading dimensions padded by 3 or of 250 elements (TMA cannot step them) and too few
  // products stay on the mma.sync tiles.
  tgemm::detail::record_plans plans;
  const op ops[] = {op::none, op::transpose};
  int64_t expected = 0;
  for (const op oa : ops) {
    for (const op ob : ops) {
      run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {oa, ob, 136, 248, 72, 1.0, 0.0, 0}, 34,
                                                tgemm::math_mode::strict);
      run_batched<__half, __half>(layout::row_major, {oa, ob, 128, 128, 72, 1.0, 0.0, 8}, 80, tgemm::math_mode::strict,
                                  3, 11);
      run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {oa, ob, 64, 256, 72, 1.0, 0.0, 0}, 80,
                                                tgemm::math_mode::strict);
      expected += 34 + 80 + 80;
    }
  }
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::transpose, 200, 248, 72, -1.5, 0.0, 8},
                                            72, tgemm::math_mode::strict, 5, 7);
  run_batched<__half, __half>(layout::row_major, {op::transpose, op::none, 248, 248, 96, 1.0, 0.5, 0}, 40,
                              tgemm::math_mode::strict);
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::none, 200, 250, 64, 0.0, 0.5, 0}, 40,
                                            tgemm::math_mode::strict);
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::transpose, 200, 248, 0, 1.0, -1.0, 0}, 40,
                                            tgemm::math_mode::strict);
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::transpose, op::transpose, 512, 64, 64, 0.5, 0.0, 0},
                                            96, tgemm::math_mode::strict, 17, 40);
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::none, 136, 128, 64, 1.0, 0.75, 0}, 150,
                                            tgemm::math_mode::strict);
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::transpose, op::none, 130, 128, 64, 1.0, 0.0, 0}, 150,
                                            tgemm::math_mode::strict);
  expected += 72 + 3 * 40 + 96 + 2 * 150;
  const int64_t before = plans.grouped_hopper_groups();
  run_batched<__half, __half>(layout::col_major, {op::none, op::none, 200, 250, 40, 1.0, 0.25, 3}, 40,
                              tgemm::math_mode::strict);  // lda and ldb not multiples of 16 bytes
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::transpose, 136, 250, 72, 1.0, 0.0, 0}, 34,
                                            tgemm::math_mode::strict);  // ldb = 250
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::none, 200, 250, 72, 1.0, 0.0, 0}, 10,
                                            tgemm::math_mode::strict);  // 20 large or 40 batch tiles: under half of 132
  CHECK(plans.grouped_hopper_groups() == before);
  CHECK(plans.grouped_hopper_groups() == (runs_sm90a_kernels() ? expected : 0));
}

TEST_CASE("gemm_batched: products of at most 32 x 32 run the products tile, a block a product", "[batched_pointers]") {
  // On an sm_90a build on an H200 the 16-bit tables name a 32 x 32 one-warp tile for these (double keeps the small
  // tile): every op pair, both orders, a ragged n, a misaligned product (the direct loop), a null C, beta != 0.
  tgemm::detail::record_plans plans;
  const op ops[] = {op::none, op::transpose};
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const op oa : ops) {
      for (const op ob : ops) {
        run_batched<__nv_bfloat16, __nv_bfloat16>(order, {oa, ob, 32, 24, 40, 1.0, 0.5, 0}, 33, tgemm::math_mode::strict);
        CHECK(plans.indirect_calls() > 0);
        if (runs_sm90a_kernels()) CHECK(plans.indirect_slot() == tgemm::tuning::slot::products);
      }
    }
  }
  run_batched<__half, float>(layout::col_major, {op::none, op::transpose, 16, 32, 8, -1.5, 0.0, 8}, 500,
                             tgemm::math_mode::strict, 7, 11);
  if (runs_sm90a_kernels()) CHECK(plans.indirect_slot() == tgemm::tuning::slot::products);
  run_batched<double, double>(layout::col_major, {op::none, op::none, 32, 32, 32, 1.0, 0.0, 0}, 20,
                              tgemm::math_mode::strict);
  CHECK(plans.indirect_slot() != tgemm::tuning::slot::products);
}

TEST_CASE("gemm_grouped_device: experts of different sizes, bf16, fp16 and double, both orders", "[grouped_device]") {
  const op ops[] = {op::none, op::transpose};
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const op oa : ops) {
      for (const op ob : ops) {
        run_grouped_device<__nv_bfloat16, __nv_bfloat16>(order, oa, ob, expert_shapes(1.0, 0.0),
                                                         tgemm::math_mode::strict);
      }
    }
    run_grouped_device<__half, float>(order, op::none, op::transpose, expert_shapes(0.5, 1.0), tgemm::math_mode::strict);
    run_grouped_device<double, double>(order, op::none, op::transpose, expert_shapes(2.0, 0.0), tgemm::math_mode::strict);
  }
}

TEST_CASE("gemm_grouped_device: 16-bit groups run on the grouped Hopper kernel, their tensor maps made on the GPU",
          "[grouped_device]") {
  // On an H200 running the sm_90a image, A, B and C of one 16-bit type without a fused epilogue go to the Hopper
  // kernel: the experts above (an empty group, a thin one, k = 0, A and B misaligned for TMA: its direct loop) in both
  // orders, every op pair for fp16 (bf16's are the test case above), and alpha = 0 (C = beta C, A and B unread).
  tgemm::detail::record_plans plans;
  const op ops[] = {op::none, op::transpose};
  for (const op oa : ops) {
    for (const op ob : ops) {
      run_grouped_device<__half, __half>(layout::col_major, oa, ob, expert_shapes(1.0, 0.5), tgemm::math_mode::strict);
    }
  }
  run_grouped_device<__nv_bfloat16, __nv_bfloat16>(layout::row_major, op::transpose, op::none,
                                                   expert_shapes(-2.0, 0.0), tgemm::math_mode::strict);
  run_grouped_device<__nv_bfloat16, __nv_bfloat16>(layout::col_major, op::none, op::none, expert_shapes(0.0, 0.5),
                                                   tgemm::math_mode::strict);
  CHECK(plans.grouped_hopper_groups() == (runs_sm90a_kernels() ? 6 * 7 : 0));
}

TEST_CASE("gemm_grouped_device: more groups than the grouped Hopper kernel keeps in shared memory", "[grouped_device]") {
  // 70 groups (the kernel's table holds 64 summaries: past that each block looks its groups up in global memory), small
  // and varied: m = 8 .. 215 (C's of a multiple of 8 rows leave through TMA stores with beta = 0, the others through
  // the registers), one empty group, n of 120 to 136, k of 72 to 76; beta = 0, then 0.5 (C read, no TMA stores).
  std::vector<group_shape> shapes;
  for (int g = 0; g < 70; ++g) {
    shapes.push_back({op::none, op::none, g == 33 ? 0 : 8 + 3 * g, 136 - (g % 3) * 8, 72 + g % 5, 1.0, 0.0});
  }
  tgemm::detail::record_plans plans;
  run_grouped_device<__nv_bfloat16, __nv_bfloat16>(layout::col_major, op::none, op::none, shapes,
                                                   tgemm::math_mode::strict);
  for (group_shape& s : shapes) s.beta = 0.5;  // each group's C random, not NaN (which beta = 0 would make it)
  run_grouped_device<__half, __half>(layout::row_major, op::transpose, op::none, shapes, tgemm::math_mode::strict);
  CHECK(plans.grouped_hopper_groups() == (runs_sm90a_kernels() ? 2 * 70 : 0));
}

TEST_CASE("gemm_grouped_device: more groups than the preparing block numbers in one pass", "[grouped_device]") {
  // 1100 small groups: kernel::prepare_device_groups numbers them prepare_groups_threads (1024) at a time, the second
  // pass's first item following the first pass's tiles; every fifth group is empty and every seventh has k = 0.
  std::vector<group_shape> shapes;
  for (int g = 0; g < 1100; ++g) {
    shapes.push_back({op::none, op::none, g % 5 == 0 ? 0 : 8 + 8 * (g % 20), 24 + 8 * (g % 3), g % 7 == 0 ? 0 : 16 + g % 9,
                      1.0, 0.5});
  }
  tgemm::detail::record_plans plans;
  run_grouped_device<__nv_bfloat16, __nv_bfloat16>(layout::col_major, op::transpose, op::transpose, shapes,
                                                   tgemm::math_mode::strict);
  CHECK(plans.grouped_hopper_groups() == (runs_sm90a_kernels() ? 1100 : 0));
}

TEST_CASE("gemm_grouped_device: bad groups are skipped with their status, bad calls touch nothing", "[grouped_device]") {
  const std::vector<group_shape> shapes(4, group_shape{op::none, op::none, 40, 24, 16, 1.0, 0.0, 0});
  auto groups = make_groups<__nv_bfloat16, __nv_bfloat16>(layout::col_major, shapes);
  std::vector<tgemm::gemm_group_device<__nv_bfloat16>> described;
  for (const auto& d : groups) {
    described.push_back({d.s.m, d.s.n, d.s.k, d.a_at(), d.lda, d.b_at(), d.ldb, d.dc->get(), d.ldc});
  }
  described[1].m = 41;          // past the bound of 40
  described[2].lda = 39;        // below m
  described[3].b = nullptr;     // read, but null
  auto dgroups = upload_array(described);
  device_buffer<int32_t> dstatus(4);
  const tgemm::group_bounds bounds{40, 24, 16};
  const layout col = layout::col_major;
  SECTION("bad groups") {
    REQUIRE(tgemm::gemm_grouped_device(col, op::none, op::none, 1.0f, dgroups->get(), 4, bounds, 0.0f, dstatus.get()) ==
            status::success);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
    const std::vector<int32_t> got = dstatus.download();
    CHECK(got[0] == int32_t(status::success));
    CHECK(got[1] == int32_t(status::invalid_dimension));
    CHECK(got[2] == int32_t(status::invalid_leading_dimension));
    CHECK(got[3] == int32_t(status::null_pointer));
    std::vector<group_data<__nv_bfloat16, __nv_bfloat16>> ran;
    ran.push_back(std::move(groups[0]));
    groups.erase(groups.begin());  // group 0 ran; the others must be as they were
    check_groups(col, ran, tgemm::math_mode::strict);
  }
  SECTION("bad calls") {
    CHECK(tgemm::gemm_grouped_device(col, op::none, op::none, 1.0f, dgroups->get(), -1, bounds, 0.0f) ==
          status::invalid_dimension);
    CHECK(tgemm::gemm_grouped_device(col, op::none, op::none, 1.0f, dgroups->get(), 4, tgemm::group_bounds{-1, 24, 16},
                                     0.0f) == status::invalid_dimension);
    CHECK(tgemm::gemm_grouped_device<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16>(col, op::none, op::none, 1.0f,
                                                                                  nullptr, 4, bounds, 0.0f) ==
          status::null_pointer);
    CHECK(tgemm::gemm_grouped_device(layout(5), op::none, op::none, 1.0f, dgroups->get(), 4, bounds, 0.0f) ==
          status::invalid_layout);
    CHECK(tgemm::gemm_grouped_device(col, op::none, op(0), 1.0f, dgroups->get(), 4, bounds, 0.0f) == status::invalid_op);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());
  }
  check_untouched(groups);
}

TEST_CASE("gemm_batched and gemm_grouped_device under compute-sanitizer: tiles, the direct loop, skipped products",
          "[sanitize]") {
  // Small on purpose (scripts/sanitize.sh runs it under every tool): ragged tiles, a misaligned product (the direct
  // loop), a null C, beta != 0, both orders; experts with an empty group, k = 0 and a misaligned one.
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::transpose, 70, 45, 40, 1.0, 0.5, 1}, 5,
                                            tgemm::math_mode::strict, 2, 4);
  run_batched<double, double>(layout::row_major, {op::transpose, op::none, 33, 65, 17, -1.0, 0.0, 0}, 4,
                              tgemm::math_mode::strict, 1);
  // Products of at most 32 x 32: the products tile on an H200, with a misaligned product and a null C.
  run_batched<__half, __half>(layout::col_major, {op::transpose, op::none, 32, 24, 40, 1.0, 0.5, 0}, 6,
                              tgemm::math_mode::strict, 1, 3);
  run_grouped_device<__half, float>(layout::row_major, op::none, op::transpose, expert_shapes(1.0, 0.5, true),
                                           tgemm::math_mode::strict);
  // The grouped Hopper kernel on an H200 (maps made on the GPU, the direct loop for the misaligned group), and with
  // beta = 0 C's maps too (TMA stores for the groups whose C allows them).
  run_grouped_device<__nv_bfloat16, __nv_bfloat16>(layout::col_major, op::transpose, op::none,
                                                   expert_shapes(1.0, 0.5), tgemm::math_mode::strict);
  run_grouped_device<__nv_bfloat16, __nv_bfloat16>(layout::col_major, op::none, op::none, expert_shapes(1.0, 0.0),
                                                   tgemm::math_mode::strict);
  // Pointer arrays on the Hopper kernel on an H200 (address maps): the 128 x 128 batch tile with TMA stores, a
  // misaligned product and a null C; the 128 x 256 tile with beta != 0.
  run_batched<__nv_bfloat16, __nv_bfloat16>(layout::col_major, {op::none, op::transpose, 128, 128, 72, 1.0, 0.0, 0}, 70,
                                            tgemm::math_mode::strict, 5, 9);
  run_batched<__half, __half>(layout::row_major, {op::transpose, op::none, 250, 136, 40, 1.0, 0.5, 8}, 34,
                              tgemm::math_mode::strict);
}
