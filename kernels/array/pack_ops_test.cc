#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Pack(DataType t, int n, int axis) {
  return NodeBuilder("Pack").Attr("T", t).Attr("N", n).Attr("axis", axis).Build();
}
::tensorflow::NodeDef Unpack(DataType t, int num, int axis) {
  return NodeBuilder("Unpack").Attr("T", t).Attr("num", num).Attr("axis", axis).Build();
}

TEST(PackOpTest, StacksAlongNewAxis) {
  const Tensor a = Iota<float>({2, 3});
  const Tensor b = Iota<float>({2, 3}, 10);
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(RunOne(Pack(DT_FLOAT, 2, 0), {a, b}, device),
                      AsTensor<float>({0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}, {2, 2, 3}));
    ExpectTensorEqual(RunOne(Pack(DT_FLOAT, 2, 1), {a, b}, device),
                      AsTensor<float>({0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15}, {2, 2, 3}));
    ExpectTensorEqual(RunOne(Pack(DT_FLOAT, 2, -1), {a, b}, device),
                      AsTensor<float>({0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15}, {2, 3, 2}));
  }
}

TEST(PackOpTest, ScalarsStringsAndSingleInput) {
  // The Keras tensordot pattern: Pack of int32 scalars into a shape vector.
  ExpectTensorEqual(
      RunOne(Pack(DT_INT32, 3, 0),
             {AsTensor<int32_t>({4}, {}), AsTensor<int32_t>({-1}, {}), AsTensor<int32_t>({8}, {})}),
      Int32s({4, -1, 8}));
  ExpectTensorEqual(
      RunOne(Pack(DT_STRING, 2, 1), {Strings({"a", "b"}, {2}), Strings({"c", "d"}, {2})}),
      Strings({"a", "c", "b", "d"}, {2, 2}));
  const Tensor x = Iota<float>({3});
  Tensor y = RunOne(Pack(DT_FLOAT, 1, 1), {x});
  ExpectTensorEqual(y, Iota<float>({3, 1}));
  EXPECT_TRUE(y.SharesBufferWith(x));
}

TEST(PackOpTest, Errors) {
  ExpectInvalidArgument(Pack(DT_FLOAT, 2, 0), {Iota<float>({1, 2}), Iota<float>({1, 3})},
                        "Shapes of all inputs must match: values[0].shape = [1,2] != "
                        "values[1].shape = [1,3]");
  ExpectInvalidArgument(Pack(DT_FLOAT, 2, 3), {Iota<float>({2, 3}), Iota<float>({2, 3})},
                        "axis = 3 not in [-3, 3)");
}

TEST(UnpackOpTest, SplitsOffAnAxis) {
  const Tensor x = Iota<int64_t>({2, 3});
  for (DeviceType device : TestDevices()) {
    auto rows = RunKernel(Unpack(DT_INT64, 2, 0), {x}, device);
    ASSERT_TRUE(rows.ok()) << rows.status();
    ASSERT_EQ(rows->size(), 2u);
    ExpectTensorEqual((*rows)[0], Int64s({0, 1, 2}));
    ExpectTensorEqual((*rows)[1], Int64s({3, 4, 5}));
    // Axis 0: no copy (on a GPU RunKernel copies the input there and the outputs back).
    if (device == DeviceType::kCpu) EXPECT_TRUE((*rows)[1].SharesBufferWith(x));
    auto cols = RunKernel(Unpack(DT_INT64, 3, -1), {x}, device);
    ASSERT_TRUE(cols.ok()) << cols.status();
    ASSERT_EQ(cols->size(), 3u);
    ExpectTensorEqual((*cols)[0], Int64s({0, 3}));
    ExpectTensorEqual((*cols)[1], Int64s({1, 4}));
    ExpectTensorEqual((*cols)[2], Int64s({2, 5}));
  }
  auto strings = RunKernel(Unpack(DT_STRING, 2, 1), {Strings({"a", "b", "c", "d"}, {2, 2})});
  ASSERT_TRUE(strings.ok());
  ExpectTensorEqual((*strings)[0], Strings({"a", "c"}, {2}));
  ExpectTensorEqual((*strings)[1], Strings({"b", "d"}, {2}));
}

TEST(UnpackOpTest, Errors) {
  ExpectInvalidArgument(Unpack(DT_FLOAT, 3, 0), {Iota<float>({2, 3})},
                        "Input shape axis 0 must equal 3, got shape [2,3]");
  ExpectInvalidArgument(Unpack(DT_FLOAT, 2, 2), {Iota<float>({2, 3})}, "axis = 2 not in [-2, 2)");
  ExpectInvalidArgument(Unpack(DT_FLOAT, 2, 0), {Iota<float>({})}, "axis = 0 not in [0, 0)");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
