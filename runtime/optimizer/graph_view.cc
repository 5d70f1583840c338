#include "runtime/optimizer/graph_view.h"

#include <algorithm>

#include "runtime/framework/tensor_proto.h"
#include "runtime/graph/tensor_name.h"

namespace tensord {

GraphView::GraphView(const GraphPassContext& context) : context_(context) {
  const auto& graph = *context.graph;
  for (int i = 0; i < graph.node_size(); ++i) by_name_[graph.node(i).name()] = i;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    for (int j = 0; j < node.input_size(); ++j) {
      const TensorRef ref = ParseTensorRef(node.input(j));
      Uses& uses = uses_[ref.node];
      if (ref.index == 0) {
        uses.data.emplace_back(i, j);
      } else {
        uses.other = true;
      }
    }
  }
}

::tensorflow::NodeDef* GraphView::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : context_.graph->mutable_node(it->second);
}

::tensorflow::NodeDef* GraphView::SoleConsumer(const std::string& node) const {
  if (context_.keep.count(node)) return nullptr;
  auto it = uses_.find(node);
  if (it == uses_.end() || it->second.other || it->second.data.size() != 1) return nullptr;
  return context_.graph->mutable_node(it->second.data[0].first);
}

bool GraphView::OnlyOutputZeroRead(const std::string& node) const {
  auto it = uses_.find(node);
  return it == uses_.end() || !it->second.other;
}

std::optional<Tensor> GraphView::ConstantValue(const std::string& ref) const {
  const TensorRef parsed = ParseTensorRef(ref);
  if (parsed.is_control()) return std::nullopt;
  if (context_.constants != nullptr) {
    auto it = context_.constants->find(parsed.node);
    if (it != context_.constants->end()) {
      if (parsed.index < static_cast<int>(it->second.size())) return it->second[parsed.index];
      return std::nullopt;
    }
  }
  const ::tensorflow::NodeDef* node = Find(parsed.node);
  if (node == nullptr || node->op() != "Const" || parsed.index != 0) return std::nullopt;
  auto value = node->attr().find("value");
  if (value == node->attr().end()) return std::nullopt;
  absl::StatusOr<Tensor> tensor = TensorFromProto(value->second.tensor());
  if (!tensor.ok()) return std::nullopt;
  return *std::move(tensor);
}

void GraphView::AddConstant(const std::string& name, const Tensor& value,
                            const std::string& device) {
  ::tensorflow::NodeDef* node = context_.graph->add_node();
  node->set_name(name);
  node->set_op("Const");
  node->set_device(device);
  (*node->mutable_attr())["dtype"].set_type(value.dtype());
  if (context_.constants != nullptr) {
    // The executor takes the value from the table; no copy into the proto.
    (*context_.constants)[name] = {value};
  } else {
    TensorToProto(value, (*node->mutable_attr())["value"].mutable_tensor(),
                  /*use_tensor_content=*/true);
  }
}

void GraphView::RemoveNodes(const std::set<std::string>& names) {
  auto* nodes = context_.graph->mutable_node();
  nodes->erase(std::remove_if(nodes->begin(), nodes->end(),
                              [&](const ::tensorflow::NodeDef& n) { return names.count(n.name()); }),
               nodes->end());
}

bool IsFloatNhwcOp(const ::tensorflow::NodeDef& node) {
  auto t = node.attr().find("T");
  return t != node.attr().end() && t->second.type() == DT_FLOAT &&
         StringAttr(node, "data_format", "NHWC") == "NHWC";
}

std::string StringAttr(const ::tensorflow::NodeDef& node, const std::string& name,
                       const std::string& fallback) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? fallback : it->second.s();
}

}  // namespace tensord
