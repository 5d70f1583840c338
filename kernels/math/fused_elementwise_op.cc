// _FusedElementwise: a chain (or small tree) of float elementwise ops evaluated in one kernel,
// written by the FuseElementwise load-time pass (runtime/optimizer/fuse_elementwise.h).
//
// Attrs: `ops` (op names, in evaluation order) and `operands` (two per op; the second is -1 for
// a unary op). Operand k < number of data inputs is input k; k >= that is the result of op
// k - inputs. The last op's result is the output. Inputs broadcast as in TensorFlow; the output
// has the broadcast of every input's shape, which is what the unfused ops produce.
//
// Elements are evaluated in blocks of kBlock along contiguous runs of the broadcast: each op
// makes one vectorised pass over the block, so intermediate results stay in cache and no
// intermediate tensor is allocated. Each op uses the functor of its own kernel, so results are
// those of running the ops one by one (to the last bit, except where a vectorised function is an
// approximation its scalar form is not, and elements fall in vectors differently).
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_util.h"
#include "kernels/math/erfc.h"
#include "kernels/math/fused_elementwise.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

namespace ei = Eigen::internal;

enum class Op {
  kNeg,
  kAbs,
  kSquare,
  kExp,
  kLog,
  kSqrt,
  kSigmoid,
  kTanh,
  kErf,
  kErfc,
  kRelu,  // unary
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kMinimum,  // binary
};

bool IsUnary(Op op) { return op <= Op::kRelu; }

std::optional<Op> ParseOp(const std::string& name) {
  static const auto* const kOps = new std::map<std::string, Op>{
      {"Neg", Op::kNeg},         {"Abs", Op::kAbs},        {"Square", Op::kSquare},
      {"Exp", Op::kExp},         {"Log", Op::kLog},        {"Sqrt", Op::kSqrt},
      {"Sigmoid", Op::kSigmoid}, {"Tanh", Op::kTanh},      {"Erf", Op::kErf},
      {"Erfc", Op::kErfc},       {"Relu", Op::kRelu},       {"Add", Op::kAdd},        {"AddV2", Op::kAdd},
      {"Sub", Op::kSub},         {"Mul", Op::kMul},        {"RealDiv", Op::kDiv},
      {"Maximum", Op::kMaximum}, {"Minimum", Op::kMinimum}};
  auto it = kOps->find(name);
  if (it == kOps->end()) return std::nullopt;
  return it->second;
}

constexpr int64_t kBlock = 256;

// A block of one operand: `stride` 1 walks `data`, 0 repeats data[0].
struct Operand {
  const float* data;
  int64_t stride;
};

template <typename F>
void Unary(const F& f, Operand x, float* out, int64_t n) {
  if (x.stride == 0) {
    std::fill(out, out + n, f(*x.data));
  } else {
    ArrayMap<float>(out, n) = ConstArrayMap<float>(x.data, n).unaryExpr(f);
  }
}

template <typename F>
void Binary(const F& f, Operand x, Operand y, float* out, int64_t n) {
  BinaryRun(f, x.data, x.stride, y.data, y.stride, out, n);
}

void Apply(Op op, Operand x, Operand y, float* out, int64_t n) {
  static const float kZero = 0.0f;
  switch (op) {
    case Op::kNeg:
      return Unary(ei::scalar_opposite_op<float>(), x, out, n);
    case Op::kAbs:
      return Unary(ei::scalar_abs_op<float>(), x, out, n);
    case Op::kSquare:
      return Unary(ei::scalar_square_op<float>(), x, out, n);
    case Op::kExp:
      return Unary(ei::scalar_exp_op<float>(), x, out, n);
    case Op::kLog:
      return Unary(ei::scalar_log_op<float>(), x, out, n);
    case Op::kSqrt:
      return Unary(ei::scalar_sqrt_op<float>(), x, out, n);
    case Op::kSigmoid:
      return Unary(ei::scalar_logistic_op<float>(), x, out, n);
    case Op::kTanh:
      return Unary(ei::scalar_tanh_op<float>(), x, out, n);
    case Op::kErf:
      return Unary(ei::scalar_erf_op<float>(), x, out, n);
    case Op::kErfc:
      return Unary(ErfcFn(), x, out, n);
    case Op::kRelu:
      return Binary(MaxFn<float>(), x, Operand{&kZero, 0}, out, n);
    case Op::kAdd:
      return Binary(ei::scalar_sum_op<float>(), x, y, out, n);
    case Op::kSub:
      return Binary(ei::scalar_difference_op<float>(), x, y, out, n);
    case Op::kMul:
      return Binary(ei::scalar_product_op<float>(), x, y, out, n);
    case Op::kDiv:
      return Binary(ei::scalar_quotient_op<float>(), x, y, out, n);
    case Op::kMaximum:
      return Binary(MaxFn<float>(), x, y, out, n);
    case Op::kMinimum:
      return Binary(MinFn<float>(), x, y, out, n);
  }
}

