// Placement at load: every node's device decided once, written into the graph, and recorded.
//
// A load-time pass over the serving graph and the function bodies flattened onto its
// control-flow nodes. Each node goes to the device it requests (the one its graph names, or
// what the device policy asks for) if that device is in the set and has a kernel for the
// node; otherwise to the first device of the set that has one (soft placement, as TF Serving
// runs graphs: a graph exported with "/device:GPU:0" loads on a CPU-only host). The assigned
// device's full name replaces the node's device string, so the executor runs the node there. A
// node no device has a kernel for (a function's argument of a type only ever fed, or an op the
// loader then reports as missing) goes to the set's first device.
#ifndef TENSORD_RUNTIME_EXEC_PLACEMENT_H_
#define TENSORD_RUNTIME_EXEC_PLACEMENT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protos/tensorflow/graph.pb.h"
#include "runtime/exec/device_policy.h"
#include "runtime/framework/device_set.h"

namespace tensord {

struct PlacementOptions {
  DevicePolicy policy;  // default: auto
};

struct NodePlacement {
  std::string node;
  std::string op;
  bool in_function = false;  // a node of a loop or branch body
  std::string requested;     // the graph's device string, or what the policy asked for; may be ""
  std::string assigned;      // a device name ("/device:CPU:0")
  // A device type was requested and the node runs on another one.
  bool soft_placed = false;
};

struct PlacementRecord {
  std::vector<NodePlacement> nodes;  // function bodies' nodes first, then the graph's
  // Copy nodes inserted on edges between memories (runtime/exec/copy_insertion.h).
  int copies = 0;

  // Nodes per assigned device name.
  std::map<std::string, int> NodesPerDevice() const;
  int SoftPlaced() const;
  // "/device:CPU:0=412" (devices joined by ","), for a log field.
  std::string DeviceSummary() const;
  // The device whose work paces a run: the GPU most nodes are assigned to, or the CPU's name
  // when no node runs on a GPU. Batching gives each such device its own batch threads.
  std::string PrimaryDevice() const;
};

PlacementRecord PlaceGraph(::tensorflow::GraphDef* graph, const DeviceSet& devices,
                           const PlacementOptions& options);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_PLACEMENT_H_
