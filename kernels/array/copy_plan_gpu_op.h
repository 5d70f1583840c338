// The GPU side of copy_plan.h: ExecuteCopyPlan and FillTensor call these when their kernel runs
// on a GPU. In builds without CUDA no kernel ever runs on a GPU, and the stand-ins of
// copy_plan_gpu_op_none.cc only report that.
#ifndef TENSORD_KERNELS_ARRAY_COPY_PLAN_GPU_OP_H_
#define TENSORD_KERNELS_ARRAY_COPY_PLAN_GPU_OP_H_

#include "absl/status/status.h"
#include "kernels/array/copy_plan.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"

namespace tensord {
namespace array {

// `plan` from src into dst, both in the memory of the kernel's GPU, as one kernel queued on its
// stream (tabled offsets are copied to the device first). INVALID_ARGUMENT naming the node
// when the merged plan has more loops than the GPU engine takes (GpuCopyLoops::kMaxRank).
absl::Status ExecuteCopyPlanOnGpu(const OpKernelContext* c, const CopyPlan& plan,
                                  const Tensor& src, Tensor* dst);

// Every element of dst (the kernel's GPU's memory) set to `value`, a host scalar.
absl::Status FillTensorOnGpu(const OpKernelContext* c, const Tensor& value, Tensor* dst);

}  // namespace array
}  // namespace tensord

#endif  // TENSORD_KERNELS_ARRAY_COPY_PLAN_GPU_OP_H_
