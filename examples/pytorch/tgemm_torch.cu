// A PyTorch extension that runs tgemm on bfloat16 tensors: a matrix product, a linear layer with its bias and
// activation fused into the GEMM's store, and a grouped product (one call for a list of products of different
// shapes, as a mixture-of-experts layer needs). Built by torch.utils.cpp_extension (tgemm_torch.py loads it just in
// time; setup.py builds it ahead of time); header-only tgemm, so the only build input is tgemm's include directory.
//
// What a PyTorch user expects and this file does:
//   - the work runs on the tensors' device, on PyTorch's current stream, and its scratch memory comes from
//     PyTorch's caching allocator (so CUDA-graph capture and stream-ordered reuse work as for PyTorch's own ops);
//   - transposed views (x.t(), weight as nn.Linear stores it) are read in place, through tgemm's op(A)/op(B);
//     other strided views are made contiguous first;
//   - a bad argument raises RuntimeError with tgemm's message (which argument, why), and nothing is written.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#include <tgemm/gemm.cuh>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using bf16 = __nv_bfloat16;

// Message parts as text. Built with std::string and std::to_string, not std::ostream: on the H200 machine an
// extension compiled by nvcc crashed inside ostream's integer formatting (a locale facet of another libstdc++ build
// than the one its headers described), in TORCH_CHECK's message formatting as in ours.
std::string text(const char* s) { return s; }
std::string text(const std::string& s) { return s; }
std::string text(int64_t v) { return std::to_string(v); }
std::string text(size_t v) { return std::to_string(v); }
std::string text(c10::ScalarType t) { return c10::toString(t); }
std::string text(const torch::Device& d) { return d.str(); }
std::string text(c10::IntArrayRef sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

// Raises RuntimeError (pybind11 translates std::runtime_error) with the parts of the message, when `ok` is false.
template <class... Parts>
void require(bool ok, const Parts&... parts) {
  if (ok) return;
  std::string message;
  ((message += text(parts)), ...);
  throw std::runtime_error(message);
}

// A 2-D tensor as tgemm's operand in row-major terms: op(X) with X's leading dimension. A row-major tensor is op
// none; a transposed view (column-major storage) is X^T of a row-major X; anything else is copied contiguous.
struct operand {
  torch::Tensor storage;  // keeps a contiguous copy alive
  const bf16* data;
  tgemm::op op;
  int64_t ld;
};

operand as_operand(const torch::Tensor& t) {
  const int64_t rows = t.size(0), cols = t.size(1);
  if (t.stride(1) == 1 && t.stride(0) >= std::max<int64_t>(1, cols)) {
    return {t, reinterpret_cast<const bf16*>(t.data_ptr()), tgemm::op::none, t.stride(0)};
  }
  if (t.stride(0) == 1 && t.stride(1) >= std::max<int64_t>(1, rows)) {
    return {t, reinterpret_cast<const bf16*>(t.data_ptr()), tgemm::op::transpose, t.stride(1)};
  }
  torch::Tensor c = t.contiguous();
  return {c, reinterpret_cast<const bf16*>(c.data_ptr()), tgemm::op::none, std::max<int64_t>(1, cols)};
}

void check_tensor(const torch::Tensor& t, const char* name, int64_t dims) {
  require(t.is_cuda(), name, " must be a CUDA tensor");
  require(t.scalar_type() == torch::kBFloat16, name, " must be bfloat16, got ", t.scalar_type());
  require(dims < 0 || t.dim() == dims, name, " must have ", dims, " dimensions, got ", t.dim());
}

void check_status(tgemm::status s, const char* call) {
  require(s == tgemm::status::success, call, " failed (", tgemm::to_string(s), "): ",
              tgemm::last_error().message);
}

// Scratch memory for one call (repacked operands, split-K partials), from PyTorch's caching allocator: it is freed,
// stream-ordered, when the tensor goes out of scope after the launches. Most calls need none.
struct scratch {
  torch::Tensor memory;
  tgemm::workspace ws;
  scratch(size_t bytes, const torch::Device& device) {
    if (bytes > 0) memory = torch::empty({int64_t(bytes)}, torch::TensorOptions().dtype(torch::kUInt8).device(device));
    ws = {bytes > 0 ? memory.data_ptr() : nullptr, bytes};
  }
};

tgemm::activation parse_activation(const std::string& name) {
  if (name == "none") return tgemm::activation::none;
  if (name == "relu") return tgemm::activation::relu;
  if (name == "gelu") return tgemm::activation::gelu_erf;
  if (name == "gelu_tanh") return tgemm::activation::gelu_tanh;
  if (name == "silu") return tgemm::activation::silu;
  require(false, "activation must be one of none, relu, gelu, gelu_tanh, silu; got '", name, "'");
  return tgemm::activation::none;
}

// C (m x n, row-major, new) = op(A) op(B) with an optional fused epilogue.
torch::Tensor product(const torch::Tensor& a, const torch::Tensor& b, const tgemm::epilogue<bf16>* ep) {
  require(a.device() == b.device(), "both operands must be on one device");
  require(a.size(1) == b.size(0), "inner dimensions differ: ", a.sizes(), " @ ", b.sizes());
  const c10::cuda::CUDAGuard guard(a.device());
  const int64_t m = a.size(0), n = b.size(1), k = a.size(1);
  torch::Tensor c = torch::empty({m, n}, a.options());
  const operand x = as_operand(a), y = as_operand(b);
  bf16* out = reinterpret_cast<bf16*>(c.data_ptr());
  const int64_t ldc = std::max<int64_t>(1, n);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const auto order = tgemm::layout::row_major;
  size_t bytes = 0;
  if (ep != nullptr) {
    check_status(tgemm::gemm_workspace_size(order, x.op, y.op, m, n, k, 1.0f, x.data, x.ld, y.data, y.ld, 0.0f, out,
                                            ldc, *ep, bytes, stream),
                 "tgemm::gemm_workspace_size");
  } else {
    check_status(tgemm::gemm_workspace_size(order, x.op, y.op, m, n, k, 1.0f, x.data, x.ld, y.data, y.ld, 0.0f, out,
                                            ldc, bytes, stream),
                 "tgemm::gemm_workspace_size");
  }
  const scratch s(bytes, a.device());
  if (ep != nullptr) {
    check_status(tgemm::gemm(order, x.op, y.op, m, n, k, 1.0f, x.data, x.ld, y.data, y.ld, 0.0f, out, ldc, *ep, stream,
                             s.ws),
                 "tgemm::gemm");
  } else {
    check_status(tgemm::gemm(order, x.op, y.op, m, n, k, 1.0f, x.data, x.ld, y.data, y.ld, 0.0f, out, ldc, stream, s.ws),
                 "tgemm::gemm");
  }
  return c;
}

// torch.mm(a, b) for 2-D bfloat16 tensors.
torch::Tensor mm(const torch::Tensor& a, const torch::Tensor& b) {
  check_tensor(a, "a", 2);
  check_tensor(b, "b", 2);
  return product(a, b, nullptr);
}

// act(F.linear(x, weight, bias)): x (..., in), weight (out, in) as nn.Linear stores it, bias (out) or None. The
// bias and the activation are applied by the GEMM's store (tgemm::epilogue), not by passes of their own.
torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& weight, const c10::optional<torch::Tensor>& bias,
                     const std::string& activation) {
  check_tensor(x, "x", -1);
  check_tensor(weight, "weight", 2);
  require(x.dim() >= 1, "x must have at least one dimension");
  require(x.size(-1) == weight.size(1), "x's last dimension (", x.size(-1), ") must equal weight's in_features (",
              weight.size(1), ")");
  tgemm::epilogue<bf16> ep;
  ep.act = parse_activation(activation);
  torch::Tensor b;
  if (bias.has_value() && bias->defined()) {
    check_tensor(*bias, "bias", 1);
    require(bias->size(0) == weight.size(0), "bias has ", bias->size(0), " elements, weight has ", weight.size(0),
                " out_features");
    require(bias->device() == weight.device(), "bias must be on weight's device");
    b = bias->contiguous();
    ep.column_bias = reinterpret_cast<const bf16*>(b.data_ptr());
  }
  const torch::Tensor rows = x.reshape({-1, x.size(-1)});
  torch::Tensor y = product(rows, weight.t(), &ep);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = weight.size(0);
  return y.view(shape);
}

