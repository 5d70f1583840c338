// _HostToDevice and _DeviceToHost: the copies the copy-insertion pass puts on edges between host
// and GPU memory (runtime/exec/copy_insertion.h). Both run on the GPU, queued on its compute
// stream in order with its kernels; _DeviceToHost waits for the work queued before it, since a
// host consumer reads the values as soon as it runs.
#include "absl/strings/str_cat.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class HostToDeviceOp : public OpKernel {
 public:
  explicit HostToDeviceOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    if (c->device_type() != DeviceType::kGpu) {
      return c->InvalidArgument("runs on a GPU, not on " + c->device()->name());
    }
    absl::StatusOr<Tensor> copy =
        CopyTensorToDevice(c->input(0), static_cast<GpuDevice*>(c->device()));
    if (!copy.ok()) return c->InvalidArgument(copy.status().message());
    c->set_output(0, *std::move(copy));
    return absl::OkStatus();
  }
};

class DeviceToHostOp : public OpKernel {
 public:
  explicit DeviceToHostOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    absl::StatusOr<Tensor> copy = CopyTensorToHost(c->input(0));
    if (!copy.ok()) {
      return absl::Status(copy.status().code(),
                          absl::StrCat(c->node_name(), ": ", copy.status().message()));
    }
    c->set_output(0, *std::move(copy));
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("_HostToDevice").Device(DeviceType::kGpu).HostMemoryInput(0),
                        HostToDeviceOp);
TENSORD_REGISTER_KERNEL(KernelDef("_DeviceToHost").Device(DeviceType::kGpu).HostMemoryOutput(0),
                        DeviceToHostOp);

}  // namespace
}  // namespace tensord
