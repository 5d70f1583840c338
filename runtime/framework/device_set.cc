#include "runtime/framework/device_set.h"

namespace tensord {

DeviceSet::DeviceSet(const DeviceSetOptions& options)
    : cpu_(std::make_unique<CpuDevice>(
          CpuDevice::Options{options.intra_op_threads, options.inter_op_threads})) {
  devices_.push_back(cpu_.get());
  GpuDiscovery discovery = DiscoverGpuDevices(options.gpu);
  owned_gpus_ = std::move(discovery.devices);
  gpus_unavailable_ = std::move(discovery.none_reason);
  for (const auto& gpu : owned_gpus_) {
    gpus_.push_back(gpu.get());
    devices_.push_back(gpu.get());
  }
}

DeviceSet::~DeviceSet() = default;

DeviceSet& DeviceSet::ProcessDefault() {
  static DeviceSet* const devices = new DeviceSet(DeviceSetOptions());
  return *devices;
}

DeviceSet& DeviceSet::OrProcessDefault(DeviceSet* devices) {
  return devices != nullptr ? *devices : ProcessDefault();
}

Device* DeviceSet::Find(absl::string_view name) const {
  for (Device* device : devices_) {
    if (device->name() == name) return device;
  }
  return nullptr;
}

}  // namespace tensord
