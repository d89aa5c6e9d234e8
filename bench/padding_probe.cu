// What the large tile's GEMM kernel pays on a ragged problem, without the dispatcher: the plain kernel
// (kernel::gemm_kernel<..., false>) or the padded one (<..., true>, reading up to 4096 rows and columns),
// on operands laid out as gemm() repacks them (A column-major, B transposed, leading dimension 4096), for
// m = n in {4095, 4096}, k in {4095, 4096} and ldc in {4095, 4096}. docs/performance.md (4095^3) has the table.
// Each case launches its kernel four times; time the third with Nsight Compute, for CASE in 0..6:
//   ncu --metrics gpu__time_duration.sum --launch-skip 2 --launch-count 1 --clock-control none
//       build/bench/tgemm_padding_probe CASE
// sm_90 only: the host side launches with the sm_90 entry of the default chain.
#include <tgemm/gemm.cuh>

#include "check_cuda.hpp"

#include <cstdio>
#include <cstdlib>

using namespace tgemm;

namespace {
using source = kernel::tuned_policy<tuning::default_chain, tuning::slot::general>;
using large = tuning::sm90::general;
constexpr auto plain_kernel = &kernel::gemm_kernel<source, op::none, op::transpose, false>;
constexpr auto padded_kernel = &kernel::gemm_kernel<source, op::none, op::transpose, true>;

struct probe_case {
  bool padded;
  int64_t mn, k, ldc;
};
const probe_case cases[] = {{false, 4096, 4096, 4096}, {true, 4096, 4096, 4096}, {false, 4095, 4095, 4095},
                            {true, 4095, 4095, 4095},  {true, 4095, 4096, 4095}, {true, 4095, 4095, 4096},
                            {false, 4095, 4096, 4096}};
constexpr int case_count = int(sizeof(cases) / sizeof(cases[0]));

}  // namespace

int main(int argc, char** argv) {
  const int which = argc > 1 ? std::atoi(argv[1]) : -1;
  if (which < 0 || which >= case_count) {
    std::fprintf(stderr, "usage: %s CASE   (0..%d)\n", argv[0], case_count - 1);
    return 2;
  }
  cudaDeviceProp prop{};
  TGEMM_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9) {
    std::fprintf(stderr, "tgemm_padding_probe launches sm_90's large tile; this GPU is sm_%d%d\n", prop.major,
                 prop.minor);
    return 1;
  }
  const probe_case& c = cases[which];
  const size_t elements = size_t(4096) * 4096;
  float *a = nullptr, *b = nullptr, *out = nullptr;
  TGEMM_CHECK_CUDA(cudaMalloc(&a, elements * sizeof(float)));
  TGEMM_CHECK_CUDA(cudaMalloc(&b, elements * sizeof(float)));
  TGEMM_CHECK_CUDA(cudaMalloc(&out, elements * sizeof(float)));
  // 0x3c3c3c3c is about 0.0115: finite products, whatever the kernel reads.
  TGEMM_CHECK_CUDA(cudaMemset(a, 0x3c, elements * sizeof(float)));
  TGEMM_CHECK_CUDA(cudaMemset(b, 0x3c, elements * sizeof(float)));
  // The kernel as the dispatcher launches it (host/execute.cuh), with the large tile's grid.
  const device::problem p{c.mn, c.mn, c.k, a, 4096, b, 4096};
  const device::linear_combination e{1.0f, 0.0f, out, c.ldc};
  const kernel::tile_grid tiles{kernel::tiles_for(c.mn, large::block_m), kernel::tiles_for(c.mn, large::block_n)};
  const kernel::readable_extent readable{c.padded ? 4096 : 0, c.padded ? 4096 : 0};
  const auto chosen = c.padded ? padded_kernel : plain_kernel;
  if (detail::prepare_kernel(chosen, 0, large::shared_bytes, "the large tile") != status::success) {
    std::fprintf(stderr, "prepare: %s\n", last_error().message.c_str());
    return 1;
  }
  for (int i = 0; i < 4; ++i) {
    const status s = detail::launch_kernel(chosen, kernel::grid_for(tiles.tiles_m * tiles.tiles_n), dim3(large::threads),
                                           large::shared_bytes, nullptr, 0, "launching the large tile", p, e, tiles,
                                           kernel::split_k<float>{}, readable, kernel::call_ops{op::none, op::transpose});
    if (s != status::success) {
      std::fprintf(stderr, "launch: %s\n", last_error().message.c_str());
      return 1;
    }
  }
  TGEMM_CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("case %d: %s kernel, m = n = %lld, k = %lld, ldc = %lld\n", which, c.padded ? "padded" : "plain",
              (long long)c.mn, (long long)c.k, (long long)c.ldc);
  cudaFree(a), cudaFree(b), cudaFree(out);
  return 0;
}
