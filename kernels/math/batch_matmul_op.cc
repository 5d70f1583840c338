// BatchMatMul, BatchMatMulV2, BatchMatMulV3: products of the last two dims with adj_x / adj_y
// (a transpose, for real types). V2 and V3 broadcast the leading batch dims NumPy-style; the
// original BatchMatMul requires equal batch dims. V3 is registered for Ta == Tb == Tout.
// Float products of a batch of x against one matrix y (a Dense layer over a sequence, as Keras
// writes it: [batch, seq, in] x [in, out]) are one product of every row of x against y, run
// by OneDnnMatMul (y packed once per buffer, so constant weights are packed once), in the
// precision the load marked the node for. Float batches against batches of equal batch dims
// (attention's products) run as oneDNN's batched matmul in float32; the rest (broadcast
// batches, other types) as Eigen GEMMs.
#include <type_traits>

#include "kernels/nn/conv_fusion.h"
#include "kernels/nn/onednn_batch_matmul.h"
#include "kernels/nn/onednn_matmul.h"
#include "kernels/nn/onednn_util.h"
#include "kernels/nn/window_util.h"
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
  explicit BatchMatMulOp(OpKernelConstruction* c)
      : OpKernel(c), matmul_(OneDnnOptionsFromAttrs(c)) {
    c->GetAttr("adj_x", &adj_x_);
    c->GetAttr("adj_y", &adj_y_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(
        const BatchMatMulShape shape,
        BatchMatMulShapes(c, DataTypeToEnum<T>::value, adj_x_, adj_y_, kBroadcast));
    if constexpr (std::is_same_v<T, float>) {
      const bool one_product = IsOneProduct(shape);
      if (one_product || IsBatchAgainstBatch(shape)) {
        // Every element is written by the product (k > 0).
        Tensor* out = c->allocate_output_for_overwrite(0, DT_FLOAT, shape.output);
        if (out->NumElements() == 0) return absl::OkStatus();
        if (one_product) return RunAsOneProduct(c, shape.dims, out);
        return RunBatched(c, shape.dims, static_cast<int64_t>(shape.batches.x_index.size()),
                          out);
      }
    }
    Tensor* out = c->allocate_output(0, DataTypeToEnum<T>::value, shape.output);
    if (out->NumElements() == 0) return absl::OkStatus();
    BatchMatMul(c->eigen_cpu_device(), shape.dims, c->input(0).data<T>(), c->input(1).data<T>(),
                out->data<T>(), shape.batches.x_index, shape.batches.y_index);
    return absl::OkStatus();
  }

 private:
  // Every output matrix multiplies the next x matrix by the same y matrix, with x's rows in
  // place (no adj_x): the batch is one [batches * m, k] x [k, n] product.
  bool IsOneProduct(const BatchMatMulShape& shape) const {
    const std::vector<int64_t>& xs = shape.batches.x_index;
    const std::vector<int64_t>& ys = shape.batches.y_index;
    // (Every output taking y's matrix 0 means y's batch dims are all 1: y is that matrix.)
    if (adj_x_ || shape.dims.k == 0) return false;  // (oneDNN rejects an empty inner dim)
    for (size_t i = 0; i < xs.size(); ++i) {
      if (xs[i] != static_cast<int64_t>(i) || ys[i] != 0) return false;
    }
    return true;
  }

  // Output matrix i multiplies x's matrix i by y's matrix i (no broadcasting), over a
  // non-empty inner dimension.
  bool IsBatchAgainstBatch(const BatchMatMulShape& shape) const {
    const std::vector<int64_t>& xs = shape.batches.x_index;
    const std::vector<int64_t>& ys = shape.batches.y_index;
    if (shape.dims.k == 0) return false;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (xs[i] != static_cast<int64_t>(i) || ys[i] != static_cast<int64_t>(i)) return false;
    }
    return true;
  }

  absl::Status RunBatched(OpKernelContext* c, const MatMulDims& dims, int64_t batches,
                          Tensor* out) const {
    BatchMatMulOperands p;
    p.batches = batches;
    p.rows = dims.m;
    p.inner = dims.k;
    p.columns = dims.n;
    p.a_transposed = adj_x_;
    p.b_transposed = adj_y_;
    p.a = c->input(0).data<float>();
    p.b = c->input(1).data<float>();
    p.c = out->data<float>();
    return batched_.Compute(c, p);
  }

  absl::Status RunAsOneProduct(OpKernelContext* c, const MatMulDims& dims, Tensor* out) const {
    MatMulOperands m;
    m.rows = static_cast<int64_t>(out->NumElements() / dims.n);  // not empty: n > 0
    m.inner = dims.k;
    m.columns = dims.n;
    m.a = c->input(0).data<float>();
    m.b = &c->input(1);
    m.b_transposed = adj_y_;
    m.c = out->data<float>();
    const onednn::RunningScope running;
    const absl::Status s = matmul_.Run(
        m, onednn::FreeThreads(c->eigen_cpu_device(), running.running()), c->eigen_cpu_device());
    return s.ok() ? s : WithNodeName(c->node_name(), s);
  }

  bool adj_x_ = false;
  bool adj_y_ = false;
  const OneDnnMatMul matmul_;  // its options' precision: the node's
  const OneDnnBatchMatMul batched_{OneDnnConvOptions()};  // float32: products of activations
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
