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

template <typename T>
Tensor Iota(const std::vector<int64_t>& dims) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(i);
  return t;
}

absl::StatusOr<Tensor> RunOp(const std::string& op, const Tensor& input, int64_t block_size,
                             const std::string& data_format = "NHWC",
                             DeviceType device = DeviceType::kCpu) {
  auto out = RunKernel(NodeBuilder(op)
                           .Attr("T", input.dtype())
                           .Attr("block_size", block_size)
                           .Attr("data_format", data_format)
                           .Build(),
                       {input}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectRun(const std::string& op, const Tensor& input, int64_t block_size, const Tensor& want) {
  for (DeviceType device : TestDevices()) {
    auto got = RunOp(op, input, block_size, "NHWC", device);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorEqual(*got, want);
  }
}

TEST(SpaceToDepthTest, MatchesTensorFlow) {
  const Tensor x = Iota<float>({1, 4, 6, 2});
  const Tensor want =
      AsTensor<float>({0,  1,  2,  3,  12, 13, 14, 15, 4,  5,  6,  7,  16, 17, 18, 19,
                       8,  9,  10, 11, 20, 21, 22, 23, 24, 25, 26, 27, 36, 37, 38, 39,
                       28, 29, 30, 31, 40, 41, 42, 43, 32, 33, 34, 35, 44, 45, 46, 47},
                      {1, 2, 3, 8});
  ExpectRun("SpaceToDepth", x, 2, want);
  ExpectRun("DepthToSpace", want, 2, x);
}

TEST(DepthToSpaceTest, MatchesTensorFlow) {
  ExpectRun("DepthToSpace", Iota<float>({2, 1, 2, 8}), 2,
            AsTensor<float>({0,  1,  2,  3,  8,  9,  10, 11, 4,  5,  6,  7,  12, 13, 14, 15,
                             16, 17, 18, 19, 24, 25, 26, 27, 20, 21, 22, 23, 28, 29, 30, 31},
                            {2, 2, 4, 2}));
}

TEST(DepthToSpaceTest, RoundTripBlockThreeInt32AndEmpty) {
  const Tensor x = Iota<int32_t>({2, 6, 9, 5});
  auto depth = RunOp("SpaceToDepth", x, 3);
  ASSERT_TRUE(depth.ok()) << depth.status();
  EXPECT_EQ(depth->shape(), (TensorShape{2, 2, 3, 45}));
  // Spot check: depth[1, 1, 2, (dy*3 + dx)*5 + c] = x[1, 3 + dy, 6 + dx, c] for dy=2, dx=1, c=4.
  EXPECT_EQ(depth->data<int32_t>()[((1 * 2 + 1) * 3 + 2) * 45 + (2 * 3 + 1) * 5 + 4],
            x.data<int32_t>()[((1 * 6 + 5) * 9 + 7) * 5 + 4]);
  ExpectRun("DepthToSpace", *depth, 3, x);
  ExpectRun("SpaceToDepth", Iota<float>({0, 4, 4, 1}), 2,
            Tensor(DT_FLOAT, TensorShape{0, 2, 2, 4}));
  ExpectRun("DepthToSpace", Iota<float>({1, 2, 2, 0}), 2,
            Tensor(DT_FLOAT, TensorShape{1, 4, 4, 0}));
}

TEST(DepthToSpaceTest, InvalidArguments) {
  auto not_divisible = RunOp("SpaceToDepth", Iota<float>({1, 3, 4, 2}), 2);
  EXPECT_EQ(not_divisible.status().message(),
            "test_node: Image width 4 and height 3 should be divisible by block_size: 2");
  auto depth = RunOp("DepthToSpace", Iota<float>({1, 3, 4, 2}), 2);
  EXPECT_EQ(depth.status().message(),
            "test_node: Input depth dimension 2 should be divisible by: 4");
  auto rank = RunOp("DepthToSpace", Iota<float>({4, 4, 8}), 2);
  EXPECT_TRUE(absl::IsInvalidArgument(rank.status())) << rank.status();
  auto nchw = RunOp("DepthToSpace", Iota<float>({1, 8, 4, 2}), 2, "NCHW");
  EXPECT_TRUE(absl::IsInvalidArgument(nchw.status())) << nchw.status();
  auto block = RunOp("SpaceToDepth", Iota<float>({1, 4, 4, 2}), 1);
  EXPECT_TRUE(absl::IsInvalidArgument(block.status())) << block.status();
}

}  // namespace
}  // namespace tensord
