// BatchMatMul, BatchMatMulV2 and BatchMatMulV3 on a GPU (float) through cuBLAS: one strided
// batched call where the batch broadcast steps evenly through both operands (equal batches, or
// one side a single matrix), else one call per output matrix. Checks and messages are the CPU
// kernel's (matmul_shape.h).
#include <optional>
#include <vector>

#include "kernels/math/cwise_gpu_op.h"
#include "kernels/math/matmul_shape.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/gpu_blas.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// `step` where index[i] == i * step for every i (0: always the same matrix), else nullopt.
std::optional<int64_t> EvenStep(const std::vector<int64_t>& index) {
  const int64_t step = index.size() > 1 ? index[1] - index[0] : 0;
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] != static_cast<int64_t>(i) * step) return std::nullopt;
  }
  return step;
}

template <bool kBroadcast>
class GpuBatchMatMulOp : public OpKernel {
 public:
  explicit GpuBatchMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("adj_x", &adj_x_);
    c->GetAttr("adj_y", &adj_y_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const BatchMatMulShape shape,
                             BatchMatMulShapes(c, DT_FLOAT, adj_x_, adj_y_, kBroadcast));
    Tensor* out = c->allocate_output_for_overwrite(0, DT_FLOAT, shape.output);
    if (out->NumElements() == 0) return absl::OkStatus();
    GpuDevice& device = GpuOf(c);
    const MatMulDims& dims = shape.dims;
    if (dims.k == 0) {
      return WithNodeName(c->node_name(), device.Zero(out->raw_data(), out->TotalBytes()));
    }
    const std::vector<int64_t>& x_index = shape.batches.x_index;
    const std::vector<int64_t>& y_index = shape.batches.y_index;
    GpuGemm gemm;
    gemm.m = dims.m;
    gemm.n = dims.n;
    gemm.k = dims.k;
    gemm.transpose_a = adj_x_;
    gemm.transpose_b = adj_y_;
    const float* x = c->input(0).data<float>();
    const float* y = c->input(1).data<float>();
    float* z = out->data<float>();
    const int64_t x_size = dims.m * dims.k;
    const int64_t y_size = dims.k * dims.n;
    const int64_t z_size = dims.m * dims.n;
    const std::optional<int64_t> x_step = EvenStep(x_index);
    const std::optional<int64_t> y_step = EvenStep(y_index);
    if (x_step && y_step) {
      gemm.a = x;
      gemm.b = y;
      gemm.c = z;
      gemm.batch = static_cast<int64_t>(x_index.size());
      gemm.stride_a = *x_step * x_size;
      gemm.stride_b = *y_step * y_size;
      gemm.stride_c = z_size;
      return WithNodeName(c->node_name(), GpuSgemm(device, gemm));
    }
    for (size_t i = 0; i < x_index.size(); ++i) {
      gemm.a = x + x_index[i] * x_size;
      gemm.b = y + y_index[i] * y_size;
      gemm.c = z + static_cast<int64_t>(i) * z_size;
      TENSORD_RETURN_IF_ERROR(WithNodeName(c->node_name(), GpuSgemm(device, gemm)));
    }
    return absl::OkStatus();
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

TENSORD_REGISTER_KERNEL(
    KernelDef("BatchMatMul").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
    GpuBatchMatMulOp<false>);
TENSORD_REGISTER_KERNEL(
    KernelDef("BatchMatMulV2").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
    GpuBatchMatMulOp<true>);
TENSORD_REGISTER_KERNEL(KernelDef("BatchMatMulV3")
                            .Device(DeviceType::kGpu)
                            .TypeConstraint("Ta", DT_FLOAT)
                            .TypeConstraint("Tb", DT_FLOAT)
                            .TypeConstraint("Tout", DT_FLOAT),
                        GpuBatchMatMulOp<true>);

}  // namespace
}  // namespace math
}  // namespace tensord
