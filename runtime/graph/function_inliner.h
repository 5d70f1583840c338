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
#ifndef TENSORD_RUNTIME_GRAPH_FUNCTION_INLINER_H_
#define TENSORD_RUNTIME_GRAPH_FUNCTION_INLINER_H_

#include "absl/status/statusor.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/graph/op_registry.h"

namespace tensord {

absl::StatusOr<::tensorflow::GraphDef> InlineFunctions(const ::tensorflow::GraphDef& graph,
                                                       const OpRegistry& ops);

// True for nodes that call a library function.
bool IsFunctionCall(const ::tensorflow::NodeDef& node, const OpRegistry& ops);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_GRAPH_FUNCTION_INLINER_H_
