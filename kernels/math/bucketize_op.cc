// Bucketize(input) with attr boundaries (sorted floats): for each element the number of
// boundaries <= it, as int32 (Keras' Discretization layer).
#include <algorithm>
#include <vector>

#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
class BucketizeOp : public OpKernel {
 public:
  explicit BucketizeOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("boundaries", &boundaries_);
    if (!std::is_sorted(boundaries_.begin(), boundaries_.end())) {
      c->SetError(absl::InvalidArgumentError("Expected sorted boundaries"));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& input = c->input(0);
    Tensor* output = c->allocate_output(0, DT_INT32, input.shape());
    const T* in = input.data<T>();
    int32_t* out = output->data<int32_t>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      const double value = static_cast<double>(in[i]);
      out[i] = static_cast<int32_t>(
          std::upper_bound(boundaries_.begin(), boundaries_.end(), value,
                           [](double v, float b) { return v < static_cast<double>(b); }) -
          boundaries_.begin());
    }
    return absl::OkStatus();
  }

 private:
  std::vector<float> boundaries_;
};

#define REGISTER_BUCKETIZE(T)                                                        \
  TENSORD_REGISTER_KERNEL(                                                           \
      KernelDef("Bucketize").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      BucketizeOp<T>)

REGISTER_BUCKETIZE(float);
REGISTER_BUCKETIZE(double);
REGISTER_BUCKETIZE(int32_t);
REGISTER_BUCKETIZE(int64_t);

#undef REGISTER_BUCKETIZE

}  // namespace
}  // namespace math
}  // namespace tensord
