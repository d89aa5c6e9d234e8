// Part 2 of the policies of paths.hpp (see paths_impl.cuh).
#include "paths_impl.cuh"

template void tgemm::reliability::add_policy_paths<2>(std::vector<tgemm::reliability::gemm_path>&);
