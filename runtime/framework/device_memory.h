// Tensors in a GPU's memory: their buffers, and copies between them and host tensors.
//
// A GPU kernel's outputs and temporaries are allocated here, from the device's CachingAllocator
// (OpKernelContext allocates through its device, so kernels call these only for scratch). A
// buffer returns its block to the allocator when the last tensor sharing it is gone; since every
// kernel and copy of a device is queued on its one compute stream, a block freed while queued
// work still reads it is only reused by work queued after that (caching_allocator.h).
//
// Only numeric dtypes live in device memory: strings, resources and variants stay on the host
// (their kernels run there, or take them as host-memory arguments).
//
// Thread-safe as the device is: allocations and copies may come from any run's thread.
#ifndef TENSORD_RUNTIME_FRAMEWORK_DEVICE_MEMORY_H_
#define TENSORD_RUNTIME_FRAMEWORK_DEVICE_MEMORY_H_

#include <new>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/framework/gpu_device.h"
#include "runtime/framework/gpu_stream.h"
#include "runtime/framework/tensor.h"

namespace tensord {

class OpKernelContext;

// Thrown by allocations inside a kernel (OpKernelContext::allocate_output on a GPU) that fail:
// the device has no memory left (RESOURCE_EXHAUSTED naming the device and the sizes) or the
// dtype cannot live there. The executor catches it where it catches std::bad_alloc and ends
// the request with `status`; the device stays usable.
class DeviceAllocationFailed : public std::bad_alloc {
 public:
  explicit DeviceAllocationFailed(absl::Status status) : status_(std::move(status)) {}
  const char* what() const noexcept override { return "device allocation failed"; }
  const absl::Status& status() const { return status_; }

 private:
  absl::Status status_;
};

// The buffer of a tensor in a GPU's memory.
class DeviceMemoryBuffer : public TensorBuffer {
 public:
  DeviceMemoryBuffer(GpuDevice* device, void* block, size_t size)
      : TensorBuffer(block, size), device_(device) {}
  ~DeviceMemoryBuffer() override { device_->allocator().Deallocate(data()); }
  MemorySpace memory_space() const override { return MemorySpace::kDevice; }
  GpuDevice* device() const { return device_; }

 private:
  GpuDevice* const device_;
};

// A tensor of `dtype` and `shape` in `device`'s memory, its contents unset. INVALID_ARGUMENT
// for a non-numeric dtype; the allocator's RESOURCE_EXHAUSTED when the memory is not there.
absl::StatusOr<Tensor> AllocateDeviceTensor(GpuDevice* device, DataType dtype,
                                            const TensorShape& shape);

// The GPU whose memory holds `tensor`, or null for a host tensor.
GpuDevice* DeviceOf(const Tensor& tensor);

// `host` copied into `device`'s memory. The copy is queued on the device's compute stream and
// the source is read before this returns (a staged copy), so the caller may drop `host` at once.
absl::StatusOr<Tensor> CopyTensorToDevice(const Tensor& host, GpuDevice* device);

// The launch target of a kernel running on `device` (a GPU).
GpuStream StreamOf(const GpuDevice& device);

// The GPU that a kernel registered for DeviceType::kGpu runs on: its context's device.
GpuDevice& GpuOf(const OpKernelContext* c);

// OK for a launcher's null; else INTERNAL "<node> on /device:GPU:N: <CUDA's error>". The
// request fails; the device stays usable.
absl::Status LaunchStatus(const std::string& node, const GpuDevice& device, const char* error);

// A host tensor with `tensor`'s values: `tensor` itself when it is already on the host; else a
// copy that waits for the work queued on the device before it (this is where a run waits for
// its GPU work), not for work other runs queued after it.
absl::StatusOr<Tensor> CopyTensorToHost(const Tensor& tensor);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_DEVICE_MEMORY_H_
