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
constexpr float kInf = std::numeric_limits<float>::infinity();

absl::StatusOr<Tensor> RunArg(const std::string& op, const Tensor& x, int64_t dim,
                              DataType output_type, DeviceType device) {
  auto out = RunKernel(NodeBuilder(op)
                           .Attr("T", x.dtype())
                           .Attr("Tidx", DT_INT32)
                           .Attr("output_type", output_type)
                           .Build(),
                       {x, AsTensor<int32_t>({static_cast<int32_t>(dim)}, {})}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(ArgMinMaxOpTest, AlongEachAxis) {
  const Tensor x = AsTensor<float>({1, 7, 3, 9, 2, 8, 5, 5, 0, 4, 6, 1}, {2, 3, 2});
  for (DeviceType device : TestDevices()) {
    auto z = RunArg("ArgMax", x, 0, DT_INT64, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({1, 0, 0, 0, 1, 0}, {3, 2}));
    z = RunArg("ArgMax", x, 1, DT_INT32, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1, 1, 2, 0}, {2, 2}));
    z = RunArg("ArgMin", x, -1, DT_INT64, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({0, 0, 0, 0, 0, 1}, {2, 3}));
    z = RunArg("ArgMin", x, 2, DT_INT32, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({0, 0, 0, 0, 0, 1}, {2, 3}));
  }
}

// Behaviour observed in TensorFlow 2.21: ties pick the lowest index and NaN never wins.
TEST(ArgMinMaxOpTest, TiesAndNaN) {
  for (DeviceType device : TestDevices()) {
    const std::vector<std::pair<std::vector<float>, int64_t>> argmax = {
        {{3, 3, 1}, 0},          {{1, kNaN, 2}, 2},  {{kNaN, 1, kNaN}, 1},
        {{kNaN, kNaN, kNaN}, 0}, {{-kInf, kNaN}, 0}, {{-kInf, -kInf, -1}, 2}};
    for (const auto& [values, want] : argmax) {
      auto z = RunArg("ArgMax", AsTensor<float>(values, {static_cast<int64_t>(values.size())}), 0,
                      DT_INT64, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<int64_t>({want}, {}));
    }
    auto z = RunArg("ArgMin", AsTensor<float>({1, kNaN, 0}, {3}), 0, DT_INT64, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({2}, {}));
    z = RunArg("ArgMin", AsTensor<float>({kInf, kInf}, {2}), 0, DT_INT64, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({0}, {}));
  }
}

TEST(ArgMinMaxOpTest, OtherTypes) {
  for (DeviceType device : TestDevices()) {
    auto z = RunArg("ArgMax", AsTensor<bool>({false, true, true}, {3}), 0, DT_INT64, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({1}, {}));
    z = RunArg("ArgMin", AsTensor<int64_t>({5, -9000000000, 3}, {3}), 0, DT_INT32, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1}, {}));
    z = RunArg("ArgMax", AsTensor<int32_t>({std::numeric_limits<int32_t>::lowest()}, {1}), 0,
               DT_INT64, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({0}, {}));
  }
}

TEST(ArgMinMaxOpTest, EmptyAndErrors) {
  for (DeviceType device : TestDevices()) {
    auto z = RunArg("ArgMax", Tensor(DT_FLOAT, TensorShape{0, 3}), 1, DT_INT64, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_INT64, TensorShape{0}));
    z = RunArg("ArgMax", Tensor(DT_FLOAT, TensorShape{2, 0}), 1, DT_INT64, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Reduction axis 1 is empty in shape [2,0]"),
              std::string::npos);
    z = RunArg("ArgMax", AsTensor<float>({1, 2}, {1, 2}), 2, DT_INT64, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Expected dimension in the range [-2, 2), but got 2"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace tensord
