"""CUDA in the build: if_cuda() for selects, cuda_library() for .cu.cc files compiled by nvcc.

CUDA is on by default where the toolkit is found (tools/local_cuda.bzl), required by
--config=cuda, left out by --config=nocuda. The device code (.cu.cc) includes only headers
with plain C++ signatures, so gcc compiles everything else and nvcc sees no protobuf or Abseil.
"""

load("@local_cuda//:defs.bzl", "CUDA_AVAILABLE", "NVCC")

def if_cuda(yes, no = []):
    return select({
        "//:cuda_off": no,
        "//:cuda_required": yes,
        "//conditions:default": yes if CUDA_AVAILABLE else no,
    })

# SASS for Ampere (sm_80, which also runs on sm_86/sm_89) and Hopper (sm_90), PTX for the
# rest from Turing on (the driver compiles it at first load). Each entry costs compile time.
_ARCH_FLAGS = [
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_75,code=compute_75",
]

_NVCC_FLAGS = [
    "-x cu",
    "-std=c++17",
    "-O3",
    "-Xcompiler -fPIC",
    "-Xcompiler -O2",
    "-I.",
    "--expt-relaxed-constexpr",
    "-Werror all-warnings",
] + _ARCH_FLAGS

def cuda_library(name, srcs, hdrs = [], deps = [], **kwargs):
    """A cc_library of the objects nvcc makes of `srcs` (.cu.cc); empty without CUDA.

    Linked statically by default: the objects call the static CUDA runtime, whose symbols are
    hidden, so they must be in the executable, not in a test's shared libraries.
    """
    kwargs.setdefault("linkstatic", True)
    objects = []
    if CUDA_AVAILABLE:
        for src in srcs:
            obj = "_%s_%s" % (name, src.replace("/", "_").replace(".cu.cc", ".pic.o"))
            native.genrule(
                name = obj + "_nvcc",
                srcs = [src] + hdrs,
                outs = [obj],
                cmd = "%s -c %s $(location %s) -o $@" % (NVCC, " ".join(_NVCC_FLAGS), src),
                message = "nvcc " + src,
            )
            objects.append(obj)
    native.cc_library(
        name = name,
        srcs = if_cuda(objects),
        hdrs = hdrs,
        deps = deps + if_cuda(["@local_cuda//:cudart"]),
        **kwargs
    )
