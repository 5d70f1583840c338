// ReverseV2 (list of axes) and Reverse (TF1: one bool per dim): reversed dims read the source
// backwards (negative stride from the last element).
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

// Sets output 0 to x with the dims flagged in `reverse` reversed.
absl::Status OutputReversed(OpKernelContext* c, const Tensor& x, const std::vector<bool>& reverse) {
  const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape());
  std::vector<int64_t> src_strides(x.dims());
  int64_t src_base = 0;
  bool any = false;
  for (int i = 0; i < x.dims(); ++i) {
    src_strides[i] = in_strides[i];
    if (reverse[i] && x.dim_size(i) > 1) {
      src_strides[i] = -in_strides[i];
      src_base += (x.dim_size(i) - 1) * in_strides[i];
      any = true;
    }
  }
  if (!any) {
    c->set_output(0, x);
    return absl::OkStatus();
  }
  Tensor* y = c->allocate_output(0, x.dtype(), x.shape());
  return array::ExecuteCopyPlan(c, array::DenseOutputPlan(x.shape(), src_strides, src_base), x, y);
}

class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& axis_t = c->input(1);
    if (axis_t.dims() != 1) {
      return c->InvalidArgument(absl::StrCat("'dims' must be 1-dimension, not ", axis_t.dims()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> axes, array::ReadIndexValues(c, axis_t, "axis"));
    const int rank = x.dims();
    std::vector<bool> reverse(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (axis < 0 || axis >= rank) {
        return c->InvalidArgument(absl::StrCat("'axis'[", i, "] = ", axes[i],
                                               " is out of valid range [0, ", rank - 1, "]"));
      }
      if (reverse[axis]) {
        return c->InvalidArgument(absl::StrCat("axis ", axis, " specified more than once."));
      }
      reverse[axis] = true;
    }
    return OutputReversed(c, x, reverse);
  }
};

class ReverseOp : public OpKernel {
 public:
  explicit ReverseOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& dims = c->input(1);
    if (dims.dims() != 1 || dims.dtype() != DT_BOOL) {
      return c->InvalidArgument(
          absl::StrCat("'dims' must be a 1-D bool tensor, got shape ", dims.shape().DebugString()));
    }
    if (dims.NumElements() != x.dims()) {
      return c->InvalidArgument(absl::StrCat(
          "'dims' must have the same number of values as 'input' has dimensions. 'input' has ",
          x.dims(), "'dims' has ", dims.NumElements(), " values"));
    }
    return OutputReversed(
        c, x, std::vector<bool>(dims.data<bool>(), dims.data<bool>() + dims.NumElements()));
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("ReverseV2").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, ReverseV2Op);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("ReverseV2").HostMemoryInput(1), "T",
                                  array::kNumericAndBoolTypes, ReverseV2Op);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Reverse").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, ReverseOp);

}  // namespace
}  // namespace tensord
