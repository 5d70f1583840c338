#include "runtime/exec/placement.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/exec/placer.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/graph/function_inliner.h"

namespace tensord {
namespace {

const Device* Choose(const ::tensorflow::NodeDef& node, std::optional<DeviceType> wanted,
                     const DeviceSet& devices) {
  const KernelRegistry& registry = KernelRegistry::Global();
  if (wanted.has_value()) {
    for (const Device* device : devices.devices()) {
      if (device->type() == *wanted && registry.Find(node, device->type()).ok()) return device;
    }
  }
  for (const Device* device : devices.devices()) {
    if (registry.Find(node, device->type()).ok()) return device;
  }
  return devices.devices().front();
}

void PlaceNodes(::tensorflow::GraphDef* graph, bool in_function, const DeviceSet& devices,
                const PlacementOptions& options, PlacementRecord* record) {
  for (::tensorflow::NodeDef& node : *graph->mutable_node()) {
    NodePlacement placed;
    placed.node = node.name();
    placed.op = node.op();
    placed.in_function = in_function;
    std::optional<DeviceType> wanted = RequestedDeviceType(node.device());
    placed.requested = node.device();
    if (!wanted.has_value() && options.default_device.has_value()) {
      wanted = options.default_device;
      placed.requested = absl::StrCat("/device:", DeviceTypeName(*wanted), ":0");
    }
    const Device* device = Choose(node, wanted, devices);
    placed.assigned = device->name();
    placed.soft_placed = wanted.has_value() && *wanted != device->type();
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

}  // namespace tensord
