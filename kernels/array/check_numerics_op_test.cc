#include <cmath>
#include <limits>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

::tensorflow::NodeDef Node(DataType dtype) {
  return NodeBuilder("CheckNumerics").Attr("T", dtype).Attr("message", "msg").Build();
}

TEST(CheckNumericsOpTest, ForwardsFiniteValues) {
  const Tensor x = AsTensor<float>({1, -2, 0, 3e38f}, {2, 2});
  for (DeviceType device : TestDevices()) {
    Tensor y = RunOne(Node(DT_FLOAT), {x}, device);
    ExpectTensorEqual(y, x);
    EXPECT_TRUE(y.SharesBufferWith(x));
  }
  ExpectTensorEqual(RunOne(Node(DT_FLOAT), {Iota<float>({0, 3})}), Iota<float>({0, 3}));
}

TEST(CheckNumericsOpTest, ReportsWhatItFound) {
  for (DeviceType device : TestDevices()) {
    ExpectInvalidArgument(Node(DT_FLOAT), {AsTensor<float>({1, kNaN, kInf}, {3})},
                          "msg : Tensor had Inf and NaN values", device);
    ExpectInvalidArgument(Node(DT_FLOAT), {AsTensor<float>({1, kNaN}, {2})},
                          "msg : Tensor had NaN values", device);
    ExpectInvalidArgument(Node(DT_FLOAT), {AsTensor<float>({-kInf, 2}, {2})},
                          "msg : Tensor had Inf values", device);
  }
}

TEST(CheckNumericsOpTest, OtherFloatTypes) {
  ExpectInvalidArgument(Node(DT_DOUBLE),
                        {AsTensor<double>({1, std::numeric_limits<double>::infinity()}, {2})},
                        "Tensor had Inf values");
  ExpectInvalidArgument(Node(DT_HALF), {AsTensor<Eigen::half>({Eigen::half(kNaN)}, {1})},
                        "Tensor had NaN values");
  ExpectInvalidArgument(Node(DT_BFLOAT16),
                        {AsTensor<Eigen::bfloat16>({Eigen::bfloat16(kInf)}, {1})},
                        "Tensor had Inf values");
  const Tensor h = AsTensor<Eigen::half>({Eigen::half(1.5f), Eigen::half(65504.f)}, {2});
  ExpectTensorEqual(RunOne(Node(DT_HALF), {h}), h);
}

}  // namespace
}  // namespace testing
}  // namespace tensord
