// Slice(input, begin, size): size[i] == -1 means "to the end of dim i".
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& begin_t = c->input(1);
    const Tensor& sizes_t = c->input(2);
    const int rank = x.dims();
    if (begin_t.dims() != 1 || sizes_t.dims() != 1 || begin_t.NumElements() != rank ||
        sizes_t.NumElements() != rank) {
      return c->InvalidArgument(absl::StrCat(
          "Expected begin and size arguments to be 1-D tensors of size ", rank, ", but got shapes ",
          begin_t.shape().DebugString(), " and ", sizes_t.shape().DebugString(), " instead."));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> begin,
                             array::ReadIndexValues(c, begin_t, "begin"));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> size, array::ReadIndexValues(c, sizes_t, "size"));
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = x.dim_size(i);
      if (begin[i] < 0 || begin[i] > dim) {
        return c->InvalidArgument(
            absl::StrCat("Expected begin[", i, "] in [0, ", dim, "], but got ", begin[i]));
      }
      if (size[i] == -1) size[i] = dim - begin[i];
      if (size[i] < 0 || size[i] > dim - begin[i]) {
        return c->InvalidArgument(
            absl::StrCat("Expected size[", i, "] in [0, ", dim - begin[i], "], but got ", size[i]));
      }
    }
    return array::OutputStridedSlice(c, x, begin, std::vector<int64_t>(rank, 1), size,
                                     TensorShape(size));
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Slice").HostMemoryInput(1).HostMemoryInput(2), "T",
                                  array::kAllValueTypes, SliceOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Slice").HostMemoryInput(1).HostMemoryInput(2), "T",
                                  array::kNumericAndBoolTypes, SliceOp);

}  // namespace
}  // namespace tensord
