// GPU kernels of the broadcasting comparisons (float) and LogicalAnd / LogicalOr; the CPU ones
// are in cwise_comparison_op.cc, whose shapes and messages these share.
#include <optional>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_gpu_op.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// kFn is a GpuCompareFn (float operands) or a GpuLogicalFn (bool operands).
template <auto kFn>
class GpuPredicateOp : public OpKernel {
 public:
  static constexpr bool kLogical = std::is_same_v<decltype(kFn), GpuLogicalFn>;
  using In = std::conditional_t<kLogical, bool, float>;

  explicit GpuPredicateOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->HasAttr("incompatible_shape_error")) {
      c->GetAttr("incompatible_shape_error", &incompatible_shape_error_);
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<In>::value));
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 1, DataTypeToEnum<In>::value));
    const Tensor& x = c->input(0);
    const Tensor& y = c->input(1);
    GpuDevice& device = GpuOf(c);
    std::optional<BroadcastPlan> plan = BroadcastPlan::Make({x.shape(), y.shape()});
    if (!plan) {
      if (incompatible_shape_error_) {
        return c->InvalidArgument(IncompatibleShapesMessage(x.shape(), y.shape()));
      }
      // Equal / NotEqual then answer one scalar: false for Equal, true for NotEqual.
      bool value = false;
      if constexpr (!kLogical) value = kFn == GpuCompareFn::kNotEqual;
      TENSORD_ASSIGN_OR_RETURN(Tensor answer,
                               CopyTensorToDevice(Tensor::Scalar<bool>(value), &device));
      c->set_output(0, std::move(answer));
      return absl::OkStatus();
    }
    TENSORD_ASSIGN_OR_RETURN(const GpuBroadcast shape, ToGpuBroadcast(c, *plan));
    Tensor* out = c->allocate_output_for_overwrite(0, DT_BOOL, plan->output_shape());
    const char* error;
    if constexpr (kLogical) {
      error = LaunchGpuLogical(StreamOf(device), kFn, shape, x.data<bool>(), y.data<bool>(),
                               out->data<bool>(), plan->num_elements());
    } else {
      error = LaunchGpuCompare(StreamOf(device), kFn, shape, x.data<float>(), y.data<float>(),
                               out->data<bool>(), plan->num_elements());
    }
    return LaunchStatus(c->node_name(), device, error);
  }

 private:
  bool incompatible_shape_error_ = true;
};

#define REGISTER_GPU_COMPARISON(OP, FN)                                                       \
  TENSORD_REGISTER_KERNEL(KernelDef(OP).Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT), \
                          GpuPredicateOp<GpuCompareFn::FN>)

REGISTER_GPU_COMPARISON("Equal", kEqual);
REGISTER_GPU_COMPARISON("NotEqual", kNotEqual);
REGISTER_GPU_COMPARISON("Less", kLess);
REGISTER_GPU_COMPARISON("LessEqual", kLessEqual);
REGISTER_GPU_COMPARISON("Greater", kGreater);
REGISTER_GPU_COMPARISON("GreaterEqual", kGreaterEqual);
#undef REGISTER_GPU_COMPARISON

TENSORD_REGISTER_KERNEL(KernelDef("LogicalAnd").Device(DeviceType::kGpu),
                        GpuPredicateOp<GpuLogicalFn::kAnd>);
TENSORD_REGISTER_KERNEL(KernelDef("LogicalOr").Device(DeviceType::kGpu),
                        GpuPredicateOp<GpuLogicalFn::kOr>);

}  // namespace
}  // namespace math
}  // namespace tensord
