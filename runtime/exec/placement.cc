#include "runtime/exec/placement.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/exec/placer.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/graph/function_inliner.h"

namespace tensord {
namespace {

// `wanted` when it has a kernel for the node, else the first device that has one, else the
// set's first device.
const Device* Choose(const ::tensorflow::NodeDef& node, const Device* wanted,
                     const DeviceSet& devices) {
  const KernelRegistry& registry = KernelRegistry::Global();
  if (wanted != nullptr && registry.Find(node, wanted->type()).ok()) return wanted;
  for (const Device* device : devices.devices()) {
    if (registry.Find(node, device->type()).ok()) return device;
  }
  return devices.devices().front();
}

// The first device of `type` in the set, or null.
const Device* FirstOfType(const DeviceSet& devices, DeviceType type) {
  for (const Device* device : devices.devices()) {
    if (device->type() == type) return device;
  }
  return nullptr;
}

std::string DeviceName(DeviceType type, int index) {
  return absl::StrCat("/device:", DeviceTypeName(type), ":", index);
}

// An op on int32 values (attr T): shape, size and index arithmetic, whose results feed
// host-memory inputs (shapes, axes, sizes). TensorFlow keeps int32 tensors in host memory on a
// GPU for the same reason: on the GPU each such value would cost a copy back and a wait.
bool IsIndexArithmetic(const ::tensorflow::NodeDef& node) {
  auto t = node.attr().find("T");
  return t != node.attr().end() && t->second.type() == DT_INT32;
}

void PlaceNodes(::tensorflow::GraphDef* graph, bool in_function, const DeviceSet& devices,
                const PlacementOptions& options, PlacementRecord* record) {
  const DevicePolicy& policy = options.policy;
  for (::tensorflow::NodeDef& node : *graph->mutable_node()) {
    NodePlacement placed;
    placed.node = node.name();
    placed.op = node.op();
    placed.in_function = in_function;
    placed.requested = node.device();
    // The device asked for, by name: it may be missing from the set.
    std::string wanted;
    const std::optional<DeviceType> pinned = RequestedDeviceType(node.device());
    if (policy.kind == DevicePolicy::Kind::kCpu) {
      wanted = DeviceName(DeviceType::kCpu, 0);
      placed.requested = wanted;
    } else if (pinned.has_value()) {
      const Device* first = FirstOfType(devices, *pinned);
      wanted = first != nullptr ? first->name() : DeviceName(*pinned, 0);
    } else if (IsIndexArithmetic(node) &&
               (policy.kind == DevicePolicy::Kind::kGpu || !devices.gpus().empty())) {
      wanted = DeviceName(DeviceType::kCpu, 0);
      placed.requested = wanted;
    } else if (policy.kind == DevicePolicy::Kind::kGpu) {
      wanted = DeviceName(DeviceType::kGpu, policy.gpu);
      placed.requested = wanted;
    } else if (!devices.gpus().empty()) {  // auto
      wanted = devices.gpus().front()->name();
      placed.requested = wanted;
    }
    const Device* device = Choose(node, devices.Find(wanted), devices);
    placed.assigned = device->name();
    placed.soft_placed = !wanted.empty() && wanted != device->name();
    node.set_device(device->name());
    record->nodes.push_back(std::move(placed));
  }
}

}  // namespace

PlacementRecord PlaceGraph(::tensorflow::GraphDef* graph, const DeviceSet& devices,
                           const PlacementOptions& options) {
  PlacementRecord record;
  RewriteFlatFunctions(graph, [&](::tensorflow::GraphDef* body) {
    PlaceNodes(body, /*in_function=*/true, devices, options, &record);
  });
  PlaceNodes(graph, /*in_function=*/false, devices, options, &record);
  return record;
}

std::map<std::string, int> PlacementRecord::NodesPerDevice() const {
  std::map<std::string, int> counts;
  for (const NodePlacement& node : nodes) ++counts[node.assigned];
  return counts;
}

int PlacementRecord::SoftPlaced() const {
  int count = 0;
  for (const NodePlacement& node : nodes) count += node.soft_placed ? 1 : 0;
  return count;
}

std::string PlacementRecord::DeviceSummary() const {
  return absl::StrJoin(NodesPerDevice(), ",", absl::PairFormatter("="));
}

std::string PlacementRecord::PrimaryDevice() const {
  std::string primary = kCpuDeviceName;
  int most = 0;
  for (const auto& [device, count] : NodesPerDevice()) {
    if (RequestedDeviceType(device) == DeviceType::kGpu && count > most) {
      primary = device;
      most = count;
    }
  }
  return primary;
}

}  // namespace tensord
