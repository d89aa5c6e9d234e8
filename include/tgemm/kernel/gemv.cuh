/// \file kernel/gemv.cuh
/// \brief Matrix-vector products and their near relatives: a C of a few rows (or columns) is a few vectors times one
/// large matrix, and the time goes into reading that matrix once. These kernels stream it with 16-byte loads and do
/// the multiply-adds on the CUDA cores, in float (double for double): the tensor cores would spend most of their
/// work on rows that do not exist, and the memory bounds the product anyway.
///
/// In the kernels' terms the product is out(r, j) = sum over l of x(r, l) m(l, j), for r < rows (the few, at most
/// Rows), j < cols (the many) and l < k. The planner maps C = op(A) op(B) onto it both ways: few rows of C make op(A)
/// the vectors and op(B) the matrix; few columns make op(B)^T the vectors and op(A)^T the matrix
/// (host/launch_gemv.cuh). The kernels' shape (loads in flight, staging) is tuning/gemv.cuh's.
/// Two kernels, by which extent of the matrix is contiguous in memory:
/// - gemv_along_k: each matrix line m(., j) is contiguous (a dot product per output). A warp owns
///   tuning::gemv_warp_columns lines, its lanes read them 16 bytes at a time, and a shuffle tree sums the lanes.
/// - gemv_along_n: each row m(l, .) is contiguous (an axpy per l). A thread owns 16 bytes of a row's columns, the
///   block's warps take interleaved rows, and the warps' sums meet in shared memory.
/// gemv_along_k reads the vectors straight from L1 (every warp of a block reads the same ones; staging them in shared
/// memory first cost each block a barrier before its first load of the matrix); gemv_along_n, which needs one value
/// per row for the whole warp, stages them in shared memory a chunk at a time. Both write either C (alpha, beta;
/// beta == 0 never reads C) or unscaled partial sums of one k slice for the split-K reduction
/// (kernel/reduce_split_k.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../arch/cluster.cuh"
#include "../device/epilogue_terms.cuh"
#include "../numeric.cuh"
#include "../tuning/gemv.cuh"

