// DiscoverGpuDevices of a build without CUDA (--config=nocuda, or no toolkit where it was built).
#include "runtime/framework/gpu_device.h"

namespace tensord {

GpuDiscovery DiscoverGpuDevices(const GpuDeviceOptions&) {
  GpuDiscovery discovery;
  discovery.none_reason = "this build has no CUDA support";
  return discovery;
}

}  // namespace tensord
