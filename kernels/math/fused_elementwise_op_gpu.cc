// The GPU kernel of _FusedElementwise (float): the whole group per element in one kernel, its
// intermediate results in registers. The CPU kernel, which documents the op, is in
// fused_elementwise_op.cc.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_gpu_op.h"
#include "kernels/math/fused_elementwise.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

// The GPU function of each op the fusion pass groups (unary when `binary` is unset).
struct StepFn {
  GpuUnaryFn unary = GpuUnaryFn::kNeg;
  std::optional<GpuBinaryFn> binary;
};

const std::map<std::string, StepFn>& StepFns() {
  using U = GpuUnaryFn;
  using B = GpuBinaryFn;
  static const auto* const kFns = new std::map<std::string, StepFn>{
      {"Neg", {U::kNeg}},       {"Abs", {U::kAbs}},         {"Square", {U::kSquare}},
      {"Exp", {U::kExp}},       {"Log", {U::kLog}},         {"Sqrt", {U::kSqrt}},
      {"Sigmoid", {U::kSigmoid}}, {"Tanh", {U::kTanh}},     {"Erf", {U::kErf}},
      {"Erfc", {U::kErfc}},
      {"Relu", {U::kRelu}},     {"Add", {U::kNeg, B::kAdd}}, {"AddV2", {U::kNeg, B::kAdd}},
      {"Sub", {U::kNeg, B::kSub}}, {"Mul", {U::kNeg, B::kMul}}, {"RealDiv", {U::kNeg, B::kDiv}},
      {"Maximum", {U::kNeg, B::kMaximum}}, {"Minimum", {U::kNeg, B::kMinimum}}};
  return *kFns;
}

class GpuFusedElementwiseOp : public OpKernel {
 public:
  explicit GpuFusedElementwiseOp(OpKernelConstruction* c) : OpKernel(c) {
    if (!ReadFusedSteps(c, &steps_)) return;
    if (steps_.size() > static_cast<size_t>(GpuFusedProgram::kMaxSteps)) {
      c->SetError(absl::InvalidArgumentError(absl::StrCat(
          "fuses ", steps_.size(), " ops; the GPU kernel takes ", GpuFusedProgram::kMaxSteps)));
      return;
    }
    for (size_t s = 0; s < steps_.size(); ++s) {
      auto fn = StepFns().find(steps_[s].op);
      if (fn == StepFns().end()) {
        c->SetError(absl::UnimplementedError("op '" + steps_[s].op + "' cannot be fused"));
        return;
      }
      steps_[s].unary = !fn->second.binary.has_value();
      program_.unary[s] = steps_[s].unary;
      program_.unary_fn[s] = fn->second.unary;
      if (fn->second.binary) program_.binary_fn[s] = *fn->second.binary;
      program_.operands[s][0] = steps_[s].operands[0];
      program_.operands[s][1] = steps_[s].unary ? 0 : steps_[s].operands[1];
    }
    program_.num_steps = static_cast<int>(steps_.size());
  }

  absl::Status Compute(OpKernelContext* c) const override {
    if (c->num_inputs() > GpuFusedProgram::kMaxInputs) {
      return c->InvalidArgument(absl::StrCat("has ", c->num_inputs(),
                                             " inputs; the GPU kernel takes ",
                                             GpuFusedProgram::kMaxInputs));
    }
    Tensor* out = nullptr;
    TENSORD_ASSIGN_OR_RETURN(std::optional<BroadcastPlan> plan, PrepareFusedRun(c, steps_, &out));
    if (plan->num_elements() == 0) return absl::OkStatus();
    const int rank = static_cast<int>(plan->dims().size());
    if (rank > GpuBroadcast::kMaxRank) {
      return c->InvalidArgument(absl::StrCat("the broadcast of the inputs alternates in ", rank,
                                             " dimensions; the GPU kernel takes at most ",
                                             GpuBroadcast::kMaxRank));
    }
    GpuFusedProgram program = program_;
    program.num_inputs = c->num_inputs();
    program.rank = rank;
    for (int d = 0; d < rank; ++d) program.dims[d] = plan->dims()[d];
    for (int k = 0; k < program.num_inputs; ++k) {
      program.inputs[k] = c->input(k).data<float>();
      for (int d = 0; d < rank; ++d) program.strides[k][d] = plan->stride(k, d);
    }
    GpuDevice& device = GpuOf(c);
    return LaunchStatus(c->node_name(), device,
                        LaunchGpuFused(StreamOf(device), program, out->data<float>(),
                                       plan->num_elements()));
  }

 private:
  std::vector<FusedStep> steps_;
  GpuFusedProgram program_;  // all but the run's inputs and broadcast
};

TENSORD_REGISTER_KERNEL(
    KernelDef("_FusedElementwise").Device(DeviceType::kGpu).TypeConstraint("T", DT_FLOAT),
    GpuFusedElementwiseOp);

}  // namespace
}  // namespace math
}  // namespace tensord
