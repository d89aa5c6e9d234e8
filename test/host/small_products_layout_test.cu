// kernel::gemm_small_products' staging on the host: the 16-byte pieces each thread of a team loads cover every piece
// of an operand's slice exactly once, for each Extent, element type and direction (the kernel itself runs in
// test/gpu/small_products_test.cu).
#include <tgemm/kernel/gemm_small_products.cuh>

#include "catch.hpp"

#include <vector>

namespace {

template <int Extent, class Acc, class T>
void check_pieces() {
  constexpr int team = (Extent / 4) * (Extent / 4);
  using slice_type = tgemm::kernel::detail::operand_slice<Extent, team, Acc, T>;
  for (const bool along_i : {true, false}) {
    CAPTURE(Extent, sizeof(Acc), sizeof(T), along_i);
    const int contiguous = along_i ? Extent : slice_type::slice, lines = along_i ? slice_type::slice : Extent;
    const int per_line = contiguous / slice_type::vector;
    std::vector<int> seen(size_t(per_line * lines), 0);
    int out_of_range = 0, misaligned = 0;
    for (int rank = 0; rank < team; ++rank) {
      for (int t = 0; t < slice_type::per_thread; ++t) {
        int c = -1, line = -1;
        slice_type::piece(along_i, rank, t, c, line);
        if (c % slice_type::vector != 0) ++misaligned;
        if (c < 0 || c >= contiguous || line < 0 || line >= lines) {
          ++out_of_range;
          continue;
        }
        ++seen[size_t(line * per_line + c / slice_type::vector)];
      }
    }
    CHECK(out_of_range == 0);
    CHECK(misaligned == 0);
    int wrong = 0;
    for (int s : seen) wrong += s != 1;
    CHECK(wrong == 0);
  }
}

}  // namespace

TEST_CASE("small products: each thread's 16-byte pieces cover an operand's slice once", "[small_products]") {
  check_pieces<32, float, float>();
  check_pieces<64, float, float>();
  check_pieces<32, float, __nv_bfloat16>();
  check_pieces<64, float, __half>();
  check_pieces<32, double, double>();
  check_pieces<64, double, double>();
}
