#include "kernels/nn/window_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensord {

absl::Status WithNodeName(absl::string_view node_name, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(node_name, ": ", status.message()));
}

absl::StatusOr<WindowDim> ComputeWindowDim(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                                           Padding padding, int64_t explicit_before,
                                           int64_t explicit_after) {
  if (stride <= 0 || dilation <= 0 || k <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window size ", k, ", stride ", stride, " and dilation ", dilation, " must be positive"));
  }
  const int64_t eff = (k - 1) * dilation + 1;
  WindowDim dim{0, 0};
  switch (padding) {
    case Padding::kValid:
      dim.out_size = (in - eff + stride) / stride;
      break;
    case Padding::kSame: {
      dim.out_size = (in + stride - 1) / stride;
      const int64_t pad_total = std::max<int64_t>(0, (dim.out_size - 1) * stride + eff - in);
      dim.pad_before = pad_total / 2;
      break;
    }
    case Padding::kExplicit:
      dim.out_size = (in + explicit_before + explicit_after - eff + stride) / stride;
      dim.pad_before = explicit_before;
      break;
  }
  // C++ division truncates toward zero exactly like TensorFlow's, so e.g. in=2, k=3, s=2
  // gives an empty output rather than an error.
  if (dim.out_size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("computed output size would be negative: ", dim.out_size, " [input size ", in,
                     ", effective window size ", eff, ", stride ", stride, "]"));
  }
  return dim;
}

absl::StatusOr<Window2D> Window2D::Create(const std::vector<int64_t>& strides,
                                          const std::vector<int64_t>& dilations,
                                          const std::string& padding,
                                          const std::vector<int64_t>& explicit_paddings,
                                          const std::string& data_format) {
  if (data_format != "NHWC") {
    return absl::UnimplementedError(
        absl::StrCat("only the NHWC data format is supported on CPU, got '", data_format, "'"));
  }
  if (strides.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("strides must have 4 elements, got [", absl::StrJoin(strides, ","), "]"));
  }
  if (strides[0] != 1 || strides[3] != 1) {
    return absl::InvalidArgumentError("strides in the batch and depth dimensions must be 1");
  }
  Window2D w;
  w.stride_rows_ = strides[1];
  w.stride_cols_ = strides[2];
  if (w.stride_rows_ <= 0 || w.stride_cols_ <= 0) {
    return absl::InvalidArgumentError("strides must be positive");
  }
  if (!dilations.empty()) {
    if (dilations.size() != 4) {
      return absl::InvalidArgumentError(absl::StrCat("dilations must have 4 elements, got [",
                                                     absl::StrJoin(dilations, ","), "]"));
    }
    if (dilations[0] != 1 || dilations[3] != 1) {
      return absl::InvalidArgumentError("dilations in the batch and depth dimensions must be 1");
    }
    w.dil_rows_ = dilations[1];
    w.dil_cols_ = dilations[2];
    if (w.dil_rows_ <= 0 || w.dil_cols_ <= 0) {
      return absl::InvalidArgumentError("dilations must be positive");
    }
  }
  if (padding == "VALID") {
    w.padding_ = Padding::kValid;
  } else if (padding == "SAME") {
    w.padding_ = Padding::kSame;
  } else if (padding == "EXPLICIT") {
    w.padding_ = Padding::kExplicit;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown padding '", padding, "'"));
  }
  if (w.padding_ == Padding::kExplicit) {
    if (explicit_paddings.size() != 8) {
      return absl::InvalidArgumentError(
          absl::StrCat("explicit_paddings must have 8 elements with EXPLICIT padding, got ",
                       explicit_paddings.size()));
    }
    for (int64_t p : explicit_paddings) {
      if (p < 0) return absl::InvalidArgumentError("explicit_paddings must be non-negative");
    }
    if (explicit_paddings[0] != 0 || explicit_paddings[1] != 0 || explicit_paddings[6] != 0 ||
        explicit_paddings[7] != 0) {
      return absl::InvalidArgumentError(
          "explicit_paddings in the batch and depth dimensions must be 0");
    }
    w.pad_top_ = explicit_paddings[2];
    w.pad_bottom_ = explicit_paddings[3];
    w.pad_left_ = explicit_paddings[4];
    w.pad_right_ = explicit_paddings[5];
  } else if (!explicit_paddings.empty()) {
    return absl::InvalidArgumentError("explicit_paddings must be empty unless padding is EXPLICIT");
  }
  return w;
}

Window2D Window2D::FromAttrs(OpKernelConstruction* c) {
  std::vector<int64_t> strides, dilations, explicit_paddings;
  std::string padding, data_format;
  if (!c->GetAttr("strides", &strides) || !c->GetAttr("padding", &padding) ||
      !c->GetAttr("data_format", &data_format)) {
    return Window2D();
  }
  if (c->HasAttr("dilations") && !c->GetAttr("dilations", &dilations)) return Window2D();
  if (c->HasAttr("explicit_paddings") && !c->GetAttr("explicit_paddings", &explicit_paddings)) {
    return Window2D();
  }
  absl::StatusOr<Window2D> w = Create(strides, dilations, padding, explicit_paddings, data_format);
  if (!w.ok()) {
    c->SetError(WithNodeName(c->name(), w.status()));
    return Window2D();
  }
  return *w;
}

absl::StatusOr<Window2DGeometry> Window2D::Geometry(const OpKernelContext& c,
                                                    const TensorShape& input, int64_t k_rows,
                                                    int64_t k_cols) const {
  if (input.dims() != 4) {
    return c.InvalidArgument(
        absl::StrCat("input must be 4-dimensional (NHWC), got shape ", input.DebugString()));
  }
  Window2DGeometry g;
  g.batch = input.dim_size(0);
  g.in_rows = input.dim_size(1);
  g.in_cols = input.dim_size(2);
  g.depth = input.dim_size(3);
  g.k_rows = k_rows;
  g.k_cols = k_cols;
  g.stride_rows = stride_rows_;
  g.stride_cols = stride_cols_;
  g.dil_rows = dil_rows_;
  g.dil_cols = dil_cols_;
  absl::StatusOr<WindowDim> rows =
      ComputeWindowDim(g.in_rows, k_rows, stride_rows_, dil_rows_, padding_, pad_top_, pad_bottom_);
  if (!rows.ok()) return c.InvalidArgument(rows.status().message());
  absl::StatusOr<WindowDim> cols =
      ComputeWindowDim(g.in_cols, k_cols, stride_cols_, dil_cols_, padding_, pad_left_, pad_right_);
  if (!cols.ok()) return c.InvalidArgument(cols.status().message());
  g.out_rows = rows->out_size;
  g.pad_top = rows->pad_before;
  g.out_cols = cols->out_size;
  g.pad_left = cols->pad_before;
  return g;
}

}  // namespace tensord
