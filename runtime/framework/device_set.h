// DeviceSet: the devices of a process, built once at startup and borrowed by every session.
//
// The server and the benchmark make one from their thread flags and pass it to every model
// load; tensorctl and tests use ProcessDefault(). Every model version's session then runs on
// the same CPU pools: loading more models or versions adds no threads. It holds the CPU device
// and every GPU the CUDA runtime finds (none in a build without CUDA or where there is no GPU
// or driver; gpus_unavailable() says why).
//
// Thread safety: immutable after construction; the devices are thread-safe. Must outlive every
// session made with it.
#ifndef TENSORD_RUNTIME_FRAMEWORK_DEVICE_SET_H_
#define TENSORD_RUNTIME_FRAMEWORK_DEVICE_SET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "runtime/framework/device.h"
#include "runtime/framework/gpu_device.h"

namespace tensord {

struct DeviceSetOptions {
  // The CPU device's pools (see CpuDevice::Options for the defaults of 0).
  int intra_op_threads = 0;
  int inter_op_threads = 0;
  // The GPUs' memory cap. Every GPU the CUDA runtime finds joins the set.
  GpuDeviceOptions gpu;
};

class DeviceSet {
 public:
  explicit DeviceSet(const DeviceSetOptions& options);
  ~DeviceSet();
  DeviceSet(const DeviceSet&) = delete;
  DeviceSet& operator=(const DeviceSet&) = delete;

  // The set a session uses when its options name none: made on first use with the default
  // options, and never destroyed (sessions may outlive static destructors' order).
  static DeviceSet& ProcessDefault();
  // `devices` when given, else ProcessDefault(): what options that may name no set use.
  static DeviceSet& OrProcessDefault(DeviceSet* devices);

  CpuDevice* cpu() const { return cpu_.get(); }
  const std::vector<GpuDevice*>& gpus() const { return gpus_; }
  // Why gpus() is empty, in one line; empty when it is not.
  const std::string& gpus_unavailable() const { return gpus_unavailable_; }
  // Every device, the CPU first, then the GPUs in CUDA's order.
  const std::vector<Device*>& devices() const { return devices_; }
  // The device named `name` ("/device:CPU:0"), or null.
  Device* Find(absl::string_view name) const;

 private:
  std::unique_ptr<CpuDevice> cpu_;
  std::vector<std::unique_ptr<GpuDevice>> owned_gpus_;
  std::vector<GpuDevice*> gpus_;
  std::string gpus_unavailable_;
  std::vector<Device*> devices_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_DEVICE_SET_H_
