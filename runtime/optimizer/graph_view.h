// GraphView: what the load-time graph passes need to look at and rewrite a flat GraphDef —
// nodes by name, the consumers of each node, and the constant value behind an input (a Const
// node or an entry of the serving optimizer's ConstantTable).
//
// Passes collect their rewrites while the view is valid and apply them at the end
// (ReplaceNode, AddConstant, RemoveNodes); the view must not be used after RemoveNodes.
// Not thread-safe; used once per model load.
#ifndef TENSORD_RUNTIME_OPTIMIZER_GRAPH_VIEW_H_
#define TENSORD_RUNTIME_OPTIMIZER_GRAPH_VIEW_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/exec/session.h"
#include "runtime/framework/tensor.h"

namespace tensord {

// The graph and what the passes must respect. `keep` names nodes whose outputs a signature
// fetches or feeds: they must stay as they are.
struct GraphPassContext {
  ::tensorflow::GraphDef* graph = nullptr;
  ConstantTable* constants = nullptr;  // may be null: then only Const nodes are constants
  std::set<std::string> keep;
};

class GraphView {
 public:
  explicit GraphView(const GraphPassContext& context);

  ::tensorflow::NodeDef* Find(const std::string& name) const;

  // The only node reading `node` when exactly one node does, through one data input of
  // output 0 and with no control edges; otherwise null. Kept nodes have no sole consumer.
  ::tensorflow::NodeDef* SoleConsumer(const std::string& node) const;

  // True when nothing reads outputs of `node` other than output 0 (control edges included).
  bool OnlyOutputZeroRead(const std::string& node) const;

  // The value of input reference `ref` when it is constant.
  std::optional<Tensor> ConstantValue(const std::string& ref) const;

  // Adds a constant node named `name` (on `device`) holding `value`.
  void AddConstant(const std::string& name, const Tensor& value, const std::string& device);

  // Drops the named nodes from the graph (their consumers must be gone or rewired).
  void RemoveNodes(const std::set<std::string>& names);

 private:
  const GraphPassContext& context_;
  absl::flat_hash_map<std::string, int> by_name_;
  // For each node: the (consumer node, input position) pairs reading any of its outputs, and
  // whether a control edge or a non-zero output is read.
  struct Uses {
    std::vector<std::pair<int, int>> data;
    bool other = false;
  };
  absl::flat_hash_map<std::string, Uses> uses_;
};

// True when the node's T attr is float and its data_format, where it has one, is NHWC: the
// nodes the convolution passes rewrite.
bool IsFloatNhwcOp(const ::tensorflow::NodeDef& node);

// The attr's string value, or `fallback` when the node does not have it.
std::string StringAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                       const std::string& fallback);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_GRAPH_VIEW_H_
