#include <cstdint>
#include <limits>
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

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

absl::StatusOr<Tensor> RunBinary(const std::string& op, DataType dtype, const Tensor& x,
                                 const Tensor& y, DeviceType device) {
  auto out = RunKernel(NodeBuilder(op).Attr("T", dtype).Build(), {x, y}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Expected values computed once with TensorFlow 2.21 (Atan2 takes (y=x, x=y)).
TEST(CwiseBinaryDivOpTest, FloatMatchesTensorFlow) {
  const Tensor x =
      AsTensor<float>({7.0, -7.0, 7.5, -7.5, 0.0, 1.0, 3.0, -2.0, 2.0, 0.0, -1.0, 5.0}, {2, 6});
  const Tensor y =
      AsTensor<float>({2.0, 2.0, -2.0, -2.0, 3.0, 0.0, 0.5, 0.0, -0.5, 0.0, 3.0, -4.0}, {2, 6});
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"Div", {3.5, -3.5, -3.75, 3.75, 0.0, kInf, 6.0, -kInf, -4.0, kNaN, -0.333333343, -1.25}},
      {"RealDiv", {3.5, -3.5, -3.75, 3.75, 0.0, kInf, 6.0, -kInf, -4.0, kNaN, -0.333333343, -1.25}},
      {"DivNoNan", {3.5, -3.5, -3.75, 3.75, 0.0, 0.0, 6.0, 0.0, -4.0, 0.0, -0.333333343, -1.25}},
      {"FloorDiv", {3.0, -4.0, -4.0, 3.0, 0.0, kInf, 6.0, -kInf, -4.0, kNaN, -1.0, -2.0}},
      {"FloorMod", {1.0, 1.0, -0.5, -1.5, 0.0, kNaN, 0.0, kNaN, 0.0, kNaN, 2.0, -3.0}},
      {"TruncateDiv", {3.0, -3.0, -3.0, 3.0, 0.0, kInf, 6.0, -kInf, -4.0, kNaN, -0.0, -1.0}},
      {"TruncateMod", {1.0, -1.0, 1.5, -1.5, 0.0, kNaN, 0.0, kNaN, 0.0, kNaN, -1.0, 1.0}},
      {"Pow",
       {49.0, 49.0, 0.0177777782, 0.0177777782, 0.0, 1.0, 1.73205078, 1.0, 0.707106769, 1.0, -1.0,
        0.00159999996}},
      {"Xdivy", {3.5, -3.5, -3.75, 3.75, 0.0, kInf, 6.0, -kInf, -4.0, 0.0, -0.333333343, -1.25}},
      {"Xlogy",
       {4.85203028, -4.85203028, kNaN, kNaN, 0.0, -kInf, -2.07944155, kInf, kNaN, 0.0, -1.09861231,
        kNaN}},
      {"Atan2",
       {1.29249668, -1.29249668, 1.83139873, -1.83139873, 0.0, 1.57079637, 1.40564775, -1.57079637,
        1.81577492, 0.0, -0.321750551, 2.24553728}},
  };
  for (DeviceType device : TestDevices()) {
    for (const auto& [op, want] : cases) {
      SCOPED_TRACE(op);
      auto z = RunBinary(op, DT_FLOAT, x, y, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorNear(*z, AsTensor<float>(want, {2, 6}));
    }
  }
}

TEST(CwiseBinaryDivOpTest, IntegersMatchTensorFlow) {
  const Tensor x = AsTensor<int32_t>({7, -7, 7, -7, 0, 9, -9, 13}, {8});
  const Tensor y = AsTensor<int32_t>({2, 2, -2, -2, 3, 3, 4, -5}, {8});
  const std::vector<std::pair<std::string, std::vector<int32_t>>> cases = {
      {"Div", {3, -3, -3, 3, 0, 3, -2, -2}},        {"FloorDiv", {3, -4, -4, 3, 0, 3, -3, -3}},
      {"FloorMod", {1, 1, -1, -1, 0, 0, 3, -2}},    {"TruncateDiv", {3, -3, -3, 3, 0, 3, -2, -2}},
      {"TruncateMod", {1, -1, 1, -1, 0, 0, -1, 3}}, {"Mod", {1, -1, 1, -1, 0, 0, -1, 3}},
  };
  for (DeviceType device : TestDevices()) {
    for (const auto& [op, want] : cases) {
      SCOPED_TRACE(op);
      auto z = RunBinary(op, DT_INT32, x, y, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<int32_t>(want, {8}));
      // Same through int64.
      Tensor x64(DT_INT64, x.shape()), y64(DT_INT64, y.shape()), want64(DT_INT64, x.shape());
      for (int i = 0; i < 8; ++i) {
        x64.data<int64_t>()[i] = x.data<int32_t>()[i];
        y64.data<int64_t>()[i] = y.data<int32_t>()[i];
        want64.data<int64_t>()[i] = want[i];
      }
      z = RunBinary(op, DT_INT64, x64, y64, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, want64);
    }
  }
}

TEST(CwiseBinaryDivOpTest, IntegerPow) {
  for (DeviceType device : TestDevices()) {
    auto z = RunBinary("Pow", DT_INT32, AsTensor<int32_t>({2, -3, 0, 5, 1, -1, 10, 3}, {8}),
                       AsTensor<int32_t>({10, 3, 0, 0, 7, 5, 9, 4}, {8}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1024, -27, 1, 1, 1, -1, 1000000000, 81}, {8}));
    z = RunBinary("Pow", DT_INT32, AsTensor<int32_t>({2}, {1}), AsTensor<int32_t>({-1}, {1}),
                  device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Integers to negative integer powers are not allowed"),
              std::string::npos);
  }
}

