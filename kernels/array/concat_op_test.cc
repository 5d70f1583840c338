#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef ConcatV2(DataType t, int n, DataType tidx = DT_INT32) {
  return NodeBuilder("ConcatV2").Attr("T", t).Attr("N", n).Attr("Tidx", tidx).Build();
}

Tensor Axis(int32_t axis) { return AsTensor<int32_t>({axis}, {}); }

TEST(ConcatOpTest, ConcatV2AlongEachAxis) {
  const Tensor a = Iota<float>({2, 2});
  const Tensor b = Iota<float>({2, 3}, 10);
  const Tensor c = Iota<float>({1, 2}, 20);
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(ConcatV2(DT_FLOAT, 2), {a, b, Axis(1)}, device),
                      AsTensor<float>({0, 1, 10, 11, 12, 2, 3, 13, 14, 15}, {2, 5}));
    ExpectTensorEqual(RunOne(ConcatV2(DT_FLOAT, 2), {a, b, Axis(-1)}, device),
                      AsTensor<float>({0, 1, 10, 11, 12, 2, 3, 13, 14, 15}, {2, 5}));
    ExpectTensorEqual(RunOne(ConcatV2(DT_FLOAT, 3), {a, c, a, Axis(0)}, device),
                      AsTensor<float>({0, 1, 2, 3, 20, 21, 0, 1, 2, 3}, {5, 2}));
  }
}

TEST(ConcatOpTest, StringsInt64AxisAndEmptyInputs) {
  const Tensor a = Strings({"a", "b"}, {2, 1});
  const Tensor b = Strings({}, {2, 0});
  const Tensor c = Strings({"c", "d"}, {2, 1});
  ExpectTensorEqual(RunOne(ConcatV2(DT_STRING, 3, DT_INT64), {a, b, c, AsTensor<int64_t>({1}, {})}),
                    Strings({"a", "c", "b", "d"}, {2, 2}));
  ExpectTensorEqual(
      RunOne(ConcatV2(DT_FLOAT, 2), {Iota<float>({0, 3}), Iota<float>({0, 3}), Axis(0)}),
      Iota<float>({0, 3}));
}

TEST(ConcatOpTest, MiddleAxisOfRank3) {
  const Tensor a = Iota<int32_t>({2, 1, 2});
  const Tensor b = Iota<int32_t>({2, 2, 2}, 100);
  ExpectTensorEqual(
      RunOne(ConcatV2(DT_INT32, 2), {a, b, Axis(1)}),
      AsTensor<int32_t>({0, 1, 100, 101, 102, 103, 2, 3, 104, 105, 106, 107}, {2, 3, 2}));
}

TEST(ConcatOpTest, Tf1ConcatTakesAxisFirst) {
  auto node = NodeBuilder("Concat").Attr("T", DT_FLOAT).Attr("N", 2).Build();
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(node, {Axis(1), Iota<float>({2, 1}), Iota<float>({2, 1}, 5)}, device),
                      AsTensor<float>({0, 5, 1, 6}, {2, 2}));
  }
  ExpectInvalidArgument(node, {Axis(2), Iota<float>({2, 3}), Iota<float>({2, 3})},
                        "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but "
                        "got 2");
}

TEST(ConcatOpTest, Errors) {
  ExpectInvalidArgument(ConcatV2(DT_FLOAT, 2), {Iota<float>({1, 2}), Iota<float>({1, 3}), Axis(0)},
                        "ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [1,2] vs. "
                        "shape[1] = [1,3]");
  ExpectInvalidArgument(ConcatV2(DT_FLOAT, 2),
                        {Iota<float>({1, 2}), Iota<float>({1, 3, 1}), Axis(0)},
                        "ConcatOp : Ranks of all input tensors should match: shape[0] = [1,2] vs. "
                        "shape[1] = [1,3,1]");
  ExpectInvalidArgument(ConcatV2(DT_FLOAT, 2), {Iota<float>({1, 2}), Iota<float>({1, 2}), Axis(-3)},
                        "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but "
                        "got -3");
  ExpectInvalidArgument(ConcatV2(DT_FLOAT, 2), {Iota<float>({}), Iota<float>({}), Axis(0)},
                        "ConcatOp : Can't concatenate scalars (use tf.stack instead)");
  ExpectInvalidArgument(ConcatV2(DT_FLOAT, 2), {Iota<float>({2}), Iota<float>({2}), Int32s({0})},
                        "Concat dim tensor should be a scalar, but got shape [1]");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