namespace tgemm::kernel {

/// Threads per block of the GEMV kernels.
inline constexpr int gemv_threads = 256;
/// Warps per block.
inline constexpr int gemv_warps = gemv_threads / 32;
/// The most vectors one launch takes (tgemm::gemm() sends one: see simt_f32_thresholds::gemv).
inline constexpr int gemv_max_rows = 8;
/// The most slices gemv_along_n sums in one cluster (ClusterSlices): the largest cluster sm_90 forms (more than 8
/// blocks only with cudaFuncAttributeNonPortableClusterSizeAllowed).
inline constexpr int gemv_max_cluster_slices = 16;
/// The most blocks of a portable cluster.
inline constexpr int portable_cluster_blocks = 8;

/// Elements of one 16-byte load.
template <class Element>
inline constexpr int gemv_vector = 16 / int(sizeof(Element));

/// Output columns (the many) one block of a GEMV kernel covers.
template <class Element>
__host__ __device__ constexpr int64_t gemv_block_columns(bool along_k) {
  return along_k ? int64_t(gemv_warps) * tuning::gemv_warp_columns : int64_t(32) * gemv_vector<Element>;
}

/// The arguments of a GEMV kernel (see the file comment for the roles). User: a caller's operation in the fused
/// epilogue's terms (device::epilogue_terms).
template <class Element, class Out, class Acc, class User = device::no_user_op>
struct gemv_params {
  const Element* matrix;  ///< m(l, j) at l + j ld (along k) or j + l ld (along n); 16-byte aligned lines.
  int64_t ld;             ///< Elements between the matrix's lines.
  const Element* x;       ///< x(r, l) at r x_row + l x_k.
  int64_t x_row;          ///< Elements between the vectors.
  int64_t x_k;            ///< Elements between a vector's consecutive values.
  bool x_vector;          ///< x_k == 1 and every product's vectors 16-byte aligned: gemv_along_k loads them as vectors.
  Out* out;               ///< out(r, j) at r out_row + j out_col: C (null when partials is set).
  int64_t out_row;        ///< Elements between rows r of out (or of the partials).
  int64_t out_col;        ///< Elements between columns j of out (or of the partials).
  Acc* partials;          ///< Non-null: write the unscaled sums of k slice blockIdx.z to partials + z slice_stride
                          ///< (with out_row and out_col), not C.
  int64_t slice_stride;   ///< Elements between consecutive slices' partials.
  int64_t rows;           ///< Vectors (at most the kernel's Rows).
  int64_t cols;           ///< Outputs per vector (the matrix's extent along j).
  int64_t k;              ///< The reduction's extent.
  int64_t k_per_slice;    ///< k of each slice (a multiple of the 16-byte vector) when partials is set.
  Acc alpha;              ///< C = alpha sum + beta C.
  Acc beta;               ///< beta == 0 never reads C.
  int64_t batch_matrix;   ///< Elements between products' matrices (blockIdx.z of an unsplit launch).
  int64_t batch_x;        ///< Elements between products' vectors.
  int64_t batch_out;      ///< Elements between products' C.
  bool fused;             ///< C's elements go through device::finish() with `terms` (tgemm::epilogue).
  bool out_rows_are_r;    ///< out(r, j) is C(r, j) (one row of C); else C(j, r) (one column): for `terms`.
  device::epilogue_terms_t<Out, Acc, User> terms;  ///< A fused epilogue's terms, relative to `out` (with `fused`).
};

namespace detail {

/// Element e of a 16-byte vector of Elements, as Acc.
template <class Element, class Acc>
__device__ __forceinline__ Acc vector_element(const uint4& v, int e) {
  const unsigned words[4] = {v.x, v.y, v.z, v.w};
  if constexpr (sizeof(Element) == 2) {
    const auto bits = std::uint16_t(words[e / 2] >> (16 * (e % 2)));
    if constexpr (std::is_same<Element, __half>::value) {
      return Acc(tgemm::detail::half_bits_to_float(bits));
    } else {
      return Acc(tgemm::detail::bfloat16_bits_to_float(bits));
    }
  } else if constexpr (sizeof(Element) == 4) {
    return Acc(__uint_as_float(words[e]));
  } else {
    return Acc(__hiloint2double(int(words[2 * e + 1]), int(words[2 * e])));
  }
}

/// Loads the 16-byte vector at p (aligned); Streaming: the matrix is read once, so the load is marked evict-first.
template <bool Streaming, class Element>
__device__ __forceinline__ uint4 load_vector(const Element* p) {
  return Streaming ? __ldcs(reinterpret_cast<const uint4*>(p)) : __ldg(reinterpret_cast<const uint4*>(p));
}

/// x(r, l .. l + V) as Acc: one 16-byte load where the vectors are contiguous along k and 16-byte aligned
/// (x_vector), else V loads; either way from L1 (every warp of a block reads the same vectors).
template <class Element, class Out, class Acc, class User>
__device__ __forceinline__ void load_x(const gemv_params<Element, Out, Acc, User>& p, const Element* x, int64_t l,
                                       Acc (&values)[gemv_vector<Element>]) {
  constexpr int V = gemv_vector<Element>;
  if (p.x_vector) {
    const uint4 raw = __ldg(reinterpret_cast<const uint4*>(x + l));
#pragma unroll
    for (int e = 0; e < V; ++e) values[e] = vector_element<Element, Acc>(raw, e);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) values[e] = convert<Acc>(x[(l + e) * p.x_k]);
  }
}

/// Writes alpha sum + beta C (or, `fused`, the epilogue's value) to out(r, j) of `product`.
template <class Element, class Out, class Acc, class User>
__device__ __forceinline__ void store_c(const gemv_params<Element, Out, Acc, User>& p, Out* out, int64_t r, int64_t j,
                                        Acc sum, int64_t product) {
  Out* c = out + r * p.out_row + j * p.out_col;
  if (p.fused) {
    const device::epilogue_terms_t<Out, Acc, User> t = p.terms.product(product);
    const int64_t row = p.out_rows_are_r ? r : j, col = p.out_rows_are_r ? j : r;
    const bool read_c = p.beta != Acc(0);
    const Out old = !read_c ? zero<Out>() : t.source ? t.source[row + col * t.ld_source] : *c;
    *c = device::finish(t, sum, p.alpha, p.beta, old, read_c, row, col);
    return;
  }
  Acc value = p.alpha * sum;
  if (p.beta != Acc(0)) value += p.beta * convert<Acc>(*c);
  *c = convert<Out>(value);
}

/// Writes one sum: to the slice's partials, or alpha sum + beta C to C.
template <class Element, class Out, class Acc, class User>
__device__ __forceinline__ void store_sum(const gemv_params<Element, Out, Acc, User>& p, Out* out, int64_t r,
                                          int64_t j, Acc sum) {
  if (p.partials != nullptr) {
    p.partials[int64_t(blockIdx.z) * p.slice_stride + r * p.out_row + j * p.out_col] = sum;
    return;
  }
  store_c(p, out, r, j, sum, blockIdx.z);  // unsplit launches: blockIdx.z is the product
}

/// gemv_along_n launched in clusters of all its slices (ClusterSlices): after every block of the cluster has written
/// its slice's partial sums (`partial`, compact: out(r, j) of slice z at z slice_stride + j rows + r; the cluster
/// barrier, whose release and acquire order them), block z of the cluster adds the slices of its share of the block's
/// `columns` columns, in slice order as kernel::reduce_split_k does, and writes C (out_row, out_col: C's strides): no
/// second launch. sm_90 and newer only (clusters; the host launches it there only).
template <class Element, class Out, class Acc, class User>
__device__ __forceinline__ void reduce_cluster_slices(const gemv_params<Element, Out, Acc, User>& p, Out* out,
                                                      int64_t first_column, int64_t columns) {
  arch::cluster_sync();
  const int slices = int(gridDim.z);
  const int64_t share = (columns + slices - 1) / slices;
  const int64_t begin = first_column + int64_t(blockIdx.z) * share;
  for (int64_t i = threadIdx.x; i < share * p.rows; i += blockDim.x) {
    const int64_t r = i / share, j = begin + i % share;
    if (j >= p.cols || j >= first_column + columns) continue;
    const Acc* partial = p.partials + j * p.rows + r;
    Acc sum = Acc(0);
    for (int z = 0; z < slices; ++z) sum += partial[z * p.slice_stride];
    store_c(p, out, r, j, sum, 0);
  }
}

/// The k range of this block and the operands of its product (blockIdx.z: a slice of k, or a product of a batch).
template <class Element, class Out, class Acc, class User>
__device__ __forceinline__ void block_operands(const gemv_params<Element, Out, Acc, User>& p, int64_t& k_begin,
                                               int64_t& k_end, const Element*& matrix, const Element*& x, Out*& out) {
  k_begin = 0, k_end = p.k;
  matrix = p.matrix, x = p.x, out = p.out;
  const int64_t z = blockIdx.z;
  if (p.partials != nullptr) {
    k_begin = z * p.k_per_slice;
    k_end = k_begin + p.k_per_slice < p.k ? k_begin + p.k_per_slice : p.k;
  } else if (z > 0) {
    matrix += z * p.batch_matrix, x += z * p.batch_x, out += z * p.batch_out;
  }
}

}  // namespace detail

