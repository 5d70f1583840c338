#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef ReverseV2(DataType t, DataType tidx = DT_INT32) {
  return NodeBuilder("ReverseV2").Attr("T", t).Attr("Tidx", tidx).Build();
}

TEST(ReverseV2OpTest, ReversesListedAxes) {
  const Tensor x = Iota<int32_t>({2, 3, 4});
  for (DeviceType device : TestDevices()) {
    // From TF 2.21: tf.reverse(x, [0, 2]).
    ExpectTensorEqual(RunOne(ReverseV2(DT_INT32), {x, Int32s({0, 2})}, device),
                      AsTensor<int32_t>({15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20,
                                         3,  2,  1,  0,  7,  6,  5,  4,  11, 10, 9,  8},
                                        {2, 3, 4}));
    ExpectTensorEqual(
        RunOne(ReverseV2(DT_INT32, DT_INT64), {Iota<int32_t>({2, 3}), Int64s({-2})}, device),
        AsTensor<int32_t>({3, 4, 5, 0, 1, 2}, {2, 3}));
  }
  ExpectTensorEqual(RunOne(ReverseV2(DT_STRING), {Strings({"a", "b", "c"}, {3}), Int32s({0})}),
                    Strings({"c", "b", "a"}, {3}));
  const Tensor y = RunOne(ReverseV2(DT_INT32), {x, Int32s({})});
  EXPECT_TRUE(y.SharesBufferWith(x));
}

TEST(ReverseV2OpTest, Errors) {
  const Tensor x = Iota<float>({2, 3});
  ExpectInvalidArgument(ReverseV2(DT_FLOAT), {x, Int32s({2})},
                        "'axis'[0] = 2 is out of valid range [0, 1]");
  ExpectInvalidArgument(ReverseV2(DT_FLOAT), {x, Int32s({1, -1})},
                        "axis 1 specified more than once.");
  ExpectInvalidArgument(ReverseV2(DT_FLOAT), {x, AsTensor<int32_t>({1}, {1, 1})},
                        "'dims' must be 1-dimension, not 2");
}

TEST(ReverseOpTest, Tf1BoolDims) {
  auto node = NodeBuilder("Reverse").Attr("T", DT_FLOAT).Build();
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(
        RunOne(node, {Iota<float>({2, 3}), AsTensor<bool>({false, true}, {2})}, device),
        AsTensor<float>({2, 1, 0, 5, 4, 3}, {2, 3}));
  }
  ExpectInvalidArgument(node, {Iota<float>({2, 3}), AsTensor<bool>({true}, {1})},
                        "'dims' must have the same number of values as 'input' has dimensions.");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
