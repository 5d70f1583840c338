// The random kernels do not reproduce TensorFlow's streams, so these tests check what callers
// rely on: dtype, shape, range and the moments of the distributions.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"
#include "runtime/framework/dispatch_numeric.h"

namespace tensord {
namespace random_ops {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

::tensorflow::NodeDef FloatNode(const std::string& op, DataType dtype, int64_t seed = 0,
                                int64_t seed2 = 0) {
  return NodeBuilder(op)
      .Attr("dtype", dtype)
      .Attr("T", DT_INT32)
      .Attr("seed", seed)
      .Attr("seed2", seed2)
      .Build();
}

::tensorflow::NodeDef IntNode(DataType dtype, int64_t seed = 0) {
  return NodeBuilder("RandomUniformInt")
      .Attr("Tout", dtype)
      .Attr("T", DT_INT32)
      .Attr("seed", seed)
      .Attr("seed2", int64_t{0})
      .Build();
}

Tensor Shape(const std::vector<int32_t>& dims) {
  return AsTensor<int32_t>(dims, {static_cast<int64_t>(dims.size())});
}

// The values of a float-like output as doubles.
std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(t.NumElements());
  DispatchNumeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                  std::is_same_v<T, Eigen::bfloat16> || std::is_integral_v<T>) {
      // Doubles as they are: through float, a value within 2^-25 of 1 would read as 1.
      for (size_t i = 0; i < v.size(); ++i) {
        if constexpr (std::is_same_v<T, double>) {
          v[i] = t.data<double>()[i];
        } else {
          v[i] = static_cast<double>(static_cast<float>(t.data<T>()[i]));
        }
      }
    }
  });
  return v;
}

struct Moments {
  double mean = 0, stddev = 0, min = 1e300, max = -1e300;
};
Moments ComputeMoments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) {
    m.mean += x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean /= v.size();
  for (double x : v) m.stddev += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(m.stddev / v.size());
  return m;
}

const std::vector<DataType> kFloatTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};
constexpr int kN = 200000;

TEST(RandomUniformTest, RangeAndMoments) {
  for (DeviceType device : TestDevices()) {
    for (DataType dtype : kFloatTypes) {
      SCOPED_TRACE(DataTypeString(dtype));
      auto out = RunKernel(FloatNode("RandomUniform", dtype), {Shape({kN / 100, 100})}, device);
      ASSERT_TRUE(out.ok()) << out.status();
      const Tensor& t = (*out)[0];
      EXPECT_EQ(t.dtype(), dtype);
      EXPECT_EQ(t.shape(), TensorShape({kN / 100, 100}));
      const Moments m = ComputeMoments(Values(t));
      EXPECT_GE(m.min, 0.0);
      EXPECT_LT(m.max, 1.0);
      EXPECT_NEAR(m.mean, 0.5, 0.01);
      EXPECT_NEAR(m.stddev, std::sqrt(1.0 / 12), 0.01);
    }
  }
}

TEST(RandomStandardNormalTest, Moments) {
  for (DataType dtype : kFloatTypes) {
    SCOPED_TRACE(DataTypeString(dtype));
    auto out = RunKernel(FloatNode("RandomStandardNormal", dtype), {Shape({kN})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].dtype(), dtype);
    const Moments m = ComputeMoments(Values((*out)[0]));
    EXPECT_NEAR(m.mean, 0.0, 0.02);
    EXPECT_NEAR(m.stddev, 1.0, 0.02);
    EXPECT_LT(m.min, -3.0);  // tails are present
    EXPECT_GT(m.max, 3.0);
  }
}

TEST(TruncatedNormalTest, BoundedWithTruncatedMoments) {
  for (DataType dtype : kFloatTypes) {
    SCOPED_TRACE(DataTypeString(dtype));
    auto out = RunKernel(FloatNode("TruncatedNormal", dtype), {Shape({kN})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].dtype(), dtype);
    const Moments m = ComputeMoments(Values((*out)[0]));
    EXPECT_GE(m.min, -2.0);
    EXPECT_LE(m.max, 2.0);
    EXPECT_NEAR(m.mean, 0.0, 0.02);
    // Standard deviation of N(0, 1) truncated to [-2, 2].
    EXPECT_NEAR(m.stddev, 0.8796, 0.02);
  }
}

