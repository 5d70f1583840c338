// Expectations from TensorFlow 2.21's tf.raw_ops.DenseBincount.
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

::tensorflow::NodeDef Bincount(DataType t, bool binary) {
  return NodeBuilder("DenseBincount")
      .Attr("Tidx", DT_INT32)
      .Attr("T", t)
      .Attr("binary_output", binary)
      .Build();
}

TEST(DenseBincountOpTest, RowsCountsAndBinary) {
  const Tensor input = AsTensor<int32_t>({0, 1, 4, 2, 2, 7}, {2, 3});
  const Tensor no_weights = AsTensor<float>({}, {0});
  for (DeviceType device : TestDevices()) {
    auto counts = RunKernel(Bincount(DT_FLOAT, false),
                            {input, AsTensor<int32_t>({5}, {}), no_weights}, device);
    ASSERT_TRUE(counts.ok()) << counts.status();
    ExpectTensorEqual((*counts)[0],
                      AsTensor<float>({1, 1, 0, 0, 1, 0, 0, 2, 0, 0}, {2, 5}));
    auto binary = RunKernel(Bincount(DT_FLOAT, true),
                            {input, AsTensor<int32_t>({5}, {}), no_weights}, device);
    ASSERT_TRUE(binary.ok());
    ExpectTensorEqual((*binary)[0],
                      AsTensor<float>({1, 1, 0, 0, 1, 0, 0, 1, 0, 0}, {2, 5}));
  }
}

TEST(DenseBincountOpTest, WeightsAndErrors) {
  auto weighted = RunKernel(Bincount(DT_FLOAT, false),
                            {AsTensor<int32_t>({3, 1, 3, 0}, {4}), AsTensor<int32_t>({4}, {}),
                             AsTensor<float>({0.5, 1, 2, 4}, {4})});
  ASSERT_TRUE(weighted.ok()) << weighted.status();
  ExpectTensorEqual((*weighted)[0], AsTensor<float>({4, 1, 0, 2.5}, {4}));
  auto ignored = RunKernel(Bincount(DT_INT32, false),
                           {AsTensor<int32_t>({3, 1, 5}, {3}), AsTensor<int32_t>({4}, {}),
                            AsTensor<int32_t>({}, {0})});
  ASSERT_TRUE(ignored.ok());
  ExpectTensorEqual((*ignored)[0], AsTensor<int32_t>({0, 1, 0, 1}, {4}));
  auto negative = RunKernel(Bincount(DT_FLOAT, false),
                            {AsTensor<int32_t>({-1}, {1}), AsTensor<int32_t>({4}, {}),
                             AsTensor<float>({}, {0})});
  EXPECT_EQ(negative.status().message().find("must be non-negative") != std::string::npos, true)
      << negative.status();
}

}  // namespace
}  // namespace tensord
