// Softmax and LogSoftmax on a GPU (float) over the last dimension; the CPU kernels are in
// softmax_op.cc, whose checks and arithmetic these follow.
#include "absl/strings/str_cat.h"
#include "kernels/nn/softmax_gpu.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace {

template <bool kLog>
class GpuSoftmaxOp : public OpKernel {
 public:
  explicit GpuSoftmaxOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& logits = c->input(0);
    if (logits.dims() < 1) {
      return c->InvalidArgument(absl::StrCat("logits must have at least 1 dimension, got shape ",
                                             logits.shape().DebugString()));
    }
    Tensor* output = c->allocate_output_for_overwrite(0, DT_FLOAT, logits.shape());
    if (logits.NumElements() == 0) return absl::OkStatus();
    const int64_t cols = logits.dim_size(logits.dims() - 1);
    GpuDevice& device = GpuOf(c);
    return LaunchStatus(c->node_name(), device,
                        LaunchGpuSoftmax(StreamOf(device), kLog, logits.data<float>(),
                                         output->data<float>(), logits.NumElements() / cols,
                                         cols));
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("Softmax").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
                        GpuSoftmaxOp<false>);
TENSORD_REGISTER_KERNEL(
    KernelDef("LogSoftmax").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
    GpuSoftmaxOp<true>);

}  // namespace
}  // namespace tensord
