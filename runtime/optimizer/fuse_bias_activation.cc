#include "runtime/optimizer/fuse_bias_activation.h"

#include <map>
#include <set>
#include <string>

#include "runtime/graph/tensor_name.h"

namespace tensord {
namespace {

using ::tensorflow::NodeDef;

bool IsFusableActivation(const NodeDef& node) {
  static const auto* const kOps =
      new std::set<std::string>{"Relu", "Relu6", "Elu", "LeakyRelu"};
  return kOps->count(node.op()) > 0 && IsFloatNhwcOp(node) && node.input_size() >= 1;
}

void AddControlInputs(const NodeDef& from, NodeDef* to) {
  for (const std::string& in : from.input()) {
    if (ParseTensorRef(in).is_control()) to->add_input(in);
  }
}

}  // namespace

absl::StatusOr<int> FuseBiasActivation(const GraphPassContext& context) {
  GraphView view(context);
  std::set<std::string> removed;
  int fused = 0;
  for (int n = 0; n < context.graph->node_size(); ++n) {
    NodeDef* conv = context.graph->mutable_node(n);
    static const auto* const kFused = new std::map<std::string, std::string>{
        {"Conv2D", "_FusedConv2D"},
        {"DepthwiseConv2dNative", "_FusedDepthwiseConv2dNative"},
        {"MatMul", "_FusedMatMul"}};
    auto fused_op = kFused->find(conv->op());
    if (fused_op == kFused->end() || !IsFloatNhwcOp(*conv) || conv->input_size() < 2) {
      continue;
    }
    NodeDef* bias_add = view.SoleConsumer(conv->name());
    if (bias_add == nullptr || bias_add->op() != "BiasAdd" || !IsFloatNhwcOp(*bias_add) ||
        bias_add->input_size() < 2 || ParseTensorRef(bias_add->input(0)).node != conv->name()) {
      continue;
    }
    // A residual add: bias_add + another tensor (ResNet's shortcut), computed by oneDNN as a
    // sum into the output. Not when the add was already taken by the other operand's chain.
    NodeDef* add = view.SoleConsumer(bias_add->name());
    std::string residual;
    if (add != nullptr && (add->op() == "Add" || add->op() == "AddV2") && IsFloatNhwcOp(*add) &&
        !removed.count(add->name()) && add->input_size() >= 2) {
      const bool first = ParseTensorRef(add->input(0)).node == bias_add->name();
      const std::string& other = add->input(first ? 1 : 0);
      if (!ParseTensorRef(other).is_control() && ParseTensorRef(other).node != bias_add->name()) {
        residual = other;
      }
    }
    if (residual.empty()) add = nullptr;
    NodeDef* activation = view.SoleConsumer((add != nullptr ? add : bias_add)->name());
    if (activation != nullptr && (!IsFusableActivation(*activation) ||
                                  removed.count(activation->name()))) {
      activation = nullptr;
    }
    NodeDef* last = activation != nullptr ? activation : add != nullptr ? add : bias_add;

    NodeDef node;
    node.set_name(last->name());
    node.set_op(fused_op->second);
    node.set_device(conv->device());
    node.add_input(conv->input(0));
    node.add_input(conv->input(1));
    node.add_input(bias_add->input(1));
    if (add != nullptr) node.add_input(residual);
    AddControlInputs(*conv, &node);
    AddControlInputs(*bias_add, &node);
    if (add != nullptr) AddControlInputs(*add, &node);
    if (activation != nullptr) AddControlInputs(*activation, &node);
    *node.mutable_attr() = conv->attr();
    auto& attrs = *node.mutable_attr();
    attrs["num_args"].set_i(add != nullptr ? 2 : 1);
    attrs["epsilon"].set_f(0.0f);
    auto* ops = attrs["fused_ops"].mutable_list();
    ops->add_s("BiasAdd");
    if (add != nullptr) ops->add_s("Add");
    if (activation != nullptr) {
      ops->add_s(activation->op());
      auto alpha = activation->attr().find("alpha");
      if (alpha != activation->attr().end()) attrs["leakyrelu_alpha"].set_f(alpha->second.f());
    }
    for (NodeDef* replaced : {conv, bias_add, add, activation}) {
      if (replaced != nullptr && replaced != last) removed.insert(replaced->name());
    }
    *last = std::move(node);
    ++fused;
  }
  view.RemoveNodes(removed);
  return fused;
}

}  // namespace tensord
