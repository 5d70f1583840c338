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

absl::StatusOr<Tensor> RunAddN(const std::vector<Tensor>& inputs, DeviceType device) {
  auto out = RunKernel(NodeBuilder("AddN")
                           .Attr("T", inputs[0].dtype())
                           .Attr("N", static_cast<int64_t>(inputs.size()))
                           .Build(),
                       inputs, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(AddNOpTest, SumsLeftToRight) {
  for (DeviceType device : TestDevices()) {
    for (int n = 1; n <= 5; ++n) {
      std::vector<Tensor> inputs;
      std::vector<float> want(6, 0.0f);
      for (int k = 0; k < n; ++k) {
        std::vector<float> values(6);
        for (int i = 0; i < 6; ++i) {
          values[i] = 0.5f * (k + 1) * (i - 2);
          want[i] += values[i];
        }
        inputs.push_back(AsTensor<float>(values, {2, 3}));
      }
      auto z = RunAddN(inputs, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<float>(want, {2, 3}));
    }
  }
}

TEST(AddNOpTest, LargeAndIntegerInputs) {
  constexpr int64_t kN = 100000;
  std::vector<int64_t> a(kN), b(kN), c(kN), want(kN);
  for (int64_t i = 0; i < kN; ++i) {
    a[i] = i;
    b[i] = 3 * i;
    c[i] = -i * 5000000;
    want[i] = a[i] + b[i] + c[i];
  }
  for (DeviceType device : TestDevices()) {
    auto z = RunAddN(
        {AsTensor<int64_t>(a, {kN}), AsTensor<int64_t>(b, {kN}), AsTensor<int64_t>(c, {kN})},
        device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>(want, {kN}));
  }
}

TEST(AddNOpTest, ShapeMismatchIsAnError) {
  for (DeviceType device : TestDevices()) {
    auto z = RunAddN({AsTensor<float>({1, 2}, {2}), AsTensor<float>({1}, {1})}, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Input 0: [2] != input 1: [1]"), std::string::npos);
  }
}

TEST(AddNOpTest, Empty) {
  for (DeviceType device : TestDevices()) {
    auto z =
        RunAddN({Tensor(DT_FLOAT, TensorShape{0, 2}), Tensor(DT_FLOAT, TensorShape{0, 2})}, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{0, 2}));
  }
}

}  // namespace
}  // namespace tensord
