// The reduced_precision load pass: applies a model's ComputePrecision (runtime/exec/precision.h)
// by marking the nodes whose kernels compute in it.
//
// Runs after placement, over the serving graph and the function bodies flattened onto its
// control-flow nodes. With bf16 it sets kPrecisionAttr = "bf16" on every float MatMul,
// _FusedMatMul, BatchMatMul, BatchMatMulV2, BatchMatMulV3, Conv2D and _FusedConv2D placed on
// the CPU: the ops that are dense arithmetic over weights, where bfloat16 doubles (AMX: many
// times) the rate. Depthwise convolutions, which are bound by memory, and every other op keep
// float32. GPU nodes are left alone.
#ifndef TENSORD_RUNTIME_EXEC_REDUCED_PRECISION_H_
#define TENSORD_RUNTIME_EXEC_REDUCED_PRECISION_H_

#include "protos/tensorflow/graph.pb.h"
#include "runtime/exec/precision.h"

namespace tensord {

// The precision a model requesting `requested` runs in on this CPU: fp32 when bf16 is asked
// for and the CPU has no bfloat16 arithmetic.
ComputePrecision EffectivePrecision(ComputePrecision requested);

// Marks `graph`'s nodes for `precision` (nothing for fp32); returns how many it marked.
int MarkReducedPrecision(::tensorflow::GraphDef* graph, ComputePrecision precision);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_EXEC_REDUCED_PRECISION_H_