TEST(RandomUniformIntTest, RangeAndCoverage) {
  for (DataType dtype : {DT_INT32, DT_INT64}) {
    SCOPED_TRACE(DataTypeString(dtype));
    Tensor lo = dtype == DT_INT32 ? AsTensor<int32_t>({-3}, {}) : AsTensor<int64_t>({-3}, {});
    Tensor hi = dtype == DT_INT32 ? AsTensor<int32_t>({7}, {}) : AsTensor<int64_t>({7}, {});
    auto out = RunKernel(IntNode(dtype), {Shape({100, 100}), lo, hi});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].dtype(), dtype);
    EXPECT_EQ((*out)[0].shape(), TensorShape({100, 100}));
    const std::vector<double> v = Values((*out)[0]);
    const std::set<double> seen(v.begin(), v.end());
    EXPECT_EQ(seen.size(), 10u);
    EXPECT_EQ(*seen.begin(), -3);
    EXPECT_EQ(*seen.rbegin(), 6);
    EXPECT_NEAR(ComputeMoments(v).mean, 1.5, 0.1);
  }
  // The full int64 range does not overflow.
  auto out = RunKernel(IntNode(DT_INT64),
                       {Shape({1000}), AsTensor<int64_t>({std::numeric_limits<int64_t>::min()}, {}),
                        AsTensor<int64_t>({std::numeric_limits<int64_t>::max()}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  int negative = 0;
  for (int i = 0; i < 1000; ++i) negative += (*out)[0].data<int64_t>()[i] < 0;
  EXPECT_GT(negative, 400);
  EXPECT_LT(negative, 600);
}

TEST(RandomOpsTest, SeedsAndCalls) {
  const Tensor shape = Shape({64});
  // Fixed seeds: the same sequence for two kernels, a new sample on every call.
  const auto seeded = FloatNode("RandomUniform", DT_FLOAT, 1, 2);
  auto a = RunKernel(seeded, {shape});
  auto b = RunKernel(seeded, {shape});
  ASSERT_TRUE(a.ok() && b.ok());
  ExpectTensorEqual((*a)[0], (*b)[0]);
  auto other = RunKernel(FloatNode("RandomUniform", DT_FLOAT, 1, 3), {shape});
  ASSERT_TRUE(other.ok());
  EXPECT_NE(Values((*a)[0]), Values((*other)[0]));
  // Unseeded kernels differ from each other.
  auto u1 = RunKernel(FloatNode("RandomUniform", DT_FLOAT), {shape});
  auto u2 = RunKernel(FloatNode("RandomUniform", DT_FLOAT), {shape});
  ASSERT_TRUE(u1.ok() && u2.ok());
  EXPECT_NE(Values((*u1)[0]), Values((*u2)[0]));
}

TEST(RandomOpsTest, ShapesAndErrors) {
  const auto node = FloatNode("RandomUniform", DT_FLOAT);
  auto out = RunKernel(node, {Shape({})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({}));
  out = RunKernel(node, {AsTensor<int64_t>({3, 0}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 0}));

  auto expect_error = [](const absl::StatusOr<std::vector<Tensor>>& result,
                         const std::string& message) {
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(result.status().message().find(message), std::string::npos) << result.status();
  };
  expect_error(RunKernel(node, {AsTensor<int32_t>({3}, {})}),
               "shape must be a vector of {int32,int64}, got shape []");
  expect_error(RunKernel(node, {AsTensor<int32_t>({2, 3}, {1, 2})}),
               "shape must be a vector of {int32,int64}, got shape [1,2]");
  expect_error(RunKernel(node, {Shape({2, -3})}), "Dimension -3 must be >= 0");

  const auto ints = IntNode(DT_INT32);
  expect_error(
      RunKernel(ints, {Shape({5}), AsTensor<int32_t>({7}, {}), AsTensor<int32_t>({3}, {})}),
      "Need minval < maxval, got 7 >= 3");
  expect_error(
      RunKernel(ints, {Shape({5}), AsTensor<int32_t>({3}, {1}), AsTensor<int32_t>({7}, {})}),
      "minval must be 0-D, got shape [1]");
  expect_error(
      RunKernel(ints, {Shape({5}), AsTensor<int32_t>({3}, {}), AsTensor<int32_t>({7}, {1})}),
      "maxval must be 0-D, got shape [1]");
  // An empty output skips the bounds check, as in TensorFlow.
  out = RunKernel(ints, {Shape({0}), AsTensor<int32_t>({7}, {}), AsTensor<int32_t>({3}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0}));
}

}  // namespace
}  // namespace random_ops
}  // namespace tensord
