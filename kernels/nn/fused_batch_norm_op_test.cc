#include <cmath>
#include <cstdint>
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

::tensorflow::NodeDef BatchNormNode(const std::string& op, bool is_training, float epsilon,
                                    const std::string& data_format = "NHWC",
                                    float exponential_avg_factor = 1.0f) {
  NodeBuilder b(op);
  b.Attr("T", DT_FLOAT)
      .Attr("epsilon", epsilon)
      .Attr("exponential_avg_factor", exponential_avg_factor)
      .Attr("data_format", data_format)
      .Attr("is_training", is_training);
  if (op != "FusedBatchNorm") b.Attr("U", DT_FLOAT);
  return b.Build();
}

Tensor Ramp24() {
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[i] = i / 7.0f;
  return AsTensor(x, {1, 2, 3, 4});
}
Tensor Scale() { return AsTensor<float>({1, 2, 3, 4}, {4}); }
Tensor Offset() { return AsTensor<float>({0.1f, 0.2f, 0.3f, 0.4f}, {4}); }
Tensor Mean() { return AsTensor<float>({0.5f, 0.6f, 0.7f, 0.8f}, {4}); }
Tensor Variance() { return AsTensor<float>({1, 2, 3, 4}, {4}); }
Tensor Empty() { return AsTensor<float>({}, {0}); }

// Literal values below come from TensorFlow 2.21 (tf.raw_ops.FusedBatchNormV3), with
// x = arange(24).reshape(1,2,3,4)/7, scale [1,2,3,4], offset [.1,.2,.3,.4], epsilon 0.001.
TEST(FusedBatchNormTest, InferenceMatchesTensorFlowForEveryVersion) {
  const Tensor want_y = AsTensor<float>(
      {-0.399750203f, -0.44633615f, -0.417444348f, -0.342764348f, 0.171392918f, 0.361584008f,
       0.572134137f,  0.799950004f, 0.742536068f,  1.16950405f,   1.56171274f,  1.94266427f,
       1.3136791f,    1.97742414f,  2.55129099f,   3.08537889f,   1.88482225f,  2.78534436f,
       3.54086947f,   4.22809315f,  2.45596528f,   3.59326458f,   4.53044796f,  5.37080765f},
      {1, 2, 3, 4});
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    for (DeviceType device : TestDevices()) {
      auto out = RunKernel(BatchNormNode(op, false, 0.001f),
                           {Ramp24(), Scale(), Offset(), Mean(), Variance()}, device);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ(out->size(), std::string(op) == "FusedBatchNormV3" ? 6u : 5u) << op;
      ExpectTensorNear((*out)[0], want_y);
      ExpectTensorNear((*out)[1], Mean());
      ExpectTensorNear((*out)[2], Variance());
    }
  }
}

TEST(FusedBatchNormTest, InferenceNchwMatchesTensorFlow) {
  auto x = Ramp24().Reshaped(TensorShape{2, 4, 3, 1});
  ASSERT_TRUE(x.ok());
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(BatchNormNode("FusedBatchNormV3", false, 0.001f, "NCHW"),
                         {*x, Scale(), Offset(), Mean(), Variance()}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear(
        (*out)[0],
        AsTensor<float>({-0.399750203f, -0.256964445f, -0.114178635f, -0.0423760563f, 0.159603998f,
                         0.361584008f,  0.572134137f,  0.819528759f,  1.0669235f,     1.37130713f,
                         1.65698588f,   1.94266427f,   1.3136791f,    1.45646477f,    1.59925067f,
                         2.38138413f,   2.58336449f,   2.78534436f,   3.54086947f,    3.78826404f,
                         4.03565884f,   4.7994504f,    5.08512878f,   5.37080765f},
                        {2, 4, 3, 1}));
  }
}

