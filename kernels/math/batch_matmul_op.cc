// BatchMatMul, BatchMatMulV2, BatchMatMulV3: products of the last two dims with adj_x / adj_y
// (a transpose, for real types). V2 and V3 broadcast the leading batch dims NumPy-style; the
// original BatchMatMul requires equal batch dims. V3 is registered for Ta == Tb == Tout.
#include "kernels/math/matmul_shape.h"
#include "kernels/math/matmul_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T, bool kBroadcast>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("adj_x", &adj_x_);
    c->GetAttr("adj_y", &adj_y_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(
        const BatchMatMulShape shape,
        BatchMatMulShapes(c, DataTypeToEnum<T>::value, adj_x_, adj_y_, kBroadcast));
    Tensor* out = c->allocate_output(0, DataTypeToEnum<T>::value, shape.output);
    if (out->NumElements() == 0) return absl::OkStatus();
    BatchMatMul(c->eigen_cpu_device(), shape.dims, c->input(0).data<T>(), c->input(1).data<T>(),
                out->data<T>(), shape.batches.x_index, shape.batches.y_index);
    return absl::OkStatus();
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define REGISTER_BATCH_MATMUL(T)                                                 \
  TENSORD_REGISTER_KERNEL(KernelDef("BatchMatMul")                               \
                              .Device(DeviceType::kCpu)                          \
                              .TypeConstraint("T", DataTypeToEnum<T>::value),    \
                          BatchMatMulOp<T, false>);                              \
  TENSORD_REGISTER_KERNEL(KernelDef("BatchMatMulV2")                             \
                              .Device(DeviceType::kCpu)                          \
                              .TypeConstraint("T", DataTypeToEnum<T>::value),    \
                          BatchMatMulOp<T, true>);                               \
  TENSORD_REGISTER_KERNEL(KernelDef("BatchMatMulV3")                             \
                              .Device(DeviceType::kCpu)                          \
                              .TypeConstraint("Ta", DataTypeToEnum<T>::value)    \
                              .TypeConstraint("Tb", DataTypeToEnum<T>::value)    \
                              .TypeConstraint("Tout", DataTypeToEnum<T>::value), \
                          BatchMatMulOp<T, true>)

REGISTER_BATCH_MATMUL(float);
REGISTER_BATCH_MATMUL(double);
REGISTER_BATCH_MATMUL(int32_t);
#undef REGISTER_BATCH_MATMUL

}  // namespace
}  // namespace math
}  // namespace tensord
