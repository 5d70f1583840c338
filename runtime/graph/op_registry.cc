#include "runtime/graph/op_registry.h"

#include "absl/strings/str_cat.h"
#include "runtime/graph/builtin_op_defs.h"

namespace tensord {

using ::tensorflow::NodeDef;
using ::tensorflow::OpDef;

OpRegistry::OpRegistry(const ::tensorflow::OpList& ops,
                       const ::tensorflow::FunctionDefLibrary& library) {
  for (const OpDef& op : ops.op()) ops_[op.name()] = op;
  for (const auto& fn : library.function()) {
    functions_[fn.signature().name()] = fn;
    ops_[fn.signature().name()] = fn.signature();
  }
}

const OpDef* OpRegistry::Find(const std::string& op) const {
  auto it = ops_.find(op);
  return it == ops_.end() ? FindBuiltinOpDef(op) : &it->second;
}

const ::tensorflow::FunctionDef* OpRegistry::FindFunction(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second;
}

void OpRegistry::AddDefaultAttrs(NodeDef* node) const {
  const OpDef* def = Find(node->op());
  if (def == nullptr) return;
  auto* attrs = node->mutable_attr();
  for (const auto& attr : def->attr()) {
    if (attr.has_default_value() && attrs->find(attr.name()) == attrs->end()) {
      (*attrs)[attr.name()] = attr.default_value();
    }
  }
}

namespace {

// Number of tensors an arg stands for on this node: its number_attr, the length of its
// type_list_attr, or 1.
absl::StatusOr<int> ArgSize(const NodeDef& node, const OpDef::ArgDef& arg) {
  if (!arg.number_attr().empty()) {
    auto it = node.attr().find(arg.number_attr());
    if (it == node.attr().end()) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                     ") lacks attr '", arg.number_attr(), "'"));
    }
    return static_cast<int>(it->second.i());
  }
  if (!arg.type_list_attr().empty()) {
    auto it = node.attr().find(arg.type_list_attr());
    if (it == node.attr().end()) {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' (", node.op(),
                                                     ") lacks attr '", arg.type_list_attr(), "'"));
    }
    return it->second.list().type_size();
  }
  return 1;
}

}  // namespace

absl::StatusOr<int> OpRegistry::OutputIndex(const NodeDef& node, const std::string& arg,
                                            int index) const {
  const OpDef* def = Find(node.op());
  if (def == nullptr) {
    return absl::NotFoundError(absl::StrCat("no OpDef for op '", node.op(), "' of node '",
                                            node.name(), "' in the model's op list"));
  }
  int start = 0;
  for (const auto& out : def->output_arg()) {
    auto size = ArgSize(node, out);
    if (!size.ok()) return size.status();
    if (out.name() == arg) {
      if (index < 0 || index >= *size) {
        return absl::InvalidArgumentError(absl::StrCat("output ", arg, ":", index, " of node '",
                                                       node.name(), "' is out of range"));
      }
      return start + index;
    }
    start += *size;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("op '", node.op(), "' of node '", node.name(), "' has no output '", arg, "'"));
}

absl::StatusOr<int> OpRegistry::NumOutputs(const NodeDef& node) const {
  const OpDef* def = Find(node.op());
  if (def == nullptr) {
    return absl::NotFoundError(absl::StrCat("no OpDef for op '", node.op(), "'"));
  }
  int total = 0;
  for (const auto& out : def->output_arg()) {
    auto size = ArgSize(node, out);
    if (!size.ok()) return size.status();
    total += *size;
  }
  return total;
}

}  // namespace tensord
