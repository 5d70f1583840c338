#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

absl::StatusOr<Tensor> RunBinary(const std::string& op, DataType dtype, const Tensor& x,
                                 const Tensor& y, DeviceType device) {
  auto out = RunKernel(NodeBuilder(op).Attr("T", dtype).Build(), {x, y}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// x [2,3] op y [3]; expected values computed once with TensorFlow 2.21.
TEST(CwiseBinaryArithOpTest, FloatRowBroadcastMatchesTensorFlow) {
  const Tensor x = AsTensor<float>({1.5, -2.0, 0.0, kNaN, 3.25, -7.5}, {2, 3});
  const Tensor y = AsTensor<float>({0.5, kNaN, -3.0}, {3});
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"Add", {2.0, kNaN, -3.0, kNaN, kNaN, -10.5}},
      {"AddV2", {2.0, kNaN, -3.0, kNaN, kNaN, -10.5}},
      {"Sub", {1.0, kNaN, 3.0, kNaN, kNaN, -4.5}},
      {"Mul", {0.75, kNaN, -0.0, kNaN, kNaN, 22.5}},
      {"Maximum", {1.5, kNaN, 0.0, kNaN, kNaN, -3.0}},
      {"Minimum", {0.5, kNaN, -3.0, kNaN, kNaN, -7.5}},
      {"SquaredDifference", {1.0, kNaN, 9.0, kNaN, kNaN, 20.25}},
      {"MulNoNan", {0.75, kNaN, -0.0, kNaN, kNaN, 22.5}},
  };
  for (DeviceType device : TestDevices()) {
    for (const auto& [op, want] : cases) {
      SCOPED_TRACE(op);
      auto z = RunBinary(op, DT_FLOAT, x, y, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorNear(*z, AsTensor<float>(want, {2, 3}));
    }
  }
}

// Naive NumPy broadcasting: right-align, size-1 dims repeat.
std::vector<int64_t> BroadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t SourceIndex(const std::vector<int64_t>& out_dims, int64_t flat,
                    const std::vector<int64_t>& dims) {
  std::vector<int64_t> coord(out_dims.size());
  for (int i = static_cast<int>(out_dims.size()) - 1; i >= 0; --i) {
    coord[i] = flat % out_dims[i];
    flat /= out_dims[i];
  }
  int64_t index = 0;
  const size_t offset = out_dims.size() - dims.size();
  for (size_t i = 0; i < dims.size(); ++i) {
    index = index * dims[i] + (dims[i] == 1 ? 0 : coord[i + offset]);
  }
  return index;
}

Tensor Iota(const std::vector<int64_t>& dims, float start, float step) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = start + step * i;
  return t;
}

TEST(CwiseBinaryArithOpTest, BroadcastingMatchesNaiveReference) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{}, {}},
      {{5}, {}},
      {{}, {2, 3}},
      {{2, 3}, {2, 3}},
      {{2, 3}, {3}},
      {{2, 3}, {2, 1}},
      {{2, 1}, {1, 3}},
      {{4, 1, 3}, {5, 1}},
      {{2, 3, 4, 5}, {3, 1, 5}},
      {{1, 3, 1, 5, 1}, {2, 1, 4, 1, 6}},
      {{2, 1, 2, 1, 2, 1}, {1, 2, 1, 2, 1, 2}},
      {{0, 3}, {1, 3}},
      {{0}, {}},
      {{3, 1}, {0}},
      {{6, 7, 8}, {1, 7, 1}},
      {{1000, 37}, {37}},
      {{1000, 1}, {1, 37}},
      {{100003}, {}},
      {{100003}, {100003}},
  };
  const std::vector<std::pair<std::string, std::function<float(float, float)>>> ops = {
      {"AddV2", [](float a, float b) { return a + b; }},
      {"Sub", [](float a, float b) { return a - b; }},
      {"Mul", [](float a, float b) { return a * b; }},
      {"Maximum", [](float a, float b) { return a > b ? a : b; }},
  };
  for (DeviceType device : TestDevices()) {
    for (const auto& [xd, yd] : shapes) {
      for (bool swap : {false, true}) {
        const auto& a = swap ? yd : xd;
        const auto& b = swap ? xd : yd;
        const Tensor x = Iota(a, -3.0f, 0.25f);
        const Tensor y = Iota(b, 1.0f, -0.5f);
        const std::vector<int64_t> out_dims = BroadcastDims(a, b);
        for (const auto& [op, f] : ops) {
          SCOPED_TRACE(op + " " + x.shape().DebugString() + " " + y.shape().DebugString());
          Tensor want(DT_FLOAT, TensorShape(out_dims));
          for (int64_t i = 0; i < want.NumElements(); ++i) {
            want.data<float>()[i] = f(x.data<float>()[SourceIndex(out_dims, i, a)],
                                      y.data<float>()[SourceIndex(out_dims, i, b)]);
          }
          auto z = RunBinary(op, DT_FLOAT, x, y, device);
          ASSERT_TRUE(z.ok()) << z.status();
          ExpectTensorEqual(*z, want);
        }
      }
    }
  }
}

