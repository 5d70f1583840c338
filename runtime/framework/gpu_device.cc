#include "runtime/framework/gpu_device.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tensord {

GpuDevice::GpuDevice(GpuDeviceInfo info, std::unique_ptr<CachingAllocator> allocator)
    : Device(DeviceType::kGpu, info.ordinal), info_(std::move(info)),
      allocator_(std::move(allocator)) {}

std::string GpuDevice::Describe() const {
  return absl::StrFormat("%s, %.0f GiB, compute capability %d.%d", info_.model,
                         static_cast<double>(info_.total_memory_bytes) / (1 << 30),
                         info_.compute_capability / 10, info_.compute_capability % 10);
}

}  // namespace tensord
