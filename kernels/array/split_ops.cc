// Split (split_dim is the FIRST input; equal pieces) and SplitV (explicit sizes, one may be -1).
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

// Reads split_dim (a scalar) and makes it non-negative.
absl::StatusOr<int> SplitAxis(const OpKernelContext* c, const Tensor& split_dim, int rank) {
  if (split_dim.dims() != 0) {
    return c->InvalidArgument(
        absl::StrCat("split_dim must be a scalar but has rank ", split_dim.dims()));
  }
  TENSORD_ASSIGN_OR_RETURN(int64_t axis, array::ReadIndexScalar(c, split_dim, "split_dim"));
  if (axis < -rank || axis >= rank) {
    return c->InvalidArgument(absl::StrCat("-input rank(-", rank, ") <= split_dim < input rank (",
                                           rank, "), but got ", axis));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// Output i gets `sizes[i]` consecutive entries of x along `axis` (the sizes add up to that dim).
absl::Status SplitAlong(OpKernelContext* c, const Tensor& x, int axis,
                        const std::vector<int64_t>& sizes) {
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
  std::vector<TensorShape> shapes;
  for (int64_t size : sizes) {
    TensorShape shape = x.shape();
    shape.set_dim(axis, size);
    shapes.push_back(std::move(shape));
  }
  if (outer == 1) {
    // Every output is a contiguous piece of the input: share the buffer.
    TENSORD_ASSIGN_OR_RETURN(Tensor flat, x.Reshaped(TensorShape{x.NumElements()}));
    int64_t offset = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const int64_t n = shapes[i].num_elements();
      TENSORD_ASSIGN_OR_RETURN(Tensor y, flat.Slice(offset, offset + n).Reshaped(shapes[i]));
      c->set_output(static_cast<int>(i), std::move(y));
      offset += n;
    }
    return absl::OkStatus();
  }
  std::vector<Tensor*> outputs;
  for (size_t i = 0; i < sizes.size(); ++i) {
    outputs.push_back(c->allocate_output(static_cast<int>(i), x.dtype(), shapes[i]));
  }
  return array::SplitColumns(c, x, outer, outputs);
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("num_split", &num_split_); }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(1);
    TENSORD_ASSIGN_OR_RETURN(int axis, SplitAxis(c, c->input(0), x.dims()));
    const int64_t dim = x.dim_size(axis);
    if (num_split_ <= 0 || dim % num_split_ != 0) {
      return c->InvalidArgument(absl::StrCat(
          "Number of ways to split should evenly divide the split dimension, but got split_dim ",
          axis, " (size = ", dim, ") and num_split ", num_split_));
    }
    return SplitAlong(c, x, axis, std::vector<int64_t>(num_split_, dim / num_split_));
  }

 private:
  int64_t num_split_ = 1;
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("num_split", &num_split_); }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& sizes_t = c->input(1);
    TENSORD_ASSIGN_OR_RETURN(int axis, SplitAxis(c, c->input(2), x.dims()));
    if (sizes_t.dims() != 1 || sizes_t.NumElements() != num_split_) {
      return c->InvalidArgument(absl::StrCat(
          "size of the split_tensor must be 1-D and have the same elements as outputs got ",
          sizes_t.dims(), " -D and ", sizes_t.NumElements(), " elements"));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                             array::ReadIndexValues(c, sizes_t, "size_splits"));
    const int64_t dim = x.dim_size(axis);
    if (num_split_ == 1) {
      if (sizes[0] != dim) {
        return c->InvalidArgument(absl::StrCat(
            "If there is only one output, it must have the same size as the input. Input size: ",
            dim, " output size: ", sizes[0]));
      }
      c->set_output(0, x);
      return absl::OkStatus();
    }
    int inferred = -1;
    int64_t determined = 0;
    for (int i = 0; i < num_split_; ++i) {
      if (sizes[i] == -1) {
        if (inferred != -1) return c->InvalidArgument("There can only be one -1 in the input.");
        inferred = i;
      } else {
        determined += sizes[i];
      }
    }
    if ((inferred == -1 && determined != dim) || (inferred != -1 && determined > dim)) {
      return c->InvalidArgument(absl::StrCat(
          "Determined shape must either match input shape along split_dim exactly if fully "
          "specified, or be less than the size of the input along split_dim if not fully "
          "specified.  Got: ",
          determined));
    }
    if (inferred != -1) sizes[inferred] = dim - determined;
    for (int i = 0; i < num_split_; ++i) {
      if (sizes[i] < 0) {
        return c->InvalidArgument(
            absl::StrCat("Split size at index ", i, " must be >= 0. Got: ", sizes[i]));
      }
    }
    return SplitAlong(c, x, axis, sizes);
  }

 private:
  int64_t num_split_ = 1;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Split").HostMemoryInput(0), "T",
                                  array::kAllValueTypes, SplitOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("SplitV").HostMemoryInput(1).HostMemoryInput(2),
                                  "T", array::kAllValueTypes, SplitVOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Split").HostMemoryInput(0), "T",
                                  array::kNumericAndBoolTypes, SplitOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("SplitV").HostMemoryInput(1).HostMemoryInput(2),
                                  "T", array::kNumericAndBoolTypes, SplitVOp);

}  // namespace
}  // namespace tensord
