#include <algorithm>
#include <cstdint>
#include <limits>
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

struct PoolParams {
  int64_t k_rows = 2, k_cols = 2;
  int64_t stride_rows = 2, stride_cols = 2;
  std::string padding = "VALID";
  std::vector<int64_t> explicit_paddings;  // MaxPool only
};

::tensorflow::NodeDef PoolNode(const std::string& op, const PoolParams& p,
                               const std::string& data_format = "NHWC") {
  NodeBuilder b(op);
  b.Attr("T", DT_FLOAT)
      .Attr("ksize", std::vector<int64_t>{1, p.k_rows, p.k_cols, 1})
      .Attr("strides", std::vector<int64_t>{1, p.stride_rows, p.stride_cols, 1})
      .Attr("padding", p.padding)
      .Attr("data_format", data_format);
  if (op == "MaxPool") b.Attr("explicit_paddings", p.explicit_paddings);
  return b.Build();
}

// Direct loops: max over in-bounds pixels, or their mean (padding excluded from the count).
Tensor ReferencePool(const Tensor& input, const PoolParams& p, bool max) {
  const int64_t batch = input.dim_size(0), in_rows = input.dim_size(1), in_cols = input.dim_size(2),
                depth = input.dim_size(3);
  auto dim = [&](int64_t in, int64_t k, int64_t s, int64_t before, int64_t after, int64_t* pad) {
    if (p.padding == "SAME") {
      const int64_t out = (in + s - 1) / s;
      *pad = std::max<int64_t>(0, (out - 1) * s + k - in) / 2;
      return out;
    }
    *pad = before;
    return (in + before + after - k + s) / s;
  };
  const std::vector<int64_t> e =
      p.explicit_paddings.empty() ? std::vector<int64_t>(8, 0) : p.explicit_paddings;
  int64_t pad_top, pad_left;
  const int64_t out_rows = dim(in_rows, p.k_rows, p.stride_rows, e[2], e[3], &pad_top);
  const int64_t out_cols = dim(in_cols, p.k_cols, p.stride_cols, e[4], e[5], &pad_left);
  Tensor out(DT_FLOAT, TensorShape{batch, out_rows, out_cols, depth});
  const float* x = input.data<float>();
  float* y = out.data<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < out_rows; ++i)
      for (int64_t j = 0; j < out_cols; ++j)
        for (int64_t c = 0; c < depth; ++c) {
          double acc = max ? -std::numeric_limits<double>::infinity() : 0;
          int count = 0;
          for (int64_t di = 0; di < p.k_rows; ++di)
            for (int64_t dj = 0; dj < p.k_cols; ++dj) {
              const int64_t r = i * p.stride_rows + di - pad_top;
              const int64_t cc = j * p.stride_cols + dj - pad_left;
              if (r < 0 || r >= in_rows || cc < 0 || cc >= in_cols) continue;
              const double v = x[((b * in_rows + r) * in_cols + cc) * depth + c];
              acc = max ? std::max(acc, v) : acc + v;
              ++count;
            }
          y[((b * out_rows + i) * out_cols + j) * depth + c] =
              static_cast<float>(max ? acc : acc / count);
        }
  return out;
}

void ExpectMatchesReference(const std::vector<int64_t>& input_dims, const PoolParams& p,
                            const std::vector<int64_t>& expected_out_dims,
                            bool include_avg = true) {
  const Tensor input = RandomFloatTensor(input_dims, 9);
  for (bool max : {true, false}) {
    if (!max && !include_avg) continue;
    const Tensor want = ReferencePool(input, p, max);
    ASSERT_EQ(want.shape().DebugString(), TensorShape(expected_out_dims).DebugString());
    for (DeviceType device : TestDevices()) {
      auto out = RunKernel(PoolNode(max ? "MaxPool" : "AvgPool", p), {input}, device);
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectTensorNear((*out)[0], want);
    }
  }
}

// x = ((arange(n*n*2) * 7) % 11).reshape(1,n,n,2) / 10 - 0.5, as TensorFlow computes it.
Tensor ShuffledInput(int64_t n) {
  std::vector<float> x(n * n * 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) / 10.0f - 0.5f;
  return AsTensor(x, {1, n, n, 2});
}

void ExpectPool(const std::string& op, const PoolParams& p, const Tensor& input,
                const Tensor& want) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(PoolNode(op, p), {input}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], want);
  }
}

// Literal values from TensorFlow 2.21, SAME padding, stride 2. With n = 4 a 3x3 window needs one
// padding row/col, placed at the bottom/right; with a 2x2 window on n = 5 the padding is also
// at the end only. AvgPool divides by the number of in-bounds pixels.
TEST(PoolingTest, SameStride2MatchesTensorFlowEvenSize) {
  PoolParams p;
  p.padding = "SAME";
  p.k_rows = p.k_cols = 3;
  ExpectPool("MaxPool", p, ShuffledInput(4),
             AsTensor<float>({0.30000001192092896f, 0.5f, 0.5f, 0.19999998807907104f,
                              0.3999999761581421f, 0.5f, 0.3999999761581421f, 0.30000001192092896f},
                             {1, 2, 2, 2}));
  ExpectPool("AvgPool", p, ShuffledInput(4),
             AsTensor<float>({-0.10000000149011612f, -0.011111114174127579f, 0.1666666716337204f,
                              -0.04999999701976776f, 0.05000000074505806f, 0.016666660085320473f,
                              -0.05000000447034836f, 0.10000000149011612f},
                             {1, 2, 2, 2}));
  p.k_rows = p.k_cols = 2;
  ExpectPool("AvgPool", p, ShuffledInput(4),
             AsTensor<float>({-0.30000001192092896f, 0.125f, 0.30000001192092896f,
                              -0.09999999403953552f, -0.09999999403953552f, 0.049999989569187164f,
                              -0.05000000447034836f, 0.10000000149011612f},
                             {1, 2, 2, 2}));
}

TEST(PoolingTest, SameStride2MatchesTensorFlowOddSize) {
  PoolParams p;
  p.padding = "SAME";
  p.k_rows = p.k_cols = 3;
  ExpectPool("MaxPool", p, ShuffledInput(5),
             AsTensor<float>(
                 {0.19999998807907104f, 0.5f, 0.5f, 0.5f, 0.3999999761581421f, 0.3999999761581421f,
                  0.30000001192092896f, 0.30000001192092896f, 0.5f, 0.5f, 0.5f, 0.3999999761581421f,
                  0.30000001192092896f, 0.30000001192092896f, 0.5f, 0.5f, 0.5f, 0.5f},
                 {1, 3, 3, 2}));
  ExpectPool("AvgPool", p, ShuffledInput(5),
             AsTensor<float>({-0.14999999105930328f, 0.0f, 0.11666666716337204f,
                              0.0833333358168602f, -0.07500001043081284f, 0.07499999552965164f,
                              -0.10000000149011612f, -0.13333332538604736f, 0.04444444552063942f,
                              0.011111114174127579f, 0.06666666269302368f, 0.03333332762122154f,
                              -0.04999999701976776f, -0.17500001192092896f, 0.033333342522382736f,
                              9.934107758624577e-09f, 0.025000005960464478f, 0.17499999701976776f},
                             {1, 3, 3, 2}));
  p.k_rows = p.k_cols = 2;
  ExpectPool("AvgPool", p, ShuffledInput(5),
             AsTensor<float>({-0.14999999105930328f, 0.0f, 0.17499999701976776f,
                              0.04999999701976776f, -0.20000000298023224f, -0.04999999701976776f,
                              -0.17500001192092896f, -0.02499999850988388f, 0.15000000596046448f,
                              0.025000005960464478f, 0.04999998211860657f, 0.19999998807907104f,
                              0.15000000596046448f, -0.25f, -0.3499999940395355f,
                              0.3499999940395355f, 0.10000002384185791f, -0.30000001192092896f},
                             {1, 3, 3, 2}));
}

TEST(PoolingTest, ValidAndSameAgainstReference) {
  PoolParams p;
  ExpectMatchesReference({2, 6, 7, 5}, p, {2, 3, 3, 5});
  p.padding = "SAME";
  ExpectMatchesReference({2, 6, 7, 5}, p, {2, 3, 4, 5});
  p.k_rows = 3;
  p.k_cols = 3;
  p.stride_rows = 1;
  p.stride_cols = 2;
  ExpectMatchesReference({1, 8, 9, 17}, p, {1, 8, 5, 17});
  p.padding = "VALID";
  ExpectMatchesReference({1, 8, 9, 17}, p, {1, 6, 4, 17});
}

