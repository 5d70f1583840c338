#include "runtime/framework/device_memory.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/util/status_macros.h"

namespace tensord {

absl::StatusOr<Tensor> AllocateDeviceTensor(GpuDevice* device, DataType dtype,
                                            const TensorShape& shape) {
  const size_t element_size = DataTypeSize(dtype);
  if (element_size == 0 || dtype == DT_STRING || dtype == DT_RESOURCE || dtype == DT_VARIANT) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", DataTypeString(dtype), " tensor cannot live in ", device->name(), "'s memory"));
  }
  const int64_t n = shape.num_elements();
  if (n < 0 || static_cast<uint64_t>(n) > SIZE_MAX / element_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor of shape ", shape.DebugString(), " is too large for ",
                     device->name()));
  }
  const size_t bytes = static_cast<size_t>(n) * element_size;
  TENSORD_ASSIGN_OR_RETURN(void* block, device->allocator().Allocate(bytes));
  return Tensor(dtype, shape, std::make_shared<DeviceMemoryBuffer>(device, block, bytes));
}

GpuDevice* DeviceOf(const Tensor& tensor) {
  if (tensor.memory_space() != MemorySpace::kDevice) return nullptr;
  return static_cast<const DeviceMemoryBuffer*>(tensor.buffer())->device();
}

absl::StatusOr<Tensor> CopyTensorToDevice(const Tensor& host, GpuDevice* device) {
  if (host.memory_space() != MemorySpace::kHost) {
    return absl::InvalidArgumentError(
        absl::StrCat("copying to ", device->name(), ": the source is not in host memory"));
  }
  TENSORD_ASSIGN_OR_RETURN(Tensor out, AllocateDeviceTensor(device, host.dtype(), host.shape()));
  TENSORD_RETURN_IF_ERROR(device->CopyToDevice(host.raw_data(), out.raw_data(),
                                               host.TotalBytes()));
  return out;
}

GpuDevice& GpuOf(const OpKernelContext* c) { return *static_cast<GpuDevice*>(c->device()); }

GpuStream StreamOf(const GpuDevice& device) {
  return GpuStream{device.info().ordinal, device.compute_stream()};
}

absl::Status LaunchStatus(const std::string& node, const GpuDevice& device, const char* error) {
  if (error == nullptr) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(node, " on ", device.name(), ": ", error));
}

absl::StatusOr<Tensor> CopyTensorToHost(const Tensor& tensor) {
  GpuDevice* device = DeviceOf(tensor);
  if (device == nullptr) return tensor;
  Tensor out = Tensor::ForOverwrite(tensor.dtype(), tensor.shape());
  TENSORD_RETURN_IF_ERROR(device->CopyToHost(tensor.raw_data(), out.raw_data(),
                                             tensor.TotalBytes()));
  return out;
}

}  // namespace tensord