/// The product with matrix lines contiguous along k: one dot product per output, warps owning W lines each (grid: blocks of gemv_block_columns(true) lines; z: slices or products).
template <class Element, class Out, class Acc, int Rows, int W = tuning::gemv_warp_columns,
          int Unroll = tuning::gemv_along_k_unroll, bool Streaming = true, class User = device::no_user_op>
__global__ void __launch_bounds__(gemv_threads) gemv_along_k(const gemv_params<Element, Out, Acc, User> p) {
  static_assert(Rows >= 1 && Rows <= gemv_max_rows, "a GEMV kernel serves 1 to gemv_max_rows vectors");
  static_assert(Rows * W <= 32, "one lane writes each of a warp's sums");
  constexpr int V = gemv_vector<Element>;

  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t block = int64_t(blockIdx.x) + int64_t(blockIdx.y) * gridDim.x;
  const int64_t first = block * gemv_warps * W + int64_t(warp) * W;
  int64_t k_begin, k_end;
  const Element* matrix;
  const Element* x;
  Out* out;
  detail::block_operands(p, k_begin, k_end, matrix, x, out);

  const Element* lines[W];
  bool live[W];
#pragma unroll
  for (int c = 0; c < W; ++c) {
    live[c] = first + c < p.cols;
    lines[c] = matrix + (live[c] ? first + c : 0) * p.ld;
  }
  Acc sum[Rows][W];
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
#pragma unroll
    for (int c = 0; c < W; ++c) sum[r][c] = Acc(0);
  }
  // The multiply-adds of one step: W 16-byte vectors of the lines at l, against each vector's V values at l.
  const auto add = [&](const uint4 (&raw)[W], int64_t l) {
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      Acc v[V];
      detail::load_x(p, x + r * p.x_row, l, v);
#pragma unroll
      for (int e = 0; e < V; ++e) {
#pragma unroll
        for (int c = 0; c < W; ++c) sum[r][c] += v[e] * detail::vector_element<Element, Acc>(raw[c], e);
      }
    }
  };
  // Whole vectors (k_begin is a multiple of V, so they are aligned), Unroll steps of W loads issued before their
  // multiply-adds: the loads in flight are what keeps the memory busy.
  const int64_t whole = k_begin + (k_end - k_begin) / V * V;
  int64_t l = k_begin + int64_t(lane) * V;
  for (; l + (Unroll - 1) * 32 * V < whole; l += Unroll * 32 * V) {
    uint4 raw[Unroll][W];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
#pragma unroll
      for (int c = 0; c < W; ++c) {
        raw[u][c] = live[c] ? detail::load_vector<Streaming>(lines[c] + l + u * 32 * V) : uint4{0, 0, 0, 0};
      }
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u) add(raw[u], l + u * 32 * V);
  }
  for (; l < whole; l += 32 * V) {
    uint4 raw[W];
#pragma unroll
    for (int c = 0; c < W; ++c) raw[c] = live[c] ? detail::load_vector<Streaming>(lines[c] + l) : uint4{0, 0, 0, 0};
    add(raw, l);
  }
  if (lane < k_end - whole) {  // the last, partial vector: one element per lane
    const int64_t e = whole + lane;
#pragma unroll
    for (int c = 0; c < W; ++c) {
      if (!live[c]) continue;
      const Acc m = convert<Acc>(lines[c][e]);
#pragma unroll
      for (int r = 0; r < Rows; ++r) sum[r][c] += convert<Acc>(x[r * p.x_row + e * p.x_k]) * m;
    }
  }

