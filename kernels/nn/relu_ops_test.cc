#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorNear;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

const std::vector<float> kX = {-20, -3, -1, -0.5f, -0.001f, 0, 0.001f, 0.5f, 1, 3, 6, 7, 20};

void ExpectActivation(const ::tensorflow::NodeDef& node, const std::vector<float>& want) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(node, {AsTensor(kX, {13})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], AsTensor(want, {13}));
  }
}

// Expected values from TensorFlow 2.21 (tf.raw_ops.<Op>(features=kX)).
TEST(ReluOpsTest, Relu) {
  ExpectActivation(NodeBuilder("Relu").Attr("T", DT_FLOAT).Build(),
                   {0, 0, 0, 0, 0, 0, 0.001f, 0.5f, 1, 3, 6, 7, 20});
}

TEST(ReluOpsTest, Relu6) {
  ExpectActivation(NodeBuilder("Relu6").Attr("T", DT_FLOAT).Build(),
                   {0, 0, 0, 0, 0, 0, 0.001f, 0.5f, 1, 3, 6, 6, 6});
}

TEST(ReluOpsTest, LeakyRelu) {
  ExpectActivation(NodeBuilder("LeakyRelu").Attr("T", DT_FLOAT).Attr("alpha", 0.3f).Build(),
                   {-6, -0.900000036f, -0.300000012f, -0.150000006f, -0.000300000014f, 0, 0.001f,
                    0.5f, 1, 3, 6, 7, 20});
}

TEST(ReluOpsTest, Elu) {
  ExpectActivation(NodeBuilder("Elu").Attr("T", DT_FLOAT).Build(),
                   {-1, -0.950212955f, -0.63212055f, -0.393469334f, -0.000999510288f, 0, 0.001f,
                    0.5f, 1, 3, 6, 7, 20});
}

TEST(ReluOpsTest, Selu) {
  ExpectActivation(
      NodeBuilder("Selu").Attr("T", DT_FLOAT).Build(),
      {-1.75809932f, -1.6705687f, -1.11133075f, -0.691758156f, -0.00175723841f, 0, 0.00105070102f,
       0.525350511f, 1.05070102f, 3.15210295f, 6.30420589f, 7.35490704f, 21.0140209f});
}

TEST(ReluOpsTest, NanPropagatesAndShapeIsKept) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"Relu", "Relu6"}) {
    auto out = RunKernel(NodeBuilder(op).Attr("T", DT_FLOAT).Build(),
                         {AsTensor<float>({nan, -1, 2, 9}, {2, 2})});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0],
                     AsTensor<float>({nan, 0, 2, std::string(op) == "Relu" ? 9.0f : 6.0f}, {2, 2}));
  }
}

// Inputs large enough to be split across the tests' threads: every element as the small case.
TEST(ReluOpsTest, LargeInputsSplitAcrossThreads) {
  const int64_t n = 1 << 18;
  std::vector<float> x(n), relu(n), elu(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = kX[i % kX.size()] * (1 + i % 7);
    relu[i] = std::max(x[i], 0.0f);
    elu[i] = x[i] < 0 ? std::exp(x[i]) - 1 : x[i];
  }
  for (DeviceType device : TestDevices()) {
    for (const auto& [op, want] : {std::make_pair("Relu", &relu), std::make_pair("Elu", &elu)}) {
      auto out = RunKernel(NodeBuilder(op).Attr("T", DT_FLOAT).Build(), {AsTensor(x, {n})}, device);
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorNear((*out)[0], AsTensor(*want, {n}));
    }
  }
}

TEST(ReluOpsTest, Empty) {
  auto out = RunKernel(NodeBuilder("Relu").Attr("T", DT_FLOAT).Build(),
                       {Tensor(DT_FLOAT, TensorShape{0, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape().DebugString(), "[0,3]");
}

}  // namespace
}  // namespace tensord
