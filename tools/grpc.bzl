"""Compiles .proto files with the system protoc (and grpc_cpp_plugin) into one cc_library."""

def cc_proto_lib(name, srcs, deps = [], grpc_srcs = [], **kwargs):
    """Generates C++ for `srcs` (messages) and `grpc_srcs` (files that also declare services).

    All files are compiled by one protoc call, so imports between them need no extra wiring.
    Import paths are workspace-relative: "protos/tensorflow/tensor.proto".
    """
    outs = []
    for src in srcs + grpc_srcs:
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
    for src in grpc_srcs:
        base = src[:-len(".proto")]
        outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]
    plugin = []
    if grpc_srcs:
        plugin = ["--grpc_out=$(GENDIR)", "--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin"]
    native.genrule(
        name = name + "_gen",
        srcs = srcs + grpc_srcs,
        outs = outs,
        cmd = " ".join(["/usr/bin/protoc", "-I.", "-I$(GENDIR)", "--cpp_out=$(GENDIR)"] + plugin +
                       ["$(location %s)" % s for s in srcs + grpc_srcs]),
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + ["//third_party/system:protobuf"] + (["//third_party/system:grpc++"] if grpc_srcs else []),
        **kwargs
    )
