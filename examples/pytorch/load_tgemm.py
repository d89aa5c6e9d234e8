"""Builds (once, just in time) and loads the tgemm PyTorch extension of this directory.

    import load_tgemm
    ops = load_tgemm.load()          # compiles tgemm_torch.cu with nvcc on first use (a minute or two), then cached
    y = ops.linear(x, weight, bias, "gelu_tanh")

The extension is header-only tgemm: the only build input besides PyTorch is tgemm's include directory, found next to
this file (../../include) or through the TGEMM_INCLUDE_DIR environment variable (an installed tgemm's include/).
It is compiled for the GPUs PyTorch sees (TORCH_CUDA_ARCH_LIST overrides); give it sm_90a ("9.0a") on Hopper so that
tgemm can use its Hopper kernel there.
"""
import os
import pathlib

import torch
from torch.utils import cpp_extension

HERE = pathlib.Path(__file__).resolve().parent


def include_dir():
    """tgemm's include directory: TGEMM_INCLUDE_DIR, or the repository's include/ next to this example."""
    path = pathlib.Path(os.environ.get("TGEMM_INCLUDE_DIR", HERE.parent.parent / "include"))
    if not (path / "tgemm" / "gemm.cuh").is_file():
        raise RuntimeError(f"tgemm headers not found in {path}; set TGEMM_INCLUDE_DIR to tgemm's include directory")
    return str(path)


def default_arch_list():
    """The architectures of the visible GPUs, with the 'a' suffix on Hopper (sm_90a: tgemm's wgmma kernel)."""
    archs = set()
    for i in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(i)
        archs.add(f"{major}.{minor}" + ("a" if (major, minor) == (9, 0) else ""))
    return ";".join(sorted(archs))


def load(verbose=False, build_directory=None):
    """Compiles (when its sources changed) and imports the extension; returns the module (mm, linear, grouped_mm)."""
    if "TORCH_CUDA_ARCH_LIST" not in os.environ and torch.cuda.is_available():
        os.environ["TORCH_CUDA_ARCH_LIST"] = default_arch_list()
    if build_directory is not None:
        os.makedirs(build_directory, exist_ok=True)
    return cpp_extension.load(
        name="tgemm_torch",
        sources=[str(HERE / "tgemm_torch.cu")],
        extra_include_paths=[include_dir()],
        # tgemm's kernels are independent functions: nvcc optimises and assembles them on every core at once.
        extra_cuda_cflags=["-O3", "-std=c++17", "--split-compile=0"],
        build_directory=build_directory,
        verbose=verbose,
    )