// [a[i] @ b[i] for i] in one tgemm::gemm_grouped() call: each product its own m, n and k.
std::vector<torch::Tensor> grouped_mm(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  require(a.size() == b.size(), "a has ", a.size(), " matrices, b has ", b.size());
  std::vector<torch::Tensor> c;
  if (a.empty()) return c;
  std::vector<operand> keep;
  keep.reserve(2 * a.size());
  std::vector<tgemm::gemm_group<bf16>> groups(a.size());
  const torch::Device device = a[0].device();
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string ai = "a[" + std::to_string(i) + "]", bi = "b[" + std::to_string(i) + "]";
    check_tensor(a[i], ai.c_str(), 2);
    check_tensor(b[i], bi.c_str(), 2);
    require(a[i].device() == device && b[i].device() == device, "every matrix must be on ", device);
    require(a[i].size(1) == b[i].size(0), "group ", i, ": inner dimensions differ: ", a[i].sizes(), " @ ",
                b[i].sizes());
    keep.push_back(as_operand(a[i]));
    keep.push_back(as_operand(b[i]));
    const operand& x = keep[keep.size() - 2];
    const operand& y = keep.back();
    c.push_back(torch::empty({a[i].size(0), b[i].size(1)}, a[i].options()));
    tgemm::gemm_group<bf16>& g = groups[i];
    g.op_a = x.op, g.op_b = y.op;
    g.m = a[i].size(0), g.n = b[i].size(1), g.k = a[i].size(1);
    g.a = x.data, g.lda = x.ld, g.b = y.data, g.ldb = y.ld;
    g.c = reinterpret_cast<bf16*>(c.back().data_ptr()), g.ldc = std::max<int64_t>(1, g.n);
  }
  const c10::cuda::CUDAGuard guard(device);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  size_t bytes = 0;
  check_status(tgemm::gemm_grouped_workspace_size(tgemm::layout::row_major, groups.data(), int64_t(groups.size()),
                                                  bytes, stream),
               "tgemm::gemm_grouped_workspace_size");
  const scratch s(bytes, device);
  check_status(tgemm::gemm_grouped(tgemm::layout::row_major, groups.data(), int64_t(groups.size()), stream, s.ws),
               "tgemm::gemm_grouped");
  return c;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "tgemm on bfloat16 tensors: mm, linear (fused bias and activation), grouped_mm";
  m.def("mm", &mm, "a @ b for 2-D bfloat16 CUDA tensors (transposed views read in place)", py::arg("a"), py::arg("b"));
  m.def("linear", &linear,
        "act(x @ weight.T + bias) with the bias and activation fused into the GEMM; activation is one of "
        "'none', 'relu', 'gelu' (erf), 'gelu_tanh', 'silu'",
        py::arg("x"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("activation") = "none");
  m.def("grouped_mm", &grouped_mm, "[a[i] @ b[i]] for lists of 2-D bfloat16 CUDA tensors, in one tgemm call",
        py::arg("a"), py::arg("b"));
}
