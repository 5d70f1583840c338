#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

absl::StatusOr<Tensor> RunCast(const Tensor& x, DataType dst, DeviceType device,
                               bool truncate = false) {
  auto out = RunKernel(NodeBuilder("Cast")
                           .Attr("SrcT", x.dtype())
                           .Attr("DstT", dst)
                           .Attr("Truncate", truncate)
                           .Build(),
                       {x}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Expected values observed with TensorFlow 2.21 on x86-64, including the NaN and
// out-of-range conversions C++ leaves undefined.
TEST(CastOpTest, FloatToIntegers) {
  for (DeviceType device : TestDevices()) {
    auto y = RunCast(AsTensor<float>({1.7f, -1.7f, kNaN, 3e10f}, {4}), DT_INT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    constexpr int32_t kMin32 = std::numeric_limits<int32_t>::lowest();
    ExpectTensorEqual(*y, AsTensor<int32_t>({1, -1, kMin32, kMin32}, {4}));

    y = RunCast(AsTensor<float>({3e10f, -3e30f, 1e30f}, {3}), DT_INT64, device);
    ASSERT_TRUE(y.ok()) << y.status();
    constexpr int64_t kMin64 = std::numeric_limits<int64_t>::lowest();
    ExpectTensorEqual(*y, AsTensor<int64_t>({30000001024, kMin64, kMin64}, {3}));

    y = RunCast(AsTensor<float>({300.0f, -1.0f, 255.9f}, {3}), DT_UINT8, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<uint8_t>({44, 255, 255}, {3}));

    y = RunCast(AsTensor<float>({300.0f, -200.0f, 3e10f}, {3}), DT_INT8, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int8_t>({44, 56, 0}, {3}));

    y = RunCast(AsTensor<float>({3e10f, -1.0f, 4e9f, 5e9f}, {4}), DT_UINT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y,
                      AsTensor<uint32_t>({4230197248u, 4294967295u, 4000000000u, 705032704u}, {4}));

    y = RunCast(AsTensor<float>({3e10f, -1.0f, 1e20f, kNaN}, {4}), DT_UINT64, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<uint64_t>({30000001024ull, 18446744073709551615ull,
                                              9223372036854775808ull, 9223372036854775808ull},
                                             {4}));

    y = RunCast(AsTensor<double>({-2.99, 2.99}, {2}), DT_INT16, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int16_t>({-2, 2}, {2}));
  }
}

TEST(CastOpTest, BoolConversions) {
  for (DeviceType device : TestDevices()) {
    auto y = RunCast(AsTensor<float>({kNaN, 0.0f, -0.0f, 0.5f}, {4}), DT_BOOL, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<bool>({true, false, false, true}, {4}));
    y = RunCast(AsTensor<bool>({true, false}, {2}), DT_FLOAT, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({1.0f, 0.0f}, {2}));
    y = RunCast(AsTensor<bool>({true, false}, {2}), DT_INT64, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int64_t>({1, 0}, {2}));
    y = RunCast(AsTensor<int32_t>({0, -3}, {2}), DT_BOOL, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<bool>({false, true}, {2}));
  }
}

TEST(CastOpTest, IntegerAndFloatWidths) {
  for (DeviceType device : TestDevices()) {
    auto y = RunCast(AsTensor<int64_t>({(int64_t{1} << 40) + 5, -1}, {2}), DT_INT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({5, -1}, {2}));
    y = RunCast(AsTensor<int32_t>({16777217, -7}, {2}), DT_FLOAT, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({16777216.0f, -7.0f}, {2}));
    y = RunCast(AsTensor<uint8_t>({0, 255}, {2}), DT_FLOAT, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({0.0f, 255.0f}, {2}));
    y = RunCast(AsTensor<float>({0.1f, -kInf}, {2}), DT_DOUBLE, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<double>({static_cast<double>(0.1f), -INFINITY}, {2}));
  }
}

TEST(CastOpTest, HalfAndBfloat16RoundingAndTruncation) {
  const float bf_input = 1.00390625f + 0.001953125f;                  // between two bfloat16 values
  const float half_input = 1.0f + 0.00048828125f + 0.0001220703125f;  // between two halves
  for (DeviceType device : TestDevices()) {
    auto y = RunCast(AsTensor<float>({bf_input}, {1}), DT_BFLOAT16, device);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(static_cast<float>(y->data<Eigen::bfloat16>()[0]), 1.0078125f);
    y = RunCast(AsTensor<float>({bf_input, kNaN, 3.4e38f}, {3}), DT_BFLOAT16, device, true);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(static_cast<float>(y->data<Eigen::bfloat16>()[0]), 1.0f);
    EXPECT_TRUE(std::isnan(static_cast<float>(y->data<Eigen::bfloat16>()[1])));
    EXPECT_EQ(static_cast<float>(y->data<Eigen::bfloat16>()[2]), 3.38953139e38f);

    y = RunCast(AsTensor<float>({half_input}, {1}), DT_HALF, device);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(static_cast<float>(y->data<Eigen::half>()[0]), 1.0009765625f);
    y = RunCast(AsTensor<float>({half_input, -half_input, 1e6f, kNaN}, {4}), DT_HALF, device, true);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(static_cast<float>(y->data<Eigen::half>()[0]), 1.0f);
    EXPECT_EQ(static_cast<float>(y->data<Eigen::half>()[1]), -1.0f);
    EXPECT_EQ(static_cast<float>(y->data<Eigen::half>()[2]), kInf);
    EXPECT_TRUE(std::isnan(static_cast<float>(y->data<Eigen::half>()[3])));

    Tensor h(DT_HALF, TensorShape{2});
    h.data<Eigen::half>()[0] = Eigen::half(2.5f);
    h.data<Eigen::half>()[1] = Eigen::half(-65504.0f);
    y = RunCast(h, DT_INT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({2, -65504}, {2}));
  }
}

TEST(CastOpTest, LargeInputAndSameType) {
  constexpr int64_t kN = 100001;
  std::vector<int32_t> x(kN);
  std::vector<float> want(kN);
  for (int64_t i = 0; i < kN; ++i) {
    x[i] = static_cast<int32_t>(i * 7 - 300000);
    want[i] = static_cast<float>(x[i]);
  }
  for (DeviceType device : TestDevices()) {
    auto y = RunCast(AsTensor<int32_t>(x, {kN}), DT_FLOAT, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>(want, {kN}));
    const Tensor f = AsTensor<float>({1.5f}, {1});
    y = RunCast(f, DT_FLOAT, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, f);
    // On a GPU the output is forwarded too, but the test copies it back to the host.
    if (device == DeviceType::kCpu) {
      EXPECT_TRUE(y->SharesBufferWith(f));
    }
  }
}

// The pairs of bool, float, int32 and int64 (those with GPU kernels) not covered above: int32
// range edges (2^31 is out of range, the largest float below it is not), int -> float rounding
// to nearest even, widening, and the same-type forwards.
TEST(CastOpTest, BoolFloatInt32Int64Pairs) {
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::lowest();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::lowest();
  for (DeviceType device : TestDevices()) {
    auto y = RunCast(AsTensor<float>({2147483520.0f, 2147483648.0f, -2147483648.0f, -0.9f,
                                      -kInf, kInf},
                                     {6}),
                     DT_INT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({2147483520, kMin32, kMin32, 0, kMin32, kMin32}, {6}));
    y = RunCast(AsTensor<float>({9223371487098961920.0f, 9223372036854775808.0f, kNaN, -2.5f},
                                {4}),
                DT_INT64, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int64_t>({9223371487098961920, kMin64, kMin64, -2}, {4}));
    y = RunCast(AsTensor<int64_t>({16777219, (int64_t{1} << 40) + 1, -3}, {3}), DT_FLOAT,
                device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<float>({16777220.0f, 1099511627776.0f, -3.0f}, {3}));
    y = RunCast(AsTensor<int32_t>({-5, 2147483647}, {2}), DT_INT64, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int64_t>({-5, 2147483647}, {2}));
    y = RunCast(AsTensor<int64_t>({0, int64_t{1} << 32, -1}, {3}), DT_BOOL, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<bool>({false, true, true}, {3}));
    y = RunCast(AsTensor<bool>({false, true, true}, {3}), DT_INT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({0, 1, 1}, {3}));
    y = RunCast(AsTensor<int64_t>({int64_t{1} << 31}, {1}), DT_INT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, AsTensor<int32_t>({kMin32}, {1}));
    y = RunCast(Tensor(DT_FLOAT, TensorShape{0, 3}), DT_INT32, device);
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectTensorEqual(*y, Tensor(DT_INT32, TensorShape{0, 3}));
    for (const Tensor& x : {AsTensor<bool>({true, false}, {2}), AsTensor<int32_t>({7, -7}, {2}),
                            AsTensor<int64_t>({int64_t{1} << 40}, {1})}) {
      y = RunCast(x, x.dtype(), device);
      ASSERT_TRUE(y.ok()) << y.status();
      ExpectTensorEqual(*y, x);
    }
  }
}

// Observed with TensorFlow 2.21's raw Cast op: complex -> anything real converts the real part
// (to bool as well, so 1j is false); real -> complex has a zero imaginary part.
TEST(CastOpTest, ComplexConversions) {
  using C64 = std::complex<float>;
  using C128 = std::complex<double>;
  const Tensor z = AsTensor<C64>(
      {{1.7f, 2.5f}, {-3.9f, 0.0f}, {0.0f, 1.0f}, {0.0f, 0.0f}, {300.6f, -1.0f}}, {5});
  for (DeviceType device : TestDevices()) {
    auto b = RunCast(z, DT_BOOL, device);
    ASSERT_TRUE(b.ok()) << b.status();
    ExpectTensorEqual(*b, AsTensor<bool>({true, true, false, false, true}, {5}));
    auto i = RunCast(z, DT_INT32, device);
    ASSERT_TRUE(i.ok()) << i.status();
    ExpectTensorEqual(*i, AsTensor<int32_t>({1, -3, 0, 0, 300}, {5}));
    auto u = RunCast(z, DT_UINT8, device);
    ASSERT_TRUE(u.ok()) << u.status();
    ExpectTensorEqual(*u, AsTensor<uint8_t>({1, 253, 0, 0, 44}, {5}));
    auto f = RunCast(z, DT_FLOAT, device);
    ASSERT_TRUE(f.ok()) << f.status();
    ExpectTensorEqual(*f, AsTensor<float>({1.7f, -3.9f, 0.0f, 0.0f, 300.6f}, {5}));
    auto wide = RunCast(z, DT_COMPLEX128, device);
    ASSERT_TRUE(wide.ok()) << wide.status();
    ExpectTensorEqual(
        *wide,
        AsTensor<C128>({{1.7f, 2.5f}, {-3.9f, 0.0}, {0.0, 1.0}, {0.0, 0.0}, {300.6f, -1.0}}, {5}));
    auto from_int = RunCast(AsTensor<int32_t>({1, 0, -2, 3}, {4}), DT_COMPLEX64, device);
    ASSERT_TRUE(from_int.ok()) << from_int.status();
    ExpectTensorEqual(*from_int, AsTensor<C64>({{1, 0}, {0, 0}, {-2, 0}, {3, 0}}, {4}));
    auto from_bool = RunCast(AsTensor<bool>({true, false}, {2}), DT_COMPLEX128, device);
    ASSERT_TRUE(from_bool.ok()) << from_bool.status();
    ExpectTensorEqual(*from_bool, AsTensor<C128>({{1, 0}, {0, 0}}, {2}));
  }
}

TEST(CastOpTest, Errors) {
  for (DeviceType device : TestDevices()) {
    auto y = RunCast(AsTensor<int32_t>({1}, {1}), DT_STRING, device);
    EXPECT_FALSE(y.ok());
    // Input dtype disagrees with SrcT.
    auto out = RunKernel(NodeBuilder("Cast")
                             .Attr("SrcT", DT_FLOAT)
                             .Attr("DstT", DT_INT32)
                             .Attr("Truncate", false)
                             .Build(),
                         {AsTensor<int32_t>({1}, {1})}, device);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensord
