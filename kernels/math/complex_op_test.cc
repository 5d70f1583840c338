// Expected values from TensorFlow 2.21's tf.complex.
#include <complex>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

TEST(ComplexOpTest, PairsBroadcastAndBothWidths) {
  for (DeviceType device : TestDevices()) {
    auto z = RunKernel(
        NodeBuilder("Complex").Attr("T", DT_FLOAT).Attr("Tout", DT_COMPLEX64).Build(),
        {AsTensor<float>({1, -2, 3, 0.5f}, {2, 2}), AsTensor<float>({10, -1}, {2})}, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(
        (*z)[0], AsTensor<std::complex<float>>({{1, 10}, {-2, -1}, {3, 10}, {0.5f, -1}}, {2, 2}));
    auto wide =
        RunKernel(NodeBuilder("Complex").Attr("T", DT_DOUBLE).Attr("Tout", DT_COMPLEX128).Build(),
                  {AsTensor<double>({0.25}, {}), AsTensor<double>({1, 2, 3}, {3})}, device);
    ASSERT_TRUE(wide.ok()) << wide.status();
    ExpectTensorEqual((*wide)[0],
                      AsTensor<std::complex<double>>({{0.25, 1}, {0.25, 2}, {0.25, 3}}, {3}));
    auto bad =
        RunKernel(NodeBuilder("Complex").Attr("T", DT_FLOAT).Attr("Tout", DT_COMPLEX64).Build(),
                  {AsTensor<float>({1, 2}, {2}), AsTensor<float>({1, 2, 3}, {3})}, device);
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << bad.status();
  }
}

}  // namespace
}  // namespace tensord
