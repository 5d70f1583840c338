#include "runtime/optimizer/hoist_loop_invariant_reads.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "runtime/framework/types.h"
#include "runtime/graph/function_inliner.h"
#include "runtime/graph/tensor_name.h"

namespace tensord {
namespace {

using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;

bool IsControlInput(const std::string& input) { return !input.empty() && input[0] == '^'; }

int NumDataInputs(const NodeDef& node) {
  int n = 0;
  while (n < node.input_size() && !IsControlInput(node.input(n))) ++n;
  return n;
}

// Appends a data input (control inputs stay last, as a NodeDef requires).
void AddDataInput(NodeDef* node, const std::string& input) {
  const int position = NumDataInputs(*node);
  node->add_input(input);
  for (int i = node->input_size() - 1; i > position; --i)
    node->mutable_input()->SwapElements(i, i - 1);
}

// Appends an unknown shape to a list-of-shapes attr, when the node has it.
void AddUnknownShape(NodeDef* node, const std::string& attr) {
  auto it = node->mutable_attr()->find(attr);
  if (it != node->mutable_attr()->end())
    it->second.mutable_list()->add_shape()->set_unknown_rank(true);
}

void AddArgument(GraphDef* function, int index, DataType dtype) {
  NodeDef* arg = function->add_node();
  arg->set_name(FunctionArgName(index));
  arg->set_op("Placeholder");
  (*arg->mutable_attr())["dtype"].set_type(dtype);
}

// True when the body's only stateful nodes are variable reads: then no variable changes
// while the loop runs.
bool OnlyReadsState(const GraphDef& body, const OpRegistry& ops) {
  for (const NodeDef& node : body.node()) {
    if (IsFunctionalControlFlow(node)) return false;
    if (node.op() == "ReadVariableOp") continue;
    const ::tensorflow::OpDef* def = ops.Find(node.op());
    if (def == nullptr || def->is_stateful()) return false;
  }
  return true;
}

// A resource loop variable whose body uses are all reads, to be read before the loop instead.
struct InvariantRead {
  int arg = 0;
  DataType dtype = DT_INVALID;
  std::vector<std::string> reads;  // the body's ReadVariableOp nodes of it
};

std::vector<InvariantRead> FindInvariantReads(const GraphDef& body, const NodeDef& call,
                                              const ::tensorflow::AttrValue::ListValue& types) {
  const int n = types.type_size();
  absl::flat_hash_map<std::string, int> arg_index;
  for (int k = 0; k < n; ++k) arg_index[FunctionArgName(k)] = k;
  std::vector<std::vector<const NodeDef*>> reads(n);
  std::vector<bool> other_use(n, false);
  for (const NodeDef& node : body.node()) {
    if (node.name() == call.name()) continue;
    for (int i = 0; i < node.input_size(); ++i) {
      const TensorRef ref = ParseTensorRef(node.input(i));
      auto it = arg_index.find(ref.node);
      if (it == arg_index.end() || ref.is_control()) continue;
      if (node.op() == "ReadVariableOp" && i == 0) {
        reads[it->second].push_back(&node);
      } else {
        other_use[it->second] = true;
      }
    }
  }
  std::vector<InvariantRead> out;
  for (int k = 0; k < n; ++k) {
    if (types.type(k) != DT_RESOURCE || reads[k].empty() || other_use[k]) continue;
    const TensorRef passed = ParseTensorRef(call.input(k));  // the step's result k
    if (passed.node != FunctionArgName(k) || passed.index != 0) continue;
    InvariantRead hoist;
    hoist.arg = k;
    bool same_dtype = true;
    for (const NodeDef* read : reads[k]) {
      auto dtype = read->attr().find("dtype");
      const DataType t = dtype == read->attr().end() ? DT_INVALID : dtype->second.type();
      if (hoist.dtype == DT_INVALID) hoist.dtype = t;
      same_dtype = same_dtype && t != DT_INVALID && t == hoist.dtype;
      hoist.reads.push_back(read->name());
    }
    if (same_dtype) out.push_back(std::move(hoist));
  }
  return out;
}

// Replaces the body's reads with the new arguments. A control edge from a read orders
// nothing (no node of the body writes state), so it is dropped with the read.
void ReplaceReads(GraphDef* body, const absl::flat_hash_map<std::string, std::string>& by_arg) {
  GraphDef rewritten;
  for (NodeDef& node : *body->mutable_node()) {
    if (by_arg.count(node.name())) continue;
    NodeDef* kept = rewritten.add_node();
    kept->Swap(&node);
    auto* inputs = kept->mutable_input();
    std::vector<std::string> updated;
    for (const std::string& in : *inputs) {
      const TensorRef ref = ParseTensorRef(in);
      auto it = by_arg.find(ref.node);
      if (it == by_arg.end()) {
        updated.push_back(in);
      } else if (!ref.is_control()) {
        updated.push_back(it->second);
      }
    }
    inputs->Clear();
    for (std::string& in : updated) inputs->Add(std::move(in));
  }
  body->mutable_node()->Swap(rewritten.mutable_node());
}

// Hoists the invariant reads of one While node; the new top-level reads go to `added`.
int HoistReads(NodeDef* loop, const OpRegistry& ops, absl::flat_hash_set<std::string>* names,
               std::vector<NodeDef>* added) {
  auto& attrs = *loop->mutable_attr();
  auto body_attr = attrs.find(FlatFunctionAttr("body"));
  auto cond_attr = attrs.find(FlatFunctionAttr("cond"));
  auto types_attr = attrs.find("T");
  if (body_attr == attrs.end() || cond_attr == attrs.end() || types_attr == attrs.end()) return 0;
  GraphDef body;
  GraphDef cond;
  if (!body.ParseFromString(body_attr->second.s()) ||
      !cond.ParseFromString(cond_attr->second.s())) {
    return 0;
  }
  const int n = types_attr->second.list().type_size();
  if (NumDataInputs(*loop) != n || !OnlyReadsState(body, ops)) return 0;
  NodeDef* call = nullptr;
  for (NodeDef& node : *body.mutable_node()) {
    if (node.name() == FunctionCallName()) call = &node;
  }
  if (call == nullptr || call->op() != "IdentityN" || NumDataInputs(*call) != n) return 0;
  const std::vector<InvariantRead> hoists =
      FindInvariantReads(body, *call, types_attr->second.list());
  if (hoists.empty()) return 0;

  std::vector<std::string> loop_controls(loop->input().begin() + n, loop->input().end());
  absl::flat_hash_map<std::string, std::string> by_arg;  // body read -> its new argument
  int replaced = 0;
  for (size_t j = 0; j < hoists.size(); ++j) {
    const InvariantRead& hoist = hoists[j];
    const int arg = n + static_cast<int>(j);
    std::string name = absl::StrCat(loop->name(), "/hoisted_read_", hoist.arg);
    while (!names->insert(name).second) name += "_";
    NodeDef read;
    read.set_name(name);
    read.set_op("ReadVariableOp");
    read.set_device(loop->device());
    read.add_input(loop->input(hoist.arg));
    for (const std::string& control : loop_controls) read.add_input(control);
    (*read.mutable_attr())["dtype"].set_type(hoist.dtype);
    added->push_back(std::move(read));

    AddDataInput(loop, name);
    types_attr->second.mutable_list()->add_type(hoist.dtype);
    AddUnknownShape(loop, "output_shapes");
    AddUnknownShape(loop, "_output_shapes");
    AddDataInput(call, FunctionArgName(arg));
    (*call->mutable_attr())["T"].mutable_list()->add_type(hoist.dtype);
    for (const std::string& r : hoist.reads) by_arg[r] = FunctionArgName(arg);
    replaced += static_cast<int>(hoist.reads.size());
  }
  ReplaceReads(&body, by_arg);
  for (size_t j = 0; j < hoists.size(); ++j) {
    AddArgument(&body, n + static_cast<int>(j), hoists[j].dtype);
    AddArgument(&cond, n + static_cast<int>(j), hoists[j].dtype);
  }
  body_attr->second.set_s(body.SerializeAsString());
  cond_attr->second.set_s(cond.SerializeAsString());
  return replaced;
}

}  // namespace

int HoistLoopInvariantReads(GraphDef* graph, const OpRegistry& ops) {
  absl::flat_hash_set<std::string> names;
  for (const NodeDef& node : graph->node()) names.insert(node.name());
  std::vector<NodeDef> added;
  int replaced = 0;
  for (NodeDef& node : *graph->mutable_node()) {
    if (node.op() == "While" || node.op() == "StatelessWhile") {
      replaced += HoistReads(&node, ops, &names, &added);
    }
  }
  for (NodeDef& node : added) *graph->add_node() = std::move(node);
  return replaced;
}

}  // namespace tensord
