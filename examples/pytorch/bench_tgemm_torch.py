"""tgemm's PyTorch extension beside PyTorch's own operators on the same bfloat16 tensors (needs a GPU).

    python3 bench_tgemm_torch.py [--reps 20] [--rounds 5]

Each case runs tgemm and PyTorch alternately, `rounds` times, each time `reps` back-to-back calls between two CUDA
events after warm-up; the table gives the median milliseconds per call over the rounds, TFLOP/s and tgemm's speed
relative to PyTorch (> 1: tgemm faster). Inputs are random normal; several input sets are rotated so that products
whose operands would fit in L2 (60 MB on an H200) are read from memory as they would be in a model.
"""
import argparse
import itertools
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load_tgemm  # noqa: E402

BF16 = torch.bfloat16


def randn(*shape, scale=1.0):
    return (torch.randn(*shape, device="cuda", dtype=torch.float32) * scale).to(BF16)


def rotation(make, operand_bytes, l2_bytes):
    """Enough input sets that together they exceed twice the L2 (at least one)."""
    return [make() for _ in range(max(1, math.ceil(2 * l2_bytes / max(1, operand_bytes))))]


def time_pair(fns, sets, reps, rounds):
    """Median ms per call of each function in `fns` (called as fn(*set)), interleaved round by round."""
    for fn in fns:  # warm-up (and the extension's first-call setup)
        for s in sets:
            fn(*s)
    torch.cuda.synchronize()
    times = [[] for _ in fns]
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start.record()
            for r in range(reps):
                fn(*sets[r % len(sets)])
            stop.record()
            stop.synchronize()
            times[i].append(start.elapsed_time(stop) / reps)
    return [statistics.median(t) for t in times]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ops = load_tgemm.load(build_directory=os.environ.get("TGEMM_TORCH_BUILD_DIR"))
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, L2 {l2 >> 20} MB; torch {torch.__version__}")
    print(f"{'case':44s} {'tgemm ms':>9s} {'torch ms':>9s} {'tgemm TF/s':>10s} {'torch TF/s':>10s} {'speed':>6s}")
    rows = []

    def report(name, flops, t_tgemm, t_torch, torch_name):
        speed = t_torch / t_tgemm
        rows.append((name, t_tgemm, t_torch, speed))
        print(f"{name:44s} {t_tgemm:9.4f} {t_torch:9.4f} {flops / t_tgemm / 1e9:10.1f} {flops / t_torch / 1e9:10.1f} "
              f"{speed:5.2f}x   (torch: {torch_name})", flush=True)

    # Matrix products: torch.mm (cuBLAS / cuBLASLt underneath).
    for m, n, k in [(4096, 4096, 4096), (8192, 8192, 8192), (4095, 4095, 4095), (8192, 8192, 1024),
                    (128, 4096, 4096), (16, 8192, 8192)]:
        sets = rotation(lambda: (randn(m, k), randn(k, n)), 2 * (m * k + k * n), l2)
        t = time_pair([ops.mm, torch.mm], sets, args.reps, args.rounds)
        report(f"mm {m}x{n}x{k}", 2.0 * m * n * k, t[0], t[1], "torch.mm")

    # A linear layer with bias and GELU: tgemm fuses both into the GEMM; PyTorch runs F.linear (bias fused by
    # cuBLASLt) and then F.gelu as a kernel of its own.
    for tokens, inputs, outputs in [(8192, 4096, 4096), (8192, 4096, 16384), (16384, 1024, 4096), (2048, 1024, 4096)]:
        def make():
            return (randn(tokens, inputs), randn(outputs, inputs, scale=1 / math.sqrt(inputs)),
                    randn(outputs, scale=0.1))
        sets = rotation(make, 2 * (tokens * inputs + outputs * inputs), l2)
        t = time_pair([lambda x, w, b: ops.linear(x, w, b, "gelu_tanh"),
                       lambda x, w, b: F.gelu(F.linear(x, w, b), approximate="tanh")], sets, args.reps, args.rounds)
        report(f"linear+bias+gelu {tokens}x{outputs}x{inputs}", 2.0 * tokens * inputs * outputs, t[0], t[1],
               "F.gelu(F.linear)")

    # A mixture-of-experts projection: eight experts with their own token counts, n = 4096, k = 2048 (the experts
    # case of tgemm_bench_grouped). PyTorch: a loop of torch.mm, and torch._grouped_mm where this build has it.
    tokens = [64, 128, 256, 512, 768, 1024, 1536, 2048]
    model, hidden = 2048, 4096
    flops = sum(2.0 * t * hidden * model for t in tokens)

    def make_experts():
        return ([randn(t, model) for t in tokens], [randn(model, hidden, scale=1 / math.sqrt(model)) for _ in tokens])
    expert_bytes = 2 * sum(t * model + model * hidden for t in tokens)
    sets = rotation(make_experts, expert_bytes, l2)
    t = time_pair([ops.grouped_mm, lambda xs, ws: [torch.mm(x, w) for x, w in zip(xs, ws)]], sets, args.reps,
                  args.rounds)
    report("grouped experts (8, n 4096, k 2048)", flops, t[0], t[1], "loop of torch.mm")
    if hasattr(torch, "_grouped_mm"):
        def torch_grouped(xs, ws, offsets, stacked_w):
            return torch._grouped_mm(torch.cat(xs), stacked_w, offs=offsets)
        try:
            grouped_sets = []
            for xs, ws in sets:
                offsets = torch.tensor(list(itertools.accumulate(tokens)), device="cuda", dtype=torch.int32)
                grouped_sets.append((xs, ws, offsets, torch.stack(ws)))
            t = time_pair([lambda xs, ws, o, s: ops.grouped_mm(xs, ws), torch_grouped], grouped_sets, args.reps,
                          args.rounds)
            report("grouped experts (8, n 4096, k 2048)", flops, t[0], t[1], "torch._grouped_mm (with its cat)")
        except (RuntimeError, TypeError) as error:  # private API: its signature and support vary between builds
            print(f"torch._grouped_mm not usable here: {str(error).splitlines()[0]}")
    speeds = [r[3] for r in rows]
    print(f"speed tgemm/torch: min {min(speeds):.2f} max {max(speeds):.2f} "
          f"geomean {math.exp(sum(map(math.log, speeds)) / len(speeds)):.2f} (n={len(speeds)})")


if __name__ == "__main__":
    main()