Tensor TrainY() {
  return AsTensor<float>(
      {-1.36308217f, -2.72616482f, -4.0892477f,   -5.45232821f,  -0.777849317f, -1.55569887f,
       -2.33354878f, -3.11139703f, -0.192616433f, -0.385233164f, -0.577849746f, -0.770465732f,
       0.392616421f, 0.785232663f, 1.17784905f,   1.57046568f,   0.977849424f,  1.95569873f,
       2.93354774f,  3.91139722f,  1.56308222f,   3.12616467f,   4.68924665f,   6.25232935f},
      {1, 2, 3, 4});
}
Tensor TrainMean() {
  return AsTensor<float>({1.42857146f, 1.57142866f, 1.71428585f, 1.85714281f}, {4});
}
Tensor TrainBiasedVar() {
  return AsTensor<float>({0.952381015f, 0.952380896f, 0.952380896f, 0.952381015f}, {4});
}

TEST(FusedBatchNormTest, TrainingModeMatchesTensorFlow) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(BatchNormNode("FusedBatchNormV3", true, 0.001f),
                         {Ramp24(), Scale(), Offset(), Empty(), Empty()}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], TrainY());
    ExpectTensorNear((*out)[1], TrainMean());
    ExpectTensorNear((*out)[2],
                     AsTensor<float>({1.14285731f, 1.14285707f, 1.14285707f, 1.14285731f}, {4}));
    ExpectTensorNear((*out)[3], TrainMean());
    ExpectTensorNear((*out)[4], TrainBiasedVar());
  }
}

TEST(FusedBatchNormTest, TrainingModeExponentialAverage) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(BatchNormNode("FusedBatchNormV3", true, 0.001f, "NHWC", 0.25f),
                         {Ramp24(), Scale(), Offset(), Mean(), Variance()}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], TrainY());
    ExpectTensorNear((*out)[1],
                     AsTensor<float>({0.732142866f, 0.842857182f, 0.953571439f, 1.06428576f}, {4}));
    ExpectTensorNear((*out)[2],
                     AsTensor<float>({1.03571439f, 1.78571427f, 2.53571415f, 3.28571439f}, {4}));
    ExpectTensorNear((*out)[3], TrainMean());
    ExpectTensorNear((*out)[4], TrainBiasedVar());
  }
  auto missing_stats = RunKernel(BatchNormNode("FusedBatchNormV3", true, 0.001f, "NHWC", 0.25f),
                                 {Ramp24(), Scale(), Offset(), Empty(), Empty()});
  EXPECT_EQ(missing_stats.status().code(), absl::StatusCode::kInvalidArgument);
}

// Keras 2 LayerNormalization: x reshaped to [1, rows, row_len, 1], NCHW, training mode.
TEST(FusedBatchNormTest, LayerNormStyleNchwMatchesTensorFlow) {
  std::vector<float> x(15);
  for (int i = 0; i < 15; ++i) x[i] = static_cast<float>((i * 7) % 11) / 10.0f - 0.5f;
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(BatchNormNode("FusedBatchNormV3", true, 1.001e-5f, "NCHW"),
                         {AsTensor(x, {1, 3, 5, 1}), AsTensor<float>({1, 1, 1}, {3}),
                          AsTensor<float>({0, 0, 0}, {3}), Empty(), Empty()},
                         device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear(
        (*out)[0],
        AsTensor<float>({-1.51628625f, 0.524868309f, -0.641505778f, 1.3996489f, 0.233274877f,
                         -0.948635876f, 1.26484764f, 1.88477003e-08f, -1.26484776f, 0.948635876f,
                         -0.233274803f, -1.3996489f, 0.641505778f, -0.524868309f, 1.51628625f},
                        {1, 3, 5, 1}));
    ExpectTensorNear((*out)[1],
                     AsTensor<float>({0.0200000051f, -5.96046457e-09f, -0.0200000051f}, {3}));
    ExpectTensorNear((*out)[2], AsTensor<float>({0.146999985f, 0.125f, 0.146999985f}, {3}));
    ExpectTensorNear((*out)[4], AsTensor<float>({0.117599986f, 0.100000001f, 0.117599986f}, {3}));
  }
}

