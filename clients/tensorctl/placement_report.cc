#include "clients/tensorctl/placement_report.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tensord {
namespace tensorctl {

std::string PlacementText(const PlacementRecord& record) {
  std::string text = absl::StrCat("placement: ", record.DeviceSummary(), "; ", record.copies,
                                  " copies; ", record.SoftPlaced(), " soft-placed\n");
  std::vector<std::vector<std::string>> rows = {{"NODE", "OP", "REQUESTED", "ASSIGNED"}};
  for (const NodePlacement& node : record.nodes) {
    rows.push_back({node.in_function ? node.node + " (in function)" : node.node, node.op,
                    node.requested.empty() ? "-" : node.requested,
                    node.assigned + (node.soft_placed ? " (soft)" : "")});
  }
  std::vector<size_t> widths(4, 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    text += line + "\n";
  }
  return text;
}

json::Value PlacementJson(const PlacementRecord& record) {
  json::Value devices = json::Value::Object();
  for (const auto& [device, count] : record.NodesPerDevice()) {
    devices.Set(device, json::Value::Int(count));
  }
  json::Value nodes = json::Value::Array();
  for (const NodePlacement& node : record.nodes) {
    json::Value entry = json::Value::Object();
    entry.Set("node", json::Value::String(node.node));
    entry.Set("op", json::Value::String(node.op));
    entry.Set("in_function", json::Value::Bool(node.in_function));
    entry.Set("requested", json::Value::String(node.requested));
    entry.Set("assigned", json::Value::String(node.assigned));
    entry.Set("soft_placed", json::Value::Bool(node.soft_placed));
    nodes.Append(std::move(entry));
  }
  json::Value out = json::Value::Object();
  out.Set("devices", std::move(devices));
  out.Set("copies", json::Value::Int(record.copies));
  out.Set("soft_placed", json::Value::Int(record.SoftPlaced()));
  out.Set("nodes", std::move(nodes));
  return out;
}

}  // namespace tensorctl
}  // namespace tensord
