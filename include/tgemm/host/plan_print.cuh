/// \file host/plan_print.cuh
/// \brief A plan as text: what TGEMM_PRINT_PLAN=1 prints for every tgemm::gemm() call.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../tuning/selector.cuh"
#include "plan.cuh"

namespace tgemm::detail {

/// True when the environment asks for every plan to be printed (TGEMM_PRINT_PLAN set to anything but 0).
inline bool print_plans_requested() {
  static const bool requested = [] {
    const char* value = std::getenv("TGEMM_PRINT_PLAN");
    return value != nullptr && value[0] != '\0' && !(value[0] == '0' && value[1] == '\0');
  }();
  return requested;
}

inline const char* op_letter(op operation) { return operation == op::none ? "N" : "T"; }

/// The plan, one line for the call and one per step. `tuning` names the policies of gemm steps (nullptr: only
/// their tiles are shown); `element` names the element type.
inline std::string describe(const plan& p, const tuning::tuning_values* tuning, const char* element, int64_t m,
                            int64_t n, int64_t k) {
  char line[512];
  std::string text;
  std::snprintf(line, sizeof line,
                "tgemm plan: %s m=%lld n=%lld k=%lld (column-major form), ops %s%s, sm_%d entry, %d SMs, workspace %zu "
                "bytes%s%s%s%s%s%s%s%s\n",
                element, (long long)m, (long long)n, (long long)k, op_letter(p.op_a), op_letter(p.op_b), p.arch / 10,
                p.multiprocessors, p.workspace_bytes, p.repacked_a ? ", repack A" : "", p.repacked_b ? ", repack B" : "",
                p.peeled ? ", peeled" : "", p.staged_c ? ", staged C" : "", p.split_k ? ", split-K" : "",
                p.unaligned ? ", scalar loads" : "", p.wgmma ? ", sm_90a kernel" : p.gemv ? ", GEMV kernel" : "",
                p.fused ? ", fused epilogue" : "");
  text += line;
  if (p.batches > 1) {
    std::snprintf(line, sizeof line, "  a batch of %lld products, %s\n", (long long)p.batches,
                  p.batch_in_grid ? "together (gridDim.z)" : "one after another (each runs these steps)");
    text += line;
  }
  if (p.step_count == 0) text += "  (nothing to launch)\n";
  for (int i = 0; i < p.step_count; ++i) {
    const plan_step& s = p.steps[i];
    switch (s.kind) {
      case step_kind::pack_a:
      case step_kind::pack_b:
        std::snprintf(line, sizeof line, "  %d. pack %s: %lld x %lld %s -> ld %lld at workspace +%zu, grid %lld x %lld\n",
                      i + 1, s.kind == step_kind::pack_a ? "A" : "B", (long long)s.extent_mn, (long long)s.extent_k,
                      s.keep_layout    ? (s.contiguous_k ? "(layout kept, contiguous along k)" : "(layout kept, contiguous along mn)")
                      : s.split_tf32   ? (s.contiguous_k ? "(split into big and small TF32 parts, contiguous along k)"
                                                         : "(split into big and small TF32 parts, transposed to contiguous along k)")
                      : s.to_k_major   ? "(transposed to contiguous along k)"
                      : s.contiguous_k ? "(transposed, contiguous along k)"
                                       : "(contiguous along mn)",
                      (long long)s.ld_packed, s.offset, (long long)s.grid_x, (long long)s.grid_y);
        break;
      case step_kind::gemm: {
        // A step with float partials (a 16-bit C, split) runs the float-C twin of the entry's kernel.
        const tuning::policy_numbers* numbers = tuning == nullptr ? nullptr
                                                : s.wgmma ? (s.float_partials ? (s.wgmma_small ? &tuning->wgmma_small_partials
                                                                                               : &tuning->wgmma_partials)
                                                             : s.wgmma_batch  ? &tuning->wgmma_batch
                                                             : s.wgmma_small  ? &tuning->wgmma_small
                                                             : p.fused && s.wgmma_pingpong
                                                                 ? &tuning->wgmma_fused  // what the executor runs
                                                                 : &tuning->wgmma)
                                                : s.float_partials ? &tuning->partials_slots[int(s.slot)]
                                                                   : &(*tuning)[s.slot];
        const std::string policy = numbers != nullptr && numbers->name != nullptr ? numbers->name() : "";
        std::snprintf(line, sizeof line,
                      "  %d. gemm %s %s%s: C[%lld:+%lld, %lld:+%lld], %lld x %lld tiles x %lld slices, %d threads, %d "
                      "bytes shared%s%s\n",
                      i + 1, s.wgmma ? "wgmma" : tuning::to_string(s.slot), policy.c_str(), s.padded ? " (padded loads)" : "",
                      (long long)s.row, (long long)s.rows, (long long)s.col, (long long)s.cols, (long long)s.tiles_m,
                      (long long)s.tiles_n, (long long)s.slices, s.threads, s.shared_bytes,
                      s.to_workspace ? ", to workspace" : "", s.slices > 1 ? " (partials)" : "");
        if (s.gemv) {
          std::snprintf(line, sizeof line,
                        "  %d. gemv %s (%s): C[0:+%lld, 0:+%lld], %lld blocks x %lld slices, %d threads%s\n", i + 1,
                        s.gemv_along_k ? "along k" : "along n",
                        s.gemv_few_rows ? "one row of C: op(B) streamed" : "one column of C: op(A) streamed",
                        (long long)s.rows, (long long)s.cols, (long long)s.tiles_m, (long long)s.slices, s.threads,
                        s.gemv_cluster ? ", in clusters of its slices, which meet in C"
                        : s.slices > 1 ? ", partials to workspace"
                                       : "");
          break;
        }
        if (s.wgmma) {  // its grid: persistent blocks walking the tiles in groups of tile rows
          text += line;
          std::snprintf(line, sizeof line, "     %lld blocks, tile order in groups of %d tile rows\n",
                        (long long)s.grid_x, s.tile_group);
        }
        break;
      }
      case step_kind::reduce:
        std::snprintf(line, sizeof line, "  %d. reduce %lld slice%s from workspace +%zu into C[%lld:+%lld, %lld:+%lld]\n",
                      i + 1, (long long)s.slices, s.slices == 1 ? "" : "s", s.offset, (long long)s.row,
                      (long long)s.rows, (long long)s.col, (long long)s.cols);
        break;
      case step_kind::scale:
        std::snprintf(line, sizeof line, "  %d. scale C = beta C (%lld x %lld)\n", i + 1, (long long)s.rows,
                      (long long)s.cols);
        break;
    }
    text += line;
  }
  return text;
}

}  // namespace tgemm::detail
