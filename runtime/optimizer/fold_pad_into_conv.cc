#include "runtime/optimizer/fold_pad_into_conv.h"

#include <array>
#include <optional>
#include <set>
#include <string>

#include "runtime/graph/tensor_name.h"

namespace tensord {
namespace {

using ::tensorflow::NodeDef;

// The [before, after] pads of the rows and columns of a constant [4, 2] NHWC paddings tensor
// that leaves the batch and channels alone; nullopt for anything else.
std::optional<std::array<int64_t, 4>> SpatialPads(const Tensor& paddings) {
  if (paddings.dims() != 2 || paddings.dim_size(0) != 4 || paddings.dim_size(1) != 2) {
    return std::nullopt;
  }
  std::array<int64_t, 8> p;
  for (int i = 0; i < 8; ++i) {
    if (paddings.dtype() == DT_INT32) {
      p[i] = paddings.data<int32_t>()[i];
    } else if (paddings.dtype() == DT_INT64) {
      p[i] = paddings.data<int64_t>()[i];
    } else {
      return std::nullopt;
    }
    if (p[i] < 0) return std::nullopt;
  }
  if (p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) return std::nullopt;
  return std::array<int64_t, 4>{p[2], p[3], p[4], p[5]};
}

bool IsZero(const Tensor& value) {
  return value.dtype() == DT_FLOAT && value.NumElements() == 1 && value.data<float>()[0] == 0.0f;
}

bool IsFloatPad(const GraphView& view, const NodeDef& pad) {
  if (pad.op() != "Pad" && pad.op() != "PadV2") return false;
  auto t = pad.attr().find("T");
  if (t == pad.attr().end() || t->second.type() != DT_FLOAT) return false;
  if (pad.op() == "Pad") return pad.input_size() >= 2;
  if (pad.input_size() < 3) return false;
  const std::optional<Tensor> fill = view.ConstantValue(pad.input(2));
  return fill.has_value() && IsZero(*fill);
}

}  // namespace

absl::StatusOr<int> FoldPadIntoConv(const GraphPassContext& context) {
  GraphView view(context);
  std::set<std::string> removed;
  for (int n = 0; n < context.graph->node_size(); ++n) {
    NodeDef* pad = context.graph->mutable_node(n);
    if (!IsFloatPad(view, *pad) || context.keep.count(pad->name())) continue;
    NodeDef* conv = view.SoleConsumer(pad->name());
    if (conv == nullptr || (conv->op() != "Conv2D" && conv->op() != "DepthwiseConv2dNative") ||
        !IsFloatNhwcOp(*conv) || conv->input_size() < 2 ||
        ParseTensorRef(conv->input(0)).node != pad->name()) {
      continue;
    }
    const std::string padding = StringAttr(*conv, "padding", "");
    if (padding != "VALID" && padding != "EXPLICIT") continue;
    const std::optional<Tensor> paddings = view.ConstantValue(pad->input(1));
    if (!paddings.has_value()) continue;
    const std::optional<std::array<int64_t, 4>> pads = SpatialPads(*paddings);
    if (!pads.has_value()) continue;

    std::array<int64_t, 8> explicit_pads = {0, 0, 0, 0, 0, 0, 0, 0};
    auto existing = conv->attr().find("explicit_paddings");
    if (padding == "EXPLICIT") {
      if (existing == conv->attr().end() || existing->second.list().i_size() != 8) continue;
      for (int i = 0; i < 8; ++i) explicit_pads[i] = existing->second.list().i(i);
    }
    for (int i = 0; i < 4; ++i) explicit_pads[2 + i] += (*pads)[i];
    auto& attrs = *conv->mutable_attr();
    attrs["padding"].set_s("EXPLICIT");
    auto* list = attrs["explicit_paddings"].mutable_list();
    list->clear_i();
    for (int64_t p : explicit_pads) list->add_i(p);
    conv->set_input(0, pad->input(0));
    for (const std::string& in : pad->input()) {
      if (ParseTensorRef(in).is_control()) conv->add_input(in);
    }
    removed.insert(pad->name());
  }
  view.RemoveNodes(removed);
  return static_cast<int>(removed.size());
}

}  // namespace tensord
