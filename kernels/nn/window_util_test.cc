#include "kernels/nn/window_util.h"

#include "gtest/gtest.h"

namespace tensord {
namespace {

struct Case {
  int64_t in, k, stride, dilation;
  Padding padding;
  int64_t before, after;
  int64_t want_out, want_pad_before;
};

TEST(ComputeWindowDimTest, FollowsTensorFlowRules) {
  const Case cases[] = {
      // SAME: out = ceil(in / s); the odd pixel of padding goes after the data.
      {4, 3, 2, 1, Padding::kSame, 0, 0, 2, 0},
      {5, 3, 2, 1, Padding::kSame, 0, 0, 3, 1},
      {224, 7, 2, 1, Padding::kSame, 0, 0, 112, 2},
      {5, 2, 2, 1, Padding::kSame, 0, 0, 3, 0},
      {7, 3, 1, 2, Padding::kSame, 0, 0, 7, 2},
      {1, 1, 2, 1, Padding::kSame, 0, 0, 1, 0},
      {0, 3, 1, 1, Padding::kSame, 0, 0, 0, 1},
      // VALID: out = (in - eff + s) / s with truncating division.
      {5, 3, 1, 1, Padding::kValid, 0, 0, 3, 0},
      {6, 3, 2, 1, Padding::kValid, 0, 0, 2, 0},
      {9, 3, 1, 3, Padding::kValid, 0, 0, 3, 0},
      {2, 3, 2, 1, Padding::kValid, 0, 0, 0, 0},
      // EXPLICIT.
      {5, 3, 2, 1, Padding::kExplicit, 2, 1, 3, 2},
  };
  for (const Case& c : cases) {
    auto dim = ComputeWindowDim(c.in, c.k, c.stride, c.dilation, c.padding, c.before, c.after);
    ASSERT_TRUE(dim.ok()) << dim.status() << " in=" << c.in;
    EXPECT_EQ(dim->out_size, c.want_out) << "in=" << c.in << " k=" << c.k;
    EXPECT_EQ(dim->pad_before, c.want_pad_before) << "in=" << c.in << " k=" << c.k;
  }
}

TEST(ComputeWindowDimTest, Errors) {
  EXPECT_FALSE(ComputeWindowDim(1, 3, 1, 1, Padding::kValid, 0, 0).ok());
  EXPECT_FALSE(ComputeWindowDim(5, 0, 1, 1, Padding::kValid, 0, 0).ok());
  EXPECT_FALSE(ComputeWindowDim(5, 3, 0, 1, Padding::kSame, 0, 0).ok());
  EXPECT_FALSE(ComputeWindowDim(5, 3, 1, 0, Padding::kSame, 0, 0).ok());
}

TEST(Window2DTest, ValidatesAttrs) {
  const std::vector<int64_t> ones = {1, 1, 1, 1};
  EXPECT_TRUE(Window2D::Create(ones, ones, "SAME", {}, "NHWC").ok());
  EXPECT_TRUE(Window2D::Create(ones, {}, "VALID", {}, "NHWC").ok());
  EXPECT_TRUE(Window2D::Create(ones, ones, "EXPLICIT", {0, 0, 1, 2, 3, 4, 0, 0}, "NHWC").ok());
  EXPECT_EQ(Window2D::Create(ones, ones, "SAME", {}, "NCHW").status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_FALSE(Window2D::Create({1, 1, 1}, ones, "SAME", {}, "NHWC").ok());
  EXPECT_FALSE(Window2D::Create({1, 1, 1, 2}, ones, "SAME", {}, "NHWC").ok());
  EXPECT_FALSE(Window2D::Create(ones, {2, 1, 1, 1}, "SAME", {}, "NHWC").ok());
  EXPECT_FALSE(Window2D::Create(ones, ones, "FULL", {}, "NHWC").ok());
  EXPECT_FALSE(Window2D::Create(ones, ones, "EXPLICIT", {}, "NHWC").ok());
  EXPECT_FALSE(Window2D::Create(ones, ones, "EXPLICIT", {0, 0, -1, 0, 0, 0, 0, 0}, "NHWC").ok());
  EXPECT_FALSE(Window2D::Create(ones, ones, "SAME", {0, 0, 1, 1, 1, 1, 0, 0}, "NHWC").ok());
}

}  // namespace
}  // namespace tensord
