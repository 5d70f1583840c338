#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

TEST(PlaceholderOpsTest, UnfedPlaceholderNamesDtypeAndShape) {
  auto node =
      NodeBuilder("Placeholder", "x").Attr("dtype", DT_FLOAT).ShapeAttr("shape", {-1, 3}).Build();
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(node, {}, device);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message(),
              "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]");
  }
}

TEST(PlaceholderOpsTest, UnknownRankShapeIsNotMentioned) {
  auto node = NodeBuilder("Placeholder", "ids").Attr("dtype", DT_INT64).Build();
  auto out = RunKernel(node, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "You must feed a value for placeholder tensor 'ids' with dtype int64");
}

TEST(PlaceholderOpsTest, PlaceholderWithDefaultForwardsItsInput) {
  for (const Tensor& x : {Iota<float>({2, 2}), StringIota({3})}) {
    auto node = NodeBuilder("PlaceholderWithDefault")
                    .Attr("dtype", x.dtype())
                    .ShapeAttr("shape", {-1})
                    .Build();
    for (DeviceType device : TestDevices()) {
      Tensor y = RunOne(node, {x}, device);
      ExpectTensorEqual(y, x);
      EXPECT_TRUE(y.SharesBufferWith(x));
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace tensord
