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

absl::StatusOr<Tensor> RunClip(const Tensor& t, const Tensor& lo, const Tensor& hi,
                               DeviceType device) {
  auto out =
      RunKernel(NodeBuilder("ClipByValue").Attr("T", t.dtype()).Build(), {t, lo, hi}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(ClipOpTest, ScalarAndTensorBounds) {
  for (DeviceType device : TestDevices()) {
    auto z = RunClip(AsTensor<float>({-2, 0.5, 3, kNaN}, {2, 2}), AsTensor<float>({0}, {}),
                     AsTensor<float>({1}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({0, 0.5, 1, kNaN}, {2, 2}));
    z = RunClip(AsTensor<float>({1, 2, 3}, {3}), AsTensor<float>({2, 2, 2}, {3}),
                AsTensor<float>({2.5, 2.5, 2.5}, {3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({2, 2, 2.5}, {3}));
    z = RunClip(AsTensor<int32_t>({-5, 5, 50}, {3}), AsTensor<int32_t>({0}, {}),
                AsTensor<int32_t>({6, 6, 6}, {3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({0, 5, 6}, {3}));
  }
}

// TensorFlow 2.21: min > max clips everything to min; NaN in t stays NaN.
TEST(ClipOpTest, MinAboveMax) {
  for (DeviceType device : TestDevices()) {
    auto z = RunClip(AsTensor<float>({1, 5, kNaN}, {3}), AsTensor<float>({4}, {}),
                     AsTensor<float>({2}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({4, 4, kNaN}, {3}));
  }
}

TEST(ClipOpTest, BadBoundShape) {
  for (DeviceType device : TestDevices()) {
    auto z = RunClip(AsTensor<float>({1, 2, 3}, {3}), AsTensor<float>({1, 2}, {2}),
                     AsTensor<float>({3}, {}), device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("same shape as input, or a scalar"), std::string::npos);
  }
}

}  // namespace
}  // namespace tensord