#pragma unroll
  for (int r = 0; r < Rows; ++r) {
#pragma unroll
    for (int c = 0; c < W; ++c) {
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) sum[r][c] += __shfl_xor_sync(0xffffffffu, sum[r][c], offset);
    }
  }
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
#pragma unroll
    for (int c = 0; c < W; ++c) {
      if (lane == r * W + c && r < p.rows && live[c]) detail::store_sum(p, out, r, first + c, sum[r][c]);
    }
  }
}

/// The product with matrix rows contiguous along the outputs: a thread owns one 16-byte vector of columns, the
/// block's warps take interleaved rows l and add their sums through shared memory (grid: blocks of
/// gemv_block_columns(false) columns; z: slices or products). ClusterSlices (sm_90 and newer): launched in clusters
/// of gridDim.z blocks along z, one cluster per block of columns, with p.partials (slice_stride at least rows x cols)
/// and p.out both set: the slices' sums meet in C inside the launch (detail::reduce_cluster_slices).
template <class Element, class Out, class Acc, int Rows, int Unroll = tuning::gemv_along_n_unroll,
          bool Streaming = true, bool Staged = tuning::gemv_along_n_staged, class User = device::no_user_op,
          bool ClusterSlices = false>
__global__ void __launch_bounds__(gemv_threads) gemv_along_n(const gemv_params<Element, Out, Acc, User> p) {
  static_assert(Rows >= 1 && Rows <= gemv_max_rows, "a GEMV kernel serves 1 to gemv_max_rows vectors");
  constexpr int V = gemv_vector<Element>;
  constexpr int chunk = tuning::gemv_along_n_stage / Rows;  // k of the vectors staged at a time
  static_assert(chunk % gemv_warps == 0, "a staged chunk is whole rounds of the warps' rows");
  __shared__ alignas(16) Acc partial[gemv_warps / 2 * Rows * 32 * V];  // the tree's halves of the warps' sums
  __shared__ alignas(16) Acc staged[Staged ? chunk * Rows : 1];        // x(r, k0 + l) at l * Rows + r

  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int64_t block = int64_t(blockIdx.x) + int64_t(blockIdx.y) * gridDim.x;
  const int64_t first = block * gemv_block_columns<Element>(false) + int64_t(lane) * V;
  int64_t k_begin, k_end;
  const Element* matrix;
  const Element* x;
  Out* out;
  detail::block_operands(p, k_begin, k_end, matrix, x, out);
  const bool whole = first + V <= p.cols;  // else the columns past the end are not read

  Acc sum[Rows][V];
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
#pragma unroll
    for (int e = 0; e < V; ++e) sum[r][e] = Acc(0);
  }
  for (int64_t k0 = k_begin; k0 < k_end; k0 += Staged ? chunk : k_end - k_begin) {
    const int64_t k1 = Staged && k_end - k0 > chunk ? k0 + chunk : k_end;
    if constexpr (Staged) {
      __syncthreads();  // the previous chunk is consumed
      for (int i = int(threadIdx.x); i < int(k1 - k0) * Rows; i += gemv_threads) {
        const int r = i % Rows;
        staged[i] = r < p.rows ? convert<Acc>(x[r * p.x_row + (k0 + i / Rows) * p.x_k]) : Acc(0);
      }
      __syncthreads();
    }
    // One row l: its V columns times each vector's value at l (the same address across the warp: a broadcast).
    const auto add = [&](const Acc (&m)[V], int64_t l) {
#pragma unroll
      for (int r = 0; r < Rows; ++r) {
        const Acc v = Staged ? staged[(l - k0) * Rows + r] : convert<Acc>(x[r * p.x_row + l * p.x_k]);
#pragma unroll
        for (int e = 0; e < V; ++e) sum[r][e] += v * m[e];
      }
    };
    if (first >= p.cols) continue;
    const int64_t step = int64_t(gemv_warps) * p.ld;  // elements between a warp's rows
    const Element* row = matrix + (k0 + warp) * p.ld + first;
    int64_t l = k0 + warp;
    if (whole) {  // Unroll rows' 16-byte loads in flight before their multiply-adds
      for (; l + (Unroll - 1) * gemv_warps < k1; l += Unroll * gemv_warps, row += Unroll * step) {
        uint4 raw[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; ++u) raw[u] = detail::load_vector<Streaming>(row + u * step);
#pragma unroll
        for (int u = 0; u < Unroll; ++u) {
          Acc m[V];
#pragma unroll
          for (int e = 0; e < V; ++e) m[e] = detail::vector_element<Element, Acc>(raw[u], e);
          add(m, l + u * gemv_warps);
        }
      }
    }
    for (; l < k1; l += gemv_warps, row += step) {
      Acc m[V];
      if (whole) {
        const uint4 raw = detail::load_vector<Streaming>(row);
#pragma unroll
        for (int e = 0; e < V; ++e) m[e] = detail::vector_element<Element, Acc>(raw, e);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) m[e] = first + e < p.cols ? convert<Acc>(row[e]) : Acc(0);
      }
      add(m, l);
    }
  }

  // The warps' sums, halved in a tree through shared memory: warps [h, 2h) write, warps [0, h) add.
  for (int h = gemv_warps / 2; h > 0; h /= 2) {
    __syncthreads();
    if (warp >= h && warp < 2 * h) {
#pragma unroll
      for (int r = 0; r < Rows; ++r) {
#pragma unroll
        for (int e = 0; e < V; ++e) partial[(((warp - h) * Rows + r) * 32 + lane) * V + e] = sum[r][e];
      }
    }
    __syncthreads();
    if (warp < h) {
#pragma unroll
      for (int r = 0; r < Rows; ++r) {
#pragma unroll
        for (int e = 0; e < V; ++e) sum[r][e] += partial[((warp * Rows + r) * 32 + lane) * V + e];
      }
    }
  }
  if constexpr (ClusterSlices) {  // the slice's partials (compact), then the cluster's sum of them into C
    if (warp == 0 && first < p.cols) {
      Acc* partial = p.partials + int64_t(blockIdx.z) * p.slice_stride + first * p.rows;
#pragma unroll
      for (int r = 0; r < Rows; ++r) {
        if (r >= p.rows) break;
#pragma unroll
        for (int e = 0; e < V; ++e) {
          if (first + e < p.cols) partial[e * p.rows + r] = sum[r][e];
        }
      }
    }
    constexpr int64_t columns = gemv_block_columns<Element>(false);
    detail::reduce_cluster_slices(p, out, block * columns, columns);
    return;
  }
  if (warp != 0 || first >= p.cols) return;
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    if (r >= p.rows) break;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      if (first + e < p.cols) detail::store_sum(p, out, r, first + e, sum[r][e]);
    }
  }
}

}  // namespace tgemm::kernel
