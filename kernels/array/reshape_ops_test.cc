#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Reshape(DataType tshape = DT_INT32) {
  return NodeBuilder("Reshape").Attr("T", DT_FLOAT).Attr("Tshape", tshape).Build();
}

TEST(ReshapeOpTest, ReshapesWithoutCopy) {
  const Tensor x = Iota<float>({2, 3});
  for (DeviceType device : TestDevices()) {
    Tensor y = RunOne(Reshape(), {x, Int32s({3, 2})}, device);
    ExpectTensorEqual(y, Iota<float>({3, 2}));
    // On a GPU RunKernel copies the input to device memory and the output back.
    if (device == DeviceType::kCpu) EXPECT_TRUE(y.SharesBufferWith(x));
    ExpectTensorEqual(RunOne(Reshape(DT_INT64), {x, Int64s({6})}, device), Iota<float>({6}));
  }
}

TEST(ReshapeOpTest, InfersMinusOne) {
  const Tensor x = Iota<float>({2, 3, 4});
  ExpectTensorEqual(RunOne(Reshape(), {x, Int32s({-1, 4})}), Iota<float>({6, 4}));
  ExpectTensorEqual(RunOne(Reshape(), {x, Int32s({2, -1})}), Iota<float>({2, 12}));
  ExpectTensorEqual(RunOne(Reshape(), {x, Int32s({-1})}), Iota<float>({24}));
  // Scalars: [] <-> [1]; a scalar shape input is a legacy spelling of [value].
  ExpectTensorEqual(RunOne(Reshape(), {Iota<float>({1}), Int32s({})}), Iota<float>({}));
  ExpectTensorEqual(RunOne(Reshape(), {Iota<float>({}), AsTensor<int32_t>({1}, {})}),
                    Iota<float>({1}));
}

TEST(ReshapeOpTest, EmptyTensorsInferLikeTensorFlow) {
  // Values from TF 2.21: tf.reshape(tf.zeros([0, 3]), ...).
  const Tensor x = Iota<float>({0, 3});
  EXPECT_EQ(RunOne(Reshape(), {x, Int32s({-1, 0})}).shape(), (TensorShape{3, 0}));
  EXPECT_EQ(RunOne(Reshape(), {x, Int32s({5, -1})}).shape(), (TensorShape{5, 0}));
  EXPECT_EQ(RunOne(Reshape(), {x, Int32s({-1, 0, 2})}).shape(), (TensorShape{1, 0, 2}));
}

TEST(ReshapeOpTest, Errors) {
  const Tensor x = Iota<float>({2, 3});
  ExpectInvalidArgument(
      Reshape(), {x, Int32s({4})},
      "Input to reshape is a tensor with 6 values, but the requested shape has 4");
  ExpectInvalidArgument(
      Reshape(), {x, Int32s({4, -1})},
      "Input to reshape is a tensor with 6 values, but the requested shape requires a multiple "
      "of 4");
  ExpectInvalidArgument(Reshape(), {x, Int32s({-1, -1})},
                        "Only one input size may be -1, not both 0 and 1");
  ExpectInvalidArgument(Reshape(), {x, Int32s({-2, 3})}, "Size 0 must be non-negative, not -2");
  ExpectInvalidArgument(Reshape(), {x, AsTensor<int32_t>({6}, {1, 1})},
                        "sizes input must be 1-D, not [1,1]");
}

TEST(SqueezeOpTest, RemovesAllOrListedSizeOneDims) {
  const Tensor x = Iota<int32_t>({1, 2, 1, 3, 1});
  auto all = NodeBuilder("Squeeze")
                 .Attr("T", DT_INT32)
                 .Attr("squeeze_dims", std::vector<int64_t>{})
                 .Build();
  auto some = NodeBuilder("Squeeze")
                  .Attr("T", DT_INT32)
                  .Attr("squeeze_dims", std::vector<int64_t>{0, -1})
                  .Build();
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(all, {x}, device), Iota<int32_t>({2, 3}));
    ExpectTensorEqual(RunOne(some, {x}, device), Iota<int32_t>({2, 1, 3}));
  }
  ExpectTensorEqual(RunOne(all, {Iota<int32_t>({1, 1})}), Iota<int32_t>({}));
  ExpectTensorEqual(RunOne(all, {Iota<int32_t>({0, 1})}), Iota<int32_t>({0}));
}

TEST(SqueezeOpTest, Errors) {
  auto node = [](std::vector<int64_t> dims) {
    return NodeBuilder("Squeeze").Attr("T", DT_FLOAT).Attr("squeeze_dims", dims).Build();
  };
  const Tensor x = Iota<float>({1, 2, 1});
  ExpectInvalidArgument(node({1}), {x}, "Can not squeeze dim[1], expected a dimension of 1, got 2");
  ExpectInvalidArgument(node({3}), {x},
                        "Tried to squeeze dim index 3 for tensor with 3 dimensions.");
  ExpectInvalidArgument(node({-4}), {x},
                        "Tried to squeeze dim index -4 for tensor with 3 dimensions.");
}

TEST(ExpandDimsOpTest, InsertsDim) {
  const Tensor x = Iota<float>({2, 3});
  auto node = NodeBuilder("ExpandDims").Attr("T", DT_FLOAT).Attr("Tdim", DT_INT32).Build();
  const std::vector<std::pair<int32_t, std::vector<int64_t>>> cases = {
      {0, {1, 2, 3}}, {1, {2, 1, 3}}, {2, {2, 3, 1}}, {-1, {2, 3, 1}}, {-3, {1, 2, 3}}};
  for (const auto& [dim, want] : cases) {
    for (DeviceType device : TestDevices()) {
      Tensor y = RunOne(node, {x, AsTensor<int32_t>({dim}, {})}, device);
      ExpectTensorEqual(y, Iota<float>(want));
      if (device == DeviceType::kCpu) EXPECT_TRUE(y.SharesBufferWith(x));
    }
  }
  // A 1-element vector is accepted too; int64 dims.
  auto node64 = NodeBuilder("ExpandDims").Attr("T", DT_FLOAT).Attr("Tdim", DT_INT64).Build();
  ExpectTensorEqual(RunOne(node64, {x, Int64s({1})}), Iota<float>({2, 1, 3}));
  ExpectTensorEqual(RunOne(node, {Iota<float>({}), AsTensor<int32_t>({0}, {})}), Iota<float>({1}));
}

TEST(ExpandDimsOpTest, Errors) {
  auto node = NodeBuilder("ExpandDims").Attr("T", DT_FLOAT).Attr("Tdim", DT_INT32).Build();
  const Tensor x = Iota<float>({1, 2, 1});
  ExpectInvalidArgument(node, {x, AsTensor<int32_t>({4}, {})},
                        "Tried to expand dim index 4 for tensor with 3 dimensions.");
  ExpectInvalidArgument(node, {x, AsTensor<int32_t>({-5}, {})},
                        "Tried to expand dim index -5 for tensor with 3 dimensions.");
  ExpectInvalidArgument(node, {x, Int32s({0, 1})}, "'dim' must be a tensor with a single value");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
