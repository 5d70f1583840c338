#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef BroadcastTo(DataType t, DataType tidx = DT_INT32) {
  return NodeBuilder("BroadcastTo").Attr("T", t).Attr("Tidx", tidx).Build();
}

TEST(BroadcastToOpTest, BroadcastsLikeNumpy) {
  for (DeviceType device : TestDevices()) {
    // From TF 2.21: tf.broadcast_to(tf.reshape(tf.range(3), [3, 1]), [2, 3, 4]).
    ExpectTensorEqual(
        RunOne(BroadcastTo(DT_INT32), {Iota<int32_t>({3, 1}), Int32s({2, 3, 4})}, device),
        AsTensor<int32_t>({0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2},
                          {2, 3, 4}));
    ExpectTensorEqual(
        RunOne(BroadcastTo(DT_FLOAT, DT_INT64), {Iota<float>({3}), Int64s({2, 3})}, device),
        AsTensor<float>({0, 1, 2, 0, 1, 2}, {2, 3}));
  }
  ExpectTensorEqual(RunOne(BroadcastTo(DT_STRING), {Strings({"a"}, {}), Int32s({2})}),
                    Strings({"a", "a"}, {2}));
  ExpectTensorEqual(RunOne(BroadcastTo(DT_FLOAT), {Iota<float>({1, 3}), Int32s({0, 3})}),
                    Iota<float>({0, 3}));
  const Tensor x = Iota<float>({2, 3});
  Tensor same = RunOne(BroadcastTo(DT_FLOAT), {x, Int32s({2, 3})});
  EXPECT_TRUE(same.SharesBufferWith(x));
}

TEST(BroadcastToOpTest, Errors) {
  const Tensor x = Iota<float>({2, 3});
  ExpectInvalidArgument(BroadcastTo(DT_FLOAT), {x, Int32s({4, 3})},
                        "Incompatible shapes: [2,3] vs. [4,3]");
  ExpectInvalidArgument(BroadcastTo(DT_FLOAT), {x, Int32s({1, 3})},
                        "Incompatible shapes: [2,3] vs. [1,3]");
  ExpectInvalidArgument(BroadcastTo(DT_FLOAT), {x, Int32s({3})},
                        "Rank of input (2) must be no greater than rank of output shape (1).");
  ExpectInvalidArgument(BroadcastTo(DT_FLOAT), {x, Int32s({2, -1})}, "Dimension -1 must be >= 0");
  ExpectInvalidArgument(BroadcastTo(DT_FLOAT), {x, AsTensor<int32_t>({2, 3}, {1, 2})},
                        "shape must be a vector of {int32,int64}, got shape [1,2]");
}

TEST(BroadcastArgsOpTest, BroadcastShape) {
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(NodeBuilder("BroadcastArgs").Attr("T", DT_INT32).Build(),
                             {Int32s({2, 1}), Int32s({3, 1, 4})}, device),
                      Int32s({3, 2, 4}));
    ExpectTensorEqual(RunOne(NodeBuilder("BroadcastArgs").Attr("T", DT_INT64).Build(),
                             {Int64s({}), Int64s({0, 1})}, device),
                      Int64s({0, 1}));
  }
  ExpectInvalidArgument(NodeBuilder("BroadcastArgs").Attr("T", DT_INT32).Build(),
                        {Int32s({2, 1}), Int32s({3, 3, 4})},
                        "Incompatible shapes: [2,1] vs. [3,3,4]");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
