// Identity elimination: nodes that only forward their inputs (Identity, IdentityN, Snapshot,
// StopGradient, PreventGradient) are removed and their consumers read the forwarded tensors
// directly. TensorFlow's exported graphs carry many — a function's arguments and results pass
// through them, and tf.function inserts them around control flow — and each costs a kernel
// call per run, or per step inside a loop body.
//
// A node stays when it is in `keep` (a signature's feed or fetch, a function's result), has
// control inputs, sits on another device than its input (an explicit transfer), or reads a
// variable's reference edge (where Identity takes a snapshot of the value).
#ifndef TENSORD_RUNTIME_GRAPH_IDENTITY_ELIMINATION_H_
#define TENSORD_RUNTIME_GRAPH_IDENTITY_ELIMINATION_H_

#include <set>
#include <string>

#include "protos/tensorflow/graph.pb.h"

namespace tensord {

// Rewrites `graph` in place; returns the number of nodes removed.
int EliminateIdentities(::tensorflow::GraphDef* graph, const std::set<std::string>& keep);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_GRAPH_IDENTITY_ELIMINATION_H_
