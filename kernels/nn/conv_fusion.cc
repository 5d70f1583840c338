#include "kernels/nn/conv_fusion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tensord {

OneDnnConvOptions FusionFromAttrs(OpKernelConstruction* c) {
  OneDnnConvOptions options;
  if (!c->HasAttr("fused_ops")) return options;
  std::vector<std::string> fused;
  if (!c->GetAttr("fused_ops", &fused)) return options;
  if (c->HasAttr("leakyrelu_alpha")) c->GetAttr("leakyrelu_alpha", &options.leakyrelu_alpha);
  static const auto* const kActivations = new std::map<std::string, FusedActivation>{
      {"Relu", FusedActivation::kRelu}, {"Relu6", FusedActivation::kRelu6},
      {"Elu", FusedActivation::kElu}, {"LeakyRelu", FusedActivation::kLeakyRelu}};
  size_t next = 1;
  const bool bias = !fused.empty() && fused[0] == "BiasAdd";
  options.add_residual = bias && fused.size() > next && fused[next] == "Add";
  if (options.add_residual) ++next;
  const bool activation = bias && fused.size() == next + 1 && kActivations->count(fused[next]);
  if (!bias || (fused.size() != next && !activation)) {
    c->SetError(absl::UnimplementedError(
        absl::StrCat("fused_ops [", absl::StrJoin(fused, ", "), "] are not supported")));
    return options;
  }
  options.bias = true;
  if (activation) options.activation = kActivations->at(fused[next]);
  return options;
}

float Activate(const OneDnnConvOptions& options, float v) {
  switch (options.activation) {
    case FusedActivation::kNone: return v;
    case FusedActivation::kRelu: return std::max(v, 0.0f);
    case FusedActivation::kRelu6: return std::min(std::max(v, 0.0f), 6.0f);
    case FusedActivation::kElu: return v > 0 ? v : std::expm1(v);
    case FusedActivation::kLeakyRelu: return v > 0 ? v : options.leakyrelu_alpha * v;
  }
  return v;
}

}  // namespace tensord
