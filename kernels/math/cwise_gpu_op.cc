#include "kernels/math/cwise_gpu_op.h"

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {

absl::StatusOr<GpuBroadcast> ToGpuBroadcast(const OpKernelContext* c,
                                            const BroadcastPlan& plan) {
  GpuBroadcast shape;
  const int rank = static_cast<int>(plan.dims().size());
  if (rank > GpuBroadcast::kMaxRank) {
    return c->InvalidArgument(
        absl::StrCat("this broadcast of ", plan.output_shape().DebugString(), " alternates in ",
                     rank, " dimensions; the GPU kernels take at most ",
                     GpuBroadcast::kMaxRank));
  }
  if (plan.num_operands() > GpuBroadcast::kMaxOperands) {
    return c->InvalidArgument(absl::StrCat("a broadcast of ", plan.num_operands(),
                                           " operands; the GPU kernels take at most ",
                                           GpuBroadcast::kMaxOperands));
  }
  shape.rank = rank;
  for (int d = 0; d < rank; ++d) {
    shape.dims[d] = plan.dims()[d];
    for (int k = 0; k < plan.num_operands(); ++k) shape.strides[k][d] = plan.stride(k, d);
  }
  return shape;
}

absl::Status RunGpuBinary(const OpKernelContext* c, GpuBinaryFn fn, const BroadcastPlan& plan,
                          const Tensor& x, const Tensor& y, Tensor* out) {
  TENSORD_ASSIGN_OR_RETURN(const GpuBroadcast shape, ToGpuBroadcast(c, plan));
  GpuDevice& device = GpuOf(c);
  return LaunchStatus(c->node_name(), device,
                      LaunchGpuBinary(StreamOf(device), fn, shape, x.data<float>(),
                                      y.data<float>(), out->data<float>(), plan.num_elements()));
}

absl::Status RunGpuSelect(const OpKernelContext* c, const BroadcastPlan& plan, const Tensor& cond,
                          const Tensor& t, const Tensor& e, Tensor* out) {
  TENSORD_ASSIGN_OR_RETURN(const GpuBroadcast shape, ToGpuBroadcast(c, plan));
  GpuDevice& device = GpuOf(c);
  return LaunchStatus(c->node_name(), device,
                      LaunchGpuSelect(StreamOf(device), shape, cond.data<bool>(), t.data<float>(),
                                      e.data<float>(), out->data<float>(), plan.num_elements()));
}

absl::Status RunGpuUnary(const OpKernelContext* c, GpuUnaryFn fn, float alpha, const Tensor& x,
                         Tensor* y) {
  GpuDevice& device = GpuOf(c);
  return LaunchStatus(c->node_name(), device,
                      LaunchGpuUnary(StreamOf(device), fn, alpha, x.data<float>(),
                                     y->data<float>(), x.NumElements()));
}

GpuUnaryOpBase::GpuUnaryOpBase(OpKernelConstruction* c, GpuUnaryFn fn) : OpKernel(c), fn_(fn) {
  if (fn == GpuUnaryFn::kLeakyRelu) c->GetAttr("alpha", &alpha_);
}

absl::Status GpuUnaryOpBase::Compute(OpKernelContext* c) const {
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DT_FLOAT));
  const Tensor& x = c->input(0);
  Tensor* y = c->forward_input_or_allocate_output({0}, 0, DT_FLOAT, x.shape());
  return RunGpuUnary(c, fn_, alpha_, x, y);
}

absl::Status GpuBinaryOpBase::Compute(OpKernelContext* c) const {
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DT_FLOAT));
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, 1, DT_FLOAT));
  const Tensor& x = c->input(0);
  const Tensor& y = c->input(1);
  std::optional<BroadcastPlan> plan = BroadcastPlan::Make({x.shape(), y.shape()});
  if (!plan) return c->InvalidArgument(IncompatibleShapesMessage(x.shape(), y.shape()));
  Tensor* out = c->forward_input_or_allocate_output({0, 1}, 0, DT_FLOAT, plan->output_shape());
  return RunGpuBinary(c, fn_, *plan, x, y, out);
}

}  // namespace math
}  // namespace tensord
