// GPU kernels of the unary elementwise ops (float, and LogicalNot on bool); the CPU ones are
// in cwise_unary_op.cc.
#include "kernels/math/cwise_gpu_op.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

class GpuLogicalNotOp : public OpKernel {
 public:
  explicit GpuLogicalNotOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DT_BOOL));
    const Tensor& x = c->input(0);
    Tensor* y = c->forward_input_or_allocate_output({0}, 0, DT_BOOL, x.shape());
    GpuDevice& device = GpuOf(c);
    return LaunchStatus(c->node_name(), device,
                        LaunchGpuLogicalNot(StreamOf(device), x.data<bool>(), y->data<bool>(),
                                            x.NumElements()));
  }
};

TENSORD_REGISTER_KERNEL(KernelDef("LogicalNot").Device(DeviceType::kGpu), GpuLogicalNotOp);

TENSORD_REGISTER_GPU_UNARY("Abs", kAbs);
TENSORD_REGISTER_GPU_UNARY("Ceil", kCeil);
TENSORD_REGISTER_GPU_UNARY("Cos", kCos);
TENSORD_REGISTER_GPU_UNARY("Erf", kErf);
TENSORD_REGISTER_GPU_UNARY("Erfc", kErfc);
TENSORD_REGISTER_GPU_UNARY("Exp", kExp);
TENSORD_REGISTER_GPU_UNARY("Expm1", kExpm1);
TENSORD_REGISTER_GPU_UNARY("Floor", kFloor);
TENSORD_REGISTER_GPU_UNARY("Inv", kReciprocal);
TENSORD_REGISTER_GPU_UNARY("Log", kLog);
TENSORD_REGISTER_GPU_UNARY("Log1p", kLog1p);
TENSORD_REGISTER_GPU_UNARY("Neg", kNeg);
TENSORD_REGISTER_GPU_UNARY("Reciprocal", kReciprocal);
TENSORD_REGISTER_GPU_UNARY("Rint", kRint);
TENSORD_REGISTER_GPU_UNARY("Round", kRint);
TENSORD_REGISTER_GPU_UNARY("Rsqrt", kRsqrt);
TENSORD_REGISTER_GPU_UNARY("Sigmoid", kSigmoid);
TENSORD_REGISTER_GPU_UNARY("Sin", kSin);
TENSORD_REGISTER_GPU_UNARY("Softplus", kSoftplus);
TENSORD_REGISTER_GPU_UNARY("Sqrt", kSqrt);
TENSORD_REGISTER_GPU_UNARY("Square", kSquare);
TENSORD_REGISTER_GPU_UNARY("Tanh", kTanh);

}  // namespace
}  // namespace math
}  // namespace tensord
