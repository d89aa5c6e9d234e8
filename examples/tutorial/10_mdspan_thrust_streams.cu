// Step 10: mdspan views, Thrust storage and two streams. Shapes and layouts travel with the data.
//
// The BLAS-style call needs seven numbers and three flags kept consistent by hand. tgemm::gemm() also takes
// cuda::std::mdspan views (libcu++), whose extents and layouts say it all:
//
//   layout_right  row-major: element (i, j) at i * cols + j;
//   layout_left   column-major: element (i, j) at i + j * rows;
//   layout_stride any strides, one of them 1: for example the transpose of a stored matrix, without a copy.
//
// The layout of C sets the storage order of the call; an operand stored the other way round is read transposed.
// Here the storage is thrust::device_vector (memory freed automatically) and the views wrap its raw pointers.
//
// Two independent products run on two CUDA streams. Work on different streams may overlap on the GPU, which
// helps when one GEMM is too small to fill it; for large ones the second simply queues behind the first. The program
// times the pair on one stream and on two.
//
// Usage: tgemm_tutorial_10_mdspan_thrust_streams [n]   (two n x n x n products, default 2048)
#include <tgemm/gemm.cuh>

#include <cuda/std/array>
#include <cuda/std/mdspan>
#include <thrust/copy.h>
#include <thrust/device_vector.h>

#include "common.cuh"

using extents = cuda::std::dextents<int64_t, 2>;

static float* raw(thrust::device_vector<float>& v) { return thrust::raw_pointer_cast(v.data()); }

int main(int argc, char** argv) {
  const int n = tutorial::size_argument(argc, argv, 2048), m = n, k = n;
  tutorial::print_device();

  // Host data: A is m x k row-major, B is k x n column-major, D is k x m row-major (we shall use D^T, m x k).
  const std::vector<float> a = tutorial::random_values(size_t(m) * k, 1), b = tutorial::random_values(size_t(k) * n, 2),
                           d = tutorial::random_values(size_t(k) * m, 3);
  thrust::device_vector<float> a_storage(a.begin(), a.end()), b_storage(b.begin(), b.end()),
      d_storage(d.begin(), d.end()), c1_storage(size_t(m) * n), c2_storage(size_t(m) * n);

  //! [views]
  using cuda::std::layout_left, cuda::std::layout_right, cuda::std::layout_stride;
  const cuda::std::mdspan<const float, extents, layout_right> a_view(raw(a_storage), m, k);
  const cuda::std::mdspan<const float, extents, layout_left> b_view(raw(b_storage), k, n);
  // D^T: element (i, l) is D(l, i), stored at l * m + i, so its strides are (1, m). No data moves.
  const layout_stride::mapping<extents> transposed(extents(m, k), cuda::std::array<int64_t, 2>{1, m});
  const cuda::std::mdspan<const float, extents, layout_stride> d_transposed(raw(d_storage), transposed);
  const cuda::std::mdspan<float, extents, layout_right> c1(raw(c1_storage), m, n), c2(raw(c2_storage), m, n);
  //! [views]

  //! [streams]
  cudaStream_t first, second;
  TUTORIAL_CHECK(cudaStreamCreate(&first));
  TUTORIAL_CHECK(cudaStreamCreate(&second));
  const auto multiply = [](auto x, auto y, auto out, cudaStream_t stream) {  // out = x y
    const tgemm::status s = tgemm::gemm(1.0f, x, y, 0.0f, out, stream);
    if (s != tgemm::status::success) {
      std::fprintf(stderr, "tgemm::gemm: %s: %s\n", tgemm::to_string(s), tgemm::last_error().message.c_str());
      std::exit(EXIT_FAILURE);
    }
  };
  multiply(a_view, b_view, c1, first);         // C1 = A B      (B is read transposed: it is column-major)
  multiply(d_transposed, b_view, c2, second);  // C2 = D^T B    (D^T through its strides)
  TUTORIAL_CHECK(cudaStreamSynchronize(first));
  TUTORIAL_CHECK(cudaStreamSynchronize(second));
  //! [streams]

  std::vector<float> r1(c1_storage.size()), r2(c2_storage.size());
  thrust::copy(c1_storage.begin(), c1_storage.end(), r1.begin());  // one device-to-host copy each
  thrust::copy(c2_storage.begin(), c2_storage.end(), r2.begin());
  const tutorial::host_view b_host{b.data(), 1, k}, c1_host{r1.data(), n, 1}, c2_host{r2.data(), n, 1};
  bool ok = tutorial::check_product("C1 = A B", m, n, k, tutorial::host_view{a.data(), k, 1}, b_host, c1_host);
  ok = tutorial::check_product("C2 = D^T B", m, n, k, tutorial::host_view{d.data(), 1, m}, b_host, c2_host) && ok;

  // Timing: both products on one stream, then one on each (fork and join with events).
  cudaEvent_t fork, join;
  TUTORIAL_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  TUTORIAL_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  const auto one_stream = [&] {
    multiply(a_view, b_view, c1, first);
    multiply(d_transposed, b_view, c2, first);
  };
  const auto two_streams = [&] {
    TUTORIAL_CHECK(cudaEventRecord(fork, first));
    TUTORIAL_CHECK(cudaStreamWaitEvent(second, fork, 0));  // the second stream starts when the timer does
    multiply(a_view, b_view, c1, first);
    multiply(d_transposed, b_view, c2, second);
    TUTORIAL_CHECK(cudaEventRecord(join, second));
    TUTORIAL_CHECK(cudaStreamWaitEvent(first, join, 0));  // the timer stops when both are done
  };
  tutorial::print_time("two GEMMs, one stream", m, n, 2 * int64_t(k), tutorial::median_ms(one_stream, 10, first));
  tutorial::print_time("two GEMMs, two streams", m, n, 2 * int64_t(k), tutorial::median_ms(two_streams, 10, first));

  TUTORIAL_CHECK(cudaEventDestroy(fork));
  TUTORIAL_CHECK(cudaEventDestroy(join));
  TUTORIAL_CHECK(cudaStreamDestroy(first));
  TUTORIAL_CHECK(cudaStreamDestroy(second));
  return tutorial::finish(ok);
}
