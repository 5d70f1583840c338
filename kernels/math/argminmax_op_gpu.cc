// GPU kernels (float input) of ArgMax and ArgMin; the CPU ones are in argminmax_op.cc. The
// axis stays in host memory.
#include "kernels/math/op_util.h"
#include "kernels/math/reduction_gpu.h"
#include "kernels/math/reduction_shape.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <bool kMax>
class GpuArgOp : public OpKernel {
 public:
  explicit GpuArgOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->HasAttr("output_type")) c->GetAttr("output_type", &output_type_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DT_FLOAT));
    const Tensor& input = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(AxisReduction shape, MakeAxisReduction(c, input.shape()));
    Tensor* output = c->allocate_output(0, output_type_, shape.output_shape);
    GpuDevice& device = GpuOf(c);
    return LaunchStatus(
        c->node_name(), device,
        LaunchGpuArgReduce(StreamOf(device), kMax, shape.outer, shape.size, shape.inner,
                           input.data<float>(), output->raw_data(), output_type_ == DT_INT64));
  }

 private:
  DataType output_type_ = DT_INT64;  // the op's default
};

#define REGISTER_GPU_ARG_OP(OP, MAX, OUT)                            \
  TENSORD_REGISTER_KERNEL(KernelDef(OP)                              \
                              .Device(DeviceType::kGpu)              \
                              .TypeConstraint("T", DT_FLOAT)         \
                              .TypeConstraint("output_type", OUT)    \
                              .HostMemoryInput(1),                   \
                          GpuArgOp<MAX>)

REGISTER_GPU_ARG_OP("ArgMax", true, DT_INT32);
REGISTER_GPU_ARG_OP("ArgMax", true, DT_INT64);
REGISTER_GPU_ARG_OP("ArgMin", false, DT_INT32);
REGISTER_GPU_ARG_OP("ArgMin", false, DT_INT64);

#undef REGISTER_GPU_ARG_OP

}  // namespace
}  // namespace math
}  // namespace tensord
