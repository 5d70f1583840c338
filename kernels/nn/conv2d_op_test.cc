#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/nn/nn_test_util.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/exec/precision.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorNear;
using testing::MaxAbsDifference;
using testing::NodeBuilder;
using testing::RoundedToBfloat16;
using testing::RandomFloatTensor;
using testing::RunKernel;
using testing::TestDevices;

struct ConvParams {
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dil_rows = 1, dil_cols = 1;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings;  // NHWC pairs, only for EXPLICIT
};

::tensorflow::NodeDef Conv2DNode(const ConvParams& p, const std::string& data_format = "NHWC") {
  return NodeBuilder("Conv2D")
      .Attr("T", DT_FLOAT)
      .Attr("strides", std::vector<int64_t>{1, p.stride_rows, p.stride_cols, 1})
      .Attr("dilations", std::vector<int64_t>{1, p.dil_rows, p.dil_cols, 1})
      .Attr("padding", p.padding)
      .Attr("explicit_paddings", p.explicit_paddings)
      .Attr("data_format", data_format)
      .Attr("use_cudnn_on_gpu", true)
      .Build();
}

// Straightforward convolution in double: out[b,i,j,k] = sum in[b, i*s + di*d - pad, ...] * f.
// Pads follow TensorFlow's rules, written out independently of the kernel.
Tensor ReferenceConv2D(const Tensor& input, const Tensor& filter, const ConvParams& p) {
  const int64_t batch = input.dim_size(0), in_rows = input.dim_size(1), in_cols = input.dim_size(2),
                in_depth = input.dim_size(3);
  const int64_t k_rows = filter.dim_size(0), k_cols = filter.dim_size(1),
                group_depth = filter.dim_size(2), out_depth = filter.dim_size(3);
  const int64_t groups = in_depth / group_depth, group_out = out_depth / groups;
  auto dim = [&](int64_t in, int64_t k, int64_t s, int64_t d, int64_t before, int64_t after,
                 int64_t* pad) {
    const int64_t eff = (k - 1) * d + 1;
    if (p.padding == "SAME") {
      const int64_t out = (in + s - 1) / s;
      *pad = std::max<int64_t>(0, (out - 1) * s + eff - in) / 2;
      return out;
    }
    *pad = p.padding == "EXPLICIT" ? before : 0;
    const int64_t padded = p.padding == "EXPLICIT" ? in + before + after : in;
    return (padded - eff + s) / s;
  };
  const std::vector<int64_t>& e = p.explicit_paddings;
  int64_t pad_top, pad_left;
  const int64_t out_rows = dim(in_rows, k_rows, p.stride_rows, p.dil_rows, e.empty() ? 0 : e[2],
                               e.empty() ? 0 : e[3], &pad_top);
  const int64_t out_cols = dim(in_cols, k_cols, p.stride_cols, p.dil_cols, e.empty() ? 0 : e[4],
                               e.empty() ? 0 : e[5], &pad_left);
  Tensor out(DT_FLOAT, TensorShape{batch, out_rows, out_cols, out_depth});
  const float* x = input.data<float>();
  const float* f = filter.data<float>();
  float* y = out.data<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < out_rows; ++i)
      for (int64_t j = 0; j < out_cols; ++j)
        for (int64_t k = 0; k < out_depth; ++k) {
          const int64_t group = k / group_out;
          double sum = 0;
          for (int64_t di = 0; di < k_rows; ++di)
            for (int64_t dj = 0; dj < k_cols; ++dj)
              for (int64_t q = 0; q < group_depth; ++q) {
                const int64_t r = i * p.stride_rows + di * p.dil_rows - pad_top;
                const int64_t c = j * p.stride_cols + dj * p.dil_cols - pad_left;
                if (r < 0 || r >= in_rows || c < 0 || c >= in_cols) continue;
                sum +=
                    double{
                        x[((b * in_rows + r) * in_cols + c) * in_depth + group * group_depth + q]} *
                    f[((di * k_cols + dj) * group_depth + q) * out_depth + k];
              }
          y[((b * out_rows + i) * out_cols + j) * out_depth + k] = static_cast<float>(sum);
        }
  return out;
}

