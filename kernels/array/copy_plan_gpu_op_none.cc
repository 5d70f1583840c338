// copy_plan_gpu_op.h in builds without CUDA, which have no GPU device for a kernel to run on.
#include "absl/strings/str_cat.h"
#include "kernels/array/copy_plan_gpu_op.h"

namespace tensord {
namespace array {

absl::Status ExecuteCopyPlanOnGpu(const OpKernelContext* c, const CopyPlan&, const Tensor&,
                                  Tensor*) {
  return absl::InternalError(absl::StrCat(c->node_name(), ": this build has no CUDA"));
}

absl::Status FillTensorOnGpu(const OpKernelContext* c, const Tensor&, Tensor*) {
  return absl::InternalError(absl::StrCat(c->node_name(), ": this build has no CUDA"));
}

}  // namespace array
}  // namespace tensord
