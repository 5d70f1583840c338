// Expectations from TensorFlow 2.21's tf.raw_ops.DenseBincount and tf.raw_ops.RaggedBincount.
#include <string>

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

::tensorflow::NodeDef RaggedBincount(DataType tidx, DataType t, bool binary) {
  return NodeBuilder("RaggedBincount")
      .Attr("Tidx", tidx)
      .Attr("T", t)
      .Attr("binary_output", binary)
      .Build();
}

TEST(RaggedBincountOpTest, RowsCountsWeightsAndBinary) {
  // Rows {1, 1, 4}, {}, {0, 9}; 9 is beyond size and ignored.
  const Tensor splits = AsTensor<int64_t>({0, 3, 3, 5}, {4});
  const Tensor values = AsTensor<int64_t>({1, 1, 4, 0, 9}, {5});
  const Tensor size = AsTensor<int64_t>({5}, {});
  const Tensor weights = AsTensor<float>({0.5, 0.25, 2, 3, 4}, {5});
  for (DeviceType device : TestDevices()) {
    auto counts = RunKernel(RaggedBincount(DT_INT64, DT_FLOAT, false),
                            {splits, values, size, AsTensor<float>({}, {0})}, device);
    ASSERT_TRUE(counts.ok()) << counts.status();
    ExpectTensorEqual((*counts)[0], AsTensor<float>({0, 2, 0, 0, 1,  //
                                                     0, 0, 0, 0, 0,  //
                                                     1, 0, 0, 0, 0},
                                                    {3, 5}));
    auto weighted = RunKernel(RaggedBincount(DT_INT64, DT_FLOAT, false),
                              {splits, values, size, weights}, device);
    ASSERT_TRUE(weighted.ok()) << weighted.status();
    ExpectTensorEqual((*weighted)[0], AsTensor<float>({0, 0.75, 0, 0, 2,  //
                                                       0, 0, 0, 0, 0,     //
                                                       3, 0, 0, 0, 0},
                                                      {3, 5}));
    auto binary = RunKernel(RaggedBincount(DT_INT64, DT_FLOAT, true),
                            {splits, values, size, weights}, device);
    ASSERT_TRUE(binary.ok()) << binary.status();
    ExpectTensorEqual((*binary)[0], AsTensor<float>({0, 1, 0, 0, 1,  //
                                                     0, 0, 0, 0, 0,  //
                                                     1, 0, 0, 0, 0},
                                                    {3, 5}));
    auto int_counts = RunKernel(RaggedBincount(DT_INT32, DT_INT64, false),
                                {splits, AsTensor<int32_t>({1, 1, 4, 0, 9}, {5}),
                                 AsTensor<int32_t>({5}, {}), AsTensor<int64_t>({}, {0})},
                                device);
    ASSERT_TRUE(int_counts.ok()) << int_counts.status();
    ExpectTensorEqual((*int_counts)[0],
                      AsTensor<int64_t>({0, 2, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, {3, 5}));
  }
}

TEST(RaggedBincountOpTest, BadSplitsValuesAndSizesNameTheProblem) {
  const Tensor values = AsTensor<int64_t>({1, 1, 4, 0, 9}, {5});
  const Tensor size = AsTensor<int64_t>({5}, {});
  const Tensor none = AsTensor<float>({}, {0});
  auto run = [&](const Tensor& splits, const Tensor& vals, const Tensor& sz, const Tensor& w) {
    return std::string(RunKernel(RaggedBincount(DT_INT64, DT_FLOAT, false), {splits, vals, sz, w})
                           .status()
                           .message());
  };
  EXPECT_NE(run(AsTensor<int64_t>({1, 3, 5}, {3}), values, size, none)
                .find("Splits must start with 0, not with 1"),
            std::string::npos);
  EXPECT_NE(run(AsTensor<int64_t>({0, 3, 4}, {3}), values, size, none)
                .find("Splits must end with the number of values, got 4 instead of 5"),
            std::string::npos);
  EXPECT_NE(run(AsTensor<int64_t>({0, 3, 2, 5}, {4}), values, size, none).find("non-decreasing"),
            std::string::npos);
  EXPECT_NE(
      run(AsTensor<int64_t>({0, 5}, {2}), AsTensor<int64_t>({1, -1, 4, 0, 9}, {5}), size, none)
          .find("must be non-negative"),
      std::string::npos);
  EXPECT_NE(run(AsTensor<int64_t>({0, 5}, {2}), values, AsTensor<int64_t>({-1}, {}), none)
                .find("size (-1) must be non-negative"),
            std::string::npos);
  EXPECT_NE(run(AsTensor<int64_t>({0, 5}, {2}), values, size, AsTensor<float>({1, 2}, {2}))
                .find("same shape"),
            std::string::npos);
  EXPECT_NE(run(AsTensor<int64_t>({}, {0}), AsTensor<int64_t>({}, {0}), size, none)
                .find("non-empty vector"),
            std::string::npos);
}

}  // namespace
}  // namespace tensord
