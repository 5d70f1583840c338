// Expectations from TensorFlow 2.21's tf.math.top_k.
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

::tensorflow::NodeDef TopK(DataType t, DataType index_type = DT_INT32) {
  return NodeBuilder("TopKV2")
      .Attr("T", t)
      .Attr("sorted", true)
      .Attr("Tk", DT_INT32)
      .Attr("index_type", index_type)
      .Build();
}

TEST(TopKOpTest, LargestFirstTiesByIndex) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(TopK(DT_FLOAT),
                         {AsTensor<float>({3, 1, 3, 7, -2, 0, 5, 5, 5, 1}, {2, 5}),
                          AsTensor<int32_t>({3}, {})},
                         device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<float>({7, 3, 3, 5, 5, 5}, {2, 3}));
    ExpectTensorEqual((*out)[1], AsTensor<int32_t>({3, 0, 2, 1, 2, 3}, {2, 3}));
  }
}

TEST(TopKOpTest, IntegersAndInt64Indices) {
  auto out = RunKernel(TopK(DT_INT32, DT_INT64),
                       {AsTensor<int32_t>({4, 9, 1, 9}, {4}), AsTensor<int32_t>({2}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<int32_t>({9, 9}, {2}));
  ExpectTensorEqual((*out)[1], AsTensor<int64_t>({1, 3}, {2}));
  auto none = RunKernel(TopK(DT_INT32),
                        {AsTensor<int32_t>({4, 9}, {2}), AsTensor<int32_t>({0}, {})});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)[0].shape(), TensorShape({0}));
}

TEST(TopKOpTest, BadArguments) {
  EXPECT_FALSE(RunKernel(TopK(DT_FLOAT), {AsTensor<float>({1, 2}, {2}), AsTensor<int32_t>({3}, {})})
                   .ok());
  EXPECT_FALSE(RunKernel(TopK(DT_FLOAT), {AsTensor<float>({1}, {}), AsTensor<int32_t>({1}, {})})
                   .ok());
  EXPECT_FALSE(
      RunKernel(TopK(DT_FLOAT), {AsTensor<float>({1, 2}, {2}), AsTensor<int32_t>({-1}, {})}).ok());
}

}  // namespace
}  // namespace tensord
