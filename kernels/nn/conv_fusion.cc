#include "kernels/nn/conv_fusion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/tensor_shape.h"

namespace tensord {

namespace {

ComputePrecision PrecisionFromAttrs(OpKernelConstruction* c) {
  std::string name;
  if (!c->HasAttr(kPrecisionAttr) || !c->GetAttr(kPrecisionAttr, &name)) {
    return ComputePrecision::kFloat32;
  }
  absl::StatusOr<ComputePrecision> precision = ParsePrecision(name);
  if (!precision.ok()) {
    c->SetError(precision.status());
    return ComputePrecision::kFloat32;
  }
  return *precision == ComputePrecision::kBfloat16 && CpuHasBfloat16()
             ? ComputePrecision::kBfloat16
             : ComputePrecision::kFloat32;
}

}  // namespace

OneDnnConvOptions OneDnnOptionsFromAttrs(OpKernelConstruction* c) {
  OneDnnConvOptions options;
  options.precision = PrecisionFromAttrs(c);
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

// NumPy broadcasting of `residual` to `output`'s shape (dims aligned from the right, each 1 or
// equal), which the residual add must satisfy.
absl::Status CheckBroadcastable(const Tensor& residual, const Tensor& output) {
  bool ok = residual.dims() <= output.dims();
  for (int i = 1; ok && i <= residual.dims(); ++i) {
    const int64_t r = residual.dim_size(residual.dims() - i);
    ok = r == 1 || r == output.dim_size(output.dims() - i);
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("cannot add a residual of shape ",
                                                   residual.shape().DebugString(),
                                                   " to the output of shape ",
                                                   output.shape().DebugString()));
  }
  return absl::OkStatus();
}

// output = activation(output + broadcast(residual)), element by element: the rare shapes the
// fused pass cannot take.
void AddBroadcastAndActivate(const OneDnnConvOptions& options, const Tensor& residual,
                             Tensor* output) {
  const int rank = output->dims();
  std::vector<int64_t> strides(rank, 0);  // residual element stride per output dim
  int64_t stride = 1;
  for (int i = 1; i <= residual.dims(); ++i) {
    const int64_t r = residual.dim_size(residual.dims() - i);
    if (r != 1) strides[rank - i] = stride;
    stride *= r;
  }
  float* y = output->data<float>();
  const float* r = residual.data<float>();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < output->NumElements(); ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += index[d] * strides[d];
    y[i] = Activate(options, y[i] + r[offset]);
    for (int d = rank - 1; d >= 0 && ++index[d] == output->dim_size(d); --d) index[d] = 0;
  }
}

}  // namespace tensord
