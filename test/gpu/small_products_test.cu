// kernel::gemm_small_products (many products of at most 64 x 64, several per block), launched directly as a strided
// batch and as device arrays of pointers: every element type, both storage orders (the row-major call in its
// column-major form, as the host would hand it over), all op pairs, sizes around its teams' edges (1, 31 to 33, 64),
// k of 0, 1, a slice and several slices, alpha = 0, beta = 0 on a NaN C, strides of 0, gaps and padded leading
// dimensions, more products than the grid has teams (the blocks loop), and a fused bias + GELU. Each product against
// the long-double host loop of test/support/batch_check.hpp, C's padding and gaps unchanged.
#include <tgemm/gemm.cuh>
#include <tgemm/host/launch_small_products.cuh>

#include "batch_check.hpp"
#include "catch.hpp"
#include "cuda_check.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace {

using tgemm::layout;
using tgemm::op;
using tgemm::status;
using namespace tgemm::test;

/// Launches `c` on kernel::gemm_small_products (strided, or through device arrays of pointers made here), in at most
/// `max_blocks` blocks.
template <class AB, class C, bool Pointers>
status launch_small(const batch_case& c, const AB* a, const AB* b, C* out, const tgemm::epilogue<C>* ep,
                    int64_t max_blocks) {
  using S = tgemm::detail::scalar_for<AB, C>;
  const bool row = c.order == layout::row_major;  // C^T = op(B)^T op(A)^T: the operands swap
  const AB* fa = row ? b : a;
  const AB* fb = row ? a : b;
  const op oa = row ? c.op_b : c.op_a, ob = row ? c.op_a : c.op_b;
  const int64_t m = row ? c.n : c.m, n = row ? c.m : c.n;
  const int64_t lda = row ? c.ldb() : c.lda(), ldb = row ? c.lda() : c.ldb();
  const int64_t sa = row ? c.sb() : c.sa(), sb = row ? c.sa() : c.sb();
  tgemm::device::epilogue_terms<C, S> terms{};
  if (ep != nullptr) terms = tgemm::detail::terms_of(*ep, c.order, true);
  const auto launch = [&](const auto& products) {
    return ep != nullptr ? tgemm::detail::launch_small_products<true>(products, c.count, m, n, oa, ob, S(c.alpha),
                                                                     S(c.beta), terms, max_blocks, nullptr, 0)
                         : tgemm::detail::launch_small_products<false>(products, c.count, m, n, oa, ob, S(c.alpha),
                                                                      S(c.beta), terms, max_blocks, nullptr, 0);
  };
  if constexpr (Pointers) {
    std::vector<const AB*> pa(size_t(c.count)), pb(size_t(c.count));
    std::vector<C*> pc(size_t(c.count));
    for (int64_t i = 0; i < c.count; ++i) {
      pa[size_t(i)] = fa + i * sa, pb[size_t(i)] = fb + i * sb, pc[size_t(i)] = out + i * c.sc();
    }
    device_buffer<const AB*> da(pa.size()), db(pb.size());
    device_buffer<C*> dc(pc.size());
    da.upload(pa), db.upload(pb), dc.upload(pc);
    tgemm::kernel::indirect_products<AB, AB, C> products;
    products.a = da.get(), products.b = db.get(), products.c = dc.get();
    products.m = m, products.n = n, products.k = c.k, products.lda = lda, products.ldb = ldb, products.ldc = c.ldc();
    const status s = launch(products);
    TGEMM_CUDA_REQUIRE(cudaDeviceSynchronize());  // before the arrays are freed
    return s;
  } else {
    tgemm::kernel::strided_products<AB, AB, C> products;
    products.a = fa, products.b = fb, products.c = out;
    products.m = m, products.n = n, products.k = c.k, products.lda = lda, products.ldb = ldb, products.ldc = c.ldc();
    products.stride_a = sa, products.stride_b = sb, products.stride_c = c.sc();
    return launch(products);
  }
}

template <class AB, class C, bool Pointers>
void run_small(const batch_case& c, int64_t max_blocks = 0) {
  INFO((Pointers ? "pointer arrays" : "strided") << ", at most " << max_blocks << " blocks");
  run_batch<AB, C>(c, false, [&](const batch_case& b, const AB* a, const AB* bb, C* out, const tgemm::epilogue<C>* ep) {
    return launch_small<AB, C, Pointers>(b, a, bb, out, ep, max_blocks);
  });
}

