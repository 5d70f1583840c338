// Restoring only the variables that serving can read.
//
// Exports may hold variables no signature reaches: Keras 3 writes each variable twice (the
// layer's handle and a flat list's, two resources restored from two checkpoint entries), and
// TF1 graphs keep training state such as optimizer slots. Their restore op reads every entry.
// Removing the writes of unreachable variables from the load graph leaves those entries unread
// (RestoreV2 reads only the outputs a run consumes): a Keras 3 model loads half the bytes.
#ifndef TENSORD_RUNTIME_SAVED_MODEL_RESTORE_PRUNING_H_
#define TENSORD_RUNTIME_SAVED_MODEL_RESTORE_PRUNING_H_

#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"

#include "protos/tensorflow/graph.pb.h"

namespace tensord {

// The resource a VarHandleOp or VariableV2 node refers to ("container/shared_name", the node
// name standing in for an empty shared_name, as the kernels do); empty for any other node.
// Two nodes with the same resource are one variable.
std::string VariableResource(const ::tensorflow::NodeDef& node);

// The variable resources the nodes in `reachable` refer to; nullopt when one of them runs a
// function (a loop or branch body may name variables of its own, so every variable counts).
std::optional<absl::flat_hash_set<std::string>> ReachableVariables(
    const ::tensorflow::GraphDef& graph, const absl::flat_hash_set<std::string>& reachable);

// Removes from `graph` the variable writes that `restore_op` runs for variables no node in
// `reachable` (the nodes serving and the init op can run) refers to; returns how many. Control
// edges to removed writes are dropped with them. Nothing is removed when a reachable node runs
// a function (a loop or branch body may name variables of its own).
int PruneRestore(::tensorflow::GraphDef* graph, const std::string& restore_op,
                 const absl::flat_hash_set<std::string>& reachable);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_SAVED_MODEL_RESTORE_PRUNING_H_
