// Load-time optimisation of the part of a graph that signatures execute.
//
// After variables are restored and the init op has run:
//  * freezing: variables that no signature writes become constants — every VariableV2 and
//    every ReadVariableOp of a VarHandleOp in the signatures' subgraph yields the variable's
//    current tensor (the buffer is shared, not copied). Variables a signature assigns stay
//    real variables (a counter model keeps counting).
//  * constant folding: stateless nodes whose inputs are all constant are evaluated once
//    (unless their output is large or is fed by some signature).
// Pruning happens per execution plan (only what a request's fetches need ever runs).
#ifndef TENSORD_RUNTIME_SAVED_MODEL_SERVING_OPTIMIZER_H_
#define TENSORD_RUNTIME_SAVED_MODEL_SERVING_OPTIMIZER_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "protos/tensorflow/graph.pb.h"
#include "runtime/exec/session.h"
#include "runtime/graph/op_registry.h"

namespace tensord {

// The tensors one signature feeds and fetches ("node:index").
struct SignatureIo {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
};

// The nodes the signatures can run: the backward closure of their fetches, cut at their feeds
// and at nodes for which `stop` (may be empty) is true — those are included, their inputs not.
absl::flat_hash_set<std::string> SignatureClosure(
    const ::tensorflow::GraphDef& graph, const std::vector<SignatureIo>& signatures,
    const std::function<bool(const std::string&)>& stop = {});

struct ServingOptimizerOptions {
  // Folded outputs larger than this many elements stay computed at run time (a small graph
  // expression such as Fill or Tile can produce a huge tensor).
  int64_t max_folded_elements = int64_t{1} << 22;
  // Where folded nodes compute, borrowed; null: the process's default set.
  DeviceSet* devices = nullptr;
};

struct ServingOptimization {
  std::shared_ptr<ConstantTable> constants = std::make_shared<ConstantTable>();
  int frozen_variables = 0;
  int folded_nodes = 0;
  // Variables some signature writes (state that persists across runs, as in a counter).
  int written_variables = 0;
};

// `session` runs `graph` with the restored state; it is used to read variables and to
// evaluate foldable nodes. The graph itself is not modified.
absl::StatusOr<ServingOptimization> OptimizeForServing(const ::tensorflow::GraphDef& graph,
                                                       const std::vector<SignatureIo>& signatures,
                                                       const OpRegistry& ops, Session* session,
                                                       const ServingOptimizerOptions& options);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_SAVED_MODEL_SERVING_OPTIMIZER_H_
