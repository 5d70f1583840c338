// BroadcastTo (NumPy-style broadcast of a tensor to a shape) and BroadcastArgs (the broadcast
// shape of two shapes).
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

// The NumPy broadcast of two shapes, or an "Incompatible shapes" error.
absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const OpKernelContext* c,
                                                     absl::Span<const int64_t> a,
                                                     absl::Span<const int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Right-aligned; missing leading dims count as 1.
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return c->InvalidArgument(absl::StrCat("Incompatible shapes: ", array::BracketList(a),
                                             " vs. ", array::BracketList(b)));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& shape_t = c->input(1);
    if (shape_t.dims() != 1) {
      return c->InvalidArgument(absl::StrCat("shape must be a vector of {int32,int64}, got shape ",
                                             shape_t.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                             array::ReadIndexValues(c, shape_t, "shape"));
    TENSORD_ASSIGN_OR_RETURN(TensorShape out_shape, array::MakeShape(c, dims));
    const int out_rank = out_shape.dims();
    const int rank = x.dims();
    if (rank > out_rank) {
      return c->InvalidArgument(absl::StrCat("Rank of input (", rank,
                                             ") must be no greater than rank of output shape (",
                                             out_rank, ")."));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> broadcast,
                             BroadcastShapes(c, x.shape().dim_sizes(), dims));
    if (broadcast != dims) {  // the input may not be larger than the requested shape
      return c->InvalidArgument(absl::StrCat("Incompatible shapes: ", x.shape().DebugString(),
                                             " vs. ", out_shape.DebugString()));
    }
    if (x.shape() == out_shape) {
      c->set_output(0, x);
      return absl::OkStatus();
    }
    const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape());
    std::vector<int64_t> src_strides(out_rank, 0);
    for (int i = 0; i < rank; ++i) {
      if (x.dim_size(i) != 1) src_strides[out_rank - rank + i] = in_strides[i];
    }
    Tensor* y = c->allocate_output(0, x.dtype(), out_shape);
    return array::ExecuteCopyPlan(c, array::DenseOutputPlan(out_shape, src_strides), x, y);
  }
};

class BroadcastArgsOp : public OpKernel {
 public:
  explicit BroadcastArgsOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& s0 = c->input(0);
    const Tensor& s1 = c->input(1);
    if (s0.dims() != 1 || s1.dims() != 1) {
      return c->InvalidArgument(absl::StrCat("s0 and s1 must be vectors, got shapes ",
                                             s0.shape().DebugString(), " and ",
                                             s1.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> a, array::ReadIndexValues(c, s0, "s0"));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> b, array::ReadIndexValues(c, s1, "s1"));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> out, BroadcastShapes(c, a, b));
    Tensor* r = c->allocate_output(0, s0.dtype(), TensorShape{static_cast<int64_t>(out.size())});
    for (size_t i = 0; i < out.size(); ++i) {
      if (s0.dtype() == DT_INT64) {
        r->data<int64_t>()[i] = out[i];
      } else {
        r->data<int32_t>()[i] = static_cast<int32_t>(out[i]);
      }
    }
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("BroadcastTo").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, BroadcastToOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("BroadcastTo").HostMemoryInput(1), "T",
                                  array::kNumericAndBoolTypes, BroadcastToOp);
constexpr DataType kShapeTypes[] = {DT_INT32, DT_INT64};
TENSORD_REGISTER_KERNEL_FOR_TYPES(
    array::CpuDef("BroadcastArgs").HostMemoryInput(0).HostMemoryInput(1), "T", kShapeTypes,
    BroadcastArgsOp);

}  // namespace
}  // namespace tensord
