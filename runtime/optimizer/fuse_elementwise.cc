#include "runtime/optimizer/fuse_elementwise.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/graph/tensor_name.h"

namespace tensord {
namespace {

using ::tensorflow::NodeDef;

// A group takes at most this many ops: the kernel keeps a block of results per op in cache.
constexpr int kMaxOps = 16;

int Arity(const NodeDef& node) {
  static const auto* const kArity = new std::map<std::string, int>{
      {"Neg", 1},     {"Abs", 1},  {"Square", 1},  {"Exp", 1},     {"Log", 1},     {"Sqrt", 1},
      {"Sigmoid", 1}, {"Tanh", 1}, {"Erf", 1},     {"Erfc", 1},    {"Relu", 1},    {"Add", 2},
      {"AddV2", 2},   {"Sub", 2},  {"Mul", 2},     {"RealDiv", 2}, {"Maximum", 2}, {"Minimum", 2}};
  auto it = kArity->find(node.op());
  if (it == kArity->end() || node.input_size() < it->second) return 0;
  auto t = node.attr().find("T");
  if (t == node.attr().end() || t->second.type() != DT_FLOAT) return 0;
  for (int i = 0; i < it->second; ++i) {
    if (ParseTensorRef(node.input(i)).is_control()) return 0;
  }
  return it->second;
}

class GroupBuilder {
 public:
  GroupBuilder(const GraphView& view, const NodeDef& last) : view_(view), last_(last) {}

  // Collects the group ending at `last_`; false when it has a single op.
  bool Build() {
    Visit(last_);
    return members_.size() > 1;
  }

  // The fused node replacing the group, named as its last op.
  NodeDef Fused() const {
    NodeDef fused;
    fused.set_name(last_.name());
    fused.set_op("_FusedElementwise");
    fused.set_device(last_.device());
    for (const std::string& in : inputs_) fused.add_input(in);
    std::set<std::string> controls;
    for (const NodeDef* node : members_) {
      for (const std::string& in : node->input()) {
        if (ParseTensorRef(in).is_control() && controls.insert(in).second) fused.add_input(in);
      }
    }
    auto& attr = *fused.mutable_attr();
    attr["T"].set_type(DT_FLOAT);
    for (const NodeDef* node : members_) {
      attr["ops"].mutable_list()->add_s(node->op());
      const int arity = Arity(*node);
      for (int i = 0; i < 2; ++i) {
        attr["operands"].mutable_list()->add_i(i < arity ? OperandOf(node->input(i)) : -1);
      }
    }
    return fused;
  }

  const std::vector<const NodeDef*>& members() const { return members_; }

 private:
  // Post-order: a member's operands are decided (as inputs or earlier members) before it.
  void Visit(const NodeDef& node) {
    ++claimed_;
    for (int i = 0; i < Arity(node); ++i) {
      const TensorRef ref = ParseTensorRef(node.input(i));
      const NodeDef* producer = view_.Find(ref.node);
      if (ref.index == 0 && producer != nullptr && Absorbable(*producer, node)) {
        Visit(*producer);
      } else if (!index_.count(node.input(i))) {
        index_[node.input(i)] = static_cast<int>(inputs_.size());
        inputs_.push_back(node.input(i));
      }
    }
    index_[node.name()] = -1 - static_cast<int>(members_.size());  // decoded in OperandOf
    members_.push_back(&node);
  }

  bool Absorbable(const NodeDef& producer, const NodeDef& consumer) const {
    if (Arity(producer) == 0 || producer.device() != consumer.device()) return false;
    return view_.SoleConsumer(producer.name()) == &consumer && claimed_ < kMaxOps;
  }

  // The kernel's operand numbering: inputs first, then member results.
  int OperandOf(const std::string& ref) const {
    auto it = index_.find(ref);
    if (it == index_.end()) it = index_.find(ParseTensorRef(ref).node);  // "name:0" or "name"
    const int value = it->second;
    return value >= 0 ? value : static_cast<int>(inputs_.size()) + (-1 - value);
  }

  const GraphView& view_;
  const NodeDef& last_;
  int claimed_ = 0;  // members, including those whose operands are still being visited
  std::vector<const NodeDef*> members_;
  std::vector<std::string> inputs_;
  std::map<std::string, int> index_;  // input ref -> input index; member name -> -1 - position
};

}  // namespace

int FuseElementwise(const GraphPassContext& context) {
  GraphView view(context);
  std::vector<std::pair<int, NodeDef>> replacements;  // node index, fused node
  std::set<std::string> removed;
  int fused = 0;
  for (int n = 0; n < context.graph->node_size(); ++n) {
    const NodeDef& node = context.graph->node(n);
    if (Arity(node) == 0) continue;
    // Only the last op of a group starts one: a node its sole consumer would absorb does not.
    const NodeDef* consumer = view.SoleConsumer(node.name());
    if (consumer != nullptr && Arity(*consumer) > 0 && consumer->device() == node.device()) {
      continue;
    }
    GroupBuilder group(view, node);
    if (!group.Build()) continue;
    replacements.emplace_back(n, group.Fused());
    for (const NodeDef* member : group.members()) {
      if (member != &node) removed.insert(member->name());
    }
    fused += static_cast<int>(group.members().size()) - 1;
  }
  for (auto& [index, node] : replacements) {
    *context.graph->mutable_node(index) = std::move(node);
  }
  view.RemoveNodes(removed);
  return fused;
}

}  // namespace tensord
