// BatchMatMul, BatchMatMulV2, BatchMatMulV3: products of the last two dims with adj_x / adj_y
// (a transpose, for real types). V2 and V3 broadcast the leading batch dims NumPy-style; the
// original BatchMatMul requires equal batch dims. V3 is registered for Ta == Tb == Tout.
#include "absl/strings/str_cat.h"
#include "kernels/math/matmul_util.h"
#include "kernels/math/op_util.h"
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
    for (int i = 0; i < 2; ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DataTypeToEnum<T>::value));
      if (c->input(i).dims() < 2) {
        return c->InvalidArgument(
            absl::StrCat("In[", i, "] ndims must be >= 2: ", c->input(i).dims()));
      }
    }
    const Tensor& x = c->input(0);
    const Tensor& y = c->input(1);
    const int xr = x.dims();
    const int yr = y.dims();
    MatMulDims dims;
    dims.transpose_a = adj_x_;
    dims.transpose_b = adj_y_;
    dims.m = x.dim_size(adj_x_ ? xr - 1 : xr - 2);
    dims.k = x.dim_size(adj_x_ ? xr - 2 : xr - 1);
    dims.n = y.dim_size(adj_y_ ? yr - 2 : yr - 1);
    if (y.dim_size(adj_y_ ? yr - 1 : yr - 2) != dims.k) {
      return c->InvalidArgument(
          absl::StrCat("Matrix size-incompatible: In[0]: ", x.shape().DebugString(),
                       ", In[1]: ", y.shape().DebugString()));
    }
    TensorShape x_batch(
        std::vector<int64_t>(x.shape().dim_sizes().begin(), x.shape().dim_sizes().end() - 2));
    TensorShape y_batch(
        std::vector<int64_t>(y.shape().dim_sizes().begin(), y.shape().dim_sizes().end() - 2));
    if (!kBroadcast && x_batch != y_batch) {
      return c->InvalidArgument(absl::StrCat(
          "In[0] and In[1] must have the same batch dimensions: ", x.shape().DebugString(), " vs. ",
          y.shape().DebugString()));
    }
    std::optional<BatchBroadcast> batches = BroadcastBatches(x_batch, y_batch);
    if (!batches) {
      return c->InvalidArgument(absl::StrCat(
          "In[0] and In[1] must have compatible batch dimensions: ", x.shape().DebugString(),
          " vs. ", y.shape().DebugString()));
    }
    TensorShape out_shape = batches->shape;
    out_shape.AddDim(dims.m);
    out_shape.AddDim(dims.n);
    Tensor* out = c->allocate_output(0, x.dtype(), out_shape);
    if (out->NumElements() == 0) return absl::OkStatus();
    BatchMatMul(c->eigen_cpu_device(), dims, x.data<T>(), y.data<T>(), out->data<T>(),
                batches->x_index, batches->y_index);
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
