// FunctionPlan: one function of a functional control-flow node (a branch of If or Case, the
// cond or body of While), ready to run any number of times from the node's kernel.
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

class FunctionPlan {
 public:
  // Plans for the graphs the inliner stored for function attr `attr` of the kernel's node: one
  // for a `func` attr, one per function for a list (Case's branches).
  static absl::StatusOr<std::vector<std::unique_ptr<FunctionPlan>>> ForAttr(
      OpKernelConstruction* c, const std::string& attr);

  // Runs the function on `args` with the calling kernel's resources and cancellation. Nested
  // runs execute on the calling thread (a kernel blocking an inter-op thread on work queued
  // behind it could deadlock the pool); kernels inside still use the intra-op threads. Args
  // moved in (a loop's variables from one iteration to the next) let the function reuse their
  // buffers.
  absl::StatusOr<std::vector<Tensor>> Run(OpKernelContext* c, std::vector<Tensor> args) const;

  int num_args() const { return num_args_; }
  int num_results() const { return num_results_; }

 private:
  FunctionPlan() = default;

  ::tensorflow::GraphDef graph_;  // referenced by plan_
  std::unique_ptr<ExecutionPlan> plan_;
  int num_args_ = 0;
  int num_results_ = 0;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_FUNCTION_PLAN_H_
