// MatMul(a, b) with transpose_a / transpose_b. Float goes through oneDNN's matmul
// (kernels/nn/onednn_matmul.h: b reordered once per buffer, so constant weights are packed once;
// split by rows or, for few rows, by b's columns), as does _FusedMatMul — MatMul + BiasAdd
// [+ Add(residual)] [+ activation], made by the load-time pass — with the rest fused into the
// same pass over the output. Double and int32 use an Eigen contraction.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/matmul_shape.h"
#include "kernels/math/matmul_util.h"
#include "kernels/math/op_util.h"
#include "kernels/nn/conv_fusion.h"
#include "kernels/nn/onednn_matmul.h"
#include "kernels/nn/onednn_util.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/tensor_eigen.h"
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
    TENSORD_ASSIGN_OR_RETURN(const MatMulDims dims,
                             MatMulProductDims(c, DataTypeToEnum<T>::value, transpose_a_, transpose_b_));
    Tensor* out = c->allocate_output(0, DataTypeToEnum<T>::value, TensorShape{dims.m, dims.n});
    MatMulThreaded(c->eigen_cpu_device(), dims, c->input(0).data<T>(), c->input(1).data<T>(),
                   out->data<T>());
    return absl::OkStatus();
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

class OneDnnMatMulOp : public OpKernel {
 public:
  explicit OneDnnMatMulOp(OpKernelConstruction* c)
      : OpKernel(c), options_(OneDnnOptionsFromAttrs(c)), matmul_(options_) {
    c->GetAttr("transpose_a", &transpose_a_);
    c->GetAttr("transpose_b", &transpose_b_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const MatMulDims dims,
                             MatMulProductDims(c, DT_FLOAT, transpose_a_, transpose_b_));
    if (c->num_inputs() < (options_.add_residual ? 4 : options_.bias ? 3 : 2)) {
      return c->InvalidArgument("has fewer inputs than its fused_ops need");
    }
    const TensorShape shape{dims.m, dims.n};
    const Tensor* bias = options_.bias ? &c->input(2) : nullptr;
    if (bias != nullptr && (bias->dtype() != DT_FLOAT || bias->dims() != 1 ||
                            bias->dim_size(0) != dims.n)) {
      return c->InvalidArgument(absl::StrCat("bias must be a float vector of ", dims.n,
                                             " values, got ", bias->shape().DebugString()));
    }
    // The residual, when it has the product's shape, is the starting point the product is
    // summed into (its own buffer where this is its last reader); a broadcast one is added
    // after the product.
    const Tensor* residual = options_.add_residual ? &c->input(3) : nullptr;
    if (residual != nullptr && residual->dtype() != DT_FLOAT) {
      return c->InvalidArgument("the residual to add must be a float tensor");
    }
    const bool fused_epilogue = residual == nullptr || residual->shape() == shape;
    Tensor* out = residual != nullptr && fused_epilogue
                      ? c->forward_input_or_allocate_output({3}, 0, DT_FLOAT, shape)
                      : c->allocate_output_for_overwrite(0, DT_FLOAT, shape);
    if (!fused_epilogue) {
      TENSORD_RETURN_IF_ERROR(WithNodeName(c->node_name(), CheckBroadcastable(*residual, *out)));
    } else if (residual != nullptr && out->raw_data() != residual->raw_data()) {
      std::copy_n(residual->data<float>(), residual->NumElements(), out->data<float>());
    }
    if (dims.m == 0 || dims.n == 0) return absl::OkStatus();
    if (dims.m * dims.k * dims.n <= kMaxSmallProduct) {
      SmallProduct(c, dims, bias, fused_epilogue, out);
      if (!fused_epilogue) AddBroadcastAndActivate(options_, *residual, out);
      return absl::OkStatus();
    }
    MatMulOperands m;
    m.rows = dims.m;
    m.inner = dims.k;
    m.columns = dims.n;
    const float* a = c->input(0).data<float>();
    if (transpose_a_) {
      m.fill_rows = [a, rows = dims.m, inner = dims.k](int64_t first, int64_t end, float* to) {
        for (int64_t i = first; i < end; ++i) {
          for (int64_t p = 0; p < inner; ++p) *to++ = a[p * rows + i];
        }
      };
    } else {
      m.a = a;
    }
    m.b = &c->input(1);
    m.b_transposed = transpose_b_;
    m.bias = bias != nullptr ? bias->data<float>() : nullptr;
    m.epilogue = fused_epilogue;
    m.c = out->data<float>();
    const onednn::RunningScope running;
    const absl::Status s = matmul_.Run(
        m, onednn::FreeThreads(c->eigen_cpu_device(), running.running()), c->eigen_cpu_device());
    if (!s.ok()) return WithNodeName(c->node_name(), s);
    if (!fused_epilogue) AddBroadcastAndActivate(options_, *residual, out);
    return absl::OkStatus();
  }

 private:
  // Up to this many multiply-adds (a microsecond or less) a product skips oneDNN, whose
  // per-call setup would cost more than the arithmetic (tiny MLPs).
  static constexpr int64_t kMaxSmallProduct = int64_t{1} << 15;

  // The product on the calling thread, then bias [+ the residual out holds] and activation
  // element by element (only bias without `epilogue`: the caller finishes). The product goes
  // straight into out unless out holds the residual to add.
  void SmallProduct(OpKernelContext* c, const MatMulDims& dims, const Tensor* bias,
                    bool epilogue, Tensor* out) const {
    const bool sum_into_out = epilogue && options_.add_residual;
    std::vector<float> separate(sum_into_out ? out->NumElements() : 0);
    float* y = out->data<float>();
    float* product = sum_into_out ? separate.data() : y;
    MatMulSingleThread(dims, c->input(0).data<float>(), c->input(1).data<float>(), product);
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      float v = product[i] + (bias != nullptr ? bias->data<float>()[i % dims.n] : 0.0f);
      if (epilogue) v = Activate(options_, (sum_into_out ? y[i] : 0.0f) + v);
      y[i] = v;
    }
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
  const OneDnnConvOptions options_;
  const OneDnnMatMul matmul_;
};

#define REGISTER_MATMUL(T)                                                                        \
  TENSORD_REGISTER_KERNEL(                                                                        \
      KernelDef("MatMul").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      MatMulOp<T>)

REGISTER_MATMUL(double);
REGISTER_MATMUL(int32_t);
#undef REGISTER_MATMUL

TENSORD_REGISTER_KERNEL(KernelDef("MatMul").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
                        OneDnnMatMulOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("_FusedMatMul").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
    OneDnnMatMulOp);

}  // namespace
}  // namespace math
}  // namespace tensord
