#include "runtime/exec/device_constants.h"

#include <utility>

namespace tensord {

absl::StatusOr<Tensor> DeviceConstants::GetOrMake(
    const std::string& node, const std::function<absl::StatusOr<Tensor>()>& make) {
  absl::MutexLock lock(&mu_);
  auto it = values_.find(node);
  if (it != values_.end()) return it->second;
  absl::StatusOr<Tensor> made = make();
  if (!made.ok()) return made.status();
  bytes_ += made->TotalBytes();
  values_.emplace(node, *made);
  return made;
}

size_t DeviceConstants::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

}  // namespace tensord
