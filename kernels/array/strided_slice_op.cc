// StridedSlice with TensorFlow's full mask semantics (begin/end/ellipsis/new_axis/shrink_axis).
// The sparse spec (one entry per begin/end/strides element) is first expanded to a dense spec
// with one entry per input dim, then each dense dim is canonicalised like Python slicing:
// negative indices count from the end and out-of-range bounds are clamped.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

constexpr int kNewAxis = -1;
constexpr int kShrinkAxis = -2;

bool Bit(int64_t mask, int i) { return i < 63 && ((mask >> i) & 1) != 0; }

struct DenseDim {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t stride = 1;
  bool begin_masked = true;
  bool end_masked = true;
  bool shrink = false;
};

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("begin_mask", &begin_mask_);
    c->GetAttr("end_mask", &end_mask_);
    c->GetAttr("ellipsis_mask", &ellipsis_mask_);
    c->GetAttr("new_axis_mask", &new_axis_mask_);
    c->GetAttr("shrink_axis_mask", &shrink_axis_mask_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const Tensor& begin_t = c->input(1);
    const Tensor& end_t = c->input(2);
    const Tensor& strides_t = c->input(3);
    if (begin_t.dims() != 1 || end_t.dims() != 1 || strides_t.dims() != 1 ||
        begin_t.NumElements() != end_t.NumElements() ||
        begin_t.NumElements() != strides_t.NumElements()) {
      return c->InvalidArgument(absl::StrCat(
          "Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
          begin_t.shape().DebugString(), ", ", end_t.shape().DebugString(), ", and ",
          strides_t.shape().DebugString(), " instead."));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> begin,
                             array::ReadIndexValues(c, begin_t, "begin"));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> end, array::ReadIndexValues(c, end_t, "end"));
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                             array::ReadIndexValues(c, strides_t, "strides"));

    std::vector<DenseDim> dense(x.dims());
    std::vector<int> final_dims;  // a dense index, kNewAxis or kShrinkAxis per sparse position
    TENSORD_RETURN_IF_ERROR(BuildDenseSpec(c, x.dims(), begin, end, strides, &dense, &final_dims));

    std::vector<int64_t> dense_begin(x.dims());
    std::vector<int64_t> dense_stride(x.dims());
    std::vector<int64_t> dense_size(x.dims());
    for (int k = 0; k < x.dims(); ++k) {
      TENSORD_RETURN_IF_ERROR(
          CanonicalizeDim(c, k, dense[k], x.dim_size(k), &dense_begin[k], &dense_size[k]));
      dense_stride[k] = dense[k].stride;
    }
    TensorShape out_shape;
    for (int k : final_dims) {
      if (k == kNewAxis) {
        out_shape.AddDim(1);
      } else if (k != kShrinkAxis) {
        out_shape.AddDim(dense_size[k]);
      }
    }
    return array::OutputStridedSlice(c, x, dense_begin, dense_stride, dense_size, out_shape);
  }

 private:
  absl::Status BuildDenseSpec(const OpKernelContext* c, int rank, const std::vector<int64_t>& begin,
                              const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                              std::vector<DenseDim>* dense, std::vector<int>* final_dims) const {
    if ((ellipsis_mask_ & (ellipsis_mask_ - 1)) != 0) {
      return c->InvalidArgument("Multiple ellipses in slice spec not allowed");
    }
    const int m = static_cast<int>(begin.size());
    int ellipsis = -1;
    int new_axes_after_ellipsis = 0;
    for (int i = 0; i < m; ++i) {
      if (ellipsis >= 0 && Bit(new_axis_mask_, i)) ++new_axes_after_ellipsis;
      if (Bit(ellipsis_mask_, i)) ellipsis = i;
    }
    // Without an ellipsis, one is implied after the last spec: x[1:2] == x[1:2, ...].
    const int sparse_dims = ellipsis >= 0 ? m : m + 1;
    if (ellipsis < 0) ellipsis = m;

    int full = 0;
    for (int i = 0; i < sparse_dims; ++i) {
      if (i == ellipsis) {
        const int next = std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
        for (; full < next; ++full) {
          (*dense)[full] = DenseDim{};
          final_dims->push_back(full);
        }
      } else if (Bit(new_axis_mask_, i)) {
        final_dims->push_back(kNewAxis);
      } else {
        if (full == rank) {
          if (rank == 0) return c->InvalidArgument("Attempting to slice scalar input.");
          return c->InvalidArgument(absl::StrCat("Index out of range using input dim ", full,
                                                 "; input has only ", rank, " dims"));
        }
        const bool shrink = Bit(shrink_axis_mask_, i);
        (*dense)[full] =
            DenseDim{begin[i], end[i], strides[i], Bit(begin_mask_, i), Bit(end_mask_, i), shrink};
        final_dims->push_back(shrink ? kShrinkAxis : full);
        ++full;
      }
    }
    return absl::OkStatus();
  }

  // Resolves dense dim k of size `dim` to its first index and element count.
  static absl::Status CanonicalizeDim(const OpKernelContext* c, int k, const DenseDim& d,
                                      int64_t dim, int64_t* begin, int64_t* size) {
    const int64_t stride = d.stride;
    if (stride == 0) {
      return c->InvalidArgument(absl::StrCat("strides[", k, "] must be non-zero"));
    }
    if (d.shrink) {
      if (stride < 0) return c->InvalidArgument("only stride 1 allowed on non-range indexing.");
      const int64_t b = d.begin < 0 ? d.begin + dim : d.begin;
      if (b < 0 || b >= dim) {
        return c->InvalidArgument(
            absl::StrCat("slice index ", b, " of dimension ", k, " out of bounds."));
      }
      *begin = b;
      *size = 1;
      return absl::OkStatus();
    }
    // Valid positions are [0, dim] going forward and [-1, dim - 1] going backward.
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t v, bool masked, bool is_end) {
      if (masked) return (stride > 0) == is_end ? hi : lo;
      const int64_t fwd = v < 0 ? v + dim : v;
      return std::clamp(fwd, lo, hi);
    };
    const int64_t b = canonical(d.begin, d.begin_masked, false);
    const int64_t e = canonical(d.end, d.end_masked, true);
    const int64_t length = e - b;
    *begin = b;
    if (length == 0 || (length < 0) != (stride < 0)) {
      *size = 0;
    } else {
      *size = length / stride + (length % stride != 0 ? 1 : 0);
    }
    return absl::OkStatus();
  }

  int64_t begin_mask_ = 0;
  int64_t end_mask_ = 0;
  int64_t ellipsis_mask_ = 0;
  int64_t new_axis_mask_ = 0;
  int64_t shrink_axis_mask_ = 0;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(
    array::CpuDef("StridedSlice").HostMemoryInput(1).HostMemoryInput(2).HostMemoryInput(3), "T",
    array::kAllValueTypes, StridedSliceOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(
    array::GpuDef("StridedSlice").HostMemoryInput(1).HostMemoryInput(2).HostMemoryInput(3), "T",
    array::kNumericAndBoolTypes, StridedSliceOp);

}  // namespace
}  // namespace tensord
