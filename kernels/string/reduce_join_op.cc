// ReduceJoin(inputs, reduction_indices) [keep_dims, separator]: joins strings along the given
// axes. Like TensorFlow, the strings are joined with the first listed axis varying fastest, so
// [0, 1] on [["a", "b"], ["c", "d"]] gives "acbd" and [1, 0] gives "abcd". No axes: identity.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {
namespace {

class ReduceJoinOp : public OpKernel {
 public:
  explicit ReduceJoinOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("keep_dims", &keep_dims_);
    c->GetAttr("separator", &separator_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 0, DT_STRING));
    TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 1, DT_INT32));
    const Tensor& input = c->input(0);
    const Tensor& axes_t = c->input(1);
    const int rank = input.dims();
    std::vector<int> axes;
    std::vector<bool> reduced(rank, false);
    for (int64_t i = 0; i < axes_t.NumElements(); ++i) {
      const int32_t axis = axes_t.data<int32_t>()[i];
      if (axis < -rank || axis >= rank) {
        return absl::OutOfRangeError(absl::StrCat(c->node_name(), ": Invalid reduction dimension ",
                                                  axis, " for input with ", rank, " dimension(s)"));
      }
      const int a = axis < 0 ? axis + rank : axis;
      if (reduced[a]) {
        return c->InvalidArgument(absl::StrCat("Duplicate reduction dimension ", axis));
      }
      reduced[a] = true;
      axes.push_back(a);
    }

    // Row-major strides of the input, the output shape and the strides of the kept dims.
    std::vector<int64_t> strides(rank);
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= input.dim_size(d);
    }
    TensorShape out_shape;
    std::vector<int> kept;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        kept.push_back(d);
        out_shape.AddDim(input.dim_size(d));
      } else if (keep_dims_) {
        out_shape.AddDim(1);
      }
    }
    int64_t group_size = 1;
    for (int a : axes) group_size *= input.dim_size(a);

    Tensor* output = c->allocate_output(0, DT_STRING, out_shape);
    const std::string* in = input.data<std::string>();
    std::string* out = output->data<std::string>();
    const double cost = group_size * (AverageStringLength(input) + separator_.size() + 10);
    return ParallelForWithStatus(*c, output->NumElements(), cost, [&](int64_t e) {
      // Offset of this output element's first input string.
      int64_t base = 0;
      int64_t rest = e;
      for (int k = static_cast<int>(kept.size()) - 1; k >= 0; --k) {
        const int64_t size = input.dim_size(kept[k]);
        base += (rest % size) * strides[kept[k]];
        rest /= size;
      }
      std::string& joined = out[e];
      for (int64_t g = 0; g < group_size; ++g) {
        int64_t offset = base;
        int64_t digits = g;
        for (int a : axes) {  // first listed axis is the least significant digit
          offset += (digits % input.dim_size(a)) * strides[a];
          digits /= input.dim_size(a);
        }
        if (g > 0) joined += separator_;
        joined += in[offset];
      }
      return absl::OkStatus();
    });
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

TENSORD_REGISTER_KERNEL(KernelDef("ReduceJoin").Device(DeviceType::kCpu).HostMemoryInput(1),
                        ReduceJoinOp);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
