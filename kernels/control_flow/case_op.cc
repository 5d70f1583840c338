// Case and StatelessCase: run branches[branch_index] on the inputs; an index out of range
// runs the last branch (TensorFlow's default branch).
#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class CaseOp : public OpKernel {
 public:
  explicit CaseOp(OpKernelConstruction* c) : OpKernel(c) {
    auto branches = c->InstantiateFunctions("branches");
    if (!branches.ok()) {
      c->SetError(branches.status());
      return;
    }
    if (branches->empty()) {
      c->SetError(absl::InvalidArgumentError("Case needs at least one branch"));
      return;
    }
    branches_ = *std::move(branches);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& index = c->input(0);
    if (index.dtype() != DT_INT32 || index.dims() != 0) {
      return c->InvalidArgument(absl::StrCat("branch_index must be an int32 scalar, got ",
                                             DataTypeString(index.dtype()), " ",
                                             index.shape().DebugString()));
    }
    int32_t branch = index.scalar<int32_t>();
    if (branch < 0 || branch >= static_cast<int32_t>(branches_.size())) {
      branch = static_cast<int32_t>(branches_.size()) - 1;
    }
    std::vector<Tensor> args;
    for (int i = 1; i < c->num_inputs(); ++i) args.push_back(c->input(i));
    TENSORD_ASSIGN_OR_RETURN(std::vector<Tensor> results, branches_[branch]->Run(c, args));
    for (size_t i = 0; i < results.size(); ++i) {
      c->set_output(static_cast<int>(i), std::move(results[i]));
    }
    return absl::OkStatus();
  }

 private:
  std::vector<std::unique_ptr<Function>> branches_;
};

TENSORD_REGISTER_KERNEL(KernelDef("Case").Device(DeviceType::kCpu).HostMemoryInput(0), CaseOp);
TENSORD_REGISTER_KERNEL(KernelDef("StatelessCase").Device(DeviceType::kCpu).HostMemoryInput(0),
                        CaseOp);

}  // namespace
}  // namespace tensord
