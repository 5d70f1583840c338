#include "runtime/exec/function_plan.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/tensor_name.h"
#include "runtime/util/status_macros.h"

namespace tensord {

absl::StatusOr<std::vector<std::unique_ptr<Function>>> FunctionPlan::ForAttr(
    OpKernelConstruction* c, const std::string& attr, const DeviceSet& devices) {
  const auto& attrs = c->node_def().attr();
  auto error = attrs.find(FlatFunctionErrorAttr(attr));
  if (error != attrs.end()) {
    return absl::InvalidArgumentError(absl::StrCat("node '", c->name(), "' (", c->op(),
                                                   "): ", error->second.s()));
  }
  auto it = attrs.find(FlatFunctionAttr(attr));
  if (it == attrs.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node '", c->name(), "' (", c->op(), ") has no flattened function for attr '", attr,
        "'; the graph must go through function inlining first"));
  }
  std::vector<std::string> graphs;
  if (it->second.has_list()) {
    graphs.assign(it->second.list().s().begin(), it->second.list().s().end());
  } else {
    graphs.push_back(it->second.s());
  }
  std::vector<std::unique_ptr<Function>> plans;
  for (const std::string& bytes : graphs) {
    auto plan = std::unique_ptr<FunctionPlan>(new FunctionPlan());
    if (!plan->graph_.ParseFromString(bytes)) {
      return absl::InvalidArgumentError(absl::StrCat("node '", c->name(), "': attr '",
                                                     FlatFunctionAttr(attr),
                                                     "' is not a serialized GraphDef"));
    }
    std::set<std::string> names;
    const ::tensorflow::NodeDef* call = nullptr;
    for (const auto& node : plan->graph_.node()) {
      names.insert(node.name());
      if (node.name() == FunctionCallName()) call = &node;
    }
    if (call == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("node '", c->name(), "': flattened function '",
                                                     attr, "' has no call node"));
    }
    std::vector<std::string> feeds;
    while (names.count(FunctionArgName(plan->num_args_))) {
      feeds.push_back(FunctionArgName(plan->num_args_++) + ":0");
    }
    std::vector<std::string> fetches;
    if (call->op() == "IdentityN") {
      for (const std::string& in : call->input()) {
        if (!ParseTensorRef(in).is_control()) {
          fetches.push_back(absl::StrCat(FunctionCallName(), ":", plan->num_results_++));
        }
      }
    }
    auto built = ExecutionPlan::Build(plan->graph_, feeds, fetches, {FunctionCallName()},
                                      devices);
    if (!built.ok()) {
      return absl::Status(built.status().code(),
                          absl::StrCat("in function '", attr, "' of node '", c->name(), "': ",
                                       built.status().message()));
    }
    plan->plan_ = *std::move(built);
    plans.push_back(std::move(plan));
  }
  return plans;
}

absl::StatusOr<std::vector<Tensor>> FunctionPlan::Run(OpKernelContext* c,
                                                      std::vector<Tensor> args) const {
  if (c->execution_env() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("node '", c->node_name(), "' runs functions, which needs an executor"));
  }
  if (static_cast<int>(args.size()) != num_args_) {
    return absl::InvalidArgumentError(absl::StrCat("node '", c->node_name(), "' passes ",
                                                   args.size(), " arguments to a function of ",
                                                   num_args_));
  }
  ExecutionEnv env = *c->execution_env();
  env.inter_op_pool = nullptr;
  std::vector<Tensor> results;
  TENSORD_RETURN_IF_ERROR(plan_->Run(env, std::move(args), &results, c->cancellation()));
  return results;
}

}  // namespace tensord