/// The shapes every type runs, strided and through pointers.
template <class AB, class C, bool Pointers>
void small_suite() {
  for (const layout order : {layout::col_major, layout::row_major}) {
    for (const op oa : {op::none, op::transpose}) {
      for (const op ob : {op::none, op::transpose}) {
        batch_case c;
        c.order = order, c.op_a = oa, c.op_b = ob;
        c.count = 37, c.m = 32, c.n = 32, c.k = 32;  // four teams a block: the last block has one
        run_small<AB, C, Pointers>(c);
        c.m = 33, c.n = 20, c.k = 100, c.alpha = -1.5f, c.beta = 0.5f, c.gap = 3, c.pad_a = 1, c.pad_b = 2;
        c.pad_c = 5;  // one team a block, three k slices and a part
        run_small<AB, C, Pointers>(c);
      }
    }
  }
  const auto shape = [](int64_t count, int64_t m, int64_t n, int64_t k, float alpha, float beta) {
    batch_case c;
    c.count = count, c.m = m, c.n = n, c.k = k, c.alpha = alpha, c.beta = beta;
    return c;
  };
  run_small<AB, C, Pointers>(shape(5, 1, 1, 1, 1, 0));
  run_small<AB, C, Pointers>(shape(9, 7, 31, 5, 2, 1));
  run_small<AB, C, Pointers>(shape(6, 64, 64, 64, 1, 0));
  run_small<AB, C, Pointers>(shape(6, 64, 1, 64, 1, -1));
  run_small<AB, C, Pointers>(shape(3, 17, 64, 1, 1, 0));
  run_small<AB, C, Pointers>(shape(4, 50, 20, 0, 1, 0.25f));  // k = 0: C = beta C
  run_small<AB, C, Pointers>(shape(4, 30, 30, 40, 0, 2));     // alpha = 0: C = beta C, A and B unread
  run_small<AB, C, Pointers>(shape(1000, 32, 32, 32, 1, 0), 13);  // 13 blocks take 250 turns of 4 products
  run_small<AB, C, Pointers>(shape(300, 64, 48, 70, 1, 0.5f), 7);
  batch_case shared = shape(20, 24, 40, 48, 1, 0);  // one A for every product
  shared.stride_a = 0;
  run_small<AB, C, Pointers>(shared);
}

}  // namespace

TEST_CASE("small products: float, bf16, fp16 -> float and double, strided", "[small_products]") {
  small_suite<float, float, false>();
  small_suite<__nv_bfloat16, __nv_bfloat16, false>();
  small_suite<__half, float, false>();
  small_suite<double, double, false>();
}

TEST_CASE("small products: float, bf16, fp16 -> float and double, through pointer arrays", "[small_products]") {
  small_suite<float, float, true>();
  small_suite<__nv_bfloat16, __nv_bfloat16, true>();
  small_suite<__half, float, true>();
  small_suite<double, double, true>();
}

TEST_CASE("small products: a fused bias + GELU and scales, per product", "[small_products]") {
  for (const layout order : {layout::col_major, layout::row_major}) {
    batch_case c;
    c.order = order, c.op_a = op::transpose, c.count = 30, c.m = 40, c.n = 24, c.k = 36, c.beta = 0.5f;
    c.ep.on = true, c.ep.act = tgemm::activation::gelu_tanh, c.ep.row_bias = true, c.ep.column_scale = true;
    run_small<__nv_bfloat16, __nv_bfloat16, false>(c);
    run_small<float, float, true>(c);
    c.ep.act = tgemm::activation::relu, c.ep.column_bias = true, c.ep.clamp_max = 0.75;
    run_small<double, double, false>(c);
  }
}

TEST_CASE("small products under compute-sanitizer: ragged products, both product sources, a fused epilogue",
          "[small_products][sanitize]") {
  // Small enough for the sanitizers (scripts/sanitize.sh): 32 x 32 teams with a partial last block and ragged
  // products, 64 x 64 teams over two blocks that loop, 16-byte and element-wise staging (padded leading dimensions),
  // beta = 0 on a NaN C, and a fused bias + GELU.
  batch_case c;
  c.count = 9, c.m = 31, c.n = 17, c.k = 40, c.op_b = op::transpose;
  run_small<__nv_bfloat16, __nv_bfloat16, false>(c);
  run_small<float, float, true>(c);
  c.count = 5, c.m = 64, c.n = 40, c.k = 70, c.pad_a = 1, c.beta = 0.5f, c.op_a = op::transpose;
  run_small<__half, float, false>(c, 2);
  run_small<double, double, true>(c, 2);
  c.ep.on = true, c.ep.act = tgemm::activation::gelu_tanh, c.ep.row_bias = true;
  run_small<__nv_bfloat16, __nv_bfloat16, true>(c, 2);
}
