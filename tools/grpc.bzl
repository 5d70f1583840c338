"""Compiles .proto files with the system protoc (and grpc_cpp_plugin) into one cc_library."""

def cc_proto_lib(name, srcs, deps = [], grpc_srcs = [], proto_deps = [], **kwargs):
    """Generates C++ for `srcs` (messages) and `grpc_srcs` (files that also declare services).

    All files of one target are compiled by one protoc call, so imports between them need no
    extra wiring. Import paths are workspace-relative: "protos/tensorflow/tensor.proto".

    proto_deps: .proto files (labels) that `srcs`/`grpc_srcs` import but that another target
    compiles; protoc reads them, no code is generated for them here. Put the cc_library that
    does compile them into `deps`.
    """
    outs = []
    for src in srcs + grpc_srcs:
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
    for src in grpc_srcs:
        base = src[:-len(".proto")]
        outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]
    protoc = ["/usr/bin/protoc", "-I.", "-I$(GENDIR)"]
    cmd = " ".join(protoc + ["--cpp_out=$(GENDIR)"] +
                   ["$(location %s)" % s for s in srcs + grpc_srcs])
    if grpc_srcs:
        # The gRPC plugin only sees the files that declare services, so it writes no
        # undeclared .grpc.pb.* files for message-only sources.
        cmd += " && " + " ".join(
            protoc + ["--grpc_out=$(GENDIR)", "--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin"] +
            ["$(location %s)" % s for s in grpc_srcs],
        )
    native.genrule(
        name = name + "_gen",
        srcs = srcs + grpc_srcs + proto_deps,
        outs = outs,
        cmd = cmd,
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        deps = deps + ["//third_party/system:protobuf"] + (["//third_party/system:grpc++"] if grpc_srcs else []),
        **kwargs
    )
