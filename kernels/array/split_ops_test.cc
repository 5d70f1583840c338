#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Split(DataType t, int num) {
  return NodeBuilder("Split").Attr("T", t).Attr("num_split", num).Build();
}
::tensorflow::NodeDef SplitV(DataType t, int num, DataType tlen = DT_INT64) {
  return NodeBuilder("SplitV").Attr("T", t).Attr("num_split", num).Attr("Tlen", tlen).Build();
}
Tensor Dim(int32_t d) { return AsTensor<int32_t>({d}, {}); }

TEST(SplitOpTest, SplitDimIsTheFirstInput) {
  const Tensor x = Iota<float>({4, 3});
  for (DeviceType device : TestDevices()) {
    auto rows = RunKernel(Split(DT_FLOAT, 2), {Dim(0), x}, device);
    ASSERT_TRUE(rows.ok()) << rows.status();
    ASSERT_EQ(rows->size(), 2u);
    ExpectTensorEqual((*rows)[0], Iota<float>({2, 3}));
    ExpectTensorEqual((*rows)[1], Iota<float>({2, 3}, 6));
    EXPECT_TRUE((*rows)[1].SharesBufferWith(x));
    auto cols = RunKernel(Split(DT_FLOAT, 3), {Dim(-1), x}, device);
    ASSERT_TRUE(cols.ok()) << cols.status();
    ASSERT_EQ(cols->size(), 3u);
    ExpectTensorEqual((*cols)[0], AsTensor<float>({0, 3, 6, 9}, {4, 1}));
    ExpectTensorEqual((*cols)[2], AsTensor<float>({2, 5, 8, 11}, {4, 1}));
  }
  auto strings = RunKernel(Split(DT_STRING, 2), {Dim(1), Strings({"a", "b", "c", "d"}, {2, 2})});
  ASSERT_TRUE(strings.ok());
  ExpectTensorEqual((*strings)[0], Strings({"a", "c"}, {2, 1}));
  ExpectTensorEqual((*strings)[1], Strings({"b", "d"}, {2, 1}));
  auto empty = RunKernel(Split(DT_FLOAT, 2), {Dim(1), Iota<float>({2, 0})});
  ASSERT_TRUE(empty.ok());
  ExpectTensorEqual((*empty)[1], Iota<float>({2, 0}));
}

TEST(SplitOpTest, Errors) {
  ExpectInvalidArgument(Split(DT_FLOAT, 2), {Dim(0), Iota<float>({5, 2})},
                        "Number of ways to split should evenly divide the split dimension, but got "
                        "split_dim 0 (size = 5) and num_split 2");
  ExpectInvalidArgument(Split(DT_FLOAT, 1), {Dim(2), Iota<float>({2, 3})},
                        "-input rank(-2) <= split_dim < input rank (2), but got 2");
  ExpectInvalidArgument(Split(DT_FLOAT, 1), {Int32s({0}), Iota<float>({2, 3})},
                        "split_dim must be a scalar but has rank 1");
}

TEST(SplitVOpTest, SizesWithInferredEntry) {
  const Tensor x = Iota<int32_t>({2, 5});
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(SplitV(DT_INT32, 3), {x, Int64s({1, -1, 2}), Dim(1)}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 3u);
    ExpectTensorEqual((*out)[0], AsTensor<int32_t>({0, 5}, {2, 1}));
    ExpectTensorEqual((*out)[1], AsTensor<int32_t>({1, 2, 6, 7}, {2, 2}));
    ExpectTensorEqual((*out)[2], AsTensor<int32_t>({3, 4, 8, 9}, {2, 2}));
  }
  auto rows = RunKernel(SplitV(DT_INT32, 2, DT_INT32), {x, Int32s({0, 2}), Dim(0)});
  ASSERT_TRUE(rows.ok()) << rows.status();
  ExpectTensorEqual((*rows)[0], Iota<int32_t>({0, 5}));
  ExpectTensorEqual((*rows)[1], x);
  auto one = RunKernel(SplitV(DT_INT32, 1), {x, Int64s({5}), Dim(1)});
  ASSERT_TRUE(one.ok()) << one.status();
  ExpectTensorEqual((*one)[0], x);
}

TEST(SplitVOpTest, Errors) {
  const Tensor x = Iota<float>({2, 3});
  ExpectInvalidArgument(SplitV(DT_FLOAT, 3), {x, Int64s({2, -1, -1}), Dim(1)},
                        "There can only be one -1 in the input.");
  ExpectInvalidArgument(SplitV(DT_FLOAT, 2), {x, Int64s({1, 1}), Dim(1)},
                        "Determined shape must either match input shape along split_dim exactly if "
                        "fully specified, or be less than the size of the input along split_dim if "
                        "not fully specified.  Got: 2");
  ExpectInvalidArgument(SplitV(DT_FLOAT, 2), {x, Int64s({4, -1}), Dim(1)}, "Got: 4");
  ExpectInvalidArgument(SplitV(DT_FLOAT, 2), {x, Int64s({-2, 5}), Dim(1)},
                        "Split size at index 0 must be >= 0. Got: -2");
  ExpectInvalidArgument(SplitV(DT_FLOAT, 3), {x, Int64s({1, 1}), Dim(1)},
                        "size of the split_tensor must be 1-D and have the same elements as "
                        "outputs got 1 -D and 2 elements");
  ExpectInvalidArgument(SplitV(DT_FLOAT, 1), {x, Int64s({-1}), Dim(1)},
                        "If there is only one output, it must have the same size as the input. "
                        "Input size: 3 output size: -1");
  ExpectInvalidArgument(SplitV(DT_FLOAT, 2), {x, Int64s({1, -1}), Dim(3)},
                        "-input rank(-2) <= split_dim < input rank (2), but got 3");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
