// Expected values were computed with TensorFlow 2.21 (tf.raw_ops on CPU) for the same inputs.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

struct Mode {
  bool align_corners = false;
  bool half_pixel_centers = false;
};
constexpr Mode kLegacy{false, false};
constexpr Mode kAlignCorners{true, false};
constexpr Mode kHalfPixel{false, true};

absl::StatusOr<Tensor> Resize(const std::string& op, const Tensor& images,
                              const std::vector<int32_t>& size, Mode mode,
                              DeviceType device = DeviceType::kCpu) {
  auto out =
      RunKernel(NodeBuilder(op)
                    .Attr("T", images.dtype())
                    .Attr("align_corners", mode.align_corners)
                    .Attr("half_pixel_centers", mode.half_pixel_centers)
                    .Build(),
                {images, AsTensor<int32_t>(size, {static_cast<int64_t>(size.size())})}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectResize(const std::string& op, const Tensor& images, const std::vector<int32_t>& size,
                  Mode mode, const Tensor& want) {
  for (DeviceType device : TestDevices()) {
    auto got = Resize(op, images, size, mode, device);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorNear(*got, want);
  }
}

// [2, 3, 4, 2] images with irregular values ((7i mod 11) / 2 - 2), resized to [5, 3]: taller
// and narrower, so both upsampling and downsampling are covered.
Tensor Images() {
  Tensor t(DT_FLOAT, TensorShape{2, 3, 4, 2});
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = (i * 7 % 11) * 0.5f - 2;
  return t;
}
const std::vector<int32_t> kSize = {5, 3};
Tensor Resized(const std::vector<float>& values) { return AsTensor<float>(values, {2, 5, 3, 2}); }

TEST(ResizeBilinearTest, Legacy) {
  ExpectResize("ResizeBilinear", Images(), kSize, kLegacy,
               Resized({-2,
                        1.5f,
                        5.96046448e-08f,
                        1.66666651f,
                        2,
                        1.1920929e-07f,
                        -1.70000005f,
                        1.79999995f,
                        0.300000072f,
                        -0.233333468f,
                        2.29999995f,
                        0.300000131f,
                        -1.39999998f,
                        2.0999999f,
                        0.600000083f,
                        -1.39999998f,
                        1.86666644f,
                        0.600000143f,
                        -1.0999999f,
                        2.4000001f,
                        0.900000036f,
                        -1.0999999f,
                        -0.0333337784f,
                        0.900000155f,
                        -1,
                        2.5f,
                        1,
                        -0.99999994f,
                        -0.666666985f,
                        1.00000012f,
                        -0.5f,
                        3,
                        1.5f,
                        -0.49999994f,
                        -0.166666985f,
                        1.50000012f,
                        -0.199999988f,
                        0,
                        1.79999995f,
                        -0.199999928f,
                        0.133333027f,
                        1.80000007f,
                        0.100000024f,
                        -1.89999998f,
                        1.73333323f,
                        0.100000083f,
                        0.0666663647f,
                        2.0999999f,
                        0.400000036f,
                        -1.5999999f,
                        0.933333158f,
                        0.400000095f,
                        -0.733333349f,
                        2.4000001f,
                        0.5f,
                        -1.5f,
                        0.666666508f,
                        0.50000006f,
                        -0.999999881f,
                        2.5f}));
}

TEST(ResizeBilinearTest, AlignCorners) {
  ExpectResize(
      "ResizeBilinear", Images(), kSize, kAlignCorners,
      Resized({-2,     1.5f,  0.25f,  1,      2.5f,  0.5f,   -1.75f, 1.75f,  0.5f,   -0.125f,
               2.75f,  0.75f, -1.5f,  2,      0.75f, -1.25f, 3,      1,      -1.25f, 2.25f,
               1,      -1,    0.5f,   1.25f,  -1,    2.5f,   1.25f,  -0.75f, -2,     1.5f,
               -0.5f,  3,     1.75f,  -0.25f, -1.5f, 2,      -0.25f, 0.5f,   2,      0,
               -1.25f, 2.25f, 0,      -2,     2.25f, 0.25f,  -1,     2.5f,   0.25f,  -1.75f,
               1.125f, 0.5f,  -0.75f, 2.75f,  0.5f,  -1.5f,  0,      0.75f,  -0.5f,  3}));
}

TEST(ResizeBilinearTest, HalfPixelCenters) {
  ExpectResize("ResizeBilinear", Images(), kSize, kHalfPixel,
               Resized({-1.75f,
                        1.75f,
                        0.25f,
                        1,
                        2.25000024f,
                        0.250000238f,
                        -1.54999995f,
                        1.58333325f,
                        0.450000018f,
                        0.0999999046f,
                        2.45000029f,
                        0.450000256f,
                        -1.25f,
                        1.33333325f,
                        0.75f,
                        -1.25f,
                        2.75000024f,
                        0.750000238f,
                        -0.949999928f,
                        1.63333333f,
                        1.05000007f,
                        -0.949999928f,
                        0.299999237f,
                        1.05000031f,
                        -0.75f,
                        1.83333325f,
                        1.25f,
                        -0.75f,
                        -1.33333397f,
                        1.25000024f,
                        -0.24999997f,
                        2.33333325f,
                        1.75f,
                        -0.25f,
                        -0.833333969f,
                        1.75000024f,
                        -0.0499999523f,
                        0.699999928f,
                        1.95000005f,
                        -0.0499999821f,
                        -0.633333921f,
                        1.95000029f,
                        0.25000003f,
                        -1.75f,
                        2.25f,
                        0.25f,
                        -0.333333969f,
                        2.25000024f,
                        0.550000072f,
                        -1.44999993f,
                        0.899999619f,
                        0.550000072f,
                        -0.583333492f,
                        2.55000019f,
                        0.75f,
                        -1.25f,
                        0,
                        0.75f,
                        -0.749999762f,
                        2.75000024f}));
}

TEST(ResizeNearestNeighborTest, Legacy) {
  ExpectResize(
      "ResizeNearestNeighbor", Images(), kSize, kLegacy,
      Resized({-2,    1.5f, -0.5f, 3,     1,    -1,    -2,    1.5f,  -0.5f, 3,     1,    -1,
               -1.5f, 2,    0,     -2,    1.5f, -0.5f, -1.5f, 2,     0,     -2,    1.5f, -0.5f,
               -1,    2.5f, 0.5f,  -1.5f, 2,    0,     -0.5f, 3,     1,     -1,    2.5f, 0.5f,
               -0.5f, 3,    1,     -1,    2.5f, 0.5f,  0,     -2,    1.5f,  -0.5f, 3,    1,
               0,     -2,   1.5f,  -0.5f, 3,    1,     0.5f,  -1.5f, 2,     0,     -2,   1.5f}));
}

TEST(ResizeNearestNeighborTest, AlignCorners) {
  ExpectResize(
      "ResizeNearestNeighbor", Images(), kSize, kAlignCorners,
      Resized({-2,    1.5f,  1,    -1,    2.5f,  0.5f, -1.5f, 2,     1.5f, -0.5f, 3,     1,
               -1.5f, 2,     1.5f, -0.5f, 3,     1,    -1,    2.5f,  2,    0,     -2,    1.5f,
               -1,    2.5f,  2,    0,     -2,    1.5f, -0.5f, 3,     2.5f, 0.5f,  -1.5f, 2,
               0,     -2,    3,    1,     -1,    2.5f, 0,     -2,    3,    1,     -1,    2.5f,
               0.5f,  -1.5f, -2,   1.5f,  -0.5f, 3,    0.5f,  -1.5f, -2,   1.5f,  -0.5f, 3}));
}

TEST(ResizeNearestNeighborTest, HalfPixelCenters) {
  ExpectResize(
      "ResizeNearestNeighbor", Images(), kSize, kHalfPixel,
      Resized({-2,    1.5f,  1,    -1,    2.5f,  0.5f, -2,    1.5f,  1,    -1,   2.5f,  0.5f,
               -1.5f, 2,     1.5f, -0.5f, 3,     1,    -1,    2.5f,  2,    0,    -2,    1.5f,
               -1,    2.5f,  2,    0,     -2,    1.5f, -0.5f, 3,     2.5f, 0.5f, -1.5f, 2,
               -0.5f, 3,     2.5f, 0.5f,  -1.5f, 2,    0,     -2,    3,    1,    -1,    2.5f,
               0.5f,  -1.5f, -2,   1.5f,  -0.5f, 3,    0.5f,  -1.5f, -2,   1.5f, -0.5f, 3}));
}

TEST(ResizeTest, SmallImageEachMode) {
  // [[1, 2], [3, 4]] to a single row of 3 (align_corners with one output row uses in/out).
  const Tensor y = AsTensor<float>({1, 2, 3, 4}, {1, 2, 2, 1});
  auto row = [](std::vector<float> v) { return AsTensor<float>(v, {1, 1, 3, 1}); };
  ExpectResize("ResizeBilinear", y, {1, 3}, kLegacy, row({1, 1.66666675f, 2}));
  ExpectResize("ResizeBilinear", y, {1, 3}, kAlignCorners, row({1, 1.5f, 2}));
  ExpectResize("ResizeBilinear", y, {1, 3}, kHalfPixel, row({2, 2.5f, 3}));
  ExpectResize("ResizeNearestNeighbor", y, {1, 3}, kLegacy, row({1, 1, 2}));
  ExpectResize("ResizeNearestNeighbor", y, {1, 3}, kAlignCorners, row({1, 2, 2}));
  ExpectResize("ResizeNearestNeighbor", y, {1, 3}, kHalfPixel, row({3, 4, 4}));
  // Same size: unchanged.
  ExpectResize("ResizeBilinear", Images(), {3, 4}, kHalfPixel, Images());
  ExpectResize("ResizeNearestNeighbor", Images(), {3, 4}, kLegacy, Images());
}

TEST(ResizeTest, Uint8) {
  const Tensor u = AsTensor<uint8_t>({0, 255, 128, 7, 50, 60, 200, 100}, {1, 2, 2, 2});
  ExpectResize("ResizeBilinear", u, {3, 3}, kHalfPixel,
               AsTensor<float>({0, 255, 64, 131, 128, 7, 25, 157.5f, 94.5f, 105.5f, 164, 53.5f, 50,
                                60, 125, 80, 200, 100},
                               {1, 3, 3, 2}));
  for (DeviceType device : TestDevices()) {
    auto got = Resize("ResizeNearestNeighbor", u, {3, 3}, kHalfPixel, device);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, AsTensor<uint8_t>({0, 255, 128, 7, 128, 7, 50, 60, 200, 100, 200, 100,
                                               50, 60, 200, 100, 200, 100},
                                              {1, 3, 3, 2}));
  }
}

TEST(ResizeTest, EmptyBatch) {
  ExpectResize("ResizeBilinear", Tensor(DT_FLOAT, TensorShape{0, 3, 4, 2}), {2, 2}, kLegacy,
               Tensor(DT_FLOAT, TensorShape{0, 2, 2, 2}));
  ExpectResize("ResizeNearestNeighbor", Tensor(DT_FLOAT, TensorShape{0, 3, 4, 2}), {2, 2}, kLegacy,
               Tensor(DT_FLOAT, TensorShape{0, 2, 2, 2}));
}

TEST(ResizeTest, InvalidArguments) {
  for (const std::string op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    const Tensor x(DT_FLOAT, TensorShape{1, 3, 4, 2});
    auto message = [&](const Tensor& images, const std::vector<int32_t>& size,
                       Mode mode = kLegacy) {
      auto got = Resize(op, images, size, mode);
      EXPECT_TRUE(absl::IsInvalidArgument(got.status())) << op << ": " << got.status();
      return std::string(got.status().message());
    };
    EXPECT_EQ(message(Tensor(DT_FLOAT, TensorShape{3, 4, 2}), {2, 2}),
              "test_node: input must be 4-dimensional[3,4,2]");
    EXPECT_EQ(message(x, {2, 2, 2}), "test_node: shape_t must have two elements[3]");
    EXPECT_EQ(message(x, {0, 2}), "test_node: output dimensions must be positive");
    EXPECT_EQ(message(x, {-1, 2}), "test_node: output dimensions must be positive");
    EXPECT_EQ(message(Tensor(DT_FLOAT, TensorShape{1, 0, 4, 2}), {2, 2}),
              "test_node: input image must be of non-zero size");
    EXPECT_EQ(message(Tensor(DT_FLOAT, TensorShape{1, 3, 4, 0}), {2, 2}),
              "test_node: image must have at least one channel");
    EXPECT_EQ(message(x, {2, 2}, Mode{true, true}),
              "test_node: If half_pixel_centers is True, align_corners must be False.");
  }
}

}  // namespace
}  // namespace tensord
