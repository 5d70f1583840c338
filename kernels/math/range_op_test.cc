#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

template <typename T>
absl::StatusOr<Tensor> RunRange(T start, T limit, T delta, DeviceType device) {
  auto out = RunKernel(
      NodeBuilder("Range").Attr("Tidx", DataTypeToEnum<T>::value).Build(),
      {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit), Tensor::Scalar<T>(delta)}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Expected values computed once with TensorFlow 2.21: element i is start + i * delta in float.
TEST(RangeOpTest, Floats) {
  for (DeviceType device : TestDevices()) {
    auto r = RunRange<float>(0.0f, 1.0f, 0.1f, device);
    ASSERT_TRUE(r.ok()) << r.status();
    ExpectTensorEqual(
        *r, AsTensor<float>({0.0f, 0.100000001f, 0.200000003f, 0.300000012f, 0.400000006f, 0.5f,
                             0.600000024f, 0.699999988f, 0.800000012f, 0.900000036f},
                            {10}));
    r = RunRange<float>(1.0f, 0.3f, -0.1f, device);
    ASSERT_TRUE(r.ok()) << r.status();
    ExpectTensorEqual(*r, AsTensor<float>({1.0f, 0.899999976f, 0.800000012f, 0.699999988f,
                                           0.600000024f, 0.5f, 0.399999976f},
                                          {7}));
    auto d = RunRange<double>(0.5, 2.0, 0.5, device);
    ASSERT_TRUE(d.ok()) << d.status();
    ExpectTensorEqual(*d, AsTensor<double>({0.5, 1.0, 1.5}, {3}));
  }
}

TEST(RangeOpTest, Integers) {
  for (DeviceType device : TestDevices()) {
    auto r = RunRange<int32_t>(-3, 8, 3, device);
    ASSERT_TRUE(r.ok()) << r.status();
    ExpectTensorEqual(*r, AsTensor<int32_t>({-3, 0, 3, 6}, {4}));
    r = RunRange<int32_t>(5, 5, -1, device);
    ASSERT_TRUE(r.ok()) << r.status();
    ExpectTensorEqual(*r, Tensor(DT_INT32, TensorShape{0}));
    auto r64 = RunRange<int64_t>(10, 0, -4, device);
    ASSERT_TRUE(r64.ok()) << r64.status();
    ExpectTensorEqual(*r64, AsTensor<int64_t>({10, 6, 2}, {3}));
  }
}

TEST(RangeOpTest, OneElementVectorsAreAccepted) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(
        NodeBuilder("Range").Attr("Tidx", DT_INT32).Build(),
        {AsTensor<int32_t>({0}, {1}), Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(1)},
        device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int32_t>({0, 1, 2}, {3}));
  }
}

TEST(RangeOpTest, Errors) {
  for (DeviceType device : TestDevices()) {
    auto r = RunRange<int32_t>(0, 5, 0, device);
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("Requires delta != 0: 0"), std::string::npos);
    r = RunRange<int32_t>(5, 0, 1, device);
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("Requires start <= limit when delta > 0: 5/0"),
              std::string::npos);
    r = RunRange<int32_t>(0, 5, -1, device);
    ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("Requires start >= limit when delta < 0: 0/5"),
              std::string::npos);
    auto f = RunRange<float>(0.0f, 1e30f, 1e-30f, device);
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
    auto out = RunKernel(
        NodeBuilder("Range").Attr("Tidx", DT_INT32).Build(),
        {AsTensor<int32_t>({0, 1}, {2}), Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(1)},
        device);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensord
