#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Tile(DataType t, DataType multiples = DT_INT32) {
  return NodeBuilder("Tile").Attr("T", t).Attr("Tmultiples", multiples).Build();
}

TEST(TileOpTest, RepeatsEachDim) {
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(Tile(DT_INT32), {Iota<int32_t>({2}), Int32s({3})}, device),
                      Int32s({0, 1, 0, 1, 0, 1}));
    // From TF 2.21: tf.tile(tf.reshape(tf.range(6), [1, 2, 3]), [2, 1, 2]).
    ExpectTensorEqual(
        RunOne(Tile(DT_INT32, DT_INT64), {Iota<int32_t>({1, 2, 3}), Int64s({2, 1, 2})}, device),
        AsTensor<int32_t>({0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5},
                          {2, 2, 6}));
    ExpectTensorEqual(RunOne(Tile(DT_INT32), {Iota<int32_t>({2, 1}), Int32s({2, 3})}, device),
                      AsTensor<int32_t>({0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1}, {4, 3}));
  }
  ExpectTensorEqual(RunOne(Tile(DT_STRING), {Strings({"a", "b"}, {1, 2}), Int32s({2, 1})}),
                    Strings({"a", "b", "a", "b"}, {2, 2}));
  ExpectTensorEqual(RunOne(Tile(DT_FLOAT), {Iota<float>({2, 3}), Int32s({0, 2})}),
                    Iota<float>({0, 6}));
  ExpectTensorEqual(RunOne(Tile(DT_FLOAT), {Iota<float>({}, 3), Int32s({})}), Iota<float>({}, 3));
}

TEST(TileOpTest, AllOnesForwardsTheInput) {
  const Tensor x = Iota<float>({2, 3});
  Tensor y = RunOne(Tile(DT_FLOAT), {x, Int32s({1, 1})});
  ExpectTensorEqual(y, x);
  EXPECT_TRUE(y.SharesBufferWith(x));
}

TEST(TileOpTest, Errors) {
  const Tensor x = Iota<float>({2, 3});
  ExpectInvalidArgument(Tile(DT_FLOAT), {x, Int32s({1})},
                        "Expected multiples argument to be a vector of length 2 but got length 1");
  ExpectInvalidArgument(Tile(DT_FLOAT), {x, AsTensor<int32_t>({1, 1}, {1, 2})},
                        "Expected multiples to be 1-D, but got shape [1,2]");
  ExpectInvalidArgument(Tile(DT_FLOAT), {x, Int32s({1, -1})},
                        "Expected multiples[1] >= 0, but got -1");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
