#include "runtime/framework/kernel_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensord {

std::string KernelDef::DebugString() const {
  std::vector<std::string> parts = {op_, DeviceTypeName(device_)};
  for (const auto& [attr, dtype] : type_constraints_) {
    parts.push_back(absl::StrCat(attr, "=", DataTypeString(dtype)));
  }
  return absl::StrJoin(parts, " ");
}

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry();
  return *registry;
}

void KernelRegistry::Register(KernelDef def, KernelFactory factory) {
  std::deque<KernelRegistration>& same_op = by_op_[def.op()];
  same_op.push_back({std::move(def), std::move(factory)});
}

absl::StatusOr<const KernelRegistration*> KernelRegistry::Find(
    const ::tensorflow::NodeDef& node, DeviceType device) const {
  auto same_op = by_op_.find(node.op());
  if (same_op == by_op_.end()) {
    return absl::UnimplementedError(
        absl::StrCat("Op type not supported: '", node.op(), "' (node '", node.name(), "')"));
  }
  for (const auto& reg : same_op->second) {
    if (reg.def.device() != device) continue;
    bool match = true;
    for (const auto& [attr, dtype] : reg.def.type_constraints()) {
      auto it = node.attr().find(attr);
      if (it == node.attr().end() || it->second.type() != dtype) {
        match = false;
        break;
      }
    }
    if (match) return &reg;
  }
  std::vector<std::string> types;
  for (const auto& [name, value] : node.attr()) {
    if (value.value_case() == ::tensorflow::AttrValue::kType) {
      types.push_back(absl::StrCat(name, "=", DataTypeString(value.type())));
    }
  }
  std::sort(types.begin(), types.end());
  return absl::UnimplementedError(absl::StrCat(
      "No ", DeviceTypeName(device), " kernel for op '", node.op(), "' with ",
      types.empty() ? "these attrs" : absl::StrJoin(types, ", "), " (node '", node.name(), "')"));
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(
    const ::tensorflow::NodeDef& node, DeviceType device,
    const FunctionLibrary* functions) const {
  auto reg = Find(node, device);
  if (!reg.ok()) return reg.status();
  OpKernelConstruction construction(node, device, functions);
  std::unique_ptr<OpKernel> kernel = (*reg)->factory(&construction);
  if (!construction.status().ok()) return construction.status();
  return kernel;
}

bool KernelRegistry::HasOp(const std::string& op) const { return by_op_.count(op) > 0; }

std::vector<std::string> KernelRegistry::List() const {
  std::vector<std::string> out;
  for (const auto& [op, registrations] : by_op_) {
    for (const auto& reg : registrations) out.push_back(reg.def.DebugString());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tensord
