#include <algorithm>
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

struct DepthwiseParams {
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dil_rows = 1, dil_cols = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings;
};

::tensorflow::NodeDef DepthwiseNode(const DepthwiseParams& p,
                                    const std::string& data_format = "NHWC") {
  return NodeBuilder("DepthwiseConv2dNative")
      .Attr("T", DT_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, p.stride_rows, p.stride_cols, 1})
      .Attr("dilations", std::vector<int64_t>{1, p.dil_rows, p.dil_cols, 1})
      .Attr("padding", p.padding)
      .Attr("explicit_paddings", p.explicit_paddings)
      .Attr("data_format", data_format)
      .Build();
}

// Direct loops in double; pads follow TensorFlow's rules, written out independently.
Tensor ReferenceDepthwise(const Tensor& input, const Tensor& filter, const DepthwiseParams& p) {
  const int64_t batch = input.dim_size(0), in_rows = input.dim_size(1), in_cols = input.dim_size(2),
                depth = input.dim_size(3);
  const int64_t k_rows = filter.dim_size(0), k_cols = filter.dim_size(1), mult = filter.dim_size(3);
  auto dim = [&](int64_t in, int64_t k, int64_t s, int64_t d, int64_t before, int64_t after,
                 int64_t* pad) {
    const int64_t eff = (k - 1) * d + 1;
    if (p.padding == "SAME") {
      const int64_t out = (in + s - 1) / s;
      *pad = std::max<int64_t>(0, (out - 1) * s + eff - in) / 2;
      return out;
    }
    *pad = before;
    return (in + before + after - eff + s) / s;
  };
  const std::vector<int64_t> e =
      p.explicit_paddings.empty() ? std::vector<int64_t>(8, 0) : p.explicit_paddings;
  int64_t pad_top, pad_left;
  const int64_t out_rows = dim(in_rows, k_rows, p.stride_rows, p.dil_rows, e[2], e[3], &pad_top);
  const int64_t out_cols = dim(in_cols, k_cols, p.stride_cols, p.dil_cols, e[4], e[5], &pad_left);
  Tensor out(DT_FLOAT, TensorShape{batch, out_rows, out_cols, depth * mult});
  const float* x = input.data<float>();
  const float* f = filter.data<float>();
  float* y = out.data<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < out_rows; ++i)
      for (int64_t j = 0; j < out_cols; ++j)
        for (int64_t c = 0; c < depth; ++c)
          for (int64_t m = 0; m < mult; ++m) {
            double sum = 0;
            for (int64_t di = 0; di < k_rows; ++di)
              for (int64_t dj = 0; dj < k_cols; ++dj) {
                const int64_t r = i * p.stride_rows + di * p.dil_rows - pad_top;
                const int64_t cc = j * p.stride_cols + dj * p.dil_cols - pad_left;
                if (r < 0 || r >= in_rows || cc < 0 || cc >= in_cols) continue;
                sum += double{x[((b * in_rows + r) * in_cols + cc) * depth + c]} *
                       f[((di * k_cols + dj) * depth + c) * mult + m];
              }
            y[((b * out_rows + i) * out_cols + j) * depth * mult + c * mult + m] =
                static_cast<float>(sum);
          }
  return out;
}

void ExpectMatchesReference(const std::vector<int64_t>& input_dims,
                            const std::vector<int64_t>& filter_dims, const DepthwiseParams& p,
                            const std::vector<int64_t>& expected_out_dims) {
  const Tensor input = RandomFloatTensor(input_dims, 5);
  const Tensor filter = RandomFloatTensor(filter_dims, 6);
  const Tensor want = ReferenceDepthwise(input, filter, p);
  ASSERT_EQ(want.shape().DebugString(), TensorShape(expected_out_dims).DebugString());
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(DepthwiseNode(p), {input, filter}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], want, 1e-5, 1e-5);
  }
}

std::vector<float> Ramp(int n, float offset, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = (i + offset) * scale;
  return v;
}

