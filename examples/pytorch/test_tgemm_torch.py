"""Tests of the tgemm PyTorch extension against float64 references and PyTorch's own operators (needs a GPU).

    python3 test_tgemm_torch.py          # builds the extension on first use (load_tgemm.load), then runs the tests

Every result is checked element by element against the product computed in float64 from the same bfloat16 inputs,
within the bound tgemm's own tests use (test/support/batch_check.hpp): (k + 4) 2^-23 of the products' magnitude for
the float accumulation, bfloat16's rounding (2^-8) of the result, and for GELU/SiLU the activation's slope (1.2) on
the product's error plus 2^-10 of the value for the fast tanh/exp of the 16-bit epilogue. Inputs are random normal,
fresh per case; outputs of PyTorch's own operators are printed beside tgemm's error for comparison.
"""
import math
import os
import sys
import unittest

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load_tgemm  # noqa: E402

ops = None
DEVICE = "cuda"
BF16 = torch.bfloat16


def setUpModule():
    global ops
    if not torch.cuda.is_available():
        raise RuntimeError("these tests need a CUDA GPU")
    ops = load_tgemm.load(build_directory=os.environ.get("TGEMM_TORCH_BUILD_DIR"))


def randn(*shape, scale=1.0):
    return (torch.randn(*shape, device=DEVICE, dtype=torch.float32) * scale).to(BF16)


def reference(a, b, bias=None, activation="none"):
    """(want, magnitude, pre-activation value) in float64 from the bfloat16 inputs."""
    a64, b64 = a.double(), b.double()
    want = a64 @ b64
    magnitude = a64.abs() @ b64.abs()
    if bias is not None:
        want = want + bias.double()
        magnitude = magnitude + bias.double().abs()
    pre = want
    if activation == "relu":
        want = torch.relu(pre)
    elif activation == "gelu":
        want = F.gelu(pre)
    elif activation == "gelu_tanh":
        want = F.gelu(pre, approximate="tanh")
    elif activation == "silu":
        want = F.silu(pre)
    return want, magnitude, pre


def error_ratio(got, a, b, bias=None, activation="none"):
    """(elements out of bound, worst error / bound) of `got` against the float64 reference."""
    k = a.shape[1]
    want, magnitude, pre = reference(a, b, bias, activation)
    smooth = activation in ("gelu", "gelu_tanh", "silu")
    slope = 1.2 if smooth else 1.0
    accumulation = (k + 4) * 2.0**-23 + (4 * 2.0**-24 if bias is not None or activation != "none" else 0.0)
    allowed = slope * accumulation * magnitude + (2.0**-10 * pre.abs() if smooth else 0) + 2.0**-8 * want.abs()
    allowed = allowed + 2.0**-134
    error = (got.double() - want).abs()
    bad = int((~(error <= allowed)).sum().item())  # NaN counts as out of bound
    worst = float((error / allowed).max().item()) if error.numel() else 0.0
    return bad, worst


def check(test, got, a, b, bias=None, activation="none", what=""):
    test.assertEqual(tuple(got.shape), (a.shape[0], b.shape[1]), what)
    bad, worst = error_ratio(got, a, b, bias, activation)
    test.assertEqual(bad, 0, f"{what}: {bad} of {got.numel()} elements out of bound (worst {worst:.2f}x the bound)")
    return worst


class MatrixProduct(unittest.TestCase):
    def test_shapes(self):
        # Square, odd, thin (GEMV-like) and skinny shapes: each takes a different plan inside tgemm.
        for m, n, k in [(256, 256, 256), (1000, 777, 513), (4096, 4096, 4096), (1, 4096, 4096), (4096, 1, 1024),
                        (8, 3000, 2048), (129, 4097, 64), (64, 64, 1), (5, 7, 0)]:
            a, b = randn(m, k), randn(k, n)
            got = ops.mm(a, b)
            worst = check(self, got, a, b, what=f"mm {m}x{n}x{k}")
            if k > 0:
                # PyTorch's own result is only reported: cuBLAS may reduce in bf16 (allow_bf16_reduced_precision_
                # reduction, on by default), which tgemm's bound does not cover.
                torch_bad, torch_worst = error_ratio(torch.mm(a, b), a, b)
                print(f"  mm {m:5d} x {n:5d} x {k:5d}: worst error {worst:.3f} of the bound "
                      f"(torch.mm: {torch_worst:.3f}, {torch_bad} elements beyond it)")

    def test_transposed_views_and_strides(self):
        m, n, k = 384, 640, 320
        a, b = randn(m, k), randn(k, n)
        at, bt = a.t().contiguous().t(), b.t().contiguous().t()  # the same values, column-major storage
        for x, y, what in [(at, b, "a^T view"), (a, bt, "b^T view"), (at, bt, "both views")]:
            check(self, ops.mm(x, y), a, b, what=what)
        wide = randn(m, 2 * k)
        sliced = wide[:, ::2]  # neither stride is 1: copied contiguous first
        check(self, ops.mm(sliced, b), sliced.contiguous(), b, what="strided slice")
        padded = randn(m, k + 3)[:, :k]  # row stride k + 3: an odd leading dimension, read in place
        check(self, ops.mm(padded, b), padded.contiguous(), b, what="odd leading dimension")

    def test_other_stream(self):
        a, b = randn(512, 256), randn(256, 384)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            got = ops.mm(a, b)
        stream.synchronize()
        check(self, got, a, b, what="side stream")

    def test_bad_arguments(self):
        a, b = randn(64, 32), randn(32, 48)
        with self.assertRaisesRegex(RuntimeError, "inner dimensions"):
            ops.mm(a, randn(31, 48))
        with self.assertRaisesRegex(RuntimeError, "bfloat16"):
            ops.mm(a.float(), b.float())
        with self.assertRaisesRegex(RuntimeError, "CUDA"):
            ops.mm(a.cpu(), b.cpu())
        with self.assertRaisesRegex(RuntimeError, "dimensions"):
            ops.mm(a[0], b)


