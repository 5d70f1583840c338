// GpuDevice: one CUDA GPU as the runtime sees it, and the discovery that finds them.
//
// A GPU device has a compute stream that its kernels and copies are queued on in order, and a
// CachingAllocator for device memory. Work is asynchronous: a kernel or a copy to the device
// returns once queued; a copy to the host returns once done, having waited for the work queued
// before it and for no work queued after it (another run's), with the first error that work hit
// (the device stays usable after a failed request's error is returned).
//
// The binaries are the same with and without a GPU: DiscoverGpuDevices finds none on a machine
// without a GPU or driver, or in a build without CUDA (--config=nocuda), and says why in one
// line. This header needs no CUDA header; only the CUDA build's implementation includes one.
//
// Thread safety: Allocate/Deallocate and the stats are thread-safe; work on the compute
// stream is queued in call order, so one run at a time queues on it (the executor's job).
// Owned by the DeviceSet.
#ifndef TENSORD_RUNTIME_FRAMEWORK_GPU_DEVICE_H_
#define TENSORD_RUNTIME_FRAMEWORK_GPU_DEVICE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/framework/caching_allocator.h"
#include "runtime/framework/device.h"

// cudaStream_t is a CUstream_st*; declared here so that callers need no CUDA header.
struct CUstream_st;

namespace tensord {

struct GpuDeviceInfo {
  int ordinal = 0;              // CUDA's device number (after CUDA_VISIBLE_DEVICES)
  std::string model;            // "NVIDIA H200"
  size_t total_memory_bytes = 0;
  int compute_capability = 0;   // major * 10 + minor: 90 for Hopper
};

class GpuDevice : public Device {
 public:
  const GpuDeviceInfo& info() const { return info_; }
  CachingAllocator& allocator() { return *allocator_; }
  // "NVIDIA H200, 140 GiB, compute capability 9.0": for the startup log.
  std::string Describe() const;

  virtual CUstream_st* compute_stream() const = 0;
  // Queued on the compute stream after the work before it; `host` (pageable memory) is read
  // before this returns.
  virtual absl::Status CopyToDevice(const void* host, void* device, size_t bytes) = 0;
  // Queued like CopyToDevice; returns once `host` holds the bytes, or with the first error of
  // the work queued before the copy, naming the device.
  virtual absl::Status CopyToHost(const void* device, void* host, size_t bytes) = 0;
  // Sets `bytes` of device memory to zero, queued like a copy.
  virtual absl::Status Zero(void* device, size_t bytes) = 0;

 protected:
  GpuDevice(GpuDeviceInfo info, std::unique_ptr<CachingAllocator> allocator);

 private:
  GpuDeviceInfo info_;
  std::unique_ptr<CachingAllocator> allocator_;
};

struct GpuDeviceOptions {
  // Cap on each GPU's memory held by the process, as a fraction of its total (TF Serving's
  // --per_process_gpu_memory_fraction); 0 = no cap: memory grows on demand.
  double memory_fraction = 0.0;
};

struct GpuDiscovery {
  std::vector<std::unique_ptr<GpuDevice>> devices;
  // Why `devices` is empty ("this build has no CUDA support", the CUDA runtime's answer);
  // empty when there are GPUs.
  std::string none_reason;
};

GpuDiscovery DiscoverGpuDevices(const GpuDeviceOptions& options);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_GPU_DEVICE_H_
