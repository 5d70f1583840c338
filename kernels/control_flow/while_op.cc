// While and StatelessWhile: run `body` on the loop variables while `cond` of them is true.
// The loop variables may change shape between iterations, as in TensorFlow; each iteration
// checks the run's deadline and cancellation, so a runaway loop ends with the request.
#include "absl/strings/str_cat.h"
#include "kernels/control_flow/predicate.h"
#include "runtime/framework/cancellation.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class WhileOp : public OpKernel {
 public:
  explicit WhileOp(OpKernelConstruction* c) : OpKernel(c) {
    auto cond = c->InstantiateFunctions("cond");
    auto body = c->InstantiateFunctions("body");
    if (!cond.ok() || !body.ok()) {
      c->SetError(!cond.ok() ? cond.status() : body.status());
      return;
    }
    if (cond->size() != 1 || body->size() != 1) {
      c->SetError(absl::InvalidArgumentError("cond and body must each be one function"));
      return;
    }
    cond_ = std::move((*cond)[0]);
    body_ = std::move((*body)[0]);
    if (cond_->num_results() != 1 || body_->num_results() != body_->num_args() ||
        cond_->num_args() != body_->num_args()) {
      c->SetError(absl::InvalidArgumentError(absl::StrCat(
          "cond takes ", cond_->num_args(), " and returns ", cond_->num_results(),
          " values, body takes ", body_->num_args(), " and returns ", body_->num_results(),
          "; expected one loop variable list and one predicate")));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    std::vector<Tensor> vars;
    for (int i = 0; i < c->num_inputs(); ++i) vars.push_back(c->input(i));
    if (static_cast<int>(vars.size()) != body_->num_args()) {
      return c->InvalidArgument(absl::StrCat("has ", vars.size(), " loop variables; body takes ",
                                             body_->num_args()));
    }
    while (true) {
      if (c->cancellation() != nullptr) TENSORD_RETURN_IF_ERROR(c->cancellation()->Check());
      TENSORD_ASSIGN_OR_RETURN(std::vector<Tensor> pred, cond_->Run(c, vars));
      absl::StatusOr<bool> go = PredicateValue(pred[0]);
      if (!go.ok()) return c->InvalidArgument(absl::StrCat("loop condition: ", go.status().message()));
      if (!*go) break;
      TENSORD_ASSIGN_OR_RETURN(vars, body_->Run(c, std::move(vars)));
    }
    for (size_t i = 0; i < vars.size(); ++i) c->set_output(static_cast<int>(i), std::move(vars[i]));
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<Function> cond_;
  std::unique_ptr<Function> body_;
};

TENSORD_REGISTER_KERNEL(KernelDef("While").Device(DeviceType::kCpu), WhileOp);
TENSORD_REGISTER_KERNEL(KernelDef("StatelessWhile").Device(DeviceType::kCpu), WhileOp);

}  // namespace
}  // namespace tensord
