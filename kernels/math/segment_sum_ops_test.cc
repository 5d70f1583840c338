// Expectations from TensorFlow 2.21's tf.math.segment_sum / unsorted_segment_sum.
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

TEST(SegmentSumOpTest, SortedIdsLeaveGapsAtZero) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(NodeBuilder("SegmentSum").Attr("T", DT_FLOAT).Attr("Tindices", DT_INT32)
                             .Build(),
                         {AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2}),
                          AsTensor<int32_t>({0, 0, 2, 2}, {4})},
                         device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<float>({4, 6, 0, 0, 12, 14}, {3, 2}));
  }
  auto unsorted = RunKernel(
      NodeBuilder("SegmentSum").Attr("T", DT_FLOAT).Attr("Tindices", DT_INT32).Build(),
      {AsTensor<float>({1, 2}, {2}), AsTensor<int32_t>({1, 0}, {2})});
  EXPECT_EQ(unsorted.status().code(), absl::StatusCode::kInvalidArgument);
}

::tensorflow::NodeDef Unsorted(DataType t) {
  return NodeBuilder("UnsortedSegmentSum")
      .Attr("T", t)
      .Attr("Tindices", DT_INT32)
      .Attr("Tnumsegments", DT_INT32)
      .Build();
}

TEST(UnsortedSegmentSumOpTest, NegativeIdsDropAndIdsMayHaveRank) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(Unsorted(DT_INT32),
                         {AsTensor<int32_t>({1, 2, 3, 4, 5, 6}, {3, 2}),
                          AsTensor<int32_t>({2, -1, 2}, {3}), AsTensor<int32_t>({4}, {})},
                         device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int32_t>({0, 0, 0, 0, 6, 8, 0, 0}, {4, 2}));
  }
  auto matrix_ids = RunKernel(Unsorted(DT_FLOAT),
                              {AsTensor<float>({1, 2, 3, 4}, {2, 2}),
                               AsTensor<int32_t>({0, 1, 1, 0}, {2, 2}), AsTensor<int32_t>({2}, {})});
  ASSERT_TRUE(matrix_ids.ok()) << matrix_ids.status();
  ExpectTensorEqual((*matrix_ids)[0], AsTensor<float>({5, 5}, {2}));
  auto out_of_range = RunKernel(Unsorted(DT_FLOAT), {AsTensor<float>({1}, {1}),
                                                     AsTensor<int32_t>({3}, {1}),
                                                     AsTensor<int32_t>({2}, {})});
  EXPECT_EQ(out_of_range.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensord
