#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<Tensor> RunCompare(const std::string& op, DataType dtype, const Tensor& x,
                                  const Tensor& y, DeviceType device,
                                  bool incompatible_shape_error = true) {
  NodeBuilder node(op);
  node.Attr("T", dtype);
  if (op == "Equal" || op == "NotEqual") {
    node.Attr("incompatible_shape_error", incompatible_shape_error);
  }
  auto out = RunKernel(node.Build(), {x, y}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(CwiseComparisonOpTest, FloatWithBroadcastAndNaN) {
  const Tensor x = AsTensor<float>({1.0f, 2.0f, kNaN, 1.0f, 2.0f, 3.0f}, {2, 3});
  const Tensor y = AsTensor<float>({2.0f, 2.0f, 2.0f}, {3});
  const std::vector<std::pair<std::string, std::vector<bool>>> cases = {
      {"Equal", {false, true, false, false, true, false}},
      {"NotEqual", {true, false, true, true, false, true}},
      {"Less", {true, false, false, true, false, false}},
      {"LessEqual", {true, true, false, true, true, false}},
      {"Greater", {false, false, false, false, false, true}},
      {"GreaterEqual", {false, true, false, false, true, true}},
  };
  for (DeviceType device : TestDevices()) {
    for (const auto& [op, want] : cases) {
      SCOPED_TRACE(op);
      auto z = RunCompare(op, DT_FLOAT, x, y, device);
      ASSERT_TRUE(z.ok()) << z.status();
      Tensor expected(DT_BOOL, TensorShape{2, 3});
      for (int i = 0; i < 6; ++i) expected.data<bool>()[i] = want[i];
      ExpectTensorEqual(*z, expected);
    }
  }
}

TEST(CwiseComparisonOpTest, IntegerTypes) {
  for (DeviceType device : TestDevices()) {
    auto z = RunCompare("Less", DT_INT32, AsTensor<int32_t>({1, 5}, {2, 1}),
                        AsTensor<int32_t>({2, 5, 7}, {3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({true, true, true, false, false, true}, {2, 3}));
    z = RunCompare("GreaterEqual", DT_INT64, AsTensor<int64_t>({5000000000, -1}, {2}),
                   AsTensor<int64_t>({5000000000}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({true, false}, {2}));
  }
}

TEST(CwiseComparisonOpTest, StringAndBoolEquality) {
  for (DeviceType device : TestDevices()) {
    auto z = RunCompare("Equal", DT_STRING, AsTensor<std::string>({"a", "b", ""}, {3}),
                        AsTensor<std::string>({"a"}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({true, false, false}, {3}));
    z = RunCompare("NotEqual", DT_BOOL, AsTensor<bool>({true, false}, {2}),
                   AsTensor<bool>({true}, {1}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({false, true}, {2}));
  }
}

// int32 runs on the CPU everywhere; float also on a GPU where one is visible.
TEST(CwiseComparisonOpTest, IncompatibleShapes) {
  for (DataType dtype : {DT_INT32, DT_FLOAT}) {
    const Tensor x =
        dtype == DT_INT32 ? AsTensor<int32_t>({1, 2}, {2}) : AsTensor<float>({1, 2}, {2});
    const Tensor y =
        dtype == DT_INT32 ? AsTensor<int32_t>({1, 2, 3}, {3}) : AsTensor<float>({1, 2, 3}, {3});
    const Tensor two = dtype == DT_INT32 ? AsTensor<int32_t>({2}, {}) : AsTensor<float>({2}, {});
    for (DeviceType device : TestDevices()) {
      auto z = RunCompare("Equal", dtype, x, y, device);
      EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
      z = RunCompare("Less", dtype, x, y, device);
      EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
      z = RunCompare("Equal", dtype, x, y, device, /*incompatible_shape_error=*/false);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<bool>({false}, {}));
      z = RunCompare("NotEqual", dtype, x, y, device, /*incompatible_shape_error=*/false);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<bool>({true}, {}));
      // Compatible shapes still compare elementwise.
      z = RunCompare("Equal", dtype, x, two, device, false);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<bool>({false, true}, {2}));
    }
  }
}

TEST(CwiseComparisonOpTest, LogicalAndOr) {
  const Tensor x = AsTensor<bool>({true, false}, {2, 1});
  const Tensor y = AsTensor<bool>({true, false}, {2});
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(NodeBuilder("LogicalAnd").Build(), {x, y}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<bool>({true, false, false, false}, {2, 2}));
    out = RunKernel(NodeBuilder("LogicalOr").Build(), {x, y}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<bool>({true, true, true, false}, {2, 2}));
  }
}

}  // namespace
}  // namespace tensord