// Literal values from TensorFlow 2.21 (tf.raw_ops.DepthwiseConv2dNative, SAME, stride 2):
// x = arange(n*n*2).reshape(1,n,n,2)/10, f = (arange(36).reshape(3,3,2,2)-10)/10.
// n = 4 pads one row/col at the bottom/right only.
TEST(DepthwiseConvTest, SameStride2MatchesTensorFlowEvenSize) {
  DepthwiseParams p;
  p.padding = "SAME";
  p.stride_rows = p.stride_cols = 2;
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        DepthwiseNode(p),
        {AsTensor(Ramp(32, 0, 0.1f), {1, 4, 4, 2}), AsTensor(Ramp(36, -10, 0.1f), {3, 3, 2, 2})},
        device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear(
        (*out)[0],
        AsTensor<float>(
            {11.639999389648438f, 12.540000915527344f, 14.15999984741211f, 15.149999618530273f,
             7.079999923706055f, 7.859999656677246f, 9.0f, 9.839999198913574f, 1.7599998712539673f,
             3.0799999237060547f, 4.520000457763672f, 5.900000095367432f, -0.9600001573562622f,
             0.039999961853027344f, 1.0400002002716064f, 2.0799999237060547f},
            {1, 2, 2, 4}));
  }
}

TEST(DepthwiseConvTest, SameStride2MatchesTensorFlowOddSize) {
  DepthwiseParams p;
  p.padding = "SAME";
  p.stride_rows = p.stride_cols = 2;
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        DepthwiseNode(p),
        {AsTensor(Ramp(50, 0, 0.1f), {1, 5, 5, 2}), AsTensor(Ramp(36, -10, 0.1f), {3, 3, 2, 2})},
        device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], AsTensor<float>({4.640000343322754f,
                                                 4.880000114440918f,
                                                 5.760000228881836f,
                                                 6.039999961853027f,
                                                 8.600000381469727f,
                                                 9.140000343322754f,
                                                 10.520000457763672f,
                                                 11.119999885559082f,
                                                 6.079999923706055f,
                                                 6.559999942779541f,
                                                 7.519999980926514f,
                                                 8.039999961853027f,
                                                 15.0f,
                                                 16.260000228881836f,
                                                 18.119998931884766f,
                                                 19.439998626708984f,
                                                 20.639999389648438f,
                                                 22.799999237060547f,
                                                 25.68000030517578f,
                                                 27.93000030517578f,
                                                 11.399999618530273f,
                                                 13.019999504089355f,
                                                 15.0f,
                                                 16.68000030517578f,
                                                 4.159999847412109f,
                                                 5.599999904632568f,
                                                 7.200000286102295f,
                                                 8.680000305175781f,
                                                 2.120000123977661f,
                                                 4.460000038146973f,
                                                 6.920000076293945f,
                                                 9.319999694824219f,
                                                 -2.0799999237060547f,
                                                 -0.39999961853027344f,
                                                 1.2800002098083496f,
                                                 2.999999761581421f},
                                                {1, 3, 3, 4}));
  }
}

TEST(DepthwiseConvTest, MobileNetLikeMultiplier1) {
  DepthwiseParams p;
  p.padding = "SAME";
  ExpectMatchesReference({2, 7, 6, 32}, {3, 3, 32, 1}, p, {2, 7, 6, 32});
  p.stride_rows = p.stride_cols = 2;
  ExpectMatchesReference({1, 8, 8, 19}, {3, 3, 19, 1}, p, {1, 4, 4, 19});
  p.padding = "VALID";
  ExpectMatchesReference({1, 9, 8, 5}, {5, 5, 5, 1}, p, {1, 3, 2, 5});
}

