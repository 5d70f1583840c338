// Shape, ShapeN, Size and Rank: metadata of their inputs as int32 or int64 (attr out_type).
// They never read element data, so one kernel serves every input dtype.
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

using array::CpuDef;

// Writes `values` into a new output of dtype `out_type` and shape `shape`; int32 outputs fail
// when a value does not fit.
absl::Status WriteIndexOutput(OpKernelContext* c, int index, DataType out_type,
                              const TensorShape& shape, absl::Span<const int64_t> values) {
  Tensor* out = c->allocate_output(index, out_type, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (out_type == DT_INT64) {
      out->data<int64_t>()[i] = values[i];
    } else {
      if (values[i] > std::numeric_limits<int32_t>::max()) {
        return c->InvalidArgument(absl::StrCat(
            "Value ", values[i], " does not fit the 32-bit output type; use out_type int64"));
      }
      out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  }
  return absl::OkStatus();
}

// Base of the ops with an out_type attr (int32 or int64; Rank has none and writes int32).
class IndexOutputOp : public OpKernel {
 public:
  explicit IndexOutputOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->HasAttr("out_type") && c->GetAttr("out_type", &out_type_) && out_type_ != DT_INT32 &&
        out_type_ != DT_INT64) {
      c->SetError(absl::InvalidArgumentError(absl::StrCat("out_type of node '", c->name(),
                                                          "' must be int32 or int64, got ",
                                                          DataTypeString(out_type_))));
    }
  }

 protected:
  DataType out_type_ = DT_INT32;
};

class ShapeOp : public IndexOutputOp {
 public:
  using IndexOutputOp::IndexOutputOp;
  absl::Status Compute(OpKernelContext* c) const override {
    // ShapeN has one output per input; Shape is the case of one.
    for (int i = 0; i < c->num_inputs(); ++i) {
      const TensorShape& shape = c->input(i).shape();
      TENSORD_RETURN_IF_ERROR(
          WriteIndexOutput(c, i, out_type_, TensorShape{shape.dims()}, shape.dim_sizes()));
    }
    return absl::OkStatus();
  }
};

class SizeOp : public IndexOutputOp {
 public:
  using IndexOutputOp::IndexOutputOp;
  absl::Status Compute(OpKernelContext* c) const override {
    return WriteIndexOutput(c, 0, out_type_, TensorShape{}, {c->input(0).NumElements()});
  }
};

class RankOp : public IndexOutputOp {
 public:
  using IndexOutputOp::IndexOutputOp;
  absl::Status Compute(OpKernelContext* c) const override {
    return WriteIndexOutput(c, 0, DT_INT32, TensorShape{}, {c->input(0).dims()});
  }
};

TENSORD_REGISTER_KERNEL(CpuDef("Shape"), ShapeOp);
TENSORD_REGISTER_KERNEL(CpuDef("ShapeN"), ShapeOp);
TENSORD_REGISTER_KERNEL(CpuDef("Size"), SizeOp);
TENSORD_REGISTER_KERNEL(CpuDef("Rank"), RankOp);

}  // namespace
}  // namespace tensord
