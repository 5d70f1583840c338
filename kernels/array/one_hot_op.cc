// OneHot: a new dim of size depth at `axis` holding on_value where it equals the index and
// off_value elsewhere; indices outside [0, depth) (negative included) give an all-off row.
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("axis", &axis_); }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& indices_t = c->input(0);
    const Tensor& depth_t = c->input(1);
    const Tensor& on = c->input(2);
    const Tensor& off = c->input(3);
    const int rank = indices_t.dims();
    if (axis_ != -1 && (axis_ < 0 || axis_ > rank)) {
      return c->InvalidArgument(absl::StrCat("Expected axis to be -1 or between [0, ", rank + 1,
                                             ").  But received: ", axis_));
    }
    if (depth_t.dims() != 0) {
      return c->InvalidArgument(
          absl::StrCat("depth must be a scalar, but got: ", depth_t.shape().DebugString()));
    }
    if (on.dims() != 0) {
      return c->InvalidArgument(
          absl::StrCat("on_value must be a scalar, but got: ", on.shape().DebugString()));
    }
    if (off.dims() != 0) {
      return c->InvalidArgument(
          absl::StrCat("off_value must be a scalar, but got: ", off.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(int64_t depth, array::ReadIndexScalar(c, depth_t, "depth"));
    if (depth < 0) {
      return c->InvalidArgument(absl::StrCat("depth must be non-negative, got: ", depth));
    }
    const int axis = axis_ == -1 ? rank : static_cast<int>(axis_);
    const auto indices_dims = indices_t.shape().dim_sizes();
    std::vector<int64_t> out_dims(indices_dims.begin(), indices_dims.end());
    out_dims.insert(out_dims.begin() + axis, depth);
    TENSORD_ASSIGN_OR_RETURN(TensorShape out_shape, array::MakeShape(c, out_dims));

    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> indices,
                             array::ReadIndexValues(c, indices_t, "indices"));
    Tensor* out = c->allocate_output(0, on.dtype(), out_shape);
    TENSORD_RETURN_IF_ERROR(array::FillTensor(c, off, out));
    // out is [prefix, depth, suffix]; indices is [prefix, suffix].
    int64_t suffix = 1;
    for (int i = axis; i < rank; ++i) suffix *= indices_t.dim_size(i);
    return array::DispatchStorage(c, on.dtype(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U& on_value = on.scalar<U>();
      U* y = out->data<U>();
      for (size_t i = 0; i < indices.size(); ++i) {
        const int64_t index = indices[i];
        if (index < 0 || index >= depth) continue;
        const int64_t p = static_cast<int64_t>(i) / suffix;
        const int64_t s = static_cast<int64_t>(i) % suffix;
        y[(p * depth + index) * suffix + s] = on_value;
      }
    });
  }

 private:
  int64_t axis_ = -1;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("OneHot").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, OneHotOp);

}  // namespace
}  // namespace tensord
