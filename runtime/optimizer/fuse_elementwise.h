// Load-time pass: connected float elementwise ops become one _FusedElementwise node
// (kernels/math/fused_elementwise_op.cc), which evaluates them block by block in one kernel call.
// On the small tensors of recurrent cells (an LSTM step is three sigmoids, two tanhs, three
// multiplies and an add on [batch, units]) the cost of a kernel call, not the arithmetic,
// dominates; fused, a step runs a handful of kernels instead of a dozen, and no intermediate
// tensor is allocated.
//
// A group grows from its last op backwards through inputs produced by fusable ops that nothing
// else reads (one data edge, no control edge, not a signature's feed or fetch) on the same
// device. Its last op keeps its name, so consumers are unchanged; control inputs of every member
// move to it. Fusable: Neg, Abs, Square, Exp, Log, Sqrt, Sigmoid, Tanh, Erf, Relu, Add, AddV2,
// Sub, Mul, RealDiv, Maximum, Minimum with T = float.
#ifndef TENSORD_RUNTIME_OPTIMIZER_FUSE_ELEMENTWISE_H_
#define TENSORD_RUNTIME_OPTIMIZER_FUSE_ELEMENTWISE_H_

#include "runtime/optimizer/graph_view.h"

namespace tensord {

// Returns the number of ops fused away (group sizes minus one, summed).
int FuseElementwise(const GraphPassContext& context);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_OPTIMIZER_FUSE_ELEMENTWISE_H_
