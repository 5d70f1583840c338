// Pass-through ops: Identity, Snapshot, StopGradient, PreventGradient, IdentityN, EnsureShape
// and NoOp. Tensors are immutable once shared, so forwarding the input buffer is always safe
// (Snapshot included: nobody can write into either side afterwards).
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"

namespace tensord {
namespace {

using array::CpuDef;
using array::GpuDef;
using array::kAllValueTypes;
using array::kNumericAndBoolTypes;
using array::kPassThroughTypes;

// Forwards every input to the output of the same index.
class ForwardInputsOp : public OpKernel {
 public:
  explicit ForwardInputsOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    for (int i = 0; i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
    return absl::OkStatus();
  }
};

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override { return absl::OkStatus(); }
};

class EnsureShapeOp : public OpKernel {
 public:
  explicit EnsureShapeOp(OpKernelConstruction* c)
      : OpKernel(c),
        input_name_(c->node_def().input_size() > 0 ? c->node_def().input(0) : c->name()) {
    c->GetAttr("shape", &shape_);
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    if (!shape_.IsCompatibleWith(x.shape())) {
      return c->InvalidArgument(
          absl::StrCat("Shape of tensor ", input_name_, " ", x.shape().DebugString(),
                       " is not compatible with expected shape ", shape_.DebugString(), "."));
    }
    c->set_output(0, x);
    return absl::OkStatus();
  }

 private:
  const std::string input_name_;
  PartialShape shape_;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("Identity"), "T", kPassThroughTypes, ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("Snapshot"), "T", kAllValueTypes, ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("StopGradient"), "T", kAllValueTypes, ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("PreventGradient"), "T", kAllValueTypes, ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("EnsureShape"), "T", kAllValueTypes, EnsureShapeOp);
// IdentityN's T is a list of types: one kernel serves every combination.
TENSORD_REGISTER_KERNEL(CpuDef("IdentityN"), ForwardInputsOp);
TENSORD_REGISTER_KERNEL(CpuDef("NoOp"), NoOp);
// The forwarding kernels on a GPU: the value stays where it is, in device memory.
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("Identity"), "T", kNumericAndBoolTypes, ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("Snapshot"), "T", kNumericAndBoolTypes, ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("StopGradient"), "T", kNumericAndBoolTypes,
                                  ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("PreventGradient"), "T", kNumericAndBoolTypes,
                                  ForwardInputsOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("EnsureShape"), "T", kNumericAndBoolTypes,
                                  EnsureShapeOp);

}  // namespace
}  // namespace tensord
