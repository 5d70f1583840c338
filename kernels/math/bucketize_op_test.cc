// Expectations from TensorFlow 2.21's tf.raw_ops.Bucketize.
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

TEST(BucketizeOpTest, CountsBoundariesAtOrBelow) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(NodeBuilder("Bucketize")
                             .Attr("T", DT_FLOAT)
                             .Attr("boundaries", std::vector<float>{0, 1, 2})
                             .Build(),
                         {AsTensor<float>({-1, 0, 0.5, 1, 2, 3}, {2, 3})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int32_t>({0, 1, 1, 2, 3, 3}, {2, 3}));
  }
  auto ints = RunKernel(
      NodeBuilder("Bucketize").Attr("T", DT_INT64).Attr("boundaries", std::vector<float>{10})
          .Build(),
      {AsTensor<int64_t>({9, 10}, {2})});
  ASSERT_TRUE(ints.ok());
  ExpectTensorEqual((*ints)[0], AsTensor<int32_t>({0, 1}, {2}));
}

}  // namespace
}  // namespace tensord
