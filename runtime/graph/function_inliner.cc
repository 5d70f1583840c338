#include "runtime/graph/function_inliner.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/graph/identity_elimination.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using ::tensorflow::FunctionDef;
using ::tensorflow::GraphDef;
using ::tensorflow::NodeDef;

// Deeper nesting than this is almost certainly recursion, which TF graphs cannot express.
constexpr int kMaxCallDepth = 64;

const std::string* CalledFunctionName(const NodeDef& node) {
  if (node.op() == "StatefulPartitionedCall" || node.op() == "PartitionedCall") {
    auto it = node.attr().find("f");
    if (it != node.attr().end()) return &it->second.func().name();
  }
  return nullptr;
}

class Inliner {
 public:
  Inliner(const OpRegistry& ops, GraphDef* out) : ops_(ops), out_(out) {}

  // Emits `*node` (moved from), or the body of the function it calls.
  absl::Status Emit(NodeDef* node, int depth) {
    ops_.AddDefaultAttrs(node);
    if (IsFunctionalControlFlow(*node)) {
      TENSORD_RETURN_IF_ERROR(AttachFlatFunctions(node, depth));
      *out_->add_node() = std::move(*node);
      return absl::OkStatus();
    }
    if (!IsFunctionCall(*node, ops_)) {
      *out_->add_node() = std::move(*node);
      return absl::OkStatus();
    }
    return Inline(*node, depth);
  }

  // A node to fill and pass to Emit. It lives where the output does, so that emitting it moves
  // it: a move between arenas (or between an arena and the heap) would be a copy.
  NodeDef* NewNode() {
    if (google::protobuf::Arena* arena = out_->GetArena()) {
      return google::protobuf::Arena::CreateMessage<NodeDef>(arena);
    }
    return heap_nodes_.emplace_back(std::make_unique<NodeDef>()).get();
  }

 private:
  // Stores the flattened graph of every function the control-flow node names. A function
  // that cannot be flattened (missing, polymorphic, nested too deep) is recorded on the node
  // instead of failing the load: like an unsupported op, it only matters if the node runs.
  absl::Status AttachFlatFunctions(NodeDef* node, int depth) {
    std::vector<std::pair<std::string, ::tensorflow::AttrValue>> flat;
    for (const auto& [name, value] : node->attr()) {
      std::vector<std::string> functions;
      if (value.has_func()) {
        functions.push_back(value.func().name());
      } else if (value.has_list()) {
        for (const auto& f : value.list().func()) functions.push_back(f.name());
      }
      if (functions.empty()) continue;
      ::tensorflow::AttrValue graphs;
      absl::Status failed;
      for (const std::string& function : functions) {
        absl::StatusOr<std::string> g = Flatten(function, *node, depth);
        if (!g.ok()) {
          failed = g.status();
          break;
        }
        if (value.has_func()) {
          graphs.set_s(*std::move(g));
        } else {
          graphs.mutable_list()->add_s(*std::move(g));
        }
      }
      if (failed.ok()) {
        flat.emplace_back(FlatFunctionAttr(name), std::move(graphs));
      } else {
        ::tensorflow::AttrValue error;
        error.set_s(std::string(failed.message()));
        flat.emplace_back(FlatFunctionErrorAttr(name), std::move(error));
      }
    }
    for (auto& [name, value] : flat) (*node->mutable_attr())[name] = std::move(value);
    return absl::OkStatus();
  }

  // One function as a graph of its own (see FunctionArgName), serialized.
  absl::StatusOr<std::string> Flatten(const std::string& fname, const NodeDef& user, int depth) {
    const FunctionDef* fn = ops_.FindFunction(fname);
    if (fn == nullptr) {
      return absl::NotFoundError(absl::StrCat("function '", fname, "' used by node '",
                                              user.name(), "' is not in the graph's library"));
    }
    GraphDef graph;
    Inliner inliner(ops_, &graph);
    NodeDef call;
    call.set_name(FunctionCallName());
    call.set_op("PartitionedCall");
    (*call.mutable_attr())["f"].mutable_func()->set_name(fname);
    for (int i = 0; i < fn->signature().input_arg_size(); ++i) {
      const auto& arg = fn->signature().input_arg(i);
      if (!arg.type_attr().empty() || !arg.number_attr().empty() ||
          !arg.type_list_attr().empty()) {
        return absl::UnimplementedError(absl::StrCat(
            "function '", fname, "' used by node '", user.name(),
            "' has a polymorphic argument '", arg.name(), "'"));
      }
      NodeDef placeholder;
      placeholder.set_name(FunctionArgName(i));
      placeholder.set_op("Placeholder");
      (*placeholder.mutable_attr())["dtype"].set_type(arg.type());
      call.add_input(placeholder.name());
      TENSORD_RETURN_IF_ERROR(inliner.Emit(&placeholder, depth + 1));
    }
    TENSORD_RETURN_IF_ERROR(inliner.Emit(&call, depth + 1));
    // Loop bodies run once per step: drop the pass-through nodes function calls leave behind.
    EliminateIdentities(&graph, {FunctionCallName()});
    return graph.SerializeAsString();
  }

