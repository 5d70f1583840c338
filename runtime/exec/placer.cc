#include "runtime/exec/placer.h"

#include "absl/strings/ascii.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {

std::optional<DeviceType> RequestedDeviceType(const std::string& device) {
  const std::string lower = absl::AsciiStrToLower(device);
  // The device part is the last path component: ".../device:GPU:0" or legacy "/gpu:0".
  const size_t slash = lower.rfind('/');
  const std::string last = slash == std::string::npos ? lower : lower.substr(slash + 1);
  const std::string kind = last.rfind("device:", 0) == 0 ? last.substr(7) : last;
  if (kind.rfind("gpu", 0) == 0) return DeviceType::kGpu;
  if (kind.rfind("cpu", 0) == 0) return DeviceType::kCpu;
  return std::nullopt;
}

absl::StatusOr<DeviceType> PlaceNode(const ::tensorflow::NodeDef& node,
                                     const std::vector<DeviceType>& available) {
  const KernelRegistry& registry = KernelRegistry::Global();
  const std::optional<DeviceType> requested = RequestedDeviceType(node.device());
  if (requested.has_value()) {
    for (DeviceType d : available) {
      if (d == *requested && registry.Find(node, d).ok()) return d;
    }
  }
  absl::Status first_error;
  for (DeviceType d : available) {
    auto reg = registry.Find(node, d);
    if (reg.ok()) return d;
    if (first_error.ok()) first_error = reg.status();
  }
  return first_error;
}

}  // namespace tensord
