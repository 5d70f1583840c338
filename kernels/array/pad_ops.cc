// Pad / PadV2 (constant padding) and MirrorPad (REFLECT or SYMMETRIC).
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

struct Padding {
  int64_t before;
  int64_t after;
};

// Reads the [rank, 2] paddings input, checking its shape against x.
absl::StatusOr<std::vector<Padding>> ReadPaddings(const OpKernelContext* c, const Tensor& x,
                                                  const Tensor& paddings_t) {
  if (paddings_t.dims() != 2 || paddings_t.dim_size(1) != 2) {
    return c->InvalidArgument(absl::StrCat("paddings must be a matrix with 2 columns: ",
                                           paddings_t.shape().DebugString()));
  }
  if (paddings_t.dim_size(0) != x.dims()) {
    return c->InvalidArgument(
        absl::StrCat("The first dimension of paddings must be the rank of inputs",
                     paddings_t.shape().DebugString(), " ", x.shape().DebugString()));
  }
  TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> values,
                           array::ReadIndexValues(c, paddings_t, "paddings"));
  std::vector<Padding> paddings(x.dims());
  for (int i = 0; i < x.dims(); ++i) paddings[i] = {values[2 * i], values[2 * i + 1]};
  return paddings;
}

absl::StatusOr<TensorShape> PaddedShape(const OpKernelContext* c, const Tensor& x,
                                        const std::vector<Padding>& paddings) {
  std::vector<int64_t> dims(x.dims());
  for (int i = 0; i < x.dims(); ++i) {
    if (paddings[i].before > std::numeric_limits<int64_t>::max() / 4 ||
        paddings[i].after > std::numeric_limits<int64_t>::max() / 4) {
      return c->InvalidArgument("paddings are too large");
    }
    dims[i] = x.dim_size(i) + paddings[i].before + paddings[i].after;
  }
  return array::MakeShape(c, dims);
}

bool NoPadding(const std::vector<Padding>& paddings) {
  for (const Padding& p : paddings) {
    if (p.before != 0 || p.after != 0) return false;
  }
  return true;
}

// Pad (constant 0) and PadV2 (constant_values, input 2).
class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(std::vector<Padding> paddings, ReadPaddings(c, x, c->input(1)));
    for (const Padding& p : paddings) {
      if (p.before < 0 || p.after < 0) {
        return c->InvalidArgument(
            absl::StrCat("Paddings must be non-negative: ", p.before, " ", p.after));
      }
    }
    Tensor constant(x.dtype(), TensorShape{});  // 0, false or ""
    if (c->num_inputs() > 2) {
      constant = c->input(2);
      if (constant.dims() != 0) {
        return c->InvalidArgument(absl::StrCat("constant_values must be a scalar. Found: ",
                                               constant.shape().DebugString()));
      }
    }
    if (NoPadding(paddings)) {
      c->set_output(0, x);
      return absl::OkStatus();
    }
    TENSORD_ASSIGN_OR_RETURN(TensorShape out_shape, PaddedShape(c, x, paddings));
    Tensor* y = c->allocate_output(0, x.dtype(), out_shape);
    TENSORD_RETURN_IF_ERROR(array::FillTensor(c, constant, y));
    // Then the input goes into the interior.
    const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape());
    const std::vector<int64_t> out_strides = array::RowMajorStrides(out_shape);
    array::CopyPlan plan;
    for (int i = 0; i < x.dims(); ++i) {
      plan.dst_base += paddings[i].before * out_strides[i];
      plan.AddAxis(x.dim_size(i), in_strides[i], out_strides[i]);
    }
    return array::ExecuteCopyPlan(c, plan, x, y);
  }
};

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string mode;
    if (!c->GetAttr("mode", &mode)) return;
    if (mode == "REFLECT") {
      reflect_ = true;
    } else if (mode != "SYMMETRIC") {
      c->SetError(absl::InvalidArgumentError(absl::StrCat(
          "mode of node '", c->name(), "' must be REFLECT or SYMMETRIC, got '", mode, "'")));
    }
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(std::vector<Padding> paddings, ReadPaddings(c, x, c->input(1)));
    // REFLECT mirrors around the edge element (excluded), SYMMETRIC includes it.
    const int64_t offset = reflect_ ? 1 : 0;
    for (int i = 0; i < x.dims(); ++i) {
      const Padding& p = paddings[i];
      const int64_t dim = x.dim_size(i);
      if (p.before < 0 || p.after < 0) {
        return c->InvalidArgument(
            absl::StrCat("paddings must be non-negative: ", p.before, " ", p.after));
      }
      if (reflect_ && (p.before >= dim || p.after >= dim)) {
        return c->InvalidArgument(absl::StrCat("paddings must be less than the dimension size: ",
                                               p.before, ", ", p.after, " not less than ", dim));
      }
      if (!reflect_ && (p.before > dim || p.after > dim)) {
        return c->InvalidArgument(
            absl::StrCat("paddings must be no greater than the dimension size: ", p.before, ", ",
                         p.after, " greater than ", dim));
      }
    }
    if (NoPadding(paddings)) {
      c->set_output(0, x);
      return absl::OkStatus();
    }
    TENSORD_ASSIGN_OR_RETURN(TensorShape out_shape, PaddedShape(c, x, paddings));
    Tensor* y = c->allocate_output(0, x.dtype(), out_shape);
    const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape());
    const std::vector<int64_t> out_strides = array::RowMajorStrides(out_shape);
    array::CopyPlan plan;
    for (int i = 0; i < x.dims(); ++i) {
      const Padding& p = paddings[i];
      const int64_t dim = x.dim_size(i);
      if (p.before == 0 && p.after == 0) {
        plan.AddAxis(dim, in_strides[i], out_strides[i]);
        continue;
      }
      std::vector<int64_t> src(out_shape.dim_size(i));
      for (int64_t o = 0; o < out_shape.dim_size(i); ++o) {
        int64_t j = o - p.before;
        if (j < 0) j = -j - 1 + offset;
        if (j >= dim) j = 2 * dim - 1 - offset - j;
        src[o] = j * in_strides[i];
      }
      plan.AddTableAxis(std::move(src), out_strides[i]);
    }
    return array::ExecuteCopyPlan(c, plan, x, y);
  }

 private:
  bool reflect_ = false;
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Pad").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, PadOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("PadV2").HostMemoryInput(1).HostMemoryInput(2), "T",
                                  array::kAllValueTypes, PadOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("MirrorPad").HostMemoryInput(1), "T",
                                  array::kAllValueTypes, MirrorPadOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("Pad").HostMemoryInput(1), "T",
                                  array::kNumericAndBoolTypes, PadOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("PadV2").HostMemoryInput(1).HostMemoryInput(2), "T",
                                  array::kNumericAndBoolTypes, PadOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("MirrorPad").HostMemoryInput(1), "T",
                                  array::kNumericAndBoolTypes, MirrorPadOp);

}  // namespace
}  // namespace tensord
