// Select and SelectV2 on a GPU (float 'then' and 'else', bool condition), with the CPU kernels'
// checks and broadcast (select_op.h). Select's scalar condition, which the CPU kernel resolves
// by forwarding an input, is broadcast here like any other: its value is in device memory.
#include "kernels/math/cwise_gpu_op.h"
#include "kernels/math/select_op.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <bool kV2>
class GpuSelectOp : public OpKernel {
 public:
  explicit GpuSelectOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckSelectTypes(c, DT_FLOAT));
    TensorShape cond_shape = c->input(0).shape();
    if constexpr (!kV2) {
      TENSORD_ASSIGN_OR_RETURN(cond_shape, SelectConditionShape(c));
    }
    TENSORD_ASSIGN_OR_RETURN(const BroadcastPlan plan, SelectPlan(c, cond_shape));
    // Each element of 'then' and 'else' is read only for the same output position.
    Tensor* out = c->forward_input_or_allocate_output({1, 2}, 0, DT_FLOAT, plan.output_shape());
    return RunGpuSelect(c, plan, c->input(0), c->input(1), c->input(2), out);
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("Select").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
                        GpuSelectOp<false>);
TENSORD_REGISTER_KERNEL(
    KernelDef("SelectV2").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
    GpuSelectOp<true>);

}  // namespace
}  // namespace math
}  // namespace tensord
