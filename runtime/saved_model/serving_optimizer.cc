#include "runtime/saved_model/serving_optimizer.h"

#include <deque>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/framework/tensor_proto.h"
#include "runtime/graph/function_inliner.h"
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

// True when a function of the control-flow node (or of one nested in it) writes a variable
// or table it was passed.
bool FunctionsWriteState(const NodeDef& node) {
  for (const auto& [name, value] : node.attr()) {
    if (name.rfind(FlatFunctionAttr(""), 0) != 0) continue;
    std::vector<std::string> graphs(value.list().s().begin(), value.list().s().end());
    if (!value.has_list()) graphs.push_back(value.s());
    for (const std::string& bytes : graphs) {
      GraphDef graph;
      if (!graph.ParseFromString(bytes)) return true;  // unknown: keep the variables live
      for (const NodeDef& inner : graph.node()) {
        if (WriterOps().count(inner.op())) return true;
        if (IsFunctionalControlFlow(inner) && FunctionsWriteState(inner)) return true;
      }
    }
  }
  return false;
}

class Optimizer {
 public:
  Optimizer(const GraphDef& graph, const OpRegistry& ops, Session* session,
            const ServingOptimizerOptions& options)
      : graph_(graph),
        ops_(ops),
        session_(session),
        options_(options),
        cpu_(DeviceSet::OrProcessDefault(options.devices).cpu()) {
    for (int i = 0; i < graph.node_size(); ++i) by_name_[graph.node(i).name()] = i;
  }

  absl::StatusOr<ServingOptimization> Run(const std::vector<SignatureIo>& signatures) {
    for (const SignatureIo& sig : signatures) AddClosure(sig);
    FindWrittenVariables();
    result_.written_variables = static_cast<int>(written_.size());
    TENSORD_RETURN_IF_ERROR(FreezeVariables());
    TENSORD_RETURN_IF_ERROR(FoldConstants());
    return std::move(result_);
  }

 private:
  const NodeDef* Find(const std::string& name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &graph_.node(it->second);
  }

