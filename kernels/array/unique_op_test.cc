// Expectations from TensorFlow 2.21's tf.unique.
#include <limits>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

::tensorflow::NodeDef Unique(DataType t, DataType out_idx = DT_INT32) {
  return NodeBuilder("Unique").Attr("T", t).Attr("out_idx", out_idx).Build();
}

TEST(UniqueOpTest, FirstOccurrenceOrder) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(Unique(DT_INT32), {Int32s({4, 1, 4, 2, 1, 7})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    ExpectTensorEqual((*out)[0], Int32s({4, 1, 2, 7}));
    ExpectTensorEqual((*out)[1], Int32s({0, 1, 0, 2, 1, 3}));
  }
  auto strings = RunKernel(Unique(DT_STRING, DT_INT64), {Strings({"b", "a", "b", "c"}, {4})});
  ASSERT_TRUE(strings.ok()) << strings.status();
  ExpectTensorEqual((*strings)[0], Strings({"b", "a", "c"}, {3}));
  ExpectTensorEqual((*strings)[1], Int64s({0, 1, 0, 2}));
  auto empty = RunKernel(Unique(DT_FLOAT), {Iota<float>({0})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  ExpectTensorEqual((*empty)[0], Iota<float>({0}));
  ExpectTensorEqual((*empty)[1], Int32s({}));
}

TEST(UniqueOpTest, SignedZerosMergeAndNaNsStayApart) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = RunKernel(Unique(DT_FLOAT), {AsTensor<float>({0.f, -0.f, nan, nan, 1.f, 0.f}, {6})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<float>({0.f, nan, nan, 1.f}, {4}));
  ExpectTensorEqual((*out)[1], Int32s({0, 0, 1, 2, 3, 0}));
  auto half = RunKernel(
      Unique(DT_HALF),
      {AsTensor<Eigen::half>({Eigen::half(1.5f), Eigen::half(2.f), Eigen::half(1.5f)}, {3})});
  ASSERT_TRUE(half.ok()) << half.status();
  ExpectTensorEqual((*half)[1], Int32s({0, 1, 0}));
}

TEST(UniqueOpTest, RequiresAVector) {
  ExpectInvalidArgument(Unique(DT_FLOAT), {Iota<float>({2, 2})}, "unique expects a 1D vector.");
  ExpectInvalidArgument(Unique(DT_FLOAT), {Iota<float>({})}, "unique expects a 1D vector.");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