class FusedElementwiseOp : public OpKernel {
 public:
  explicit FusedElementwiseOp(OpKernelConstruction* c) : OpKernel(c) {
    std::vector<FusedStep> read;
    if (!ReadFusedSteps(c, &read)) return;
    for (FusedStep& step : read) {
      std::optional<Op> op = ParseOp(step.op);
      if (!op) {
        c->SetError(absl::UnimplementedError("op '" + step.op + "' cannot be fused"));
        return;
      }
      step.unary = IsUnary(*op);
      ops_.push_back(*op);
      steps_.push_back(std::move(step));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    Tensor* out = nullptr;
    TENSORD_ASSIGN_OR_RETURN(std::optional<BroadcastPlan> plan, PrepareFusedRun(c, steps_, &out));
    if (plan->num_elements() == 0) return absl::OkStatus();
    const int num_inputs = c->num_inputs();
    absl::InlinedVector<const float*, 8> inputs(num_inputs);
    for (int i = 0; i < num_inputs; ++i) inputs[i] = c->input(i).data<float>();
    float* output = out->data<float>();

    const absl::Span<const int64_t> dims = plan->dims();
    const int rank = static_cast<int>(dims.size());
    const int64_t inner = dims.back();
    const Eigen::TensorOpCost cost(4.0 * num_inputs, 4, 8.0 * steps_.size());
    ParallelFor(c->eigen_cpu_device(), plan->num_elements(), cost,
                [&](Eigen::Index begin, Eigen::Index end) {
                  absl::InlinedVector<float, 16 * kBlock> scratch(kBlock * steps_.size());
                  absl::InlinedVector<int64_t, 8> offsets(num_inputs);
                  int64_t row = begin / inner;
                  int64_t col = begin % inner;
                  while (begin < end) {
                    const int64_t run = std::min<int64_t>(inner - col, end - begin);
                    for (int k = 0; k < num_inputs; ++k) offsets[k] = col * plan->inner_stride(k);
                    int64_t rest = row;
                    for (int d = rank - 2; d >= 0 && rest > 0; --d) {
                      const int64_t index = rest % dims[d];
                      rest /= dims[d];
                      for (int k = 0; k < num_inputs; ++k) offsets[k] += index * plan->stride(k, d);
                    }
                    for (int64_t done = 0; done < run; done += kBlock) {
                      const int64_t n = std::min(kBlock, run - done);
                      auto operand = [&](int k) -> Operand {
                        if (k >= num_inputs) return Operand{&scratch[(k - num_inputs) * kBlock], 1};
                        const int64_t stride = plan->inner_stride(k);
                        return Operand{inputs[k] + offsets[k] + done * stride, stride};
                      };
                      for (size_t s = 0; s < steps_.size(); ++s) {
                        const FusedStep& step = steps_[s];
                        float* dst =
                            s + 1 == steps_.size() ? output + begin + done : &scratch[s * kBlock];
                        const Operand y =
                            step.unary ? Operand{nullptr, 0} : operand(step.operands[1]);
                        Apply(ops_[s], operand(step.operands[0]), y, dst, n);
                      }
                    }
                    begin += run;
                    ++row;
                    col = 0;
                  }
                });
    return absl::OkStatus();
  }

 private:
  std::vector<FusedStep> steps_;
  std::vector<Op> ops_;  // per step
};

TENSORD_REGISTER_KERNEL(
    KernelDef("_FusedElementwise").Device(DeviceType::kCpu).TypeConstraint("T", DT_FLOAT),
    FusedElementwiseOp);

}  // namespace
}  // namespace math
}  // namespace tensord
