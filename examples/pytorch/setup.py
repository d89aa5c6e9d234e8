"""Ahead-of-time build of the tgemm PyTorch extension (the same source load_tgemm.py compiles just in time):

    TORCH_CUDA_ARCH_LIST="9.0a" pip install --no-build-isolation .     # or: python setup.py build_ext --inplace

then `import torch, tgemm_torch` (import torch first: the extension links against it).
"""
import os
import pathlib

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

here = pathlib.Path(__file__).resolve().parent
include = os.environ.get("TGEMM_INCLUDE_DIR", str(here.parent.parent / "include"))

setup(
    name="tgemm_torch",
    ext_modules=[
        CUDAExtension(
            name="tgemm_torch",
            sources=["tgemm_torch.cu"],
            include_dirs=[include],
            extra_compile_args={"cxx": ["-O3", "-std=c++17"], "nvcc": ["-O3", "-std=c++17", "--split-compile=0"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
