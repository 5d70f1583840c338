#include "kernels/math/cwise_util.h"

#include "absl/strings/str_cat.h"

namespace tensord {
namespace math {

std::optional<BroadcastPlan> BroadcastPlan::Make(absl::Span<const TensorShape> shapes) {
  const int num_operands = static_cast<int>(shapes.size());
  int rank = 0;
  for (const TensorShape& s : shapes) rank = std::max(rank, s.dims());
  // Dim i of operand k after right-aligning all shapes to `rank` (missing leading dims are 1).
  auto aligned_dim = [&](int k, int i) -> int64_t {
    const int offset = rank - shapes[k].dims();
    return i < offset ? 1 : shapes[k].dim_size(i - offset);
  };

  BroadcastPlan plan;
  absl::InlinedVector<int64_t, 6> out_dims(rank);
  for (int i = 0; i < rank; ++i) {
    int64_t size = 1;
    for (int k = 0; k < num_operands; ++k) {
      const int64_t d = aligned_dim(k, i);
      if (d == 1) continue;
      if (size != 1 && size != d) return std::nullopt;
      size = d;
    }
    out_dims[i] = size;
  }
  plan.output_shape_ = TensorShape(out_dims);

  // Merge runs of output dims (ignoring size-1 dims) that share the same broadcast mask.
  // masks[dim * num_operands + operand]: the operand is broadcast along collapsed dim `dim`.
  absl::InlinedVector<bool, 24> masks;
  absl::InlinedVector<bool, 8> mask(num_operands);
  for (int i = 0; i < rank; ++i) {
    if (out_dims[i] == 1) continue;
    for (int k = 0; k < num_operands; ++k) mask[k] = aligned_dim(k, i) == 1;
    if (!plan.dims_.empty() &&
        std::equal(mask.begin(), mask.end(), masks.end() - num_operands)) {
      plan.dims_.back() *= out_dims[i];
    } else {
      masks.insert(masks.end(), mask.begin(), mask.end());
      plan.dims_.push_back(out_dims[i]);
    }
  }
  if (plan.dims_.empty()) {
    plan.dims_.push_back(1);
    masks.assign(num_operands, true);
  }

  const int collapsed_rank = static_cast<int>(plan.dims_.size());
  plan.strides_.assign(num_operands * collapsed_rank, 0);
  for (int k = 0; k < num_operands; ++k) {
    int64_t stride = 1;
    for (int d = collapsed_rank - 1; d >= 0; --d) {
      if (!masks[d * num_operands + k]) {
        plan.strides_[k * collapsed_rank + d] = stride;
        stride *= plan.dims_[d];
      }
    }
  }
  return plan;
}

std::string IncompatibleShapesMessage(const TensorShape& a, const TensorShape& b) {
  return absl::StrCat("Incompatible shapes: ", a.DebugString(), " vs. ", b.DebugString());
}

}  // namespace math
}  // namespace tensord
