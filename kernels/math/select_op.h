// What the CPU and GPU kernels of Select and SelectV2 share: the input checks and the broadcast
// that computes them (select_op.cc, select_op_gpu.cc).
#ifndef TENSORD_KERNELS_MATH_SELECT_OP_H_
#define TENSORD_KERNELS_MATH_SELECT_OP_H_

#include "absl/status/statusor.h"
#include "kernels/math/cwise_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"

namespace tensord {
namespace math {

// InvalidArgument naming the node unless the condition (input 0) is bool and 'then' and 'else'
// (inputs 1 and 2) are `dtype`.
absl::Status CheckSelectTypes(const OpKernelContext* c, DataType dtype);

// Select (TF1): checks that 'then' and 'else' have one shape and that the condition is a scalar
// (picks a whole input), of that shape, or a vector choosing rows along dim 0; returns the
// shape the condition broadcasts as: its own, or [n, 1, ..., 1] for n rows. Errors name the node.
absl::StatusOr<TensorShape> SelectConditionShape(const OpKernelContext* c);

// The broadcast of the condition, seen as `cond_shape`, with 'then' and 'else' (operands 0, 1, 2);
// SelectV2's InvalidArgument naming the node when they do not broadcast.
absl::StatusOr<BroadcastPlan> SelectPlan(const OpKernelContext* c, const TensorShape& cond_shape);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_SELECT_OP_H_
