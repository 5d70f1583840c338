"""Repository rule exposing the local CUDA toolkit, or stubs that fail only under --config=cuda."""

_AVAILABLE_BUILD = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/*.h", "include/*.hpp", "include/crt/**"]),
    includes = ["include"],
)

# The runtime linked statically: a binary needs no libcudart.so where it runs, only the driver's
# libcuda.so.1, which the runtime opens when first called (absent: the GPU devices are too).
# Whole (alwayslink): test binaries link the libraries that call it as shared objects, and a
# static archive's members are only pulled in for references the executable itself makes.
cc_import(
    name = "cudart_static",
    static_library = "lib64/libcudart_static.a",
    alwayslink = True,
)

cc_library(
    name = "cudart",
    linkopts = ["-ldl", "-lpthread", "-lrt"],
    deps = [":cuda_headers", ":cudart_static"],
)

cc_library(
    name = "cublas",
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lcublas", "-lcublasLt"],
    deps = [":cudart"],
)

cc_library(
    name = "cudnn",
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lcudnn"],
    deps = [":cudart"],
)
"""

_MISSING_BUILD = """
load(":missing.bzl", "missing_cuda")

package(default_visibility = ["//visibility:public"])

missing_cuda(name = "missing")

[cc_library(name = n, deps = [":missing"]) for n in ["cuda_headers", "cudart", "cublas", "cudnn"]]
"""

_MISSING_BZL = """
def _impl(ctx):
    fail("--config=cuda requested but no CUDA toolkit at {path} (set CUDA_PATH=..., or build without --config=cuda)")

missing_cuda = rule(implementation = _impl)
"""

def _local_cuda_impl(ctx):
    path = ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    nvcc = path + "/bin/nvcc"
    available = ctx.path(nvcc).exists
    if available:
        ctx.symlink(path + "/include", "include")
        ctx.symlink(path + "/lib64", "lib64")
        lib = path + "/lib64"
        ctx.file("BUILD", _AVAILABLE_BUILD.replace("{lib}", lib))
    else:
        ctx.file("missing.bzl", _MISSING_BZL.replace("{path}", path))
        ctx.file("BUILD", _MISSING_BUILD)
    ctx.file("defs.bzl", "CUDA_AVAILABLE = %s\nCUDA_PATH = %r\nNVCC = %r\n" % (available, path, nvcc))

local_cuda_repository = repository_rule(
    implementation = _local_cuda_impl,
    environ = ["CUDA_PATH"],
    local = True,
)