TEST(PoolingTest, MaxPoolPaddingNeverWins) {
  PoolParams p;
  p.padding = "SAME";
  p.k_rows = p.k_cols = 3;
  p.stride_rows = p.stride_cols = 1;
  std::vector<float> x(9);
  for (int i = 0; i < 9; ++i) x[i] = -1.0f - i;
  ExpectPool("MaxPool", p, AsTensor(x, {1, 3, 3, 1}),
             AsTensor<float>({-1, -1, -2, -1, -1, -2, -4, -4, -5}, {1, 3, 3, 1}));
}

TEST(PoolingTest, MaxPoolExplicitPadding) {
  PoolParams p;
  p.padding = "EXPLICIT";
  p.explicit_paddings = {0, 0, 1, 2, 0, 1, 0, 0};
  p.k_rows = p.k_cols = 3;
  ExpectMatchesReference({1, 5, 6, 3}, p, {1, 3, 3, 3}, /*include_avg=*/false);
}

TEST(PoolingTest, MaxPoolV2TakesWindowFromInputs) {
  const Tensor input = RandomFloatTensor({2, 7, 6, 3}, 4);
  PoolParams p;
  p.padding = "SAME";
  p.k_rows = 3;
  p.stride_cols = 1;
  const auto node = NodeBuilder("MaxPoolV2")
                        .Attr("T", DT_FLOAT)
                        .Attr("padding", "SAME")
                        .Attr("data_format", "NHWC")
                        .Build();
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        node, {input, AsTensor<int32_t>({1, 3, 2, 1}, {4}), AsTensor<int32_t>({1, 2, 1, 1}, {4})},
        device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], ReferencePool(input, p, true));
  }
  auto bad_ksize = RunKernel(
      node, {input, AsTensor<int32_t>({1, 3, 2}, {3}), AsTensor<int32_t>({1, 2, 1, 1}, {4})});
  EXPECT_EQ(bad_ksize.status().code(), absl::StatusCode::kInvalidArgument);
  auto batch_window = RunKernel(
      node, {input, AsTensor<int32_t>({2, 3, 2, 1}, {4}), AsTensor<int32_t>({1, 2, 1, 1}, {4})});
  EXPECT_EQ(batch_window.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(batch_window.status().message().find("test_node"), std::string::npos);
}

TEST(PoolingTest, EmptyInputs) {
  PoolParams p;
  p.padding = "SAME";
  ExpectMatchesReference({0, 4, 4, 3}, p, {0, 2, 2, 3});
  ExpectMatchesReference({1, 4, 4, 0}, p, {1, 2, 2, 0});
}

TEST(PoolingTest, InvalidInputsAndAttrs) {
  PoolParams p;
  EXPECT_EQ(RunKernel(PoolNode("MaxPool", p), {RandomFloatTensor({4, 4, 3}, 1)}).status().code(),
            absl::StatusCode::kInvalidArgument);
  PoolParams too_large;
  too_large.k_rows = 3;
  too_large.stride_rows = 1;
  EXPECT_EQ(RunKernel(PoolNode("AvgPool", too_large), {RandomFloatTensor({1, 1, 4, 3}, 1)})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunKernel(PoolNode("MaxPool", p, "NCHW"), {RandomFloatTensor({1, 3, 4, 4}, 1)})
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
  auto depth_pool = PoolNode("MaxPool", p);
  (*depth_pool.mutable_attr())["ksize"].mutable_list()->set_i(3, 2);
  EXPECT_EQ(RunKernel(depth_pool, {RandomFloatTensor({1, 4, 4, 4}, 1)}).status().code(),
            absl::StatusCode::kUnimplemented);
  auto zero_ksize = PoolNode("AvgPool", p);
  (*zero_ksize.mutable_attr())["ksize"].mutable_list()->set_i(1, 0);
  auto status = RunKernel(zero_ksize, {RandomFloatTensor({1, 4, 4, 4}, 1)}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("test_node"), std::string::npos);
}

}  // namespace
}  // namespace tensord
