#include "runtime/graph/identity_elimination.h"

#include <functional>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "runtime/graph/tensor_name.h"

namespace tensord {
namespace {

using ::tensorflow::NodeDef;

bool IsForwardingOp(const std::string& op) {
  return op == "Identity" || op == "IdentityN" || op == "Snapshot" || op == "StopGradient" ||
         op == "PreventGradient";
}

// Ops whose outputs are reference edges (TF1 variables and the ops updating them in place).
bool OutputsRefs(const std::string& op) {
  return op == "VariableV2" || op == "Variable" || op == "TemporaryVariable" ||
         absl::StartsWith(op, "Assign") || absl::StartsWith(op, "Scatter") ||
         op == "CountUpTo";
}

}  // namespace

int EliminateIdentities(::tensorflow::GraphDef* graph, const std::set<std::string>& keep) {
  absl::flat_hash_map<absl::string_view, const NodeDef*> by_name;  // views of node names
  for (const NodeDef& node : graph->node()) by_name[node.name()] = &node;

  // For each removable node: the references its outputs forward (output i = data input i)
  // and the nodes it had to wait for (control inputs), which its consumers inherit.
  struct Forward {
    std::vector<TensorRef> data;
    std::vector<std::string> after;
  };
  absl::flat_hash_map<std::string, Forward> forwards;
  for (const NodeDef& node : graph->node()) {
    if (!IsForwardingOp(node.op()) || keep.count(node.name())) continue;
    Forward f;
    bool removable = true;
    for (const std::string& in : node.input()) {
      TensorRef ref = ParseTensorRef(in);
      auto producer = by_name.find(ref.node);
      if (producer == by_name.end()) {
        removable = false;
        break;
      }
      if (ref.is_control()) {
        f.after.push_back(ref.node);
        continue;
      }
      if (OutputsRefs(producer->second->op()) ||
          (!node.device().empty() && !producer->second->device().empty() &&
           node.device() != producer->second->device())) {
        removable = false;
        break;
      }
      f.data.push_back(std::move(ref));
    }
    if (removable && !f.data.empty()) forwards[node.name()] = std::move(f);
  }
  if (forwards.empty()) return 0;

  // The nodes a consumer must run after in place of removed node `name`: the producers of what
  // it forwarded and what it waited for, through other removed nodes.
  std::function<void(const std::string&, std::set<std::string>*, int)> after_removed =
      [&](const std::string& name, std::set<std::string>* out, int depth) {
        auto it = forwards.find(name);
        if (it == forwards.end() || depth > static_cast<int>(forwards.size())) {
          // Nothing happens when a placeholder "runs": no need to wait for it (and a fed one
          // must not be scheduled).
          auto node = by_name.find(name);
          if (node == by_name.end() || node->second->op() != "Placeholder") out->insert(name);
          return;
        }
        for (const TensorRef& ref : it->second.data) after_removed(ref.node, out, depth + 1);
        for (const std::string& dep : it->second.after) after_removed(dep, out, depth + 1);
      };

  // Follows chains of removed nodes to the tensor that is really read, collecting what the
  // removed nodes on the way waited for.
  auto resolve = [&](TensorRef ref, std::set<std::string>* after) {
    for (size_t hops = 0; hops <= forwards.size(); ++hops) {
      auto it = forwards.find(ref.node);
      if (it == forwards.end() || ref.index >= static_cast<int>(it->second.data.size())) break;
      for (const std::string& dep : it->second.after) after_removed(dep, after, 0);
      ref = it->second.data[ref.index];
    }
    return ref;
  };

  int kept = 0;
  for (int i = 0; i < graph->node_size(); ++i) {
    NodeDef* node = graph->mutable_node(i);
    if (forwards.count(node->name())) continue;
    std::vector<std::string> data;
    std::set<std::string> after;  // control inputs, by node name
    for (const std::string& in : node->input()) {
      const TensorRef ref = ParseTensorRef(in);
      if (!ref.is_control()) {
        data.push_back(forwards.count(ref.node) ? resolve(ref, &after).ToString() : in);
      } else if (forwards.count(ref.node)) {
        // After a removed node ran means after everything it depended on ran.
        after_removed(ref.node, &after, 0);
      } else {
        after.insert(ref.node);
      }
    }
    node->clear_input();
    for (std::string& in : data) node->add_input(std::move(in));
    for (const std::string& dep : after) node->add_input("^" + dep);
    if (kept != i) graph->mutable_node()->SwapElements(kept, i);
    ++kept;
  }
  const int removed = graph->node_size() - kept;
  graph->mutable_node()->DeleteSubrange(kept, removed);
  return removed;
}

}  // namespace tensord
