#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

TEST(ShapeOpsTest, Shape) {
  const Tensor x = Iota<float>({2, 0, 5});
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(
        RunOne(NodeBuilder("Shape").Attr("T", DT_FLOAT).Attr("out_type", DT_INT32).Build(), {x},
               device),
        Int32s({2, 0, 5}));
    ExpectTensorEqual(
        RunOne(NodeBuilder("Shape").Attr("T", DT_FLOAT).Attr("out_type", DT_INT64).Build(), {x},
               device),
        Int64s({2, 0, 5}));
    ExpectTensorEqual(
        RunOne(NodeBuilder("Shape").Attr("T", DT_STRING).Attr("out_type", DT_INT32).Build(),
               {StringIota({})}, device),
        Int32s({}));
  }
}

TEST(ShapeOpsTest, ShapeN) {
  auto node =
      NodeBuilder("ShapeN").Attr("N", 2).Attr("T", DT_INT32).Attr("out_type", DT_INT64).Build();
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(node, {Iota<int32_t>({3}), Iota<int32_t>({1, 4})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    ExpectTensorEqual((*out)[0], Int64s({3}));
    ExpectTensorEqual((*out)[1], Int64s({1, 4}));
  }
}

TEST(ShapeOpsTest, SizeAndRank) {
  const Tensor x = Iota<double>({2, 3, 4});
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(
        RunOne(NodeBuilder("Size").Attr("T", DT_DOUBLE).Attr("out_type", DT_INT32).Build(), {x},
               device),
        AsTensor<int32_t>({24}, {}));
    ExpectTensorEqual(
        RunOne(NodeBuilder("Size").Attr("T", DT_DOUBLE).Attr("out_type", DT_INT64).Build(),
               {Iota<double>({})}, device),
        AsTensor<int64_t>({1}, {}));
    ExpectTensorEqual(RunOne(NodeBuilder("Rank").Attr("T", DT_DOUBLE).Build(), {x}, device),
                      AsTensor<int32_t>({3}, {}));
  }
}

TEST(ShapeOpsTest, Int32OverflowIsAnError) {
  // A tensor whose dim does not fit in int32 needs no storage when another dim is 0.
  Tensor big(DT_FLOAT, TensorShape{0, int64_t{1} << 33});
  ExpectInvalidArgument(NodeBuilder("Shape").Attr("T", DT_FLOAT).Attr("out_type", DT_INT32).Build(),
                        {big}, "does not fit");
  ExpectTensorEqual(
      RunOne(NodeBuilder("Shape").Attr("T", DT_FLOAT).Attr("out_type", DT_INT64).Build(), {big}),
      Int64s({0, int64_t{1} << 33}));
}

}  // namespace
}  // namespace testing
}  // namespace tensord
