#include <vector>

#include "gtest/gtest.h"
#include "kernels/nn/nn_test_util.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorNear;
using testing::NodeBuilder;
using testing::RandomFloatTensor;
using testing::RunKernel;
using testing::TestDevices;

::tensorflow::NodeDef BiasAddNode(const std::string& data_format) {
  return NodeBuilder("BiasAdd").Attr("T", DT_FLOAT).Attr("data_format", data_format).Build();
}

TEST(BiasAddTest, AddsAlongLastDimension) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        BiasAddNode("NHWC"),
        {AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}), AsTensor<float>({10, 20, 30}, {3})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], AsTensor<float>({11, 22, 33, 14, 25, 36}, {2, 3}));
  }
}

TEST(BiasAddTest, Nhwc4D) {
  const Tensor x = RandomFloatTensor({2, 3, 4, 5}, 1);
  const Tensor bias = RandomFloatTensor({5}, 2);
  Tensor want(DT_FLOAT, x.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    want.data<float>()[i] = x.data<float>()[i] + bias.data<float>()[i % 5];
  }
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(BiasAddNode("NHWC"), {x, bias}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], want);
  }
}

TEST(BiasAddTest, NchwAddsAlongDimensionOne) {
  const Tensor x = RandomFloatTensor({2, 3, 4, 5}, 1);
  const Tensor bias = RandomFloatTensor({3}, 2);
  Tensor want(DT_FLOAT, x.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    want.data<float>()[i] = x.data<float>()[i] + bias.data<float>()[(i / 20) % 3];
  }
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(BiasAddNode("NCHW"), {x, bias}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], want);
  }
}

TEST(BiasAddTest, BiasAddV1IsChannelsLast) {
  const auto node = NodeBuilder("BiasAddV1").Attr("T", DT_FLOAT).Build();
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        node, {AsTensor<float>({1, 2, 3, 4, 5, 6}, {1, 3, 2}), AsTensor<float>({-1, 1}, {2})},
        device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], AsTensor<float>({0, 3, 2, 5, 4, 7}, {1, 3, 2}));
  }
}

TEST(BiasAddTest, EmptyInput) {
  for (DeviceType device : TestDevices()) {
    auto out =
        RunKernel(BiasAddNode("NHWC"),
                  {Tensor(DT_FLOAT, TensorShape{0, 3}), AsTensor<float>({1, 2, 3}, {3})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape().DebugString(), "[0,3]");
  }
}

TEST(BiasAddTest, InvalidInputs) {
  auto mismatch = RunKernel(BiasAddNode("NHWC"), {AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                                                  AsTensor<float>({1, 2}, {2})});
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(mismatch.status().message().find("test_node"), std::string::npos);
  auto vector_input = RunKernel(BiasAddNode("NHWC"),
                                {AsTensor<float>({1, 2, 3}, {3}), AsTensor<float>({1, 2, 3}, {3})});
  EXPECT_EQ(vector_input.status().code(), absl::StatusCode::kInvalidArgument);
  auto matrix_bias = RunKernel(BiasAddNode("NHWC"), {AsTensor<float>({1, 2, 3, 4}, {2, 2}),
                                                     AsTensor<float>({1, 2, 3, 4}, {2, 2})});
  EXPECT_EQ(matrix_bias.status().code(), absl::StatusCode::kInvalidArgument);
  auto bad_format = RunKernel(
      BiasAddNode("CHWN"), {AsTensor<float>({1, 2, 3, 4}, {2, 2}), AsTensor<float>({1, 2}, {2})});
  EXPECT_EQ(bad_format.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
