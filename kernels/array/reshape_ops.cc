// Reshape, Squeeze and ExpandDims: new shapes over the same buffer (no copy), on either device.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using array::CpuDef;
using array::GpuDef;
using array::kAllValueTypes;
using array::kNumericAndBoolTypes;

// Forwards `x` with `shape` (same element count, checked by the caller).
absl::Status ForwardReshaped(OpKernelContext* c, const Tensor& x, const TensorShape& shape) {
  TENSORD_ASSIGN_OR_RETURN(Tensor y, x.Reshaped(shape));
  c->set_output(0, std::move(y));
  return absl::OkStatus();
}

class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& sizes = c->input(1);
    // A scalar is accepted as a 1-element shape (legacy graphs).
    if (sizes.dims() > 1) {
      return c->InvalidArgument(
          absl::StrCat("sizes input must be 1-D, not ", sizes.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> dims, array::ReadIndexValues(c, sizes, "shape"));
    // Requested dims of 0 are left out of `product` (and then input dims of 0 are left out of
    // the input count) so that -1 can still be inferred for empty tensors, as TensorFlow does.
    int64_t product = 1;
    int unknown = -1;
    bool sizes_have_zero = false;
    for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
      if (dims[i] == -1) {
        if (unknown != -1) {
          return c->InvalidArgument(
              absl::StrCat("Only one input size may be -1, not both ", unknown, " and ", i));
        }
        unknown = i;
      } else if (dims[i] < 0) {
        return c->InvalidArgument(absl::StrCat("Size ", i, " must be non-negative, not ", dims[i]));
      } else if (dims[i] == 0) {
        sizes_have_zero = true;
      } else {
        if (product > std::numeric_limits<int64_t>::max() / dims[i]) {
          return c->InvalidArgument("Requested shape has too many elements");
        }
        product *= dims[i];
      }
    }
    if (unknown != -1) {
      int64_t input_count = 1;
      bool input_has_zero = false;
      for (int64_t d : x.shape().dim_sizes()) {
        if (d == 0 && sizes_have_zero) {
          input_has_zero = true;
        } else {
          input_count *= d;
        }
      }
      const int64_t missing = input_count / product;
      if (!input_has_zero && missing * product != input_count) {
        return c->InvalidArgument(absl::StrCat("Input to reshape is a tensor with ", input_count,
                                               " values, but the requested shape requires a "
                                               "multiple of ",
                                               product));
      }
      dims[unknown] = missing;
    }
    TensorShape shape(std::move(dims));
    if (shape.num_elements() != x.NumElements()) {
      return c->InvalidArgument(absl::StrCat("Input to reshape is a tensor with ", x.NumElements(),
                                             " values, but the requested shape has ",
                                             shape.num_elements()));
    }
    return ForwardReshaped(c, x, shape);
  }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("squeeze_dims", &squeeze_dims_);
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const int rank = x.dims();
    std::vector<bool> remove(rank, squeeze_dims_.empty());
    for (int64_t d : squeeze_dims_) {
      if (d < -rank || d >= rank) {
        return c->InvalidArgument(absl::StrCat("Tried to squeeze dim index ", d,
                                               " for tensor with ", rank, " dimensions."));
      }
      const int axis = static_cast<int>(d < 0 ? d + rank : d);
      if (x.dim_size(axis) != 1) {
        return c->InvalidArgument(absl::StrCat(
            "Can not squeeze dim[", axis, "], expected a dimension of 1, got ", x.dim_size(axis)));
      }
      remove[axis] = true;
    }
    TensorShape shape;
    for (int i = 0; i < rank; ++i) {
      // With no squeeze_dims every size-1 dim goes.
      if (!(remove[i] && x.dim_size(i) == 1)) shape.AddDim(x.dim_size(i));
    }
    return ForwardReshaped(c, x, shape);
  }

 private:
  std::vector<int64_t> squeeze_dims_;
};

class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> dim,
                             array::ReadIndexValues(c, c->input(1), "dim"));
    if (dim.size() != 1) {
      return c->InvalidArgument(absl::StrCat("'dim' must be a tensor with a single value, but got ",
                                             dim.size(), " values"));
    }
    const int rank = x.dims();
    int64_t axis = dim[0];
    if (axis < -1 - rank || axis > rank) {
      return c->InvalidArgument(absl::StrCat("Tried to expand dim index ", axis,
                                             " for tensor with ", rank, " dimensions."));
    }
    if (axis < 0) axis += rank + 1;
    TensorShape shape = x.shape();
    shape.InsertDim(static_cast<int>(axis), 1);
    return ForwardReshaped(c, x, shape);
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("Reshape").HostMemoryInput(1), "T", kAllValueTypes,
                                  ReshapeOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("Squeeze"), "T", kAllValueTypes, SqueezeOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(CpuDef("ExpandDims").HostMemoryInput(1), "T", kAllValueTypes,
                                  ExpandDimsOp);
// On a GPU the buffer stays in device memory; the shape operands are read on the host.
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("Reshape").HostMemoryInput(1), "T", kNumericAndBoolTypes,
                                  ReshapeOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("Squeeze"), "T", kNumericAndBoolTypes, SqueezeOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(GpuDef("ExpandDims").HostMemoryInput(1), "T",
                                  kNumericAndBoolTypes, ExpandDimsOp);

}  // namespace
}  // namespace tensord