  absl::Status Inline(const NodeDef& call, int depth) {
    if (depth > kMaxCallDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("function calls nested deeper than ", kMaxCallDepth, " at node '",
                       call.name(), "'"));
    }
    const std::string* called = CalledFunctionName(call);
    const std::string& fname = called != nullptr ? *called : call.op();
    const FunctionDef* fn = ops_.FindFunction(fname);
    if (fn == nullptr) {
      return absl::NotFoundError(absl::StrCat("function '", fname, "' called by node '",
                                              call.name(), "' is not in the graph's library"));
    }
    const auto& sig = fn->signature();
    const std::string prefix = call.name() + "/";

    std::vector<std::string> data_inputs;
    std::vector<std::string> control_inputs;
    for (const std::string& in : call.input()) {
      (in.rfind('^', 0) == 0 ? control_inputs : data_inputs).push_back(in);
    }
    if (static_cast<int>(data_inputs.size()) != sig.input_arg_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", call.name(), "' passes ", data_inputs.size(), " inputs to function '", fname,
          "', which takes ", sig.input_arg_size()));
    }
    std::map<std::string, std::string> args;
    for (int i = 0; i < sig.input_arg_size(); ++i) args[sig.input_arg(i).name()] = data_inputs[i];

    std::string gate;
    if (!control_inputs.empty()) {
      NodeDef noop;
      noop.set_name(prefix + "_call_control");
      noop.set_op("NoOp");
      for (const auto& c : control_inputs) noop.add_input(c);
      gate = "^" + noop.name();
      *out_->add_node() = std::move(noop);
    }

    // Original name -> node with defaults (views of the function's names).
    absl::flat_hash_map<absl::string_view, NodeDef*> body;
    for (const NodeDef& n : fn->node_def()) {
      NodeDef* copy = body[n.name()] = NewNode();
      *copy = n;
      ops_.AddDefaultAttrs(copy);
    }

    auto resolve = [&](const std::string& ref) -> absl::StatusOr<std::string> {
      if (!ref.empty() && ref[0] == '^') return "^" + prefix + ref.substr(1);
      std::vector<std::string> parts = absl::StrSplit(ref, ':');
      if (parts.size() == 1) {
        auto it = args.find(ref);
        if (it != args.end()) return it->second;
        if (body.count(ref)) return prefix + ref;  // bare node name: output 0
        return absl::InvalidArgumentError(absl::StrCat("function '", fname, "' refers to '", ref,
                                                       "', which is neither an arg nor a node"));
      }
      int index = 0;
      if (parts.size() == 3 && absl::SimpleAtoi(parts[2], &index)) {
        auto it = body.find(parts[0]);
        if (it == body.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat("function '", fname, "' refers to unknown node '", parts[0], "'"));
        }
        TENSORD_ASSIGN_OR_RETURN(int flat, ops_.OutputIndex(*it->second, parts[1], index));
        return absl::StrCat(prefix, parts[0], ":", flat);
      }
      if (parts.size() == 2 && absl::SimpleAtoi(parts[1], &index) && args.count(parts[0])) {
        return absl::UnimplementedError(absl::StrCat(
            "list-typed function argument reference '", ref, "' in function '", fname, "'"));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("cannot resolve reference '", ref, "' in function '", fname, "'"));
    };

    // Every reference, the results' too, is resolved (which reads the body's nodes) before the
    // nodes are moved out.
    std::vector<std::vector<std::string>> inputs(fn->node_def_size());
    for (int i = 0; i < fn->node_def_size(); ++i) {
      for (const std::string& in : fn->node_def(i).input()) {
        TENSORD_ASSIGN_OR_RETURN(std::string resolved, resolve(in));
        inputs[i].push_back(std::move(resolved));
      }
      if (!gate.empty()) inputs[i].push_back(gate);
    }
    NodeDef result;
    result.set_name(call.name());
    result.set_device(call.device());
    if (sig.output_arg_size() == 0) {
      result.set_op("NoOp");
    } else {
      result.set_op("IdentityN");
      auto* types = (*result.mutable_attr())["T"].mutable_list();
      for (const auto& out : sig.output_arg()) {
        auto ret = fn->ret().find(out.name());
        if (ret == fn->ret().end()) {
          return absl::InvalidArgumentError(
              absl::StrCat("function '", fname, "' has no ret for output '", out.name(), "'"));
        }
        TENSORD_ASSIGN_OR_RETURN(std::string resolved, resolve(ret->second));
        result.add_input(resolved);
        types->add_type(out.type());
      }
    }
    for (const auto& [name, node] : fn->control_ret()) result.add_input("^" + prefix + node);
    if (!gate.empty() && result.input_size() == 0) result.add_input(gate);
    for (int i = 0; i < fn->node_def_size(); ++i) {
      const NodeDef& n = fn->node_def(i);
      NodeDef* node = body[n.name()];
      node->set_name(prefix + n.name());
      node->clear_input();
      for (std::string& in : inputs[i]) node->add_input(std::move(in));
      if (node->device().empty()) node->set_device(call.device());
      TENSORD_RETURN_IF_ERROR(Emit(node, depth + 1));
    }
    *out_->add_node() = std::move(result);
    return absl::OkStatus();
  }

  const OpRegistry& ops_;
  GraphDef* out_;
  std::vector<std::unique_ptr<NodeDef>> heap_nodes_;  // NewNode's, when out_ is on the heap
};

}  // namespace