// _FusedDepthwiseConv2dNative: + bias, then Relu6 (MobileNet's block), in one kernel.
TEST(DepthwiseConvTest, FusedBiasAndRelu6) {
  DepthwiseParams p;
  p.padding = "SAME";
  const Tensor input = RandomFloatTensor({2, 5, 6, 3}, 1);
  const Tensor filter = RandomFloatTensor({3, 3, 3, 2}, 2);
  Tensor bias = RandomFloatTensor({6}, 3);
  for (int64_t i = 0; i < 6; ++i) bias.data<float>()[i] *= 8.0f;  // some outputs above 6
  Tensor want = ReferenceDepthwise(input, filter, p);
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    want.data<float>()[i] =
        std::min(std::max(want.data<float>()[i] + bias.data<float>()[i % 6], 0.0f), 6.0f);
  }
  auto node = DepthwiseNode(p);
  node.set_op("_FusedDepthwiseConv2dNative");
  (*node.mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
  (*node.mutable_attr())["fused_ops"].mutable_list()->add_s("Relu6");
  auto out = RunKernel(node, {input, filter, bias});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorNear((*out)[0], want, 1e-5, 1e-5);
}

TEST(DepthwiseConvTest, LargeSingleImageAndBatch) {
  DepthwiseParams p;
  p.padding = "SAME";
  ExpectMatchesReference({1, 64, 48, 96}, {3, 3, 96, 1}, p, {1, 64, 48, 96});
  p.stride_rows = p.stride_cols = 2;
  ExpectMatchesReference({3, 32, 32, 64}, {3, 3, 64, 2}, p, {3, 16, 16, 128});
}

TEST(DepthwiseConvTest, ChannelMultiplier) {
  DepthwiseParams p;
  p.padding = "SAME";
  p.stride_cols = 2;
  ExpectMatchesReference({2, 5, 6, 3}, {3, 2, 3, 4}, p, {2, 5, 3, 12});
}

TEST(DepthwiseConvTest, DilatedAndExplicit) {
  DepthwiseParams p;
  p.padding = "SAME";
  p.dil_rows = 2;
  p.dil_cols = 2;
  ExpectMatchesReference({1, 7, 8, 4}, {3, 3, 4, 2}, p, {1, 7, 8, 8});
  DepthwiseParams e;
  e.padding = "EXPLICIT";
  e.explicit_paddings = {0, 0, 1, 2, 3, 0, 0, 0};
  e.stride_rows = 2;
  ExpectMatchesReference({1, 5, 4, 3}, {3, 3, 3, 1}, e, {1, 3, 5, 3});
}

TEST(DepthwiseConvTest, EmptyInput) {
  ExpectMatchesReference({0, 5, 5, 3}, {3, 3, 3, 2}, DepthwiseParams{}, {0, 3, 3, 6});
  ExpectMatchesReference({1, 5, 5, 0}, {3, 3, 0, 2}, DepthwiseParams{}, {1, 3, 3, 0});
}

TEST(DepthwiseConvTest, InvalidInputs) {
  const DepthwiseParams p;
  auto depth_mismatch = RunKernel(
      DepthwiseNode(p), {RandomFloatTensor({1, 5, 5, 3}, 1), RandomFloatTensor({3, 3, 2, 1}, 1)});
  EXPECT_EQ(depth_mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(depth_mismatch.status().message().find("test_node"), std::string::npos);
  auto bad_rank = RunKernel(DepthwiseNode(p),
                            {RandomFloatTensor({5, 5, 3}, 1), RandomFloatTensor({3, 3, 3, 1}, 1)});
  EXPECT_EQ(bad_rank.status().code(), absl::StatusCode::kInvalidArgument);
  auto bad_filter = RunKernel(
      DepthwiseNode(p), {RandomFloatTensor({1, 5, 5, 3}, 1), RandomFloatTensor({3, 3, 3}, 1)});
  EXPECT_EQ(bad_filter.status().code(), absl::StatusCode::kInvalidArgument);
  auto nchw = RunKernel(DepthwiseNode(p, "NCHW"),
                        {RandomFloatTensor({1, 3, 5, 5}, 1), RandomFloatTensor({3, 3, 3, 1}, 1)});
  EXPECT_EQ(nchw.status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tensord
