// Transpose: y.shape[i] = x.shape[perm[i]]. Permutations that keep the order of all non-1 dims
// are reshapes (no copy); the rest are a CopyPlan (2-D and NHWC<->NCHW style transposes run as
// cache-blocked tiles there).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& perm_t = c->input(1);
    if (perm_t.dims() != 1) {
      return c->InvalidArgument(
          absl::StrCat("perm must be rank 1, got shape ", perm_t.shape().DebugString()));
    }
    const int rank = x.dims();
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> perm, array::ReadIndexValues(c, perm_t, "perm"));
    if (static_cast<int>(perm.size()) != rank) {
      return c->InvalidArgument(absl::StrCat("transpose expects a vector of size ", rank,
                                             ". But input(1) is a vector of size ", perm.size()));
    }
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> axes(rank);
    for (int i = 0; i < rank; ++i) {
      const int64_t d = perm[i] < 0 ? perm[i] + rank : perm[i];
      if (d < 0 || d >= rank) {
        return c->InvalidArgument(absl::StrCat(d, " is out of range [0 .. ", rank, ")"));
      }
      axes[i] = d;
      seen[d] = true;
    }
    for (int i = 0; i < rank; ++i) {
      if (!seen[i]) {
        return c->InvalidArgument(
            absl::StrCat(i, " is missing from {", absl::StrJoin(perm, ","), "}."));
      }
    }

    TensorShape out_shape;
    std::vector<int64_t> src_strides(rank);
    const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape());
    bool keeps_order = true;  // the non-1 dims stay in order
    int64_t last_moved = -1;
    for (int i = 0; i < rank; ++i) {
      out_shape.AddDim(x.dim_size(axes[i]));
      src_strides[i] = in_strides[axes[i]];
      if (x.dim_size(axes[i]) != 1) {
        keeps_order &= axes[i] > last_moved;
        last_moved = axes[i];
      }
    }
    if (keeps_order) {
      TENSORD_ASSIGN_OR_RETURN(Tensor y, x.Reshaped(out_shape));
      c->set_output(0, std::move(y));
      return absl::OkStatus();
    }
    Tensor* y = c->allocate_output(0, x.dtype(), out_shape);
    return array::ExecuteCopyPlan(c, array::DenseOutputPlan(out_shape, src_strides), x, y);
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Transpose").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, TransposeOp);
// On a GPU: the same plan run by the GPU copy engine; perm is read on the host.
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Transpose").HostMemoryInput(1), "T",
                                  array::kNumericAndBoolTypes, TransposeOp);

}  // namespace
}  // namespace tensord
