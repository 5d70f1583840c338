// Expected values were computed with TensorFlow 2.21 (tf.raw_ops on CPU).
#include <cstdint>
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

// [0, 1, ..., n-1] as T.
template <typename T>
Tensor Iota(const std::vector<int64_t>& dims) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(i);
  return t;
}

absl::StatusOr<Tensor> RunOp(const std::string& op, const Tensor& input, const Tensor& block_shape,
                             const Tensor& pads, DeviceType device = DeviceType::kCpu) {
  auto out = RunKernel(NodeBuilder(op)
                           .Attr("T", input.dtype())
                           .Attr("Tblock_shape", block_shape.dtype())
                           .Attr(op == "SpaceToBatchND" ? "Tpaddings" : "Tcrops", pads.dtype())
                           .Build(),
                       {input, block_shape, pads}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectRun(const std::string& op, const Tensor& input, const Tensor& block_shape,
               const Tensor& pads, const Tensor& want) {
  for (DeviceType device : TestDevices()) {
    auto got = RunOp(op, input, block_shape, pads, device);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, want);
  }
}

// Error message of op on these arguments (empty when it succeeds).
std::string Error(const std::string& op, const Tensor& input, const Tensor& block_shape,
                  const Tensor& pads) {
  auto got = RunOp(op, input, block_shape, pads);
  EXPECT_TRUE(got.ok() || absl::IsInvalidArgument(got.status())) << got.status();
  return got.ok() ? "" : std::string(got.status().message());
}

Tensor I32(const std::vector<int32_t>& v, const std::vector<int64_t>& dims) {
  return AsTensor<int32_t>(v, dims);
}

TEST(SpaceToBatchNDTest, TwoSpatialDimsWithPadding) {
  const Tensor x = Iota<float>({2, 3, 4, 1});
  ExpectRun("SpaceToBatchND", x, I32({2, 2}, {2}), I32({1, 0, 0, 2}, {2, 2}),
            AsTensor<float>(
                {0, 0, 0, 4, 6,  0, 0,  0,  0, 16, 18, 0, 0, 0, 0, 5, 7,  0, 0,  0,  0, 17, 19, 0,
                 0, 2, 0, 8, 10, 0, 12, 14, 0, 20, 22, 0, 1, 3, 0, 9, 11, 0, 13, 15, 0, 21, 23, 0},
                {8, 2, 3, 1}));
  // BatchToSpaceND with the same crops undoes it.
  auto there = RunOp("SpaceToBatchND", x, I32({2, 2}, {2}), I32({1, 0, 0, 2}, {2, 2}));
  ASSERT_TRUE(there.ok()) << there.status();
  ExpectRun("BatchToSpaceND", *there, I32({2, 2}, {2}), I32({1, 0, 0, 2}, {2, 2}), x);
}

TEST(SpaceToBatchNDTest, OneSpatialDimInt64ArgsInt32Data) {
  const Tensor x =
      AsTensor<int32_t>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {1, 4, 2, 2});
  ExpectRun("SpaceToBatchND", x, AsTensor<int64_t>({2}, {1}), AsTensor<int64_t>({1, 1}, {1, 2}),
            AsTensor<int32_t>(
                {0, 0, 0, 0, 5, 6, 7, 8, 13, 14, 15, 16, 1, 2, 3, 4, 9, 10, 11, 12, 0, 0, 0, 0},
                {2, 3, 2, 2}));
}

TEST(BatchToSpaceNDTest, Crops) {
  ExpectRun("BatchToSpaceND", Iota<float>({8, 2, 3, 1}), I32({2, 2}, {2}),
            I32({0, 1, 1, 0}, {2, 2}),
            AsTensor<float>({12, 1, 13, 2, 14, 36, 25, 37, 26, 38, 15, 4,  16, 5,  17,
                             18, 7, 19, 8, 20, 42, 31, 43, 32, 44, 21, 10, 22, 11, 23},
                            {2, 3, 5, 1}));
}

