// Einsum on a GPU (float): the plan of einsum_plan.h carried out with the copy engine's GPU
// kernel, the GPU row sum and one strided batched cuBLAS product. The CPU kernel is in
// einsum_op.cc.
#include <string>

#include "kernels/array/copy_plan.h"
#include "kernels/math/einsum_plan.h"
#include "kernels/math/op_util.h"
#include "kernels/math/reduction_gpu.h"
#include "kernels/nn/window_util.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/gpu_blas.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// `src` laid out by `layout` into `*dest`, or into a new device tensor when `dest` is null.
// Returns the tensor holding the dense values: `src` itself when no copy is needed and `dest`
// is null.
absl::StatusOr<Tensor> Materialize(const OpKernelContext* c, const Tensor& src,
                                   const EinsumLayout& layout, Tensor* dest) {
  if (!layout.copy_needed && dest == nullptr) return src;
  GpuDevice& device = GpuOf(c);
  Tensor made;
  if (dest == nullptr) {
    TENSORD_ASSIGN_OR_RETURN(made, AllocateDeviceTensor(&device, DT_FLOAT, {layout.rows}));
    dest = &made;
  }
  const array::CopyPlan copy = array::DenseOutputPlan(TensorShape(layout.dims), layout.strides);
  if (layout.cols == 1) {
    TENSORD_RETURN_IF_ERROR(array::ExecuteCopyPlan(c, copy, src, dest));
    return *dest;
  }
  // Gathered as [rows, cols], then each row summed.
  TENSORD_ASSIGN_OR_RETURN(Tensor gathered, AllocateDeviceTensor(&device, DT_FLOAT,
                                                                 {layout.rows * layout.cols}));
  TENSORD_RETURN_IF_ERROR(array::ExecuteCopyPlan(c, copy, src, &gathered));
  GpuReduceLayout rows;
  rows.kept_rank = 1;
  rows.kept_sizes[0] = layout.rows;
  rows.kept_strides[0] = layout.cols;
  rows.reduced_rank = 1;
  rows.reduced_sizes[0] = layout.cols;
  rows.reduced_strides[0] = 1;
  rows.outputs = layout.rows;
  rows.count = layout.cols;
  rows.innermost_reduced = true;
  TENSORD_RETURN_IF_ERROR(LaunchStatus(
      c->node_name(), device,
      LaunchGpuReduce(StreamOf(device), GpuReduceFn::kSum, rows, gathered.data<float>(),
                      dest->data<float>())));
  return *dest;
}

class GpuEinsumOp : public OpKernel {
 public:
  explicit GpuEinsumOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("equation", &equation_);
    c->GetAttr("N", &num_inputs_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    for (int i = 0; i < c->num_inputs(); ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DT_FLOAT));
    }
    TENSORD_ASSIGN_OR_RETURN(const EinsumPlan plan, MakeEinsumPlan(c, equation_, num_inputs_));
    Tensor* output = c->allocate_output(0, DT_FLOAT, plan.output_shape);
    if (output->NumElements() == 0) return absl::OkStatus();
    if (plan.num_operands == 1) return Materialize(c, c->input(0), plan.x, output).status();
    GpuDevice& device = GpuOf(c);
    if (plan.dims.k == 0) {  // an empty contraction: every output element is 0
      return WithNodeName(c->node_name(), device.Zero(output->raw_data(), output->TotalBytes()));
    }
    TENSORD_ASSIGN_OR_RETURN(const Tensor x, Materialize(c, c->input(plan.left), plan.x, nullptr));
    TENSORD_ASSIGN_OR_RETURN(const Tensor y,
                             Materialize(c, c->input(1 - plan.left), plan.y, nullptr));
    Tensor* product = output;
    Tensor reordered;
    if (plan.result) {
      TENSORD_ASSIGN_OR_RETURN(
          reordered, AllocateDeviceTensor(&device, DT_FLOAT,
                                          {plan.batches * plan.dims.m * plan.dims.n}));
      product = &reordered;
    }
    GpuGemm gemm;
    gemm.m = plan.dims.m;
    gemm.n = plan.dims.n;
    gemm.k = plan.dims.k;
    gemm.transpose_a = plan.dims.transpose_a;
    gemm.transpose_b = plan.dims.transpose_b;
    gemm.a = x.data<float>();
    gemm.b = y.data<float>();
    gemm.c = product->data<float>();
    gemm.batch = plan.batches;
    gemm.stride_a = plan.dims.m * plan.dims.k;
    gemm.stride_b = plan.dims.k * plan.dims.n;
    gemm.stride_c = plan.dims.m * plan.dims.n;
    TENSORD_RETURN_IF_ERROR(WithNodeName(c->node_name(), GpuSgemm(device, gemm)));
    if (plan.result) return Materialize(c, reordered, *plan.result, output).status();
    return absl::OkStatus();
  }

 private:
  std::string equation_;
  int num_inputs_ = 0;
};

TENSORD_REGISTER_KERNEL(KernelDef("Einsum").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
                        GpuEinsumOp);

}  // namespace
}  // namespace math
}  // namespace tensord
