// Where(input) -> int64 [num_true, rank]: row-major coordinates of the non-zero / true elements.
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "runtime/framework/dispatch_numeric.h"

namespace tensord {
namespace {

class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const int rank = x.dims();
    if (rank == 0) {
      return c->InvalidArgument("WhereOp : Unhandled input dimensions: 0");
    }
    std::vector<int64_t> hits;  // flat positions
    const bool handled = DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* data = x.data<T>();
      const T zero = T(0);
      for (int64_t i = 0, n = x.NumElements(); i < n; ++i) {
        if (data[i] != zero) hits.push_back(i);  // NaN counts as true, -0.0 does not
      }
    });
    if (!handled) {
      return c->InvalidArgument("unsupported dtype " + DataTypeString(x.dtype()));
    }
    const int64_t count = static_cast<int64_t>(hits.size());
    Tensor* out = c->allocate_output(0, DT_INT64, TensorShape{count, rank});
    int64_t* coords = out->data<int64_t>();
    for (int64_t h = 0; h < count; ++h) {
      int64_t flat = hits[h];
      for (int d = rank - 1; d >= 0; --d) {
        coords[h * rank + d] = flat % x.dim_size(d);
        flat /= x.dim_size(d);
      }
    }
    return absl::OkStatus();
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Where"), "T", array::kNumericAndBoolTypes,
                                  WhereOp);

}  // namespace
}  // namespace tensord
