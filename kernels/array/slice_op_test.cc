#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Slice(DataType t, DataType index = DT_INT32) {
  return NodeBuilder("Slice").Attr("T", t).Attr("Index", index).Build();
}

TEST(SliceOpTest, SlicesEachDim) {
  const Tensor x = Iota<int32_t>({3, 4});
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(Slice(DT_INT32), {x, Int32s({1, 1}), Int32s({2, 2})}, device),
                      AsTensor<int32_t>({5, 6, 9, 10}, {2, 2}));
    ExpectTensorEqual(RunOne(Slice(DT_INT32), {x, Int32s({0, 2}), Int32s({-1, -1})}, device),
                      AsTensor<int32_t>({2, 3, 6, 7, 10, 11}, {3, 2}));
    ExpectTensorEqual(
        RunOne(Slice(DT_INT32, DT_INT64), {x, Int64s({2, 0}), Int64s({1, 4})}, device),
        AsTensor<int32_t>({8, 9, 10, 11}, {1, 4}));
    ExpectTensorEqual(RunOne(Slice(DT_INT32), {x, Int32s({3, 1}), Int32s({0, 2})}, device),
                      Iota<int32_t>({0, 2}));
  }
  const Tensor s = Strings({"a", "b", "c", "d", "e", "f"}, {2, 3});
  ExpectTensorEqual(RunOne(Slice(DT_STRING), {s, Int32s({0, 1}), Int32s({2, 1})}),
                    Strings({"b", "e"}, {2, 1}));
}

TEST(SliceOpTest, ContiguousSlicesShareTheBuffer) {
  const Tensor x = Iota<float>({4, 2, 3});
  Tensor rows = RunOne(Slice(DT_FLOAT), {x, Int32s({1, 0, 0}), Int32s({2, -1, -1})});
  ExpectTensorEqual(rows, Iota<float>({2, 2, 3}, 6));
  EXPECT_TRUE(rows.SharesBufferWith(x));
  // One row of one batch entry is contiguous too.
  Tensor row = RunOne(Slice(DT_FLOAT), {x, Int32s({2, 1, 0}), Int32s({1, 1, 3})});
  ExpectTensorEqual(row, Iota<float>({1, 1, 3}, 15));
  EXPECT_TRUE(row.SharesBufferWith(x));
  Tensor column = RunOne(Slice(DT_FLOAT), {x, Int32s({0, 0, 1}), Int32s({1, 2, 1})});
  ExpectTensorEqual(column, AsTensor<float>({1, 4}, {1, 2, 1}));
}

TEST(SliceOpTest, Errors) {
  const Tensor x = Iota<float>({2, 3});
  ExpectInvalidArgument(Slice(DT_FLOAT), {x, Int32s({0}), Int32s({1, 1})},
                        "Expected begin and size arguments to be 1-D tensors of size 2, but got "
                        "shapes [1] and [2] instead.");
  ExpectInvalidArgument(Slice(DT_FLOAT), {x, Int32s({3, 0}), Int32s({-1, 1})},
                        "Expected begin[0] in [0, 2], but got 3");
  ExpectInvalidArgument(Slice(DT_FLOAT), {x, Int32s({-1, 0}), Int32s({1, 1})},
                        "Expected begin[0] in [0, 2], but got -1");
  ExpectInvalidArgument(Slice(DT_FLOAT), {x, Int32s({1, 0}), Int32s({-2, 1})},
                        "Expected size[0] in [0, 1], but got -2");
  ExpectInvalidArgument(Slice(DT_FLOAT), {x, Int32s({0, 1}), Int32s({1, 3})},
                        "Expected size[1] in [0, 2], but got 3");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
