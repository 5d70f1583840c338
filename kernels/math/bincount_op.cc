// DenseBincount(input, size, weights) with attrs Tidx, T and binary_output: per row of a 1-D or
// 2-D `input`, how often each value in [0, size) occurs (or the sum of its weights, or 1 with
// binary_output). Values >= size are ignored and negative values are an error, as in
// TensorFlow's CPU kernel (Keras' CategoryEncoding layer).
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
class DenseBincountOp : public OpKernel {
 public:
  explicit DenseBincountOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("binary_output", &binary_output_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& input = c->input(0);
    const Tensor& weights = c->input(2);
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> size, ReadIndexValues(c, 1, "size"));
    if (c->input(1).dims() != 0 || size.size() != 1) {
      return c->InvalidArgument("size should be a scalar");
    }
    if (size[0] < 0) {
      return c->InvalidArgument(absl::StrCat("size (", size[0], ") must be non-negative"));
    }
    if (input.dims() != 1 && input.dims() != 2) {
      return c->InvalidArgument(absl::StrCat("input must be 1-D or 2-D, got shape ",
                                             input.shape().DebugString()));
    }
    const bool weighted = weights.NumElements() > 0;
    if (weighted) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, 2, DataTypeToEnum<T>::value));
      if (weights.shape() != input.shape()) {
        return c->InvalidArgument(absl::StrCat(
            "Input and weights must have the same shape; got ", input.shape().DebugString(),
            " and ", weights.shape().DebugString()));
      }
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIndexValues(c, 0, "input"));
    const int64_t rows = input.dims() == 2 ? input.dim_size(0) : 1;
    const int64_t cols = rows == 0 ? 0 : static_cast<int64_t>(values.size()) / rows;
    TensorShape out_shape = input.dims() == 2 ? TensorShape({rows, size[0]}) : TensorShape({size[0]});
    Tensor* output = c->allocate_output(0, DataTypeToEnum<T>::value, out_shape);  // zeros
    T* out = output->data<T>();
    const T* w = weighted ? weights.data<T>() : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t i = r * cols + j;
        if (values[i] < 0) return c->InvalidArgument("Input arr must be non-negative!");
        if (values[i] >= size[0]) continue;
        T& bin = out[r * size[0] + values[i]];
        if (binary_output_) {
          bin = T(1);
        } else {
          bin += weighted ? w[i] : T(1);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool binary_output_ = false;
};

#define REGISTER_BINCOUNT(T)                                             \
  TENSORD_REGISTER_KERNEL(KernelDef("DenseBincount")                     \
                              .Device(DeviceType::kCpu)                  \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(1),                       \
                          DenseBincountOp<T>)

REGISTER_BINCOUNT(float);
REGISTER_BINCOUNT(double);
REGISTER_BINCOUNT(int32_t);
REGISTER_BINCOUNT(int64_t);

#undef REGISTER_BINCOUNT

}  // namespace
}  // namespace math
}  // namespace tensord