class Linear(unittest.TestCase):
    def test_bias_and_activations(self):
        tokens, inputs, outputs = 1000, 768, 3072
        x = randn(tokens, inputs)
        weight = randn(outputs, inputs, scale=1 / math.sqrt(inputs))
        bias = randn(outputs, scale=0.1)
        for activation in ["none", "relu", "gelu", "gelu_tanh", "silu"]:
            got = ops.linear(x, weight, bias, activation)
            worst = check(self, got, x, weight.t(), bias, activation, what=f"linear {activation}")
            print(f"  linear + bias + {activation:9s}: worst error {worst:.3f} of the bound")
        check(self, ops.linear(x, weight), x, weight.t(), what="linear without bias")

    def test_leading_dimensions_and_torch(self):
        # (batch, sequence, features) input, as a transformer layer passes it; compared with F.linear + F.gelu too.
        x = randn(4, 250, 512)
        weight = randn(1024, 512, scale=1 / math.sqrt(512))
        bias = randn(1024, scale=0.1)
        got = ops.linear(x, weight, bias, "gelu_tanh")
        self.assertEqual(tuple(got.shape), (4, 250, 1024))
        check(self, got.reshape(-1, 1024), x.reshape(-1, 512), weight.t(), bias, "gelu_tanh", what="3-D input")
        theirs = F.gelu(F.linear(x, weight, bias), approximate="tanh")
        difference = (got.float() - theirs.float()).abs().max().item()
        self.assertLess(difference, 0.1, "far from PyTorch's F.gelu(F.linear(...))")

    def test_bad_arguments(self):
        x, weight = randn(16, 32), randn(64, 32)
        with self.assertRaisesRegex(RuntimeError, "in_features"):
            ops.linear(x, randn(64, 31))
        with self.assertRaisesRegex(RuntimeError, "bias has 63 elements"):
            ops.linear(x, weight, randn(63))
        with self.assertRaisesRegex(RuntimeError, "activation must be one of"):
            ops.linear(x, weight, None, "tanh")


class GroupedProduct(unittest.TestCase):
    def test_experts(self):
        # Eight experts with their own token counts (one empty), the shapes a mixture-of-experts layer produces.
        tokens = [64, 0, 1, 300, 2048, 17, 512, 1000]
        model, hidden = 512, 1024
        xs = [randn(t, model) for t in tokens]
        ws = [randn(model, hidden, scale=1 / math.sqrt(model)) for _ in tokens]
        outs = ops.grouped_mm(xs, ws)
        self.assertEqual(len(outs), len(tokens))
        for i, (x, w, out) in enumerate(zip(xs, ws, outs)):
            check(self, out, x, w, what=f"group {i} ({tokens[i]} tokens)")

    def test_mixed_shapes_and_views(self):
        a = [randn(100, 64), randn(64, 200).t(), randn(7, 9)]
        b = [randn(64, 50).t().contiguous().t(), randn(64, 30), randn(9, 1)]
        for i, (x, y, out) in enumerate(zip(a, b, ops.grouped_mm(a, b))):
            check(self, out, x, y, what=f"group {i}")
        self.assertEqual(ops.grouped_mm([], []), [])

    def test_bad_group(self):
        a, b = [randn(8, 16), randn(8, 16)], [randn(16, 4), randn(15, 4)]
        with self.assertRaisesRegex(RuntimeError, "group 1: inner dimensions"):
            ops.grouped_mm(a, b)
        with self.assertRaisesRegex(RuntimeError, r"a\[1\] must be bfloat16"):
            ops.grouped_mm([a[0], a[1].float()], [b[0], b[0]])


if __name__ == "__main__":
    torch.manual_seed(1)
    unittest.main(verbosity=2)