// Larger shapes against a double-precision reference of the same formulas.
void ExpectTrainingMatchesReference(const std::vector<int64_t>& dims, bool channels_last) {
  const Tensor x = RandomFloatTensor(dims, 11);
  const int rank = static_cast<int>(dims.size());
  const int64_t channels = dims[channels_last ? rank - 1 : 1];
  const int64_t outer = channels_last ? x.NumElements() / channels : dims[0];
  const int64_t inner = channels_last ? 1 : x.NumElements() / (outer * channels);
  const Tensor scale = RandomFloatTensor({channels}, 12);
  const Tensor offset = RandomFloatTensor({channels}, 13);
  Tensor want(DT_FLOAT, x.shape());
  const float* xs = x.data<float>();
  auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * channels + c) * inner + i; };
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0, sq = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) sum += xs[at(o, c, i)];
    const double mean = sum / (outer * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) sq += std::pow(xs[at(o, c, i)] - mean, 2);
    const double factor = scale.data<float>()[c] / std::sqrt(sq / (outer * inner) + 1e-3);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        want.data<float>()[at(o, c, i)] =
            static_cast<float>((xs[at(o, c, i)] - mean) * factor + offset.data<float>()[c]);
  }
  const std::string format =
      rank == 4 ? (channels_last ? "NHWC" : "NCHW") : (channels_last ? "NDHWC" : "NCDHW");
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(BatchNormNode("FusedBatchNormV3", true, 1e-3f, format),
                         {x, scale, offset, Empty(), Empty()}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], want, 1e-5, 1e-5);
  }
}

TEST(FusedBatchNormTest, TrainingModeLargerShapes) {
  ExpectTrainingMatchesReference({1, 64, 768, 1}, /*channels_last=*/false);
  ExpectTrainingMatchesReference({3, 5, 6, 7}, /*channels_last=*/false);
  ExpectTrainingMatchesReference({3, 5, 6, 37}, /*channels_last=*/true);
  ExpectTrainingMatchesReference({2, 3, 4, 5, 6}, /*channels_last=*/true);
  ExpectTrainingMatchesReference({2, 3, 4, 5, 6}, /*channels_last=*/false);
}

TEST(FusedBatchNormTest, SinglePositionHasZeroVariance) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        BatchNormNode("FusedBatchNormV3", true, 0.001f),
        {AsTensor<float>({0, 1, 2, 3}, {1, 1, 1, 4}), Scale(), Offset(), Empty(), Empty()}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], AsTensor<float>({0.1f, 0.2f, 0.3f, 0.4f}, {1, 1, 1, 4}));
    ExpectTensorNear((*out)[2], AsTensor<float>({0, 0, 0, 0}, {4}));
  }
}

TEST(FusedBatchNormTest, EmptyInputGivesNanStatistics) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        BatchNormNode("FusedBatchNormV3", false, 0.001f),
        {Tensor(DT_FLOAT, TensorShape{0, 2, 2, 4}), Scale(), Offset(), Mean(), Variance()}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape().DebugString(), "[0,2,2,4]");
    EXPECT_TRUE(std::isnan((*out)[1].data<float>()[0]));
  }
}

TEST(FusedBatchNormTest, InvalidInputs) {
  const auto node = BatchNormNode("FusedBatchNormV3", false, 0.001f);
  auto bad_rank = RunKernel(
      node, {AsTensor<float>({1, 2, 3, 4}, {1, 4}), Scale(), Offset(), Mean(), Variance()});
  EXPECT_EQ(bad_rank.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_rank.status().message().find("test_node"), std::string::npos);
  auto short_scale =
      RunKernel(node, {Ramp24(), AsTensor<float>({1, 2, 3}, {3}), Offset(), Mean(), Variance()});
  EXPECT_EQ(short_scale.status().code(), absl::StatusCode::kInvalidArgument);
  auto missing_mean = RunKernel(node, {Ramp24(), Scale(), Offset(), Empty(), Variance()});
  EXPECT_EQ(missing_mean.status().code(), absl::StatusCode::kInvalidArgument);
  auto matrix_scale = RunKernel(
      node, {Ramp24(), AsTensor<float>({1, 2, 3, 4}, {2, 2}), Offset(), Mean(), Variance()});
  EXPECT_EQ(matrix_scale.status().code(), absl::StatusCode::kInvalidArgument);
  auto bad_format = RunKernel(BatchNormNode("FusedBatchNormV3", false, 0.001f, "HWCN"),
                              {Ramp24(), Scale(), Offset(), Mean(), Variance()});
  EXPECT_EQ(bad_format.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
