#include "kernels/math/fused_elementwise.h"

#include <optional>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {

bool ReadFusedSteps(OpKernelConstruction* c, std::vector<FusedStep>* steps) {
  std::vector<std::string> names;
  std::vector<int64_t> operands;
  if (!c->GetAttr("ops", &names) || !c->GetAttr("operands", &operands)) return false;
  if (names.empty() || operands.size() != 2 * names.size()) {
    c->SetError(absl::InvalidArgumentError("ops must be non-empty with two operands each"));
    return false;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    steps->push_back(FusedStep{
        names[i], {static_cast<int>(operands[2 * i]), static_cast<int>(operands[2 * i + 1])}});
  }
  return true;
}

absl::StatusOr<BroadcastPlan> PrepareFusedRun(OpKernelContext* c,
                                              absl::Span<const FusedStep> steps,
                                              Tensor** output) {
  const int num_inputs = c->num_inputs();
  for (size_t s = 0; s < steps.size(); ++s) {
    for (int k = 0; k < (steps[s].unary ? 1 : 2); ++k) {
      const int operand = steps[s].operands[k];
      if (operand < 0 || operand >= num_inputs + static_cast<int>(s)) {
        return c->InvalidArgument(
            absl::StrCat("operand ", operand, " of fused op ", s, " is out of range"));
      }
    }
  }
  absl::InlinedVector<TensorShape, 4> shapes;
  for (int i = 0; i < num_inputs; ++i) {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DT_FLOAT));
    shapes.push_back(c->input(i).shape());
  }
  std::optional<BroadcastPlan> plan = BroadcastPlan::Make(shapes);
  if (!plan) {
    std::string listed;
    for (const TensorShape& s : shapes) {
      listed += (listed.empty() ? "" : " vs. ") + s.DebugString();
    }
    return c->InvalidArgument("Incompatible shapes: " + listed);
  }
  absl::InlinedVector<int, 2> forwardable;  // the first two inputs of the output's shape
  for (int i = 0; i < num_inputs && forwardable.size() < 2; ++i) {
    if (shapes[i] == plan->output_shape()) forwardable.push_back(i);
  }
  switch (forwardable.size()) {
    case 0:
      *output = c->allocate_output_for_overwrite(0, DT_FLOAT, plan->output_shape());
      break;
    case 1:
      *output =
          c->forward_input_or_allocate_output({forwardable[0]}, 0, DT_FLOAT, plan->output_shape());
      break;
    default:
      *output = c->forward_input_or_allocate_output({forwardable[0], forwardable[1]}, 0, DT_FLOAT,
                                                    plan->output_shape());
  }
  return *std::move(plan);
}

}  // namespace math
}  // namespace tensord
