// Function inlining: turns a GraphDef with a function library into one flat graph.
//
// Every call — StatefulPartitionedCall, PartitionedCall, or a node whose op names a library
// function — is replaced by the function's body, recursively. Body nodes are renamed
// "<call node>/<body node>", argument references become the caller's inputs, and
// "node:out_arg:i" references become flat output indices. The call node itself becomes an
// IdentityN (or a NoOp for functions without outputs) with the same name, forwarding the
// function's results and depending on its control outputs, so references to the call from the
// rest of the graph stay valid. Control inputs of the call gate every body node.
//
// Only calls reachable from the top-level graph are expanded, so unsupported ops in unused
// library functions never matter. Default attrs are filled on every node.
//
// Functional control flow (If, While, Case and their Stateless forms) stays a node: running a
// function zero, one or many times is its kernel's job. Each function such a node names is
// flattened into a graph of its own — argument i is the output of the Placeholder
// FunctionArgName(i), result i is "FunctionCallName():i", and running node FunctionCallName()
// runs the function's side effects — and stored, serialized, in the node's attr
// FlatFunctionAttr(<function attr>) (a list for Case's `branches`). When a function cannot be
// flattened, the reason is in FlatFunctionErrorAttr(<function attr>) instead, and the node
// fails only if it runs.
#ifndef TENSORD_RUNTIME_GRAPH_FUNCTION_INLINER_H_
#define TENSORD_RUNTIME_GRAPH_FUNCTION_INLINER_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/graph/op_registry.h"

namespace tensord {

// Writes the flat graph to `*flat` (cleared first; it may live on an arena).
absl::Status InlineFunctions(const ::tensorflow::GraphDef& graph, const OpRegistry& ops,
                             ::tensorflow::GraphDef* flat);

// True for nodes that call a library function.
bool IsFunctionCall(const ::tensorflow::NodeDef& node, const OpRegistry& ops);

// True for If, While, Case and their Stateless forms.
bool IsFunctionalControlFlow(const ::tensorflow::NodeDef& node);

// Names in a flattened function graph (see above).
std::string FunctionArgName(int index);
const std::string& FunctionCallName();
// The attr holding the flattened graph(s) of function attr `attr` ("body" -> "_flat_body").
std::string FlatFunctionAttr(const std::string& attr);
std::string FlatFunctionErrorAttr(const std::string& attr);

// Calls `rewrite` on every flattened function graph stored in `graph`'s control-flow nodes,
// those nested in them first, and stores the rewritten graphs back. A stored graph that does
// not parse is left as it is (the node reports it when it runs).
void RewriteFlatFunctions(::tensorflow::GraphDef* graph,
                          const std::function<void(::tensorflow::GraphDef*)>& rewrite);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_GRAPH_FUNCTION_INLINER_H_
