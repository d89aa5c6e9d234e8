// Step 8: the library call beside cuBLAS. tgemm::gemm() and cublasSgemm() on the same inputs.
//
// tgemm::gemm() is the one-call API: the arguments of cblas_sgemm on device pointers, plus a stream. It validates
// them, reads which architecture's code this GPU runs, and plans the call with the policies that
// tuning/simt_f32.cuh gives that architecture: a large tile for large problems, smaller tiles (and a k split)
// when the large one would leave multiprocessors idle, 16- and 32-wide tiles for very thin problems; misaligned
// operands are repacked or read with scalar loads. Then it launches the plan's kernels. The tuned policies are
// step 7's kernel with other numbers (tile sizes, depth, stages); the program prints the one used for large
// problems, and TGEMM_PRINT_PLAN=1 makes every call print its whole plan to stderr.
//
// cuBLAS is the yardstick. It is set to CUBLAS_DEFAULT_MATH, which computes FP32 in FP32 like tgemm: TF32 tensor
// cores would be faster but round the inputs to 10-bit mantissas, a different computation.
//
// The tutorial's matrices are row-major, and cuBLAS only knows column-major. A row-major m x n matrix is the
// column-major n x m matrix of its transpose, so C = A B is computed as C^T = B^T A^T: swap the operands and
// the sizes, and read every row-major leading dimension as a column-major one. (tgemm::gemm() does the same
// internally when given layout::row_major.)
//
// Usage: tgemm_tutorial_08_library_vs_cublas [n]   (an n x n x n product, default 4096)
#include <tgemm/gemm.cuh>

#include <cublas_v2.h>

#include "common.cuh"
#include "cublas_check.cuh"

using tutorial::check_cublas;

int main(int argc, char** argv) {
  const int size = tutorial::size_argument(argc, argv, 4096);
  tutorial::print_device();
  tutorial::problem p(size, size, size);
  tutorial::device_buffer c_cublas(size_t(p.m) * p.n);
  const float alpha = 1.0f, beta = 0.0f;

  //! [tgemm]
  const auto run_tgemm = [&] {
    const tgemm::status s = tgemm::gemm(tgemm::layout::row_major, tgemm::op::none, tgemm::op::none, p.m, p.n, p.k,
                                        alpha, p.d_a.data(), p.k, p.d_b.data(), p.n, beta, p.d_c.data(), p.n);
    if (s != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
      std::exit(EXIT_FAILURE);
    }
  };
  //! [tgemm]

  //! [cublas]
  cublasHandle_t handle;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // strict FP32, no TF32
  const auto run_cublas = [&] {
    // Row-major C = A B is column-major C^T = B^T A^T: B comes first, and n and m trade places.
    check_cublas(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, p.n, p.m, p.k, &alpha, p.d_b.data(), p.n,
                             p.d_a.data(), p.k, &beta, c_cublas.data(), p.n),
                 "cublasSgemm");
  };
  //! [cublas]

  // The policy tgemm::gemm() picks for large aligned problems on this GPU (when its architecture was compiled).
  const std::string policy = tgemm::tuning::with_tuning<tgemm::tuning::default_chain>(
      tutorial::device_arch(), [](auto entry) { return decltype(entry)::general::name(); });
  std::printf("policy : tgemm::gemm, large problems: %s\n", policy.c_str());

  run_tgemm();
  run_cublas();
  bool ok = p.check("tgemm::gemm");
  ok = p.check("cublasSgemm", &c_cublas) && ok;

  // The two results side by side, normwise: both are within the bound of the exact product, so of each other too.
  const std::vector<float> c_t = p.d_c.to_host(), c_c = c_cublas.to_host();
  double difference = 0.0, norm = 0.0;
  for (size_t i = 0; i < c_t.size(); ++i) {
    difference += (double(c_t[i]) - c_c[i]) * (double(c_t[i]) - c_c[i]);
    norm += double(c_c[i]) * c_c[i];
  }
  std::printf("compare: ||C_tgemm - C_cublas|| / ||C_cublas|| = %.2e\n", std::sqrt(difference / norm));

  const double ms_tgemm = tutorial::median_ms(run_tgemm, 20);
  const double ms_cublas = tutorial::median_ms(run_cublas, 20);
  tutorial::print_time("tgemm::gemm", p.m, p.n, p.k, ms_tgemm, 20);
  tutorial::print_time("cublasSgemm (FP32)", p.m, p.n, p.k, ms_cublas, 20);
  std::printf("ratio  : tgemm reaches %.1f%% of cuBLAS\n", 100.0 * ms_cublas / ms_tgemm);
  check_cublas(cublasDestroy(handle), "cublasDestroy");
  return tutorial::finish(ok);
}
