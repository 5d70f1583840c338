#include "runtime/exec/reduced_precision.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "runtime/framework/device.h"
#include "runtime/graph/function_inliner.h"

namespace tensord {
namespace {

bool IsFloatAttr(const ::tensorflow::NodeDef& node, const char* name) {
  auto it = node.attr().find(name);
  return it != node.attr().end() && it->second.type() == ::tensorflow::DT_FLOAT;
}

bool ComputesInBfloat16(const ::tensorflow::NodeDef& node) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "MatMul", "_FusedMatMul", "BatchMatMul", "BatchMatMulV2", "Conv2D", "_FusedConv2D"};
  if (node.device() != kCpuDeviceName) return false;
  if (node.op() == "BatchMatMulV3") {
    return IsFloatAttr(node, "Ta") && IsFloatAttr(node, "Tb") && IsFloatAttr(node, "Tout");
  }
  return kOps->contains(node.op()) && IsFloatAttr(node, "T");
}

int MarkNodes(::tensorflow::GraphDef* graph) {
  int marked = 0;
  for (::tensorflow::NodeDef& node : *graph->mutable_node()) {
    if (!ComputesInBfloat16(node)) continue;
    (*node.mutable_attr())[kPrecisionAttr].set_s(PrecisionName(ComputePrecision::kBfloat16));
    ++marked;
  }
  return marked;
}

}  // namespace

ComputePrecision EffectivePrecision(ComputePrecision requested) {
  return requested == ComputePrecision::kBfloat16 && !CpuHasBfloat16()
             ? ComputePrecision::kFloat32
             : requested;
}

int MarkReducedPrecision(::tensorflow::GraphDef* graph, ComputePrecision precision) {
  if (precision == ComputePrecision::kFloat32) return 0;
  int marked = 0;
  RewriteFlatFunctions(graph, [&](::tensorflow::GraphDef* body) { marked += MarkNodes(body); });
  return marked + MarkNodes(graph);
}

}  // namespace tensord
