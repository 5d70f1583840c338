// Copy insertion at load: the pass after placement that moves values between memories.
//
// Once every node has its device (runtime/exec/placement.h), a data edge whose value lives in
// another memory than the one its consumer reads from gets a copy node in between. A value
// lives in host memory when its producer runs on the CPU or writes that output to host memory
// (KernelDef::HostMemoryOutput), else in its GPU's memory; an input is read from host memory
// when its consumer runs on the CPU or takes it in host memory (KernelDef::HostMemoryInput:
// shapes, axes, sizes), else from its GPU's memory. The copies are `_HostToDevice` and
// `_DeviceToHost` nodes placed on the GPU (kernels/array/device_copy_ops.cc); a value moving
// from one GPU to another goes through the host. A value has one copy per destination memory,
// shared by all the consumers reading it there. Control edges need no copy.
//
// Feeds and fetches need none: a feed usually replaces a host-memory Placeholder, and the
// executor copies a feed that replaces a GPU output to that GPU (by OutputMemory) and fetched
// values that a GPU computed back to the host.
#ifndef TENSORD_RUNTIME_EXEC_COPY_INSERTION_H_
#define TENSORD_RUNTIME_EXEC_COPY_INSERTION_H_

#include <string>

#include "protos/tensorflow/graph.pb.h"

namespace tensord {

inline constexpr char kHostToDeviceOp[] = "_HostToDevice";
inline constexpr char kDeviceToHostOp[] = "_DeviceToHost";

// Rewrites `graph` and the function bodies flattened onto its control-flow nodes, whose nodes
// carry full device names; returns the number of copy nodes inserted.
int InsertCopies(::tensorflow::GraphDef* graph);

// Where output `output` of `producer` (its device a full name) lives: "" for host memory, else
// its GPU's device name.
std::string OutputMemory(const ::tensorflow::NodeDef& producer, int output);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_COPY_INSERTION_H_
