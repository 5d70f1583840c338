#include "runtime/saved_model/serving_optimizer.h"

#include <deque>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/graph/tensor_name.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;

// Ops that modify the variable (or table) behind their first input.
const std::set<std::string>& WriterOps() {
  static const auto* ops = new std::set<std::string>{
      "Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "AssignAddVariableOp",
      "AssignSubVariableOp", "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul",
      "ScatterDiv", "ScatterMin", "ScatterMax", "ScatterNdUpdate", "ScatterNdAdd",
      "ResourceScatterUpdate", "ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul",
      "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax", "ResourceScatterNdUpdate",
      "ResourceScatterNdAdd", "DestroyResourceOp"};
  return *ops;
}

// Ops that must never be folded even when their inputs are constant.
bool NeverFold(const NodeDef& node) {
  static const auto* ops = new std::set<std::string>{
      "Placeholder", "PlaceholderWithDefault", "Const", "NoOp", "VarHandleOp", "VariableV2",
      "Variable", "_Constant"};
  return ops->count(node.op()) > 0;
}

class Optimizer {
 public:
  Optimizer(const GraphDef& graph, const OpRegistry& ops, Session* session,
            const ServingOptimizerOptions& options)
      : graph_(graph), ops_(ops), session_(session), options_(options) {
    for (int i = 0; i < graph.node_size(); ++i) by_name_[graph.node(i).name()] = i;
  }

  absl::StatusOr<ServingOptimization> Run(const std::vector<SignatureIo>& signatures) {
    for (const SignatureIo& sig : signatures) AddClosure(sig);
    FindWrittenVariables();
    TENSORD_RETURN_IF_ERROR(FreezeVariables());
    TENSORD_RETURN_IF_ERROR(FoldConstants());
    return std::move(result_);
  }

 private:
  const NodeDef* Find(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &graph_.node(it->second);
  }

  // Backward closure of the signature's fetches, cut at its feeds.
  void AddClosure(const SignatureIo& sig) {
    std::set<std::string> feeds;
    for (const auto& f : sig.feeds) {
      feeds.insert(ParseTensorRef(f).ToString());
      fed_.insert(ParseTensorRef(f).ToString());
    }
    std::deque<const NodeDef*> queue;
    std::set<const NodeDef*> seen;
    for (const auto& f : sig.fetches) {
      if (feeds.count(ParseTensorRef(f).ToString())) continue;
      if (const NodeDef* n = Find(ParseTensorRef(f).node)) queue.push_back(n);
    }
    while (!queue.empty()) {
      const NodeDef* node = queue.front();
      queue.pop_front();
      if (!seen.insert(node).second) continue;
      closure_.insert(node->name());
      for (const auto& in : node->input()) {
        TensorRef ref = ParseTensorRef(in);
        if (!ref.is_control() && feeds.count(ref.ToString())) continue;
        if (const NodeDef* n = Find(ref.node)) queue.push_back(n);
      }
    }
  }

  // The node a resource or ref input really comes from, looking through Identity.
  const NodeDef* Source(const std::string& input) const {
    const NodeDef* node = Find(ParseTensorRef(input).node);
    while (node != nullptr && (node->op() == "Identity" || node->op() == "IdentityN")) {
      const int index = node->op() == "IdentityN" ? ParseTensorRef(input).index : 0;
      if (index >= node->input_size()) return node;
      node = Find(ParseTensorRef(node->input(index)).node);
    }
    return node;
  }

  // Variables that must stay variables: written by a signature, or passed to a kernel that
  // takes a reference input.
  void FindWrittenVariables() {
    for (const std::string& name : closure_) {
      const NodeDef* node = Find(name);
      if (WriterOps().count(node->op()) && node->input_size() > 0) {
        if (const NodeDef* var = Source(node->input(0))) written_.insert(var->name());
      }
      auto reg = KernelRegistry::Global().Find(*node, DeviceType::kCpu);
      if (!reg.ok()) continue;
      for (int i : (*reg)->def.ref_inputs()) {
        if (i >= node->input_size()) continue;
        if (const NodeDef* var = Source(node->input(i))) written_.insert(var->name());
      }
    }
  }

  absl::Status FreezeVariables() {
    for (const std::string& name : closure_) {
      const NodeDef* node = Find(name);
      const NodeDef* var = nullptr;
      if (node->op() == "VariableV2" || node->op() == "Variable") {
        var = node;
      } else if (node->op() == "ReadVariableOp" && node->input_size() > 0) {
        var = Source(node->input(0));
        if (var == nullptr || var->op() != "VarHandleOp") continue;
      } else {
        continue;
      }
      if (written_.count(var->name())) continue;
      std::vector<Tensor> out;
      if (!session_->Run({}, {var->name() + ":0"}, {}, &out).ok()) continue;
      Tensor value = out[0];
      if (value.dtype() == DT_RESOURCE) {
        auto v = std::dynamic_pointer_cast<Var>(value.scalar<ResourceHandle>().resource());
        if (v == nullptr) continue;
        auto read = v->Read(var->name());
        if (!read.ok()) continue;  // uninitialized: leave it to fail at run time as TF does
        value = *read;
      }
      result_.constants->emplace(name, std::vector<Tensor>{value});
      ++result_.frozen_variables;
    }
    return absl::OkStatus();
  }

  bool IsConstantValued(const NodeDef& node) const {
    return node.op() == "Const" || result_.constants->count(node.name()) > 0;
  }

  absl::Status FoldConstants() {
    // Topological order over the closure (Kahn), so inputs are decided before consumers.
    std::map<std::string, int> pending;
    std::map<std::string, std::vector<std::string>> consumers;
    for (const std::string& name : closure_) {
      const NodeDef* node = Find(name);
      int count = 0;
      for (const auto& in : node->input()) {
        const std::string producer = ParseTensorRef(in).node;
        if (closure_.count(producer)) {
          consumers[producer].push_back(name);
          ++count;
        }
      }
      pending[name] = count;
    }
    std::deque<std::string> ready;
    for (const auto& [name, count] : pending) {
      if (count == 0) ready.push_back(name);
    }
    while (!ready.empty()) {
      const std::string name = ready.front();
      ready.pop_front();
      TENSORD_RETURN_IF_ERROR(MaybeFold(*Find(name)));
      for (const std::string& c : consumers[name]) {
        if (--pending[c] == 0) ready.push_back(c);
      }
    }
    return absl::OkStatus();
  }

  absl::Status MaybeFold(const NodeDef& node) {
    if (NeverFold(node) || IsConstantValued(node) || node.input_size() == 0) return absl::OkStatus();
    const ::tensorflow::OpDef* def = ops_.Find(node.op());
    if (def == nullptr || def->is_stateful()) return absl::OkStatus();
    auto num_outputs = ops_.NumOutputs(node);
    if (!num_outputs.ok() || *num_outputs == 0) return absl::OkStatus();
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (const auto& in : node.input()) {
      TensorRef ref = ParseTensorRef(in);
      const NodeDef* producer = Find(ref.node);
      if (producer == nullptr || !IsConstantValued(*producer)) return absl::OkStatus();
      if (ref.is_control()) continue;
      auto table = result_.constants->find(producer->name());
      if (table != result_.constants->end()) {
        if (ref.index >= static_cast<int>(table->second.size())) return absl::OkStatus();
        feeds.emplace_back(ref.ToString(), table->second[ref.index]);
      }
    }
    std::vector<std::string> fetches;
    for (int i = 0; i < *num_outputs; ++i) {
      const std::string tensor = absl::StrCat(node.name(), ":", i);
      if (fed_.count(tensor)) return absl::OkStatus();
      fetches.push_back(tensor);
    }
    // Duplicate feeds (the same tensor used twice) are fed once.
    std::map<std::string, Tensor> unique(feeds.begin(), feeds.end());
    std::vector<Tensor> values;
    if (!session_->Run({unique.begin(), unique.end()}, fetches, {}, &values).ok()) {
      return absl::OkStatus();  // the error will surface (with context) when a request runs it
    }
    for (const Tensor& v : values) {
      if (v.NumElements() > options_.max_folded_elements || v.dtype() == DT_RESOURCE) {
        return absl::OkStatus();
      }
    }
    result_.constants->emplace(node.name(), std::move(values));
    ++result_.folded_nodes;
    return absl::OkStatus();
  }

  const GraphDef& graph_;
  const OpRegistry& ops_;
  Session* session_;
  const ServingOptimizerOptions options_;
  std::map<std::string, int> by_name_;
  std::set<std::string> closure_;
  std::set<std::string> fed_;
  std::set<std::string> written_;
  ServingOptimization result_;
};

}  // namespace

absl::StatusOr<ServingOptimization> OptimizeForServing(const GraphDef& graph,
                                                       const std::vector<SignatureIo>& signatures,
                                                       const OpRegistry& ops, Session* session,
                                                       const ServingOptimizerOptions& options) {
  return Optimizer(graph, ops, session, options).Run(signatures);
}

}  // namespace tensord