bool IsFunctionalControlFlow(const NodeDef& node) {
  static const auto* const kOps = new std::set<std::string>{
      "If", "StatelessIf", "While", "StatelessWhile", "Case", "StatelessCase"};
  return kOps->count(node.op()) > 0;
}

std::string FunctionArgName(int index) { return absl::StrCat("_arg_", index); }

const std::string& FunctionCallName() {
  static const auto* const kName = new std::string("_fn");
  return *kName;
}

std::string FlatFunctionAttr(const std::string& attr) { return "_flat_" + attr; }

std::string FlatFunctionErrorAttr(const std::string& attr) { return "_flat_error_" + attr; }

void RewriteFlatFunctions(GraphDef* graph, const std::function<void(GraphDef*)>& rewrite) {
  auto rewrite_serialized = [&rewrite](std::string* serialized) {
    GraphDef body;
    if (!body.ParseFromString(*serialized)) return;
    RewriteFlatFunctions(&body, rewrite);
    rewrite(&body);
    *serialized = body.SerializeAsString();
  };
  for (NodeDef& node : *graph->mutable_node()) {
    if (!IsFunctionalControlFlow(node)) continue;
    for (auto& [name, value] : *node.mutable_attr()) {
      if (!absl::StartsWith(name, FlatFunctionAttr("")) ||
          absl::StartsWith(name, FlatFunctionErrorAttr(""))) {
        continue;
      }
      if (value.has_list()) {
        for (std::string& s : *value.mutable_list()->mutable_s()) rewrite_serialized(&s);
      } else {
        rewrite_serialized(value.mutable_s());
      }
    }
  }
}

bool IsFunctionCall(const NodeDef& node, const OpRegistry& ops) {
  if (CalledFunctionName(node) != nullptr) return true;
  return ops.FindFunction(node.op()) != nullptr;
}

absl::Status InlineFunctions(const GraphDef& graph, const OpRegistry& ops, GraphDef* flat) {
  flat->Clear();
  *flat->mutable_versions() = graph.versions();
  Inliner inliner(ops, flat);
  for (const NodeDef& node : graph.node()) {
    NodeDef* copy = inliner.NewNode();
    *copy = node;
    TENSORD_RETURN_IF_ERROR(inliner.Emit(copy, 0));
  }
  return absl::OkStatus();
}

}  // namespace tensord