TEST(CwiseBinaryDivOpTest, IntegerDivisionByZeroIsAnError) {
  for (DeviceType device : TestDevices()) {
    for (const std::string op : {"Div", "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod"}) {
      SCOPED_TRACE(op);
      auto z = RunBinary(op, DT_INT32, AsTensor<int32_t>({1, 2}, {2}),
                         AsTensor<int32_t>({1, 0}, {2}), device);
      ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(z.status().message().find("Integer division by zero"), std::string::npos);
      z = RunBinary(op, DT_INT64, AsTensor<int64_t>({1}, {1}), AsTensor<int64_t>({0}, {}), device);
      EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

// lowest / -1 overflows; it must wrap rather than trap.
TEST(CwiseBinaryDivOpTest, LowestDividedByMinusOneWraps) {
  constexpr int32_t kLowest = std::numeric_limits<int32_t>::lowest();
  for (DeviceType device : TestDevices()) {
    auto z = RunBinary("FloorDiv", DT_INT32, AsTensor<int32_t>({kLowest, 7}, {2}),
                       AsTensor<int32_t>({-1}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({kLowest, -7}, {2}));
    z = RunBinary("FloorMod", DT_INT32, AsTensor<int32_t>({kLowest, 7}, {2}),
                  AsTensor<int32_t>({-1}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({0, 0}, {2}));
  }
}

TEST(CwiseBinaryDivOpTest, ScalarDivisorBroadcastAndDouble) {
  for (DeviceType device : TestDevices()) {
    auto z = RunBinary("RealDiv", DT_DOUBLE, AsTensor<double>({1.0, 3.0, -4.5}, {3, 1}),
                       AsTensor<double>({2.0}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<double>({0.5, 1.5, -2.25}, {3, 1}));
    z = RunBinary("DivNoNan", DT_FLOAT, AsTensor<float>({kNaN, 1.0f}, {2}),
                  AsTensor<float>({0.0f}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({0.0f, 0.0f}, {2}));
    z = RunBinary("Div", DT_FLOAT, AsTensor<float>({1.0f}, {}),
                  AsTensor<float>({0.0f, -0.0f, 4.0f}, {3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({kInf, -kInf, 0.25f}, {3}));
  }
}

}  // namespace
}  // namespace tensord
