// ConcatV2 (axis is the last input) and Concat (TF1: axis is the first input).
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

template <bool kAxisFirst>
class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const int n = c->num_inputs() - 1;
    const int axis_index = kAxisFirst ? 0 : n;
    const int first = kAxisFirst ? 1 : 0;
    const Tensor& axis_t = c->input(axis_index);
    if (axis_t.dims() != 0) {
      return c->InvalidArgument(absl::StrCat("Concat dim tensor should be a scalar, but got shape ",
                                             axis_t.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(int64_t axis, array::ReadIndexScalar(c, axis_t, "axis"));
    const TensorShape& shape0 = c->input(first).shape();
    const int rank = shape0.dims();
    if (rank == 0) {
      return c->InvalidArgument("ConcatOp : Can't concatenate scalars (use tf.stack instead)");
    }
    if (axis < -rank || axis >= rank) {
      return c->InvalidArgument(
          absl::StrCat("ConcatOp : Expected concatenating dimensions in the range [", -rank, ", ",
                       rank, "), but got ", axis));
    }
    if (axis < 0) axis += rank;

    std::vector<const Tensor*> inputs;
    TensorShape out_shape = shape0;
    int64_t axis_size = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = c->input(first + i);
      if (in.dims() != rank) {
        return c->InvalidArgument(absl::StrCat(
            "ConcatOp : Ranks of all input tensors should match: shape[0] = ", shape0.DebugString(),
            " vs. shape[", i, "] = ", in.shape().DebugString()));
      }
      for (int d = 0; d < rank; ++d) {
        if (d != axis && in.dim_size(d) != shape0.dim_size(d)) {
          return c->InvalidArgument(absl::StrCat(
              "ConcatOp : Dimension ", d, " in both shapes must be equal: shape[0] = ",
              shape0.DebugString(), " vs. shape[", i, "] = ", in.shape().DebugString()));
        }
      }
      axis_size += in.dim_size(axis);
      inputs.push_back(&in);
    }
    out_shape.set_dim(static_cast<int>(axis), axis_size);
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= shape0.dim_size(d);
    Tensor* out = c->allocate_output(0, c->input(first).dtype(), out_shape);
    return array::ConcatColumns(c, inputs, outer, out);
  }
};

// The axis (ConcatV2's last input, Concat's first) is read on the host; the copies run on the
// kernel's device.
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("ConcatV2").HostMemoryInput(-1), "T",
                                  array::kAllValueTypes, ConcatOp<false>);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Concat").HostMemoryInput(0), "T",
                                  array::kAllValueTypes, ConcatOp<true>);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("ConcatV2").HostMemoryInput(-1), "T",
                                  array::kNumericAndBoolTypes, ConcatOp<false>);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Concat").HostMemoryInput(0), "T",
                                  array::kNumericAndBoolTypes, ConcatOp<true>);

}  // namespace
}  // namespace tensord
