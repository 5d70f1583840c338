#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

// An op of a program: name and operands (inputs first, then earlier results).
struct Step {
  std::string op;
  int x;
  int y = -1;
};

Tensor Values(const std::vector<int64_t>& dims, float scale, float shift) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = scale * static_cast<float>((i * 37) % 23) / 23.0f + shift;
  }
  return t;
}

absl::StatusOr<Tensor> RunFused(const std::vector<Step>& program, const std::vector<Tensor>& in,
                                DeviceType device = DeviceType::kCpu) {
  std::vector<std::string> ops;
  std::vector<int64_t> operands;
  for (const Step& s : program) {
    ops.push_back(s.op);
    operands.push_back(s.x);
    operands.push_back(s.y);
  }
  auto out = RunKernel(NodeBuilder("_FusedElementwise")
                           .Attr("T", DT_FLOAT)
                           .Attr("ops", ops)
                           .Attr("operands", operands)
                           .Build(),
                       in, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// On the CPU the fused kernel uses each op's own functor: equal to the last bit. A GPU's
// functions (expf, tanhf, ...) differ from Eigen's in the last bits.
void ExpectMatches(DeviceType device, const Tensor& got, const Tensor& want) {
  if (device == DeviceType::kCpu) {
    ExpectTensorEqual(got, want);
  } else {
    ExpectTensorNear(got, want);
  }
}

// The reference: the same program run op by op with the ops' own kernels.
Tensor RunUnfused(const std::vector<Step>& program, std::vector<Tensor> values) {
  for (const Step& s : program) {
    std::vector<Tensor> args = {values[s.x]};
    if (s.y >= 0) args.push_back(values[s.y]);
    auto out = RunKernel(NodeBuilder(s.op).Attr("T", DT_FLOAT).Build(), args);
    EXPECT_TRUE(out.ok()) << s.op << ": " << out.status();
    values.push_back(out.ok() ? (*out)[0] : Tensor());
  }
  return values.back();
}

// An LSTM cell's gates: c' = sigmoid(f) * c + sigmoid(i) * tanh(g).
const std::vector<Step> kLstmCell = {
    {"Sigmoid", 0}, {"Mul", 4, 3}, {"Sigmoid", 1}, {"Tanh", 2}, {"Mul", 6, 7}, {"AddV2", 5, 8}};

TEST(FusedElementwiseTest, MatchesTheOpsRunOneByOne) {
  struct Case {
    std::vector<std::vector<int64_t>> shapes;  // of the program's inputs
  };
  // Same shapes (longer than a block), a scalar, a bias over rows, rows x columns.
  const std::vector<Case> cases = {
      {{{3, 700}, {3, 700}, {3, 700}, {3, 700}}},
      {{{2, 5}, {}, {2, 5}, {2, 5}}},
      {{{4, 300}, {300}, {4, 300}, {1, 300}}},
      {{{3, 1}, {1, 5}, {3, 5}, {1}}},
  };
  for (DeviceType device : TestDevices()) {
    for (const Case& c : cases) {
      std::vector<Tensor> in;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        in.push_back(Values(c.shapes[i], 4.0f, -2.0f + i));
      }
      auto got = RunFused(kLstmCell, in, device);
      ASSERT_TRUE(got.ok()) << got.status();
      ExpectMatches(device, *got, RunUnfused(kLstmCell, in));
    }
  }
}

TEST(FusedElementwiseTest, EveryFusableOp) {
  const std::vector<Tensor> in = {Values({2, 9}, 3.0f, 0.5f), Values({2, 9}, -2.0f, 1.0f)};
  for (DeviceType device : TestDevices()) {
    for (const char* op : {"Neg", "Abs", "Square", "Exp", "Log", "Sqrt", "Sigmoid", "Tanh",
                           "Erf", "Erfc", "Relu"}) {
      SCOPED_TRACE(op);
      const std::vector<Step> program = {{op, 0}, {"Mul", 2, 1}};
      auto got = RunFused(program, in, device);
      ASSERT_TRUE(got.ok()) << op << ": " << got.status();
      // Eigen's vectorised sqrt is an approximation the scalar tail does not use, so which
      // elements fall in a vector differs with the split: equal to the last bit or two.
      ExpectTensorNear(*got, RunUnfused(program, in));
    }
    for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"}) {
      SCOPED_TRACE(op);
      const std::vector<Step> program = {{op, 0, 1}, {"Tanh", 2}};
      auto got = RunFused(program, in, device);
      ASSERT_TRUE(got.ok()) << op << ": " << got.status();
      ExpectMatches(device, *got, RunUnfused(program, in));
    }
  }
}

TEST(FusedElementwiseTest, BadInputsAreErrors) {
  for (DeviceType device : TestDevices()) {
    const std::vector<Step> program = {{"Add", 0, 1}, {"Relu", 2}};
    auto wrong_dtype =
        RunFused(program, {AsTensor<int32_t>({1}, {1}), AsTensor<int32_t>({1}, {1})}, device);
    EXPECT_EQ(wrong_dtype.status().code(), absl::StatusCode::kInvalidArgument);
    auto shapes = RunFused(program, {Values({2, 3}, 1, 0), Values({4}, 1, 0)}, device);
    EXPECT_EQ(shapes.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(shapes.status().message().find("[2,3] vs. [4]"), std::string::npos)
        << shapes.status();
    auto range = RunFused({{"Add", 0, 5}}, {Values({2}, 1, 0), Values({2}, 1, 0)}, device);
    EXPECT_EQ(range.status().code(), absl::StatusCode::kInvalidArgument);
    auto unknown = RunFused({{"Cos", 0}}, {Values({2}, 1, 0)}, device);
    EXPECT_EQ(unknown.status().code(), absl::StatusCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace tensord
