// Load-time pass: variable reads that a loop repeats on every step move in front of the loop.
//
// A Keras RNN layer is a While whose body reads the layer's weights (ReadVariableOp of a
// resource loop variable passed through unchanged) on every step: three reads per step and
// layer, and since the body is a function of its own the serving optimizer cannot freeze them.
// When nothing in the body writes state (its only stateful nodes are those reads, and it runs
// no nested loop or branch), each such read is done once, before the loop: the While gets a new
// loop variable fed by a ReadVariableOp of the same handle (gated by the While's control
// inputs), the body returns it unchanged, and the body's reads become that argument. The new
// top-level read is an ordinary one, so the serving optimizer freezes it like any other.
//
// Applies to While and StatelessWhile nodes of `graph` (for loops nested in functions, run it
// on each flat function graph, see RewriteFlatFunctions). Nodes are matched through the
// flattened functions the inliner stores (runtime/graph/function_inliner.h); a node without
// them is left alone.
#ifndef TENSORD_RUNTIME_OPTIMIZER_HOIST_LOOP_INVARIANT_READS_H_
#define TENSORD_RUNTIME_OPTIMIZER_HOIST_LOOP_INVARIANT_READS_H_

#include "protos/tensorflow/graph.pb.h"
#include "runtime/graph/op_registry.h"

namespace tensord {

// Rewrites `graph` in place; returns the number of body reads replaced. `ops` tells which body
// nodes are stateful.
int HoistLoopInvariantReads(::tensorflow::GraphDef* graph, const OpRegistry& ops);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_HOIST_LOOP_INVARIANT_READS_H_