TEST(CwiseBinaryArithOpTest, Integers) {
  for (DeviceType device : TestDevices()) {
    const Tensor x = AsTensor<int32_t>({1, -2, 3, 4, 5, 6}, {2, 3});
    const Tensor y = AsTensor<int32_t>({10, 20, -30}, {3});
    auto z = RunBinary("Add", DT_INT32, x, y, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({11, 18, -27, 14, 25, -24}, {2, 3}));
    z = RunBinary("SquaredDifference", DT_INT32, x, y, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({81, 484, 1089, 36, 225, 1296}, {2, 3}));
    z = RunBinary("Minimum", DT_INT32, x, y, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1, -2, -30, 4, 5, -30}, {2, 3}));
    z = RunBinary("Mul", DT_INT64, AsTensor<int64_t>({3000000000, -2}, {2}),
                  AsTensor<int64_t>({3}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({9000000000, -6}, {2}));
  }
}

TEST(CwiseBinaryArithOpTest, DoubleAndMulNoNan) {
  for (DeviceType device : TestDevices()) {
    auto z = RunBinary("Sub", DT_DOUBLE, AsTensor<double>({1.0, 2.5}, {2}),
                       AsTensor<double>({0.25}, {1}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<double>({0.75, 2.25}, {2}));
    const float inf = std::numeric_limits<float>::infinity();
    z = RunBinary("MulNoNan", DT_FLOAT, AsTensor<float>({kNaN, inf, 2.0f}, {3}),
                  AsTensor<float>({0.0f, 0.0f, 3.0f}, {3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({0.0f, 0.0f, 6.0f}, {3}));
  }
}

TEST(CwiseBinaryArithOpTest, StringAddConcatenates) {
  for (DeviceType device : TestDevices()) {
    auto z = RunBinary("Add", DT_STRING, AsTensor<std::string>({"a", "bc"}, {2, 1}),
                       AsTensor<std::string>({"x", "yz"}, {2}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<std::string>({"ax", "ayz", "bcx", "bcyz"}, {2, 2}));
  }
}

TEST(CwiseBinaryArithOpTest, IncompatibleShapes) {
  for (DeviceType device : TestDevices()) {
    auto z = RunBinary("Add", DT_FLOAT, Iota({2, 3}, 0, 1), Iota({4}, 0, 1), device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Incompatible shapes: [2,3] vs. [4]"), std::string::npos)
        << z.status();
    EXPECT_NE(z.status().message().find("test_node"), std::string::npos) << z.status();
    z = RunBinary("Mul", DT_FLOAT, Iota({0}, 0, 1), Iota({2}, 0, 1), device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(CwiseBinaryArithOpTest, MismatchedInputTypeIsAnError) {
  for (DeviceType device : TestDevices()) {
    auto z = RunBinary("AddV2", DT_FLOAT, Iota({2}, 0, 1), AsTensor<int32_t>({1}, {}), device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensord
