// Pack (stack N same-shaped tensors along a new axis) and Unpack (the inverse).
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("axis", &axis_); }
  absl::Status Compute(OpKernelContext* c) const override {
    const int n = c->num_inputs();
    const TensorShape& shape0 = c->input(0).shape();
    const int out_rank = shape0.dims() + 1;
    if (axis_ < -out_rank || axis_ >= out_rank) {
      return c->InvalidArgument(
          absl::StrCat("axis = ", axis_, " not in [", -out_rank, ", ", out_rank, ")"));
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + out_rank : axis_);
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = c->input(i);
      if (in.shape() != shape0) {
        return c->InvalidArgument(absl::StrCat(
            "Shapes of all inputs must match: values[0].shape = ", shape0.DebugString(),
            " != values[", i, "].shape = ", in.shape().DebugString()));
      }
      inputs.push_back(&in);
    }
    TensorShape out_shape = shape0;
    out_shape.InsertDim(axis, n);
    if (n == 1) {
      TENSORD_ASSIGN_OR_RETURN(Tensor y, c->input(0).Reshaped(out_shape));
      c->set_output(0, std::move(y));
      return absl::OkStatus();
    }
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= shape0.dim_size(d);
    Tensor* out = c->allocate_output(0, c->input(0).dtype(), out_shape);
    return array::ConcatColumns(c, inputs, outer, out);
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("axis", &axis_);
    c->GetAttr("num", &num_);
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const int rank = x.dims();
    if (axis_ < -rank || axis_ >= rank) {
      return c->InvalidArgument(
          absl::StrCat("axis = ", axis_, " not in [", -rank, ", ", rank, ")"));
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    if (x.dim_size(axis) != num_) {
      return c->InvalidArgument(absl::StrCat("Input shape axis ", axis, " must equal ", num_,
                                             ", got shape ", x.shape().DebugString()));
    }
    TensorShape out_shape = x.shape();
    out_shape.RemoveDim(axis);
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
    const int64_t piece = out_shape.num_elements();
    if (outer == 1) {
      // Each output is a contiguous piece of the input: share the buffer.
      TENSORD_ASSIGN_OR_RETURN(Tensor flat, x.Reshaped(TensorShape{x.NumElements()}));
      for (int i = 0; i < num_; ++i) {
        TENSORD_ASSIGN_OR_RETURN(Tensor y,
                                 flat.Slice(i * piece, (i + 1) * piece).Reshaped(out_shape));
        c->set_output(i, std::move(y));
      }
      return absl::OkStatus();
    }
    std::vector<Tensor*> outputs;
    for (int i = 0; i < num_; ++i) outputs.push_back(c->allocate_output(i, x.dtype(), out_shape));
    return array::SplitColumns(c, x, outer, outputs);
  }

 private:
  int64_t axis_ = 0;
  int64_t num_ = 0;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Pack"), "T", array::kAllValueTypes, PackOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Unpack"), "T", array::kAllValueTypes, UnpackOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Pack"), "T", array::kNumericAndBoolTypes, PackOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Unpack"), "T", array::kNumericAndBoolTypes,
                                  UnpackOp);

}  // namespace
}  // namespace tensord