TEST(SpaceToBatchNDTest, EmptyAndTrivialShapes) {
  const Tensor x = Iota<float>({2, 5, 4, 3});
  // No block dims: a copy.
  ExpectRun("SpaceToBatchND", x, I32({}, {0}), I32({}, {0, 2}), x);
  ExpectRun("SpaceToBatchND", Iota<float>({0, 4, 4, 3}), I32({2, 2}, {2}),
            I32({0, 0, 0, 0}, {2, 2}), Tensor(DT_FLOAT, TensorShape{0, 2, 2, 3}));
  // An empty spatial dim padded to a block: all zeros.
  ExpectRun("SpaceToBatchND", Iota<float>({1, 0, 4, 3}), I32({2, 2}, {2}),
            I32({1, 1, 0, 0}, {2, 2}), Tensor(DT_FLOAT, TensorShape{4, 1, 2, 3}));
  ExpectRun("BatchToSpaceND", Iota<float>({0, 5, 4, 3}), I32({2, 2}, {2}),
            I32({0, 0, 0, 0}, {2, 2}), Tensor(DT_FLOAT, TensorShape{0, 10, 8, 3}));
  ExpectRun("BatchToSpaceND", Iota<float>({4, 1, 4, 3}), I32({2, 2}, {2}),
            I32({1, 1, 0, 0}, {2, 2}), Tensor(DT_FLOAT, TensorShape{1, 0, 8, 3}));
}

TEST(SpaceToBatchNDTest, InvalidArguments) {
  const Tensor x = Iota<float>({2, 5, 4, 3});
  const std::string s2b = "SpaceToBatchND";
  EXPECT_EQ(Error(s2b, x, I32({2, 2}, {1, 2}), I32({1, 0, 0, 0}, {2, 2})),
            "test_node: block_shape rank should be 1 instead of 2");
  EXPECT_EQ(Error(s2b, x, I32({2, 2}, {2}), I32({1, 0, 0, 0}, {4})),
            "test_node: paddings should have shape [2, 2] instead of [4]");
  EXPECT_EQ(Error(s2b, Iota<float>({2}), I32({2, 2}, {2}), I32({0, 0, 0, 0}, {2, 2})),
            "test_node: input rank should be >= 3 instead of 1");
  EXPECT_EQ(Error(s2b, x, I32({0, 2}, {2}), I32({1, 0, 0, 0}, {2, 2})),
            "test_node: All values in block_shape must be positive, got value, 0 at index 0.");
  EXPECT_EQ(Error(s2b, x, I32({2, 2}, {2}), I32({-1, 0, 0, 0}, {2, 2})),
            "test_node: Paddings must be non-negative");
  EXPECT_EQ(Error(s2b, x, I32({2, 2}, {2}), I32({0, 0, 0, 0}, {2, 2})),
            "test_node: padded_shape[0]=5 is not divisible by block_shape[0]=2");
}

TEST(BatchToSpaceNDTest, InvalidArguments) {
  const Tensor x = Iota<float>({4, 5, 4, 3});
  const std::string b2s = "BatchToSpaceND";
  EXPECT_EQ(Error(b2s, Iota<float>({2, 5, 4, 3}), I32({2, 2}, {2}), I32({0, 0, 0, 0}, {2, 2})),
            "test_node: Input batch dimension (2) is not divisible by product of block sizes (4)");
  EXPECT_EQ(Error(b2s, x, I32({2, 2}, {2}), I32({1, 0, 0, 9}, {2, 2})),
            "test_node: cropped_shape[1]=-1 must be non-negative");
  EXPECT_EQ(Error(b2s, x, I32({2, 2}, {2}), I32({-1, 0, 0, 0}, {2, 2})),
            "test_node: Crops must be non-negative");
  EXPECT_EQ(Error(b2s, x, I32({2, 2}, {2}), I32({0, 0}, {1, 2})),
            "test_node: crops should have shape [2, 2] instead of [1,2]");
  EXPECT_EQ(Error(b2s, x, I32({-2, 2}, {2}), I32({0, 0, 0, 0}, {2, 2})),
            "test_node: All values in block_shape must be positive, got value, -2 at index 0.");
}

}  // namespace
}  // namespace tensord
