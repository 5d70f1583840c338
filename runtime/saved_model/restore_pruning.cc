#include "runtime/saved_model/restore_pruning.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/tensor_name.h"
#include "runtime/saved_model/serving_optimizer.h"

namespace tensord {

using ::tensorflow::NodeDef;

std::string VariableResource(const NodeDef& node) {
  if (node.op() != "VarHandleOp" && node.op() != "VariableV2") return "";
  auto attr = [&node](const char* name) -> std::string {
    auto it = node.attr().find(name);
    return it == node.attr().end() ? "" : it->second.s();
  };
  const std::string shared_name = attr("shared_name");
  return absl::StrCat(attr("container"), "/", shared_name.empty() ? node.name() : shared_name);
}

std::optional<absl::flat_hash_set<std::string>> ReachableVariables(
    const ::tensorflow::GraphDef& graph, const absl::flat_hash_set<std::string>& reachable) {
  absl::flat_hash_set<std::string> variables;
  for (const NodeDef& node : graph.node()) {
    if (!reachable.count(node.name())) continue;
    if (IsFunctionalControlFlow(node)) return std::nullopt;
    std::string resource = VariableResource(node);
    if (!resource.empty()) variables.insert(std::move(resource));
  }
  return variables;
}

int PruneRestore(::tensorflow::GraphDef* graph, const std::string& restore_op,
                 const absl::flat_hash_set<std::string>& reachable) {
  const std::optional<absl::flat_hash_set<std::string>> needed =
      ReachableVariables(*graph, reachable);
  if (!needed) return 0;
  absl::flat_hash_map<absl::string_view, const NodeDef*> by_name;
  for (const NodeDef& node : graph->node()) by_name[node.name()] = &node;
  // The variable an assignment writes: its first input, looking through Identity.
  auto target = [&by_name](const NodeDef& assign) -> const NodeDef* {
    const NodeDef* node = &assign;
    std::string input = assign.input_size() > 0 ? assign.input(0) : "";
    while (true) {
      auto it = by_name.find(ParseTensorRef(input).node);
      if (it == by_name.end()) return nullptr;
      node = it->second;
      if (node->op() != "Identity" || node->input_size() == 0) return node;
      input = node->input(0);
    }
  };
  absl::flat_hash_set<std::string> read;  // nodes whose outputs some node reads
  for (const NodeDef& node : graph->node()) {
    for (const std::string& in : node.input()) {
      const TensorRef ref = ParseTensorRef(in);
      if (!ref.is_control()) read.insert(ref.node);
    }
  }
  absl::flat_hash_set<std::string> removed;
  for (const std::string& name : SignatureClosure(*graph, {SignatureIo{{}, {restore_op}}})) {
    const NodeDef& node = *by_name.at(name);
    if ((node.op() != "AssignVariableOp" && node.op() != "Assign") || read.count(name) ||
        name == restore_op) {
      continue;
    }
    const NodeDef* variable = target(node);
    if (variable == nullptr) continue;
    const std::string resource = VariableResource(*variable);
    if (!resource.empty() && !needed->count(resource)) removed.insert(name);
  }
  if (removed.empty()) return 0;
  auto* nodes = graph->mutable_node();
  nodes->erase(
      std::remove_if(nodes->begin(), nodes->end(),
                     [&removed](const NodeDef& node) { return removed.count(node.name()) > 0; }),
      nodes->end());
  for (NodeDef& node : *nodes) {
    auto* inputs = node.mutable_input();
    inputs->erase(std::remove_if(inputs->begin(), inputs->end(),
                                 [&removed](const std::string& in) {
                                   const TensorRef ref = ParseTensorRef(in);
                                   return ref.is_control() && removed.count(ref.node) > 0;
                                 }),
                  inputs->end());
  }
  return static_cast<int>(removed.size());
}

}  // namespace tensord
