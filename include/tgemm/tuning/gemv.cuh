/// \file tuning/gemv.cuh
/// \brief The GEMV kernels' shape (kernel/gemv.cuh): loads in flight per thread and how the vector is read, measured
/// on an H200. The planner's GEMV thresholds are in simt_f32_thresholds (tuning/simt_f32.cuh).
#pragma once

namespace tgemm::tuning {

/// Matrix lines each warp of gemv_along_k owns, and the steps of 16-byte loads it issues on each before their
/// multiply-adds: 8 loads in flight per lane. On an H200 (1 x 8192 x 8192, scratch probe) this measured 3.7 TB/s for
/// float against 3.5 for 4 lines x 2 steps and 3.0 for 4 x 4.
inline constexpr int gemv_warp_columns = 2;
/// See gemv_warp_columns.
inline constexpr int gemv_along_k_unroll = 4;
/// Rows of 16-byte loads each thread of gemv_along_n issues before their multiply-adds. On an H200 (scratch probe,
/// with the vectors staged and the k split that fills the GPU): 1 x 8192 x 8192 float 0.0696 ms against 0.0695 for
/// 8, bf16 0.0420 against 0.0421, and 1 x 65536 x 2048 bf16 (no split) 0.0720 against 0.0801.
inline constexpr int gemv_along_n_unroll = 16;
/// Whether gemv_along_n stages the vectors in shared memory (gemv_along_n_stage values at a time) rather than reading
/// them from L1 row by row. With 16 rows in flight, reading from L1 measured 0.0775-0.081 ms at 1 x 8192 x 8192
/// float against 0.0696 staged (double 0.147 against 0.132).
inline constexpr bool gemv_along_n_staged = true;
/// See gemv_along_n_staged.
inline constexpr int gemv_along_n_stage = 4096;
/// On sm_90 and newer, a GEMV along n that splits k takes at most this many slices and sums them inside its one
/// launch (clusters of the slices: kernel::gemv_along_n's ClusterSlices) instead of a reduction launch after it;
/// 0: never (the clustered kernel is then not compiled). At most 16 (clusters of more than 8 blocks are non-portable:
/// the launcher allows them). On an H100 (bench/gemv_cluster_probe.cu, 6a95ffc), 1 x 8192 x 8192 NT: bf16 in 8
/// clustered slices 0.0498 ms against 0.0526 split in 8 + reduce and 0.0532 in the 15 the split rule picks (cuBLAS
/// 0.0478), float 0.0913 against 0.0926. More than 8 where 8 already make a block per multiprocessor did not pay
/// reliably through tgemm::gemm() (tgemm_bench_sweep --ops NT on an H100, 4440e63): float 1 x 4096 x 4096 in 15
/// slices 0.0324 ms against 0.0294 in 8, bf16 1 x 8192 x 8192 in 15 0.0477 against 0.0527 in one run and 0.0549
/// against 0.0524 in another (one operand set, since found biased: tgemm::test::rotation_sets).
inline constexpr int gemv_cluster_slices = 8;
/// The bound instead of gemv_cluster_slices where that many slices would leave fewer blocks than multiprocessors (on
/// 132 multiprocessors: at most 16 blocks of columns, 4096 bf16 or 2048 float). 16 ran faster through tgemm::gemm()
/// beside cuBLAS on an H100 (tgemm_bench_sweep --ops NT, e6288ee against its own 8;
/// bench/results/h100-gemv-sweep-4440e63.txt), ms: bf16 1 x 4096 x 4096 0.0196 against 0.0222 (16-bit slices of 256
/// through a hook: gemv_min_slice_k), 1 x 2048 x 8192 0.0224 against 0.0307, 1 x 2048 x 65536 0.120 against 0.190;
/// float 1 x 2048 x 8192 0.0302 against 0.0348 (cuBLAS 0.0315), 1 x 2048 x 65536 0.186 against 0.224 (cuBLAS 0.190). It
/// stays 8 because compute-sanitizer's synccheck and initcheck refuse clusters of more than 8 blocks
/// (cudaErrorInvalidClusterSize on an H100, CUDA 13.0; memcheck and racecheck run them): a program checked under those
/// tools would fail. The planner should learn the largest cluster the device launches before this rises.
inline constexpr int gemv_wide_cluster_slices = 8;

}  // namespace tgemm::tuning
