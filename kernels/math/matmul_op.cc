// MatMul(a, b) with transpose_a / transpose_b: a 2-D product on the intra-op thread pool.
#include "absl/strings/str_cat.h"
#include "kernels/math/matmul_util.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("transpose_a", &transpose_a_);
    c->GetAttr("transpose_b", &transpose_b_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    for (int i = 0; i < 2; ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DataTypeToEnum<T>::value));
      if (c->input(i).dims() != 2) {
        return c->InvalidArgument(absl::StrCat("In[", i, "] is not a matrix. Instead it has shape ",
                                               c->input(i).shape().DebugString()));
      }
    }
    const Tensor& a = c->input(0);
    const Tensor& b = c->input(1);
    MatMulDims dims;
    dims.transpose_a = transpose_a_;
    dims.transpose_b = transpose_b_;
    dims.m = a.dim_size(transpose_a_ ? 1 : 0);
    dims.k = a.dim_size(transpose_a_ ? 0 : 1);
    dims.n = b.dim_size(transpose_b_ ? 0 : 1);
    if (b.dim_size(transpose_b_ ? 1 : 0) != dims.k) {
      return c->InvalidArgument(
          absl::StrCat("Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
                       ", In[1]: ", b.shape().DebugString()));
    }
    Tensor* out = c->allocate_output(0, a.dtype(), TensorShape{dims.m, dims.n});
    MatMulThreaded(c->eigen_cpu_device(), dims, a.data<T>(), b.data<T>(), out->data<T>());
    return absl::OkStatus();
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

#define REGISTER_MATMUL(T)                                                                        \
  TENSORD_REGISTER_KERNEL(                                                                        \
      KernelDef("MatMul").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      MatMulOp<T>)

REGISTER_MATMUL(float);
REGISTER_MATMUL(double);
REGISTER_MATMUL(int32_t);
#undef REGISTER_MATMUL

}  // namespace
}  // namespace math
}  // namespace tensord
