// If and StatelessIf: run `then_branch` or `else_branch` on the inputs after the predicate.
// Only the chosen branch runs, so ops of the other one (and their errors) never execute.
#include "absl/strings/str_cat.h"
#include "kernels/control_flow/predicate.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class IfOp : public OpKernel {
 public:
  explicit IfOp(OpKernelConstruction* c) : OpKernel(c) {
    auto then_branch = c->InstantiateFunctions("then_branch");
    auto else_branch = c->InstantiateFunctions("else_branch");
    if (!then_branch.ok() || !else_branch.ok()) {
      c->SetError(!then_branch.ok() ? then_branch.status() : else_branch.status());
      return;
    }
    then_ = std::move(then_branch->at(0));
    else_ = std::move(else_branch->at(0));
  }

  absl::Status Compute(OpKernelContext* c) const override {
    absl::StatusOr<bool> pred = PredicateValue(c->input(0));
    if (!pred.ok()) return c->InvalidArgument(absl::StrCat("cond: ", pred.status().message()));
    std::vector<Tensor> args;
    for (int i = 1; i < c->num_inputs(); ++i) args.push_back(c->input(i));
    TENSORD_ASSIGN_OR_RETURN(std::vector<Tensor> results, (*pred ? then_ : else_)->Run(c, args));
    for (size_t i = 0; i < results.size(); ++i) {
      c->set_output(static_cast<int>(i), std::move(results[i]));
    }
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<Function> then_;
  std::unique_ptr<Function> else_;
};

TENSORD_REGISTER_KERNEL(KernelDef("If").Device(DeviceType::kCpu).HostMemoryInput(0), IfOp);
TENSORD_REGISTER_KERNEL(KernelDef("StatelessIf").Device(DeviceType::kCpu).HostMemoryInput(0),
                        IfOp);

}  // namespace
}  // namespace tensord
