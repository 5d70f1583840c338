// Placement: which device runs a node.
//
// A node's device string is a request, not an order (soft placement, as TF Serving runs
// graphs): it is honoured when that device type is available and has a kernel for the node;
// otherwise the node runs on the first available device type (in preference order) that has
// one. Graphs exported with "/device:GPU:0" therefore load on CPU-only hosts.
#ifndef TENSORD_RUNTIME_EXEC_PLACER_H_
#define TENSORD_RUNTIME_EXEC_PLACER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/tensorflow/node_def.pb.h"
#include "runtime/framework/device.h"

namespace tensord {

// The device type named by a TF device string ("/device:GPU:0", "/job:w/task:0/device:CPU:*",
// "/gpu:1"), or nullopt when it names none.
std::optional<DeviceType> RequestedDeviceType(const std::string& device);

// `available` lists device types in preference order and must not be empty. Fails with the
// kernel registry's error (naming op, dtypes and node) when no available device has a kernel.
absl::StatusOr<DeviceType> PlaceNode(const ::tensorflow::NodeDef& node,
                                     const std::vector<DeviceType>& available);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_PLACER_H_