void ExpectMatchesReference(const std::vector<int64_t>& input_dims,
                            const std::vector<int64_t>& filter_dims, const ConvParams& p,
                            const std::vector<int64_t>& expected_out_dims) {
  const Tensor input = RandomFloatTensor(input_dims, 1);
  const Tensor filter = RandomFloatTensor(filter_dims, 2);
  const Tensor want = ReferenceConv2D(input, filter, p);
  ASSERT_EQ(want.shape().DebugString(), TensorShape(expected_out_dims).DebugString());
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(Conv2DNode(p), {input, filter}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], want, 1e-5, 1e-5);
  }
}

// Literal values from TensorFlow 2.21 (tf.raw_ops.Conv2D, SAME, stride 2, 3x3 filter):
// x = arange(n*n*2).reshape(1,n,n,2)/10, f = (arange(36).reshape(3,3,2,2)-10)/10.
// n = 4 needs one padding row/col, which TF puts at the bottom/right.
TEST(Conv2DTest, SameStride2MatchesTensorFlowEvenSize) {
  std::vector<float> x(32), f(36);
  for (int i = 0; i < 32; ++i) x[i] = i / 10.0f;
  for (int i = 0; i < 36; ++i) f[i] = (i - 10) / 10.0f;
  ConvParams p;
  p.stride_rows = p.stride_cols = 2;
  p.padding = "SAME";
  for (DeviceType device : TestDevices()) {
    auto out =
        RunKernel(Conv2DNode(p), {AsTensor(x, {1, 4, 4, 2}), AsTensor(f, {3, 3, 2, 2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0],
                     AsTensor<float>({25.799999237060547f, 27.690000534057617f, 16.079999923706055f,
                                      17.69999885559082f, 6.279999732971191f, 8.980000495910645f,
                                      0.07999986410140991f, 2.120000123977661f},
                                     {1, 2, 2, 2}));
  }
}

TEST(Conv2DTest, SameStride2MatchesTensorFlowOddSize) {
  std::vector<float> x(50), f(36);
  for (int i = 0; i < 50; ++i) x[i] = i / 10.0f;
  for (int i = 0; i < 36; ++i) f[i] = (i - 10) / 10.0f;
  ConvParams p;
  p.stride_rows = p.stride_cols = 2;
  p.padding = "SAME";
  for (DeviceType device : TestDevices()) {
    auto out =
        RunKernel(Conv2DNode(p), {AsTensor(x, {1, 5, 5, 2}), AsTensor(f, {3, 3, 2, 2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear(
        (*out)[0],
        AsTensor<float>(
            {10.40000057220459f, 10.920000076293945f, 19.1200008392334f, 20.260000228881836f,
             13.600000381469727f, 14.59999942779541f, 33.12000274658203f, 35.70000076293945f,
             46.31999969482422f, 50.72999954223633f, 26.400001525878906f, 29.700000762939453f,
             11.360000610351562f, 14.279999732971191f, 9.040000915527344f, 13.780000686645508f,
             -0.8000001311302185f, 2.6000006198883057f},
            {1, 3, 3, 2}),
        1e-5, 1e-5);
  }
}

TEST(Conv2DTest, Valid3x3) {
  ExpectMatchesReference({2, 6, 7, 3}, {3, 3, 3, 4}, ConvParams{}, {2, 4, 5, 4});
}

TEST(Conv2DTest, SameStride1) {
  ConvParams p;
  p.padding = "SAME";
  ExpectMatchesReference({1, 5, 6, 4}, {3, 3, 4, 5}, p, {1, 5, 6, 5});
}

TEST(Conv2DTest, SameAsymmetricStrides) {
  ConvParams p;
  p.padding = "SAME";
  p.stride_rows = 2;
  p.stride_cols = 3;
  ExpectMatchesReference({2, 8, 9, 3}, {4, 2, 3, 6}, p, {2, 4, 3, 6});
}

TEST(Conv2DTest, ResNetStemLike7x7Stride2) {
  ConvParams p;
  p.padding = "SAME";
  p.stride_rows = p.stride_cols = 2;
  ExpectMatchesReference({1, 16, 16, 3}, {7, 7, 3, 8}, p, {1, 8, 8, 8});
}

TEST(Conv2DTest, Pointwise1x1IsMatMul) {
  ExpectMatchesReference({2, 5, 4, 16}, {1, 1, 16, 7}, ConvParams{}, {2, 5, 4, 7});
}

TEST(Conv2DTest, Pointwise1x1Stride2) {
  ConvParams p;
  p.stride_rows = p.stride_cols = 2;
  ExpectMatchesReference({2, 7, 6, 8}, {1, 1, 8, 4}, p, {2, 4, 3, 4});
}

TEST(Conv2DTest, Dilated) {
  ConvParams p;
  p.padding = "SAME";
  p.dil_rows = 2;
  p.dil_cols = 3;
  ExpectMatchesReference({1, 9, 10, 2}, {3, 3, 2, 3}, p, {1, 9, 10, 3});
  p.padding = "VALID";
  ExpectMatchesReference({1, 9, 10, 2}, {3, 3, 2, 3}, p, {1, 5, 4, 3});
}

// _FusedConv2D: the convolution, plus the bias, then the activation, like TensorFlow's
// Conv2D -> BiasAdd -> activation chain it replaces.
TEST(Conv2DTest, FusedBiasAndActivations) {
  ConvParams p;
  p.padding = "SAME";
  p.stride_rows = p.stride_cols = 2;
  // Large enough to be split across threads by image.
  const Tensor input = RandomFloatTensor({2, 63, 63, 16}, 1);
  const Tensor filter = RandomFloatTensor({3, 3, 16, 32}, 2);
  const Tensor bias = RandomFloatTensor({32}, 3);
  const Tensor conv = ReferenceConv2D(input, filter, p);
  const std::vector<std::pair<std::string, float (*)(float)>> activations = {
      {"", [](float v) { return v; }},
      {"Relu", [](float v) { return std::max(v, 0.0f); }},
      {"Relu6", [](float v) { return std::min(std::max(v, 0.0f), 6.0f); }},
      {"Elu", [](float v) { return v > 0 ? v : std::expm1(v); }},
      {"LeakyRelu", [](float v) { return v > 0 ? v : 0.3f * v; }}};
  for (const auto& [activation, fn] : activations) {
    std::vector<std::string> fused_ops = {"BiasAdd"};
    if (!activation.empty()) fused_ops.push_back(activation);
    auto node = Conv2DNode(p);
    node.set_op("_FusedConv2D");
    (*node.mutable_attr())["num_args"].set_i(1);
    (*node.mutable_attr())["leakyrelu_alpha"].set_f(0.3f);
    for (const std::string& op : fused_ops) {
      (*node.mutable_attr())["fused_ops"].mutable_list()->add_s(op);
    }
    Tensor want = conv.DeepCopy();
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      want.data<float>()[i] = fn(want.data<float>()[i] + bias.data<float>()[i % 32]);
    }
    auto out = RunKernel(node, {input, filter, bias});
    ASSERT_TRUE(out.ok()) << activation << ": " << out.status();
    ExpectTensorNear((*out)[0], want, 1e-5, 1e-5);
  }
  // A grouped convolution (input depth 32 = 2 x filter depth) with the fused ops.
  const Tensor grouped_input = RandomFloatTensor({1, 5, 5, 32}, 4);
  Tensor grouped_want = ReferenceConv2D(grouped_input, filter, p);
  for (int64_t i = 0; i < grouped_want.NumElements(); ++i) {
    float& v = grouped_want.data<float>()[i];
    v = std::max(v + bias.data<float>()[i % 32], 0.0f);
  }
  auto grouped = Conv2DNode(p);
  grouped.set_op("_FusedConv2D");
  (*grouped.mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
  (*grouped.mutable_attr())["fused_ops"].mutable_list()->add_s("Relu");
  auto grouped_out = RunKernel(grouped, {grouped_input, filter, bias});
  ASSERT_TRUE(grouped_out.ok()) << grouped_out.status();
  ExpectTensorNear((*grouped_out)[0], grouped_want, 1e-5, 1e-5);

  auto unknown = Conv2DNode(p);
  unknown.set_op("_FusedConv2D");
  (*unknown.mutable_attr())["fused_ops"].mutable_list()->add_s("FusedBatchNorm");
  EXPECT_EQ(RunKernel(unknown, {input, filter, bias}).status().code(),
            absl::StatusCode::kUnimplemented);
  auto short_bias = Conv2DNode(p);
  short_bias.set_op("_FusedConv2D");
  (*short_bias.mutable_attr())["fused_ops"].mutable_list()->add_s("BiasAdd");
  EXPECT_EQ(RunKernel(short_bias, {input, filter, RandomFloatTensor({4}, 3)}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// fused_ops ["BiasAdd", "Add", "Relu"]: ResNet's conv + bias + shortcut + ReLU in one kernel;
// a residual of the output's shape joins oneDNN's pass, a broadcast one is added afterwards.
TEST(Conv2DTest, FusedResidualAdd) {
  ConvParams p;
  p.padding = "SAME";
  const Tensor input = RandomFloatTensor({2, 33, 31, 32}, 1);  // large enough to be split
  const Tensor filter = RandomFloatTensor({3, 3, 32, 16}, 2);
  const Tensor bias = RandomFloatTensor({16}, 3);
  const Tensor conv = ReferenceConv2D(input, filter, p);
  auto node = Conv2DNode(p);
  node.set_op("_FusedConv2D");
  (*node.mutable_attr())["num_args"].set_i(2);
  for (const char* op : {"BiasAdd", "Add", "Relu"}) {
    (*node.mutable_attr())["fused_ops"].mutable_list()->add_s(op);
  }
  const Tensor same = RandomFloatTensor({2, 33, 31, 16}, 4);
  const Tensor broadcast = RandomFloatTensor({31, 16}, 5);  // [cols, channels]
  for (const Tensor* residual : {&same, &broadcast}) {
    Tensor want = conv.DeepCopy();
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      const float r = residual->data<float>()[i % residual->NumElements()];
      float& v = want.data<float>()[i];
      v = std::max(v + bias.data<float>()[i % 16] + r, 0.0f);
    }
    auto out = RunKernel(node, {input, filter, bias, *residual});
    ASSERT_TRUE(out.ok()) << residual->shape().DebugString() << ": " << out.status();
    ExpectTensorNear((*out)[0], want, 1e-5, 1e-5);
  }
  auto mismatched = RunKernel(node, {input, filter, bias, RandomFloatTensor({5, 16}, 6)});
  EXPECT_EQ(mismatched.status().code(), absl::StatusCode::kInvalidArgument) << mismatched.status();
  auto missing = RunKernel(node, {input, filter, bias});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument) << missing.status();
}

// Output planes at most 4 pixels wide run as one matrix product over all images' pixels
// (onednn_gemm_conv.h): split by rows (in calls of at most 256), split by output channels
// (fewer rows than channels; the channel count need not be a multiple of the split), with the
// input used as the matrix itself (1x1, stride 1) or through im2col; with the fused bias,
// residual and ReLU.
TEST(Conv2DTest, SmallPlanesRunAsOneMatrixProduct) {
  struct Case {
    std::vector<int64_t> input, filter;
    ConvParams p;
  };
  ConvParams same, stride2, dilated;
  same.padding = "SAME";
  stride2.stride_rows = stride2.stride_cols = 2;
  dilated.dil_rows = dilated.dil_cols = 2;
  const std::vector<Case> cases = {
      {{40, 4, 4, 24}, {3, 3, 24, 40}, same},     // 640 rows: row parts, two calls each
      {{1, 2, 2, 512}, {3, 3, 512, 200}, same},   // 4 rows, 200 channels: channel parts
      {{32, 3, 3, 256}, {1, 1, 256, 128}, {}},    // the input is the matrix, row parts
      {{1, 7, 7, 512}, {1, 1, 512, 512}, stride2},  // strided 1x1, channel parts
      {{2, 6, 6, 8}, {3, 3, 8, 4}, dilated},      // one small part
  };
  for (const Case& c : cases) {
    const Tensor input = RandomFloatTensor(c.input, 1);
    const Tensor filter = RandomFloatTensor(c.filter, 2);
    const Tensor bias = RandomFloatTensor({c.filter[3]}, 3);
    Tensor want = ReferenceConv2D(input, filter, c.p);
    const Tensor residual = RandomFloatTensor(
        {want.dim_size(0), want.dim_size(1), want.dim_size(2), want.dim_size(3)}, 4);
    ASSERT_LE(want.dim_size(2), 4);
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      float& v = want.data<float>()[i];
      v = std::max(v + bias.data<float>()[i % c.filter[3]] + residual.data<float>()[i], 0.0f);
    }
    auto node = Conv2DNode(c.p);
    node.set_op("_FusedConv2D");
    (*node.mutable_attr())["num_args"].set_i(2);
    for (const char* op : {"BiasAdd", "Add", "Relu"}) {
      (*node.mutable_attr())["fused_ops"].mutable_list()->add_s(op);
    }
    // Float sums of `inner` products of values below 1 stray from the double reference by
    // about sqrt(inner) rounding steps: up to 1e-4 for the 3x3x512 window.
    const double inner = static_cast<double>(c.filter[0] * c.filter[1] * c.filter[2]);
    const double atol = 1e-5 * std::max(1.0, std::sqrt(inner / 64));
    auto out = RunKernel(node, {input, filter, bias, residual});
    ASSERT_TRUE(out.ok()) << input.shape().DebugString() << ": " << out.status();
    ExpectTensorNear((*out)[0], want, 1e-5, atol);
    // Plain Conv2D on the same path.
    auto plain = RunKernel(Conv2DNode(c.p), {input, filter});
    ASSERT_TRUE(plain.ok()) << plain.status();
    ExpectTensorNear((*plain)[0], ReferenceConv2D(input, filter, c.p), 1e-5, atol);
  }
}

// A convolution the load marked for bf16 convolves its input and filter rounded to bfloat16
// with float32 sums, on each path: oneDNN's convolution split by images and by bands of rows,
// and the small-plane matrix product with the input as the matrix or through im2col. On a CPU
// without bfloat16 arithmetic it computes in float32.
TEST(Conv2DTest, Bfloat16PrecisionConvolvesRoundedOperandsInFloat32) {
  const bool bf16 = CpuHasBfloat16();
  struct Case {
    std::vector<int64_t> input, filter;
    ConvParams p;
  };
  ConvParams same, same_stride2;
  same.padding = "SAME";
  same_stride2.padding = "SAME";
  same_stride2.stride_rows = same_stride2.stride_cols = 2;
  for (const Case& c : std::vector<Case>{{{2, 16, 16, 32}, {3, 3, 32, 64}, same},
                                         {{1, 41, 33, 16}, {3, 3, 16, 64}, same_stride2},
                                         {{32, 3, 3, 256}, {1, 1, 256, 128}, {}},
                                         {{1, 2, 2, 512}, {3, 3, 512, 200}, same}}) {
    const Tensor input = RandomFloatTensor(c.input, 1);
    const Tensor filter = RandomFloatTensor(c.filter, 2);
    SCOPED_TRACE(input.shape().DebugString() + " * " + filter.shape().DebugString());
    auto node = Conv2DNode(c.p);
    (*node.mutable_attr())[kPrecisionAttr].set_s("bf16");
    auto out = RunKernel(node, {input, filter});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor float32 = ReferenceConv2D(input, filter, c.p);
    const double inner = static_cast<double>(c.filter[0] * c.filter[1] * c.filter[2]);
    const double atol = 1e-5 * std::max(1.0, std::sqrt(inner / 64));
    if (!bf16) {
      ExpectTensorNear((*out)[0], float32, 1e-5, atol);
      continue;
    }
    ExpectTensorNear((*out)[0],
                     ReferenceConv2D(RoundedToBfloat16(input), RoundedToBfloat16(filter), c.p),
                     1e-5, atol);
    EXPECT_GT(MaxAbsDifference((*out)[0], float32), 1e-3);
  }
}

TEST(Conv2DTest, ExplicitPadding) {
  ConvParams p;
  p.padding = "EXPLICIT";
  p.explicit_paddings = {0, 0, 2, 1, 0, 3, 0, 0};
  p.stride_rows = 2;
  ExpectMatchesReference({1, 5, 5, 2}, {3, 2, 2, 3}, p, {1, 3, 7, 3});
}

TEST(Conv2DTest, Explicit1x1PaddingDoesNotUseFastPath) {
  ConvParams p;
  p.padding = "EXPLICIT";
  p.explicit_paddings = {0, 0, 1, 1, 1, 0, 0, 0};
  ExpectMatchesReference({1, 3, 3, 4}, {1, 1, 4, 2}, p, {1, 5, 4, 2});
}

TEST(Conv2DTest, Grouped) {
  ConvParams p;
  p.padding = "SAME";
  ExpectMatchesReference({2, 5, 5, 6}, {3, 3, 2, 9}, p, {2, 5, 5, 9});
}

// One image large enough to be split into bands of output rows across the tests' 2 threads:
// each band reads its own input rows, with the padding only at the image's edges.
TEST(Conv2DTest, SingleImageSplitIntoRowBands) {
  ConvParams p;
  p.padding = "SAME";
  p.stride_rows = p.stride_cols = 2;
  ExpectMatchesReference({1, 41, 33, 16}, {3, 3, 16, 64}, p, {1, 21, 17, 64});
  ConvParams dilated;
  dilated.padding = "SAME";
  dilated.dil_rows = 2;
  ExpectMatchesReference({1, 30, 20, 16}, {5, 3, 16, 32}, dilated, {1, 30, 20, 32});
  ConvParams explicit_pads;
  explicit_pads.padding = "EXPLICIT";
  explicit_pads.explicit_paddings = {0, 0, 4, 1, 2, 2, 0, 0};
  explicit_pads.stride_rows = 3;
  ExpectMatchesReference({1, 40, 24, 16}, {4, 3, 16, 48}, explicit_pads, {1, 14, 26, 48});
}

TEST(Conv2DTest, LargerInputsAndGroups) {
  ConvParams p;
  p.padding = "SAME";
  ExpectMatchesReference({2, 32, 32, 64}, {3, 3, 64, 4}, p, {2, 32, 32, 4});
  // Grouped, odd sizes.
  ExpectMatchesReference({3, 31, 33, 32}, {3, 3, 16, 6}, p, {3, 31, 33, 6});
}

TEST(Conv2DTest, EmptyBatchAndEmptyOutput) {
  ExpectMatchesReference({0, 5, 5, 3}, {3, 3, 3, 2}, ConvParams{}, {0, 3, 3, 2});
  ConvParams p;
  p.stride_rows = p.stride_cols = 2;
  // TF: (2 - 3 + 2) / 2 = 0 output rows, not an error.
  ExpectMatchesReference({1, 2, 2, 1}, {3, 3, 1, 1}, p, {1, 0, 0, 1});
}

TEST(Conv2DTest, InvalidInputs) {
  const ConvParams p;
  const Tensor filter = RandomFloatTensor({3, 3, 2, 4}, 3);
  auto bad_rank = RunKernel(Conv2DNode(p), {RandomFloatTensor({5, 5, 2}, 1), filter});
  EXPECT_EQ(bad_rank.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_rank.status().message().find("test_node"), std::string::npos);
  auto bad_depth = RunKernel(Conv2DNode(p), {RandomFloatTensor({1, 5, 5, 3}, 1), filter});
  EXPECT_EQ(bad_depth.status().code(), absl::StatusCode::kInvalidArgument);
  auto bad_filter = RunKernel(
      Conv2DNode(p), {RandomFloatTensor({1, 5, 5, 2}, 1), RandomFloatTensor({3, 3, 2}, 1)});
  EXPECT_EQ(bad_filter.status().code(), absl::StatusCode::kInvalidArgument);
  auto empty_filter = RunKernel(
      Conv2DNode(p), {RandomFloatTensor({1, 5, 5, 2}, 1), RandomFloatTensor({3, 3, 2, 0}, 1)});
  EXPECT_EQ(empty_filter.status().code(), absl::StatusCode::kInvalidArgument);
  auto too_small = RunKernel(Conv2DNode(p), {RandomFloatTensor({1, 1, 5, 2}, 1), filter});
  EXPECT_EQ(too_small.status().code(), absl::StatusCode::kInvalidArgument);
  auto bad_groups = RunKernel(Conv2DNode(p), {RandomFloatTensor({1, 5, 5, 6}, 1), filter});
  EXPECT_EQ(bad_groups.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Conv2DTest, InvalidAttrs) {
  const std::vector<Tensor> inputs = {RandomFloatTensor({1, 5, 5, 2}, 1),
                                      RandomFloatTensor({3, 3, 2, 4}, 2)};
  EXPECT_EQ(RunKernel(Conv2DNode(ConvParams{}, "NCHW"), inputs).status().code(),
            absl::StatusCode::kUnimplemented);
  ConvParams batch_stride;
  auto node = Conv2DNode(batch_stride);
  (*node.mutable_attr())["strides"].mutable_list()->set_i(0, 2);
  EXPECT_EQ(RunKernel(node, inputs).status().code(), absl::StatusCode::kInvalidArgument);
  ConvParams explicit_without_pads;
  explicit_without_pads.padding = "EXPLICIT";
  EXPECT_EQ(RunKernel(Conv2DNode(explicit_without_pads), inputs).status().code(),
            absl::StatusCode::kInvalidArgument);
  ConvParams pads_on_depth;
  pads_on_depth.padding = "EXPLICIT";
  pads_on_depth.explicit_paddings = {0, 0, 1, 1, 1, 1, 1, 0};
  EXPECT_EQ(RunKernel(Conv2DNode(pads_on_depth), inputs).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
