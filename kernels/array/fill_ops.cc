// Fill, ZerosLike and OnesLike: tensors of one repeated value.
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using array::CpuDef;

class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& dims = c->input(0);
    const Tensor& value = c->input(1);
    if (dims.dims() > 1) {
      return c->InvalidArgument(
          absl::StrCat("dims must represent a vector, got shape ", dims.shape().DebugString()));
    }
    if (value.dims() != 0) {
      return c->InvalidArgument(
          absl::StrCat("value must be a scalar, got shape ", value.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, array::ReadIndexValues(c, dims, "dims"));
    TENSORD_ASSIGN_OR_RETURN(TensorShape shape, array::MakeShape(c, sizes));
    return array::FillTensor(c, value, c->allocate_output(0, value.dtype(), shape));
  }
};

// Fills the output, shaped like the input, with a scalar made once per dtype.
class FillLikeOp : public OpKernel {
 public:
  FillLikeOp(OpKernelConstruction* c, Tensor value) : OpKernel(c), value_(std::move(value)) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    return array::FillTensor(c, value_, c->allocate_output(0, x.dtype(), x.shape()));
  }

 private:
  const Tensor value_;
};

DataType AttrT(OpKernelConstruction* c) {
  DataType dtype = DT_INVALID;
  c->GetAttr("T", &dtype);
  return dtype;
}

class ZerosLikeOp : public FillLikeOp {
 public:
  // A default-constructed element is 0, false or "".
  explicit ZerosLikeOp(OpKernelConstruction* c) : FillLikeOp(c, Tensor(AttrT(c), TensorShape{})) {}
};

Tensor One(DataType dtype) {
  Tensor one(dtype, TensorShape{});
  DispatchNumeric(dtype, [&](auto tag) { one.scalar<decltype(tag)>() = decltype(tag)(1); });
  return one;
}

class OnesLikeOp : public FillLikeOp {
 public:
  explicit OnesLikeOp(OpKernelConstruction* c) : FillLikeOp(c, One(AttrT(c))) {}
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("Fill").HostMemoryInput(0), "T", array::kAllValueTypes,
                                  FillOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("ZerosLike"), "T", array::kAllValueTypes, ZerosLikeOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("OnesLike"), "T", array::kNumericAndBoolTypes, OnesLikeOp);
// On a GPU the value is read on the host and written by the GPU copy engine's fill.
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Fill").HostMemoryInput(0).HostMemoryInput(1), "T",
                                  array::kNumericAndBoolTypes, FillOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("ZerosLike"), "T", array::kNumericAndBoolTypes,
                                  ZerosLikeOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("OnesLike"), "T", array::kNumericAndBoolTypes,
                                  OnesLikeOp);

}  // namespace
}  // namespace tensord
