// FunctionPlan: the executor's Function (runtime/framework/function.h), one function of a
// functional control-flow node (a branch of If or Case, the cond or body of While), ready to
// run any number of times from the node's kernel.
//
// The function comes flattened from the inliner (see runtime/graph/function_inliner.h): a
// graph whose arguments are Placeholders and whose results are the outputs of one call node.
// The plan is built once, when the kernel is constructed, so an unsupported op inside the
// function fails there, naming the node.
//
// Thread safety: Run may be called concurrently (each call has its own frame).
#ifndef TENSORD_RUNTIME_EXEC_FUNCTION_PLAN_H_
#define TENSORD_RUNTIME_EXEC_FUNCTION_PLAN_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/exec/executor.h"
#include "runtime/framework/op_kernel.h"

namespace tensord {

class FunctionPlan : public Function {
 public:
  // Plans for the graphs the inliner stored for function attr `attr` of the kernel's node: one
  // for a `func` attr, one per function for a list (Case's branches).
  // Their nodes run on `devices` (borrowed; must outlive the plans).
  static absl::StatusOr<std::vector<std::unique_ptr<Function>>> ForAttr(
      OpKernelConstruction* c, const std::string& attr, const DeviceSet& devices);

  absl::StatusOr<std::vector<Tensor>> Run(OpKernelContext* c,
                                          std::vector<Tensor> args) const override;
  int num_args() const override { return num_args_; }
  int num_results() const override { return num_results_; }

 private:
  FunctionPlan() = default;

  ::tensorflow::GraphDef graph_;  // referenced by plan_
  std::unique_ptr<ExecutionPlan> plan_;
  int num_args_ = 0;
  int num_results_ = 0;
};

// The library the executor builds kernels with: a node's function attrs, flattened on the node
// by the inliner, as FunctionPlans whose nodes run on `devices` (borrowed). Stateless beyond
// that; thread-safe.
class FlatFunctionLibrary : public FunctionLibrary {
 public:
  explicit FlatFunctionLibrary(const DeviceSet& devices) : devices_(devices) {}
  absl::StatusOr<std::vector<std::unique_ptr<Function>>> Instantiate(
      OpKernelConstruction* c, const std::string& attr) const override {
    return FunctionPlan::ForAttr(c, attr, devices_);
  }

 private:
  const DeviceSet& devices_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_FUNCTION_PLAN_H_
