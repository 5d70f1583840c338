#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Pad(const char* op, DataType t, DataType tpaddings = DT_INT32) {
  return NodeBuilder(op).Attr("T", t).Attr("Tpaddings", tpaddings).Build();
}
::tensorflow::NodeDef MirrorPad(const char* mode, DataType t = DT_INT32) {
  return NodeBuilder("MirrorPad")
      .Attr("T", t)
      .Attr("Tpaddings", DT_INT32)
      .Attr("mode", mode)
      .Build();
}
Tensor Paddings(const std::vector<int32_t>& values) {
  return AsTensor<int32_t>(values, {static_cast<int64_t>(values.size() / 2), 2});
}

TEST(PadOpTest, ConstantPadding) {
  const Tensor x = Iota<int32_t>({2, 3});
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(Pad("Pad", DT_INT32), {x, Paddings({1, 0, 0, 2})}, device),
                      AsTensor<int32_t>({0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 5, 0, 0}, {3, 5}));
    // From TF 2.21: tf.pad(x, [[1, 0], [0, 2]], constant_values=9).
    ExpectTensorEqual(RunOne(Pad("PadV2", DT_INT32),
                             {x, Paddings({1, 0, 0, 2}), AsTensor<int32_t>({9}, {})}, device),
                      AsTensor<int32_t>({9, 9, 9, 9, 9, 0, 1, 2, 9, 9, 3, 4, 5, 9, 9}, {3, 5}));
  }
  ExpectTensorEqual(RunOne(Pad("Pad", DT_STRING, DT_INT64),
                           {Strings({"a"}, {1}), AsTensor<int64_t>({1, 1}, {1, 2})}),
                    Strings({"", "a", ""}, {3}));
  ExpectTensorEqual(RunOne(Pad("PadV2", DT_FLOAT),
                           {Iota<float>({0, 2}), Paddings({1, 0, 0, 0}), AsTensor<float>({7}, {})}),
                    AsTensor<float>({7, 7}, {1, 2}));
  const Tensor y = RunOne(Pad("Pad", DT_INT32), {x, Paddings({0, 0, 0, 0})});
  EXPECT_TRUE(y.SharesBufferWith(x));
}

TEST(PadOpTest, Errors) {
  const Tensor x = Iota<float>({2, 3});
  ExpectInvalidArgument(Pad("Pad", DT_FLOAT), {x, Paddings({1, -1, 0, 0})},
                        "Paddings must be non-negative: 1 -1");
  ExpectInvalidArgument(Pad("Pad", DT_FLOAT), {x, Paddings({1, 1})},
                        "The first dimension of paddings must be the rank of inputs[1,2] [2,3]");
  ExpectInvalidArgument(Pad("Pad", DT_FLOAT), {x, Int32s({1, 1})},
                        "paddings must be a matrix with 2 columns: [2]");
  ExpectInvalidArgument(Pad("PadV2", DT_FLOAT),
                        {x, Paddings({1, 1, 0, 0}), AsTensor<float>({1}, {1})},
                        "constant_values must be a scalar. Found: [1]");
}

TEST(MirrorPadOpTest, ReflectAndSymmetric) {
  const Tensor x = Iota<int32_t>({2, 3});
  for (DeviceType device : TestDevices()) {
    // From TF 2.21: tf.pad(x, [[1, 1], [2, 2]], mode='REFLECT').
    ExpectTensorEqual(RunOne(MirrorPad("REFLECT"), {x, Paddings({1, 1, 2, 2})}, device),
                      AsTensor<int32_t>({5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0,
                                         5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0},
                                        {4, 7}));
    // tf.pad(x, [[2, 1], [0, 3]], mode='SYMMETRIC').
    ExpectTensorEqual(RunOne(MirrorPad("SYMMETRIC"), {x, Paddings({2, 1, 0, 3})}, device),
                      AsTensor<int32_t>({3, 4, 5, 5, 4, 3, 0, 1, 2, 2, 1, 0, 0, 1, 2,
                                         2, 1, 0, 3, 4, 5, 5, 4, 3, 3, 4, 5, 5, 4, 3},
                                        {5, 6}));
  }
  ExpectTensorEqual(
      RunOne(MirrorPad("REFLECT", DT_STRING), {Strings({"a", "b", "c"}, {3}), Paddings({2, 1})}),
      Strings({"c", "b", "a", "b", "c", "b"}, {6}));
}

TEST(MirrorPadOpTest, Errors) {
  const Tensor x = Iota<int32_t>({2, 3});
  ExpectInvalidArgument(MirrorPad("REFLECT"), {x, Paddings({2, 0, 0, 0})},
                        "paddings must be less than the dimension size: 2, 0 not less than 2");
  ExpectInvalidArgument(MirrorPad("SYMMETRIC"), {x, Paddings({3, 0, 0, 0})},
                        "paddings must be no greater than the dimension size: 3, 0 greater than 2");
  ExpectInvalidArgument(MirrorPad("SYMMETRIC"), {x, Paddings({-1, 0, 0, 0})},
                        "paddings must be non-negative: -1 0");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
