// GPU kernels (float) of Sum, Mean, Prod, Max, Min and EuclideanNorm; the CPU ones are in
// reduction_ops.cc. The axes stay in host memory.
#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "kernels/math/reduction_gpu.h"
#include "kernels/math/reduction_shape.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// The launch layout of `shape`'s groups; each group's stride is the product of the sizes of
// the groups inside it.
absl::StatusOr<GpuReduceLayout> ToGpuLayout(const OpKernelContext* c,
                                            const ReductionShape& shape) {
  GpuReduceLayout layout;
  layout.outputs = 1;
  layout.count = 1;
  int64_t stride = 1;
  for (auto g = shape.groups.rbegin(); g != shape.groups.rend(); ++g) {
    int& rank = g->reduced ? layout.reduced_rank : layout.kept_rank;
    if (rank == GpuReduceLayout::kMaxRank) {
      return c->InvalidArgument(absl::StrCat("this reduction alternates reduced and kept axes ",
                                             shape.groups.size(), " times; the GPU kernel takes ",
                                             2 * GpuReduceLayout::kMaxRank));
    }
    ++rank;
    (g->reduced ? layout.count : layout.outputs) *= g->size;
    stride *= g->size;
  }
  // Fill outermost first, as the launcher decomposes indices.
  int kept = 0, reduced = 0;
  for (const ReductionShape::Group& g : shape.groups) {
    stride /= g.size;
    if (g.reduced) {
      layout.reduced_sizes[reduced] = g.size;
      layout.reduced_strides[reduced++] = stride;
    } else {
      layout.kept_sizes[kept] = g.size;
      layout.kept_strides[kept++] = stride;
    }
  }
  layout.innermost_reduced = !shape.groups.empty() && shape.groups.back().reduced;
  return layout;
}

template <GpuReduceFn kFn>
class GpuReductionOp : public OpKernel {
 public:
  explicit GpuReductionOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("keep_dims", &keep_dims_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DT_FLOAT));
    const Tensor& input = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(ReductionShape shape,
                             MakeReductionShape(c, input.shape(), keep_dims_));
    if (!shape.reduces_anything() && kFn != GpuReduceFn::kEuclideanNorm) {
      TENSORD_ASSIGN_OR_RETURN(Tensor same, input.Reshaped(shape.output_shape));
      c->set_output(0, std::move(same));
      return absl::OkStatus();
    }
    TENSORD_ASSIGN_OR_RETURN(GpuReduceLayout layout, ToGpuLayout(c, shape));
    Tensor* output = c->allocate_output(0, DT_FLOAT, shape.output_shape);
    GpuDevice& device = GpuOf(c);
    return LaunchStatus(c->node_name(), device,
                        LaunchGpuReduce(StreamOf(device), kFn, layout, input.data<float>(),
                                        output->data<float>()));
  }

 private:
  bool keep_dims_ = false;
};

#define REGISTER_GPU_REDUCTION(OP, FN)                                        \
  TENSORD_REGISTER_KERNEL(KernelDef(OP)                                       \
                              .Device(DeviceType::kGpu)                       \
                              .TypeConstraint("T", DT_FLOAT)                  \
                              .HostMemoryInput(1),                            \
                          GpuReductionOp<GpuReduceFn::FN>)

REGISTER_GPU_REDUCTION("Sum", kSum);
REGISTER_GPU_REDUCTION("Mean", kMean);
REGISTER_GPU_REDUCTION("Prod", kProd);
REGISTER_GPU_REDUCTION("Max", kMax);
REGISTER_GPU_REDUCTION("Min", kMin);
REGISTER_GPU_REDUCTION("EuclideanNorm", kEuclideanNorm);

#undef REGISTER_GPU_REDUCTION

}  // namespace
}  // namespace math
}  // namespace tensord
