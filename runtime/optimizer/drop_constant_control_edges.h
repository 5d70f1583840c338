// Load-time pass: control edges out of constants are dropped. A constant (a Const node or a
// frozen variable read in the ConstantTable) is available before anything runs and has no side
// effect to order, so such an edge constrains nothing. TensorFlow 2 exports carry one from every
// ReadVariableOp of a function to the function's outputs (automatic control dependencies); left
// in place, each keeps the variable's original value reachable after a later pass replaced it
// (a filter folded with batch norm), so the memory of both copies stays held, and each costs
// the executor a dependency to count.
#ifndef TENSORD_RUNTIME_OPTIMIZER_DROP_CONSTANT_CONTROL_EDGES_H_
#define TENSORD_RUNTIME_OPTIMIZER_DROP_CONSTANT_CONTROL_EDGES_H_

#include "runtime/optimizer/graph_view.h"

namespace tensord {

// Rewrites `context.graph` in place; returns the number of control edges dropped.
int DropConstantControlEdges(const GraphPassContext& context);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_DROP_CONSTANT_CONTROL_EDGES_H_
