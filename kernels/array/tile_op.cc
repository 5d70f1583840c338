// Tile: out dim i = in dim i * multiples[i]. Each input dim becomes two copy axes: the repeat
// (source stride 0) and the original dim.
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& multiples_t = c->input(1);
    if (multiples_t.dims() != 1) {
      return c->InvalidArgument(absl::StrCat("Expected multiples to be 1-D, but got shape ",
                                             multiples_t.shape().DebugString()));
    }
    const int rank = x.dims();
    if (multiples_t.NumElements() != rank) {
      return c->InvalidArgument(
          absl::StrCat("Expected multiples argument to be a vector of length ", rank,
                       " but got length ", multiples_t.NumElements()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> multiples,
                             array::ReadIndexValues(c, multiples_t, "multiples"));
    std::vector<int64_t> out_dims(rank);
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      if (multiples[i] < 0) {
        return c->InvalidArgument(
            absl::StrCat("Expected multiples[", i, "] >= 0, but got ", multiples[i]));
      }
      if (multiples[i] > 0 && x.dim_size(i) > std::numeric_limits<int64_t>::max() / multiples[i]) {
        return c->InvalidArgument("Tiled output has too many elements");
      }
      out_dims[i] = x.dim_size(i) * multiples[i];
      identity &= multiples[i] == 1;
    }
    if (identity) {
      c->set_output(0, x);
      return absl::OkStatus();
    }
    TENSORD_ASSIGN_OR_RETURN(TensorShape out_shape, array::MakeShape(c, out_dims));
    Tensor* y = c->allocate_output(0, x.dtype(), out_shape);
    const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape());
    const std::vector<int64_t> out_strides = array::RowMajorStrides(out_shape);
    array::CopyPlan plan;
    for (int i = 0; i < rank; ++i) {
      plan.AddAxis(multiples[i], 0, x.dim_size(i) * out_strides[i]);
      plan.AddAxis(x.dim_size(i), in_strides[i], out_strides[i]);
    }
    return array::ExecuteCopyPlan(c, plan, x, y);
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Tile").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, TileOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Tile").HostMemoryInput(1), "T",
                                  array::kNumericAndBoolTypes, TileOp);

}  // namespace
}  // namespace tensord
