#include "kernels/math/reduction_shape.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {

bool ReductionShape::reduces_anything() const {
  return std::any_of(groups.begin(), groups.end(), [](const Group& g) { return g.reduced; });
}

absl::StatusOr<ReductionShape> MakeReductionShape(const OpKernelContext* c,
                                                  const TensorShape& input, bool keep_dims) {
  TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadIndexValues(c, 1, "reduction_indices"));
  const int rank = input.dims();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return c->InvalidArgument(absl::StrCat("Invalid reduction dimension (", axis,
                                             " for input with ", rank, " dimension(s)"));
    }
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    if (reduced[a]) {
      return c->InvalidArgument(
          absl::StrCat("Invalid reduction arguments: Axes contains duplicate dimension: ", a));
    }
    reduced[a] = true;
  }

  ReductionShape shape;
  for (int i = 0; i < rank; ++i) {
    const int64_t size = input.dim_size(i);
    if (reduced[i]) shape.count *= size;
    if (!reduced[i]) {
      shape.output_shape.AddDim(size);
    } else if (keep_dims) {
      shape.output_shape.AddDim(1);
    }
    if (size == 1) continue;
    if (!shape.groups.empty() && shape.groups.back().reduced == reduced[i]) {
      shape.groups.back().size *= size;
    } else {
      shape.groups.push_back({size, reduced[i]});
    }
  }
  return shape;
}

absl::StatusOr<AxisReduction> MakeAxisReduction(const OpKernelContext* c,
                                                const TensorShape& input) {
  TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> dim, ReadIndexValues(c, 1, "dimension"));
  if (dim.size() != 1) {
    return c->InvalidArgument(
        absl::StrCat("dimension must be a scalar, got ", dim.size(), " values"));
  }
  const int rank = input.dims();
  if (dim[0] < -rank || dim[0] >= rank) {
    return c->InvalidArgument(absl::StrCat("Expected dimension in the range [", -rank, ", ", rank,
                                           "), but got ", dim[0]));
  }
  const int axis = static_cast<int>(dim[0] < 0 ? dim[0] + rank : dim[0]);
  AxisReduction shape;
  shape.output_shape = input;
  shape.output_shape.RemoveDim(axis);
  shape.size = input.dim_size(axis);
  if (shape.size == 0 && shape.output_shape.num_elements() > 0) {
    return c->InvalidArgument(absl::StrCat("Reduction axis ", axis, " is empty in shape ",
                                           input.DebugString()));
  }
  for (int i = 0; i < axis; ++i) shape.outer *= input.dim_size(i);
  for (int i = axis + 1; i < rank; ++i) shape.inner *= input.dim_size(i);
  return shape;
}

}  // namespace math
}  // namespace tensord
