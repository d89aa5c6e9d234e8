// all_paths(): the dispatcher (compiled here) and the policies of every part.
#include "paths.hpp"

#include <tgemm/gemm.cuh>

#include <algorithm>
#include <utility>

namespace tgemm::reliability {

namespace {
template <int... Part>
void add_all_parts(std::vector<gemm_path>& out, std::integer_sequence<int, Part...>) {
  (add_policy_paths<Part>(out), ...);
}
}  // namespace

const std::vector<gemm_path>& all_paths() {
  static const std::vector<gemm_path> paths = [] {
    std::vector<gemm_path> out;
    gemm_path dispatcher;
    dispatcher.name = "gemm";
    dispatcher.policy_name = "dispatcher";
    dispatcher.dispatcher = true;
    dispatcher.vector_width = 1;
    dispatcher.list_index = 0;
    dispatcher.run = static_cast<run_function>(&tgemm::gemm);
    out.push_back(dispatcher);
    add_all_parts(out, std::make_integer_sequence<int, path_parts>{});
    std::sort(out.begin(), out.end(),
              [](const gemm_path& x, const gemm_path& y) { return x.list_index < y.list_index; });
    return out;
  }();
  return paths;
}

}  // namespace tgemm::reliability
