// Placeholder and PlaceholderWithDefault. A fed placeholder never runs its kernel (the executor
// substitutes the fed value), so running Placeholder means a required feed is missing.
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"

namespace tensord {
namespace {

using array::CpuDef;
using array::kAllValueTypes;

class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* c) : OpKernel(c) {
    DataType dtype;
    PartialShape shape;  // unknown rank when the attr is absent
    if (!c->GetAttr("dtype", &dtype)) return;
    if (c->HasAttr("shape") && !c->GetAttr("shape", &shape)) return;
    // TensorFlow's wording; the shape is only mentioned when its rank is known.
    message_ = absl::StrCat("You must feed a value for placeholder tensor '", c->name(),
                            "' with dtype ", DataTypeString(dtype));
    if (!shape.unknown_rank) absl::StrAppend(&message_, " and shape ", shape.DebugString());
  }
  absl::Status Compute(OpKernelContext*) const override {
    return absl::InvalidArgumentError(message_);
  }

 private:
  std::string message_;
};

class PlaceholderWithDefaultOp : public OpKernel {
 public:
  explicit PlaceholderWithDefaultOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    c->set_output(0, c->input(0));
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("Placeholder"), "dtype", kAllValueTypes, PlaceholderOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("PlaceholderWithDefault"), "dtype", kAllValueTypes,
                                  PlaceholderWithDefaultOp);

}  // namespace
}  // namespace tensord
