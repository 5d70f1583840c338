// Const: the `value` attr, converted once when the kernel is built and forwarded on every run
// (no copy: outputs are immutable).
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"

namespace tensord {
namespace {

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* c) : OpKernel(c) {
    DataType dtype;
    if (!c->GetAttr("value", &value_) || !c->GetAttr("dtype", &dtype)) return;
    if (value_.dtype() != dtype) {
      c->SetError(absl::InvalidArgumentError(
          absl::StrCat("Type mismatch between value (", DataTypeString(value_.dtype()),
                       ") and dtype (", DataTypeString(dtype), ") of node '", c->name(), "'")));
    }
  }
  absl::Status Compute(OpKernelContext* c) const override {
    c->set_output(0, value_);
    return absl::OkStatus();
  }

 private:
  Tensor value_;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Const"), "dtype", array::kAllValueTypes, ConstOp);

}  // namespace
}  // namespace tensord
