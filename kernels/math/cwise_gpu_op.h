// GpuUnaryOp and GpuBinaryOp: the GPU kernels of the float elementwise ops, queued on the
// device's compute stream through the launchers of cwise_gpu.h. Registered beside each op's CPU
// kernel (cwise_unary_op_gpu.cc, ...), in CUDA builds only. RunGpuSelect serves Select's
// (select_op_gpu.cc).
//
// Shapes, broadcasting and errors are the CPU kernels': the same BroadcastPlan and messages.
#ifndef TENSORD_KERNELS_MATH_CWISE_GPU_OP_H_
#define TENSORD_KERNELS_MATH_CWISE_GPU_OP_H_

#include "absl/status/statusor.h"
#include "kernels/math/cwise_gpu.h"
#include "kernels/math/cwise_util.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace math {

// `plan` as the launchers take it; InvalidArgument naming the node when its collapsed rank
// exceeds GpuBroadcast::kMaxRank (shapes that broadcast in more than six alternating places) or
// its operands outnumber GpuBroadcast::kMaxOperands.
absl::StatusOr<GpuBroadcast> ToGpuBroadcast(const OpKernelContext* c, const BroadcastPlan& plan);

// out = fn(x, y) with NumPy broadcasting into `out` (allocated by the caller with the plan's
// output shape), on the kernel's GPU; errors name the node.
absl::Status RunGpuBinary(const OpKernelContext* c, GpuBinaryFn fn, const BroadcastPlan& plan,
                          const Tensor& x, const Tensor& y, Tensor* out);

// out = cond ? t : e (bool cond, float t and e) broadcast by `plan` (of cond, t, e, in that
// order) into `out`, allocated by the caller with the plan's output shape; errors name the node.
absl::Status RunGpuSelect(const OpKernelContext* c, const BroadcastPlan& plan, const Tensor& cond,
                          const Tensor& t, const Tensor& e, Tensor* out);

// y = fn(x) element by element on the kernel's GPU (y may be x); errors name the node.
absl::Status RunGpuUnary(const OpKernelContext* c, GpuUnaryFn fn, float alpha, const Tensor& x,
                         Tensor* y);

class GpuUnaryOpBase : public OpKernel {
 public:
  GpuUnaryOpBase(OpKernelConstruction* c, GpuUnaryFn fn);
  absl::Status Compute(OpKernelContext* c) const override;

 private:
  const GpuUnaryFn fn_;
  float alpha_ = 0.2f;  // LeakyRelu's attr
};

template <GpuUnaryFn kFn>
class GpuUnaryOp : public GpuUnaryOpBase {
 public:
  explicit GpuUnaryOp(OpKernelConstruction* c) : GpuUnaryOpBase(c, kFn) {}
};

class GpuBinaryOpBase : public OpKernel {
 public:
  GpuBinaryOpBase(OpKernelConstruction* c, GpuBinaryFn fn) : OpKernel(c), fn_(fn) {}
  absl::Status Compute(OpKernelContext* c) const override;

 private:
  const GpuBinaryFn fn_;
};

template <GpuBinaryFn kFn>
class GpuBinaryOp : public GpuBinaryOpBase {
 public:
  explicit GpuBinaryOp(OpKernelConstruction* c) : GpuBinaryOpBase(c, kFn) {}
};

}  // namespace math
}  // namespace tensord

// Registers the GPU kernel of OP (float) computing FN, a GpuUnaryFn or GpuBinaryFn member.
#define TENSORD_REGISTER_GPU_UNARY(OP, FN)                                           \
  TENSORD_REGISTER_KERNEL(                                                           \
      KernelDef(OP).Device(::tensord::DeviceType::kGpu).TypeConstraint("T", DT_FLOAT), \
      ::tensord::math::GpuUnaryOp<::tensord::math::GpuUnaryFn::FN>)
#define TENSORD_REGISTER_GPU_BINARY(OP, FN)                                          \
  TENSORD_REGISTER_KERNEL(                                                           \
      KernelDef(OP).Device(::tensord::DeviceType::kGpu).TypeConstraint("T", DT_FLOAT), \
      ::tensord::math::GpuBinaryOp<::tensord::math::GpuBinaryFn::FN>)

#endif  // TENSORD_KERNELS_MATH_CWISE_GPU_OP_H_
