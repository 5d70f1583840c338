// The shape arithmetic of a reduction over a set of axes (Sum, Mean, Max, ...: input 1 holds
// the axes, attr keep_dims), shared by the CPU and GPU kernels so both validate and lay out the
// work the same way.
#ifndef TENSORD_KERNELS_MATH_REDUCTION_SHAPE_H_
#define TENSORD_KERNELS_MATH_REDUCTION_SHAPE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"

namespace tensord {
namespace math {

struct ReductionShape {
  // One run of adjacent input dims that are all reduced or all kept.
  struct Group {
    int64_t size = 1;
    bool reduced = false;
  };

  TensorShape output_shape;
  int64_t count = 1;  // input elements folded into each output element
  // The input's dims, outermost first, with size-1 dims dropped and neighbours of the same kind
  // merged, so kept and reduced groups alternate.
  std::vector<Group> groups;

  bool reduces_anything() const;
};

// Validates input 1 of `c` (the axes: each in [-rank, rank), none repeated) against `input`
// and lays out the reduction. INVALID_ARGUMENT naming the node otherwise.
absl::StatusOr<ReductionShape> MakeReductionShape(const OpKernelContext* c,
                                                  const TensorShape& input, bool keep_dims);

// A reduction along one axis (ArgMax, ArgMin: input 1 holds the axis as a scalar or a
// one-element vector): the input viewed as [outer, size, inner], the output as [outer, inner].
struct AxisReduction {
  TensorShape output_shape;
  int64_t outer = 1;
  int64_t size = 1;
  int64_t inner = 1;
};

// Validates input 1 of `c` against `input`: one axis in [-rank, rank), and a non-empty axis
// unless the output is empty. INVALID_ARGUMENT naming the node otherwise.
absl::StatusOr<AxisReduction> MakeAxisReduction(const OpKernelContext* c,
                                                const TensorShape& input);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_REDUCTION_SHAPE_H_
