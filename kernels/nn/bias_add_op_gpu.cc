// BiasAdd and BiasAddV1 on a GPU (float): the bias broadcast over the value by the elementwise
// GPU kernel, with the CPU kernel's checks (bias_add_op.h).
#include <optional>

#include "kernels/math/cwise_gpu_op.h"
#include "kernels/nn/bias_add_op.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class GpuBiasAddOp : public OpKernel {
 public:
  explicit GpuBiasAddOp(OpKernelConstruction* c)
      : OpKernel(c), channels_first_(BiasAddChannelsFirst(c)) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const TensorShape bias_shape, BiasBroadcastShape(c, channels_first_));
    const Tensor& x = c->input(0);
    const std::optional<math::BroadcastPlan> plan =
        math::BroadcastPlan::Make({x.shape(), bias_shape});
    if (!plan) return c->InvalidArgument("bias does not broadcast");  // checked above
    Tensor* y = c->forward_input_or_allocate_output({0}, 0, DT_FLOAT, x.shape());
    return math::RunGpuBinary(c, math::GpuBinaryFn::kAdd, *plan, x, c->input(1), y);
  }

 private:
  const bool channels_first_;
};

TENSORD_REGISTER_KERNEL(KernelDef("BiasAdd").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
                        GpuBiasAddOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("BiasAddV1").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT), GpuBiasAddOp);

}  // namespace
}  // namespace tensord
