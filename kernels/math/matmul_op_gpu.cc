// MatMul and _FusedMatMul on a GPU (float): the product through cuBLAS (runtime/framework/
// gpu_blas.h), then _FusedMatMul's bias, residual and activation as elementwise GPU kernels on
// the product in place. Checks and messages are the CPU kernels' (matmul_shape.h).
#include <optional>

#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_gpu_op.h"
#include "kernels/math/matmul_shape.h"
#include "kernels/nn/window_util.h"
#include "kernels/nn/conv_fusion.h"
#include "runtime/framework/gpu_blas.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// The activation of a fusion as the unary GPU kernel's function.
std::optional<GpuUnaryFn> ActivationFn(FusedActivation activation) {
  switch (activation) {
    case FusedActivation::kNone: return std::nullopt;
    case FusedActivation::kRelu: return GpuUnaryFn::kRelu;
    case FusedActivation::kRelu6: return GpuUnaryFn::kRelu6;
    case FusedActivation::kElu: return GpuUnaryFn::kElu;
    case FusedActivation::kLeakyRelu: return GpuUnaryFn::kLeakyRelu;
  }
  return std::nullopt;
}

class GpuMatMulOp : public OpKernel {
 public:
  explicit GpuMatMulOp(OpKernelConstruction* c) : OpKernel(c), options_(OneDnnOptionsFromAttrs(c)) {
    c->GetAttr("transpose_a", &transpose_a_);
    c->GetAttr("transpose_b", &transpose_b_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const MatMulDims dims,
                             MatMulProductDims(c, DT_FLOAT, transpose_a_, transpose_b_));
    if (c->num_inputs() < (options_.add_residual ? 4 : options_.bias ? 3 : 2)) {
      return c->InvalidArgument("has fewer inputs than its fused_ops need");
    }
    const TensorShape shape{dims.m, dims.n};
    const Tensor* bias = options_.bias ? &c->input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != DT_FLOAT || bias->dims() != 1 ||
                            bias->dim_size(0) != dims.n)) {
      return c->InvalidArgument(absl::StrCat("bias must be a float vector of ", dims.n,
                                             " values, got ", bias->shape().DebugString()));
    }
    const Tensor* residual = options_.add_residual ? &c->input(3) : nullptr;
    if (residual != nullptr && residual->dtype() != DT_FLOAT) {
      return c->InvalidArgument("the residual to add must be a float tensor");
    }
    std::optional<BroadcastPlan> residual_plan;
    if (residual != nullptr) {
      residual_plan = BroadcastPlan::Make({shape, residual->shape()});
      if (!residual_plan || residual_plan->output_shape() != shape) {
        return c->InvalidArgument(absl::StrCat("the residual ", residual->shape().DebugString(),
                                               " does not broadcast to the product ",
                                               shape.DebugString()));
      }
    }
    Tensor* out = c->allocate_output_for_overwrite(0, DT_FLOAT, shape);
    if (out->NumElements() == 0) return absl::OkStatus();
    GpuDevice& device = GpuOf(c);
    if (dims.k == 0) {
      TENSORD_RETURN_IF_ERROR(WithNodeName(c->node_name(),
                                           device.Zero(out->raw_data(), out->TotalBytes())));
    } else {
      GpuGemm gemm;
      gemm.m = dims.m;
      gemm.n = dims.n;
      gemm.k = dims.k;
      gemm.transpose_a = transpose_a_;
      gemm.transpose_b = transpose_b_;
      gemm.a = c->input(0).data<float>();
      gemm.b = c->input(1).data<float>();
      gemm.c = out->data<float>();
      TENSORD_RETURN_IF_ERROR(WithNodeName(c->node_name(), GpuSgemm(device, gemm)));
    }
    if (bias != nullptr) {
      const std::optional<BroadcastPlan> plan = BroadcastPlan::Make({shape, bias->shape()});
      TENSORD_RETURN_IF_ERROR(RunGpuBinary(c, GpuBinaryFn::kAdd, *plan, *out, *bias, out));
    }
    if (residual != nullptr) {
      TENSORD_RETURN_IF_ERROR(
          RunGpuBinary(c, GpuBinaryFn::kAdd, *residual_plan, *out, *residual, out));
    }
    if (const std::optional<GpuUnaryFn> fn = ActivationFn(options_.activation)) {
      TENSORD_RETURN_IF_ERROR(RunGpuUnary(c, *fn, options_.leakyrelu_alpha, *out, out));
    }
    return absl::OkStatus();
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  const OneDnnConvOptions options_;
};

TENSORD_REGISTER_KERNEL(KernelDef("MatMul").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
                        GpuMatMulOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("_FusedMatMul").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
    GpuMatMulOp);

}  // namespace
}  // namespace math
}  // namespace tensord
