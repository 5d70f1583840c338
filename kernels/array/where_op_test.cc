#include <limits>

#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"

namespace tensord {
namespace testing {
namespace {

TEST(WhereOpTest, CoordinatesOfTrueElements) {
  auto node = NodeBuilder("Where").Attr("T", DT_BOOL).Build();
  for (DeviceType device : TestDevices()) {
    ExpectTensorEqual(
        RunOne(node, {AsTensor<bool>({true, false, true, false, false, true}, {2, 3})}, device),
        AsTensor<int64_t>({0, 0, 0, 2, 1, 2}, {3, 2}));
    ExpectTensorEqual(RunOne(node, {AsTensor<bool>({false, false}, {2})}, device),
                      AsTensor<int64_t>({}, {0, 1}));
    ExpectTensorEqual(RunOne(node, {AsTensor<bool>({}, {0, 3, 2})}, device),
                      AsTensor<int64_t>({}, {0, 3}));
  }
}

TEST(WhereOpTest, NumbersAreTrueWhenNonZero) {
  // TF 2.21: -0.0 is false, NaN is true.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectTensorEqual(RunOne(NodeBuilder("Where").Attr("T", DT_FLOAT).Build(),
                           {AsTensor<float>({0.f, -0.f, nan, 2.f}, {2, 2})}),
                    AsTensor<int64_t>({1, 0, 1, 1}, {2, 2}));
  ExpectTensorEqual(RunOne(NodeBuilder("Where").Attr("T", DT_INT64).Build(),
                           {AsTensor<int64_t>({0, 3, 0, -1}, {4})}),
                    AsTensor<int64_t>({1, 3}, {2, 1}));
  ExpectTensorEqual(RunOne(NodeBuilder("Where").Attr("T", DT_COMPLEX64).Build(),
                           {AsTensor<std::complex<float>>({{0, 0}, {0, 1}}, {2})}),
                    AsTensor<int64_t>({1}, {1, 1}));
}

TEST(WhereOpTest, ScalarIsAnError) {
  ExpectInvalidArgument(NodeBuilder("Where").Attr("T", DT_BOOL).Build(),
                        {AsTensor<bool>({true}, {})}, "WhereOp : Unhandled input dimensions: 0");
}

}  // namespace
}  // namespace testing
}  // namespace tensord