  void AddClosure(const SignatureIo& sig) {
    for (const auto& f : sig.feeds) fed_.insert(ParseTensorRef(f).ToString());
    const absl::flat_hash_set<std::string> closure = SignatureClosure(graph_, {sig});
    closure_.insert(closure.begin(), closure.end());
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
      // A loop or branch that writes state may write any variable passed to it.
      if (IsFunctionalControlFlow(*node) && FunctionsWriteState(*node)) {
        for (const std::string& in : node->input()) {
          const NodeDef* var = Source(in);
          if (var != nullptr && (var->op() == "VarHandleOp" || var->op() == "VariableV2")) {
            written_.insert(var->name());
          }
        }
      }
      auto reg = KernelRegistry::Global().Find(*node, DeviceType::kCpu);
      if (!reg.ok()) continue;
      for (int i : (*reg)->def.ref_inputs()) {
        if (i >= node->input_size()) continue;
        if (const NodeDef* var = Source(node->input(i))) written_.insert(var->name());
      }
    }
  }

  // Reads every freezable variable in one run of the load session.
  absl::Status FreezeVariables() {
    std::vector<std::pair<std::string, const NodeDef*>> reads;  // node to freeze, its variable
    absl::flat_hash_map<std::string, int> fetch_index;
    std::vector<std::string> fetches;
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
      reads.emplace_back(name, var);
      if (fetch_index.emplace(var->name(), static_cast<int>(fetches.size())).second) {
        fetches.push_back(var->name() + ":0");
      }
    }
    if (fetches.empty()) return absl::OkStatus();
    std::vector<Tensor> values;
    // An uninitialized variable fails the read; then nothing is frozen and requests report
    // the error as TF would.
    if (!session_->Run({}, fetches, {}, &values).ok()) return absl::OkStatus();
    for (const auto& [name, var] : reads) {
      Tensor value = values[fetch_index[var->name()]];
      if (value.dtype() == DT_RESOURCE) {
        auto v = std::dynamic_pointer_cast<Var>(value.scalar<ResourceHandle>().resource());
        if (v == nullptr) continue;
        auto read = v->Read(var->name());
        if (!read.ok()) continue;
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
    absl::flat_hash_map<std::string, int> pending;
    absl::flat_hash_map<std::string, std::vector<std::string>> consumers;
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

  // The value of output `index` of a constant-valued node.
  absl::StatusOr<Tensor> ConstantOutput(const NodeDef& node, int index) {
    auto table = result_.constants->find(node.name());
    if (table != result_.constants->end()) {
      if (index >= static_cast<int>(table->second.size())) {
        return absl::OutOfRangeError("no such output");
      }
      return table->second[index];
    }
    auto cached = const_values_.find(node.name());
    if (cached != const_values_.end()) return cached->second;
    auto attr = node.attr().find("value");
    if (attr == node.attr().end() || index != 0) return absl::OutOfRangeError("no such output");
    TENSORD_ASSIGN_OR_RETURN(Tensor value, TensorFromProto(attr->second.tensor()));
    const_values_[node.name()] = value;
    return value;
  }

  // Evaluates the node's kernel once when it is stateless and all its inputs are constant.
  // Nodes that cannot be evaluated simply stay in the graph: their error (with context)
  // surfaces when a request runs them.
  absl::Status MaybeFold(const NodeDef& node) {
    if (NeverFold(node) || IsConstantValued(node) || node.input_size() == 0) return absl::OkStatus();
    const ::tensorflow::OpDef* def = ops_.Find(node.op());
    if (def == nullptr || def->is_stateful()) return absl::OkStatus();
    auto num_outputs = ops_.NumOutputs(node);
    if (!num_outputs.ok() || *num_outputs == 0) return absl::OkStatus();
    for (int i = 0; i < *num_outputs; ++i) {
      if (fed_.count(absl::StrCat(node.name(), ":", i))) return absl::OkStatus();
    }
    OpKernelContext::Params params;
    params.node_name = &node.name();
    for (const auto& in : node.input()) {
      TensorRef ref = ParseTensorRef(in);
      const NodeDef* producer = Find(ref.node);
      if (producer == nullptr || !IsConstantValued(*producer)) return absl::OkStatus();
      if (ref.is_control()) continue;
      auto value = ConstantOutput(*producer, ref.index);
      if (!value.ok()) return absl::OkStatus();
      params.inputs.push_back(*std::move(value));
    }
    auto kernel = KernelRegistry::Global().CreateKernel(node, DeviceType::kCpu);
    if (!kernel.ok()) return absl::OkStatus();
    params.num_outputs = *num_outputs;
    params.resource_mgr = &scratch_resources_;
    params.device = cpu_;
    params.eigen_cpu_device = &cpu_->eigen_device();
    OpKernelContext ctx(std::move(params));
    if (!(*kernel)->Compute(&ctx).ok()) return absl::OkStatus();
    std::vector<Tensor> values;
    for (int i = 0; i < *num_outputs; ++i) {
      const Tensor& v = ctx.outputs()[i];
      const bool is_ref = ctx.output_ref(i) != nullptr && *ctx.output_ref(i) != nullptr;
      if (!v.IsInitialized() || is_ref || v.dtype() == DT_RESOURCE ||
          v.NumElements() > options_.max_folded_elements) {
        return absl::OkStatus();
      }
      values.push_back(v);
    }
    result_.constants->emplace(node.name(), std::move(values));
    ++result_.folded_nodes;
    return absl::OkStatus();
  }

  const GraphDef& graph_;
  const OpRegistry& ops_;
  Session* session_;
  const ServingOptimizerOptions options_;
  absl::flat_hash_map<absl::string_view, int> by_name_;  // views of graph_'s node names
  absl::flat_hash_set<std::string> closure_;
  absl::flat_hash_set<std::string> fed_;
  absl::flat_hash_set<std::string> written_;
  ServingOptimization result_;
  absl::flat_hash_map<std::string, Tensor> const_values_;
  ResourceMgr scratch_resources_;
  CpuDevice* cpu_;
};

}  // namespace

absl::flat_hash_set<std::string> SignatureClosure(
    const GraphDef& graph, const std::vector<SignatureIo>& signatures,
    const std::function<bool(const std::string&)>& stop) {
  absl::flat_hash_map<absl::string_view, const NodeDef*> by_name;
  for (const auto& node : graph.node()) by_name[node.name()] = &node;
  absl::flat_hash_set<std::string> seen;
  for (const SignatureIo& sig : signatures) {
    absl::flat_hash_set<std::string> fed;
    for (const std::string& f : sig.feeds) fed.insert(ParseTensorRef(f).ToString());
    std::vector<std::string> stack;
    for (const std::string& f : sig.fetches) {
      if (!fed.count(ParseTensorRef(f).ToString())) stack.push_back(ParseTensorRef(f).node);
    }
    while (!stack.empty()) {
      const std::string name = stack.back();
      stack.pop_back();
      auto it = by_name.find(name);
      if (it == by_name.end() || !seen.insert(name).second || (stop && stop(name))) continue;
      for (const std::string& in : it->second->input()) {
        const TensorRef ref = ParseTensorRef(in);
        if (ref.is_control() || !fed.count(ref.ToString())) stack.push_back(ref.node);
      }
    }
  }
  return seen;
}

absl::StatusOr<ServingOptimization> OptimizeForServing(const GraphDef& graph,
                                                       const std::vector<SignatureIo>& signatures,
                                                       const OpRegistry& ops, Session* session,
                                                       const ServingOptimizerOptions& options) {
  return Optimizer(graph, ops, session, options).Run(signatures);
}

}  // namespace tensord
