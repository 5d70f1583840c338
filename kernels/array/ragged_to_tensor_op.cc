// RaggedTensorToTensor(shape, values, default_value, row_partition_tensors...) for one ragged
// dimension — the form tf.RaggedTensor.to_tensor and Keras' TextVectorization export: partition
// types ["ROW_SPLITS"] or ["FIRST_DIM_SIZE", "VALUE_ROWIDS"], a scalar default_value, and
// `shape` either a scalar (unknown) or [rows, cols, inner...] with -1 for unknown sizes. Rows
// longer than cols are cut, shorter ones padded with default_value; rows past the given row count
// are dropped. Deeper raggedness is UNIMPLEMENTED.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class RaggedTensorToTensorOp : public OpKernel {
 public:
  explicit RaggedTensorToTensorOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("row_partition_types", &partition_types_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& values = c->input(1);
    const Tensor& default_value = c->input(2);
    const bool splits = partition_types_ == std::vector<std::string>{"ROW_SPLITS"};
    const bool rowids =
        partition_types_ == std::vector<std::string>{"FIRST_DIM_SIZE", "VALUE_ROWIDS"};
    if (!splits && !rowids) {
      return absl::UnimplementedError(absl::StrCat(
          "RaggedTensorToTensor '", name(), "': row_partition_types [",
          absl::StrJoin(partition_types_, ", "),
          "] (only one ragged dimension is supported: ROW_SPLITS or FIRST_DIM_SIZE+VALUE_ROWIDS)"));
    }
    if (default_value.NumElements() != 1) {
      return absl::UnimplementedError(
          absl::StrCat("RaggedTensorToTensor '", name(), "': non-scalar default_value"));
    }
    if (values.dims() < 1) return c->InvalidArgument("values must have rank >= 1");
    const int64_t nvals = values.dim_size(0);

    // Row of every value, and the row count.
    std::vector<int64_t> row_of(nvals);
    int64_t nrows = 0;
    if (splits) {
      TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> row_splits,
                               array::ReadIndexValues(c, c->input(3), "row_splits"));
      if (row_splits.empty() || row_splits.front() != 0 || row_splits.back() != nvals) {
        return c->InvalidArgument("row_splits must start at 0 and end at the number of values");
      }
      nrows = static_cast<int64_t>(row_splits.size()) - 1;
      for (int64_t r = 0; r < nrows; ++r) {
        if (row_splits[r + 1] < row_splits[r]) {
          return c->InvalidArgument("row_splits must be non-decreasing");
        }
        for (int64_t v = row_splits[r]; v < row_splits[r + 1]; ++v) row_of[v] = r;
      }
    } else {
      TENSORD_ASSIGN_OR_RETURN(nrows, array::ReadIndexScalar(c, c->input(3), "first_dim_size"));
      TENSORD_ASSIGN_OR_RETURN(row_of, array::ReadIndexValues(c, c->input(4), "value_rowids"));
      if (static_cast<int64_t>(row_of.size()) != nvals) {
        return c->InvalidArgument("value_rowids must have one entry per value");
      }
      for (int64_t v = 0; v < nvals; ++v) {
        if (row_of[v] < 0 || row_of[v] >= nrows || (v > 0 && row_of[v] < row_of[v - 1])) {
          return c->InvalidArgument("value_rowids must be sorted and in [0, first_dim_size)");
        }
      }
    }
    // Position of every value inside its row, and the longest row.
    std::vector<int64_t> column(nvals);
    int64_t widest = 0;
    for (int64_t v = 0; v < nvals; ++v) {
      column[v] = v > 0 && row_of[v] == row_of[v - 1] ? column[v - 1] + 1 : 0;
      widest = std::max(widest, column[v] + 1);
    }

    std::vector<int64_t> out_dims = {nrows, widest};
    for (int d = 1; d < values.dims(); ++d) out_dims.push_back(values.dim_size(d));
    if (c->input(0).dims() > 0) {
      TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                               array::ReadIndexValues(c, c->input(0), "shape"));
      if (shape.size() != out_dims.size()) {
        return c->InvalidArgument(absl::StrCat("shape has rank ", shape.size(), ", expected ",
                                               out_dims.size()));
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] < 0) continue;
        if (d >= 2 && shape[d] != out_dims[d]) {
          return c->InvalidArgument("shape does not match the values' inner dimensions");
        }
        out_dims[d] = shape[d];
      }
    }
    TENSORD_ASSIGN_OR_RETURN(TensorShape out_shape, array::MakeShape(c, out_dims));
    Tensor* out = c->allocate_output(0, values.dtype(), out_shape);
    TENSORD_RETURN_IF_ERROR(array::FillTensor(c, default_value, out));
    const int64_t inner = nvals == 0 ? 0 : values.NumElements() / nvals;
    return array::DispatchStorage(c, values.dtype(), [&](auto tag) {
      using U = typename decltype(tag)::type;
      const U* src = values.data<U>();
      U* dst = out->data<U>();
      for (int64_t v = 0; v < nvals; ++v) {
        if (row_of[v] >= out_dims[0] || column[v] >= out_dims[1]) continue;
        std::copy(src + v * inner, src + (v + 1) * inner,
                  dst + (row_of[v] * out_dims[1] + column[v]) * inner);
      }
    });
  }

 private:
  std::vector<std::string> partition_types_;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("RaggedTensorToTensor")
                                      .HostMemoryInput(0)
                                      .HostMemoryInput(3)
                                      .HostMemoryInput(4),
                                  "T", array::kAllValueTypes, RaggedTensorToTensorOp);

}  // namespace
}  // namespace tensord
