#include <cmath>
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

::tensorflow::NodeDef Node(const std::string& op) {
  return NodeBuilder(op).Attr("T", DT_FLOAT).Build();
}

// Rows: ordinary, one huge logit (overflows exp without the max shift), all equal.
// Expected values from TensorFlow 2.21.
const std::vector<float> kLogits = {1, 2, 3, 4, -1, 0, 1, 1000, -50, -50, -50, -50};

TEST(SoftmaxTest, MatchesTensorFlow) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(Node("Softmax"), {AsTensor(kLogits, {3, 4})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear(
        (*out)[0], AsTensor<float>({0.0320586041f, 0.0871443152f, 0.236882806f, 0.643914223f, 0, 0,
                                    0, 1, 0.25f, 0.25f, 0.25f, 0.25f},
                                   {3, 4}));
  }
}

TEST(SoftmaxTest, LogSoftmaxMatchesTensorFlow) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(Node("LogSoftmax"), {AsTensor(kLogits, {3, 4})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], AsTensor<float>({-3.4401896f, -2.4401896f, -1.44018972f,
                                                 -0.440189689f, -1001, -1000, -999, 0, -1.38629436f,
                                                 -1.38629436f, -1.38629436f, -1.38629436f},
                                                {3, 4}));
  }
}

TEST(SoftmaxTest, HigherRankUsesLastAxis) {
  const Tensor x = RandomFloatTensor({2, 3, 257}, 3);
  Tensor want(DT_FLOAT, x.shape()), want_log(DT_FLOAT, x.shape());
  for (int r = 0; r < 6; ++r) {
    const float* row = x.data<float>() + r * 257;
    double max = row[0], sum = 0;
    for (int i = 0; i < 257; ++i) max = std::max<double>(max, row[i]);
    for (int i = 0; i < 257; ++i) sum += std::exp(row[i] - max);
    for (int i = 0; i < 257; ++i) {
      want.data<float>()[r * 257 + i] = static_cast<float>(std::exp(row[i] - max) / sum);
      want_log.data<float>()[r * 257 + i] = static_cast<float>(row[i] - max - std::log(sum));
    }
  }
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(Node("Softmax"), {x}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], want);
    auto log_out = RunKernel(Node("LogSoftmax"), {x}, device);
    ASSERT_TRUE(log_out.ok()) << log_out.status();
    ExpectTensorNear((*log_out)[0], want_log);
  }
}

TEST(SoftmaxTest, VectorAndEmpty) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(Node("Softmax"), {AsTensor<float>({0, 0}, {2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], AsTensor<float>({0.5f, 0.5f}, {2}));
    auto empty = RunKernel(Node("Softmax"), {Tensor(DT_FLOAT, TensorShape{0, 5})}, device);
    ASSERT_TRUE(empty.ok()) << empty.status();
    EXPECT_EQ((*empty)[0].shape().DebugString(), "[0,5]");
    auto no_classes = RunKernel(Node("LogSoftmax"), {Tensor(DT_FLOAT, TensorShape{3, 0})}, device);
    ASSERT_TRUE(no_classes.ok()) << no_classes.status();
    EXPECT_EQ((*no_classes)[0].shape().DebugString(), "[3,0]");
  }
}

TEST(SoftmaxTest, ScalarIsInvalid) {
  auto out = RunKernel(Node("Softmax"), {AsTensor<float>({1}, {})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("test_node"), std::string::npos);
}

}  // namespace
}  // namespace tensord
