// What the CPU and GPU kernels of _FusedElementwise share (the op is documented in
// fused_elementwise_op.cc): reading its attrs, and the checks and the output of a run.
#ifndef TENSORD_KERNELS_MATH_FUSED_ELEMENTWISE_H_
#define TENSORD_KERNELS_MATH_FUSED_ELEMENTWISE_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kernels/math/cwise_util.h"
#include "runtime/framework/op_kernel.h"

namespace tensord {
namespace math {

struct FusedStep {
  std::string op;               // "AddV2", "Tanh", ...
  std::array<int, 2> operands;  // the second is -1 for a unary op
  bool unary = false;           // set by the kernel, which knows its ops
};

// The node's steps from attrs `ops` and `operands`; false (with the error recorded on `c`)
// when they are missing or malformed.
bool ReadFusedSteps(OpKernelConstruction* c, std::vector<FusedStep>* steps);

// Checks a run's operands (each an input or an earlier step's result) and inputs (float, and
// broadcasting together), then allocates the output: in the buffer of an input of the output's
// shape that the run no longer reads, when there is one (safe: each element is written after
// that element's inputs are read), else a fresh one. INVALID_ARGUMENT naming the node.
absl::StatusOr<BroadcastPlan> PrepareFusedRun(OpKernelContext* c,
                                              absl::Span<const FusedStep> steps,
                                              Tensor** output);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_FUSED_ELEMENTWISE_H_
