#include <cmath>
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
constexpr float kInf = std::numeric_limits<float>::infinity();

absl::StatusOr<Tensor> Reduce(const std::string& op, const Tensor& x, const Tensor& axes,
                              bool keep_dims, DeviceType device) {
  NodeBuilder node(op);
  if (op != "All" && op != "Any") node.Attr("T", x.dtype());
  node.Attr("Tidx", axes.dtype()).Attr("keep_dims", keep_dims);
  auto out = RunKernel(node.Build(), {x, axes}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

Tensor Axes(const std::vector<int32_t>& axes) {
  return AsTensor<int32_t>(axes, {static_cast<int64_t>(axes.size())});
}

// Naive reference in double: visit every input element and fold it into its output slot.
Tensor NaiveReduce(const std::string& op, const Tensor& x, const std::vector<bool>& reduced,
                   bool keep_dims) {
  std::vector<int64_t> out_dims;
  for (int i = 0; i < x.dims(); ++i) {
    if (!reduced[i])
      out_dims.push_back(x.dim_size(i));
    else if (keep_dims)
      out_dims.push_back(1);
  }
  Tensor out(DT_FLOAT, TensorShape(out_dims));
  const int64_t n_out = out.NumElements();
  std::vector<double> acc(n_out, op == "Prod"  ? 1.0
                                 : op == "Max" ? -INFINITY
                                 : op == "Min" ? INFINITY
                                               : 0.0);
  int64_t count = 1;
  for (int i = 0; i < x.dims(); ++i) {
    if (reduced[i]) count *= x.dim_size(i);
  }
  std::vector<int64_t> coord(x.dims(), 0);
  for (int64_t flat = 0; flat < x.NumElements(); ++flat) {
    int64_t o = 0;
    for (int i = 0; i < x.dims(); ++i) {
      if (!reduced[i]) o = o * x.dim_size(i) + coord[i];
    }
    const double v = x.data<float>()[flat];
    if (op == "Sum" || op == "Mean") acc[o] += v;
    if (op == "Prod") acc[o] *= v;
    if (op == "Max") acc[o] = std::max(acc[o], v);
    if (op == "Min") acc[o] = std::min(acc[o], v);
    if (op == "EuclideanNorm") acc[o] += v * v;
    for (int i = x.dims() - 1; i >= 0; --i) {
      if (++coord[i] < x.dim_size(i)) break;
      coord[i] = 0;
    }
  }
  for (int64_t i = 0; i < n_out; ++i) {
    double v = acc[i];
    if (op == "Mean") v /= count;
    if (op == "EuclideanNorm") v = std::sqrt(v);
    out.data<float>()[i] = static_cast<float>(v);
  }
  return out;
}

TEST(ReductionOpsTest, EveryAxisSubsetMatchesNaiveReference) {
  const std::vector<std::vector<int64_t>> shapes = {
      {7}, {3, 5}, {2, 3, 4}, {4, 1, 6, 5}, {2, 3, 1, 4, 3}, {1, 300, 2}, {40, 1000}};
  for (DeviceType device : TestDevices()) {
    for (const auto& dims : shapes) {
      Tensor x(DT_FLOAT, TensorShape(dims));
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        // Values near 1 keep products finite; the sign varies.
        x.data<float>()[i] = static_cast<float>(((i * 37) % 23) - 11) / 40.0f + 1.0f;
      }
      const int rank = x.dims();
      for (int mask = 0; mask < (1 << rank); ++mask) {
        std::vector<bool> reduced(rank);
        std::vector<int32_t> axes;
        for (int i = 0; i < rank; ++i) {
          reduced[i] = (mask >> i) & 1;
          // Alternate between positive and negative spellings of the axes.
          if (reduced[i]) axes.push_back(mask % 2 ? i - rank : i);
        }
        for (const std::string op : {"Sum", "Mean", "Max", "Min", "Prod", "EuclideanNorm"}) {
          if (op == "Prod" && x.NumElements() > 200) continue;
          for (bool keep_dims : {false, true}) {
            SCOPED_TRACE(op + " " + x.shape().DebugString() + " mask " + std::to_string(mask) +
                         (keep_dims ? " keep" : ""));
            auto z = Reduce(op, x, Axes(axes), keep_dims, device);
            ASSERT_TRUE(z.ok()) << z.status();
            ExpectTensorNear(*z, NaiveReduce(op, x, reduced, keep_dims), 1e-5, 1e-5);
          }
        }
      }
    }
  }
}

// Values computed once with TensorFlow 2.21.
TEST(ReductionOpsTest, MatchesTensorFlow) {
  std::vector<float> values(24);
  for (int i = 0; i < 24; ++i) values[i] = (i - 11.5f) / 4.0f;
  values[23] = 9.0f;
  const Tensor x = AsTensor<float>(values, {2, 3, 4});
  for (DeviceType device : TestDevices()) {
    auto z = Reduce("Mean", x, Axes({1, 2}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorNear(*z, AsTensor<float>({-1.5f, 2.01041675f}, {2}));
    z = Reduce("Prod", x, Axes({-1, 0}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorNear(*z, AsTensor<float>({0.976380408f, 22.2136402f, 3.05649519f}, {3}));
    z = Reduce("Mean", x, Axes({0, 1, 2}), true, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorNear(*z, AsTensor<float>({0.255208343f}, {1, 1, 1}));
  }
}

TEST(ReductionOpsTest, Integers) {
  const Tensor x = AsTensor<int32_t>({3, -4, 5, -7, 9, 2}, {2, 3});
  const std::vector<std::pair<std::string, std::vector<int32_t>>> axis0 = {
      {"Sum", {-4, 5, 7}},
      {"Mean", {-2, 2, 3}},
      {"Max", {3, 9, 5}},
      {"Min", {-7, -4, 2}},
      {"Prod", {-21, -36, 10}}};
  const std::vector<std::pair<std::string, std::vector<int32_t>>> axis1 = {
      {"Sum", {4, 4}}, {"Mean", {1, 1}}, {"Max", {5, 9}}, {"Min", {-4, -7}}, {"Prod", {-60, -126}}};
  for (DeviceType device : TestDevices()) {
    for (const auto& [op, want] : axis0) {
      auto z = Reduce(op, x, Axes({0}), false, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<int32_t>(want, {3}));
    }
    for (const auto& [op, want] : axis1) {
      auto z = Reduce(op, x, AsTensor<int64_t>({1}, {}), false, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<int32_t>(want, {2}));
    }
    auto z = Reduce("Sum", AsTensor<int64_t>({5000000000, 1}, {2}), Axes({0}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int64_t>({5000000001}, {}));
    z = Reduce("EuclideanNorm", AsTensor<int32_t>({-3, 5}, {1, 2}), Axes({1}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({5}, {1}));
  }
}

TEST(ReductionOpsTest, NaNPropagatesThroughMaxAndMin) {
  const Tensor x = AsTensor<float>({1.0f, kNaN, 2.0f, 3.0f, -1.0f, 0.5f}, {2, 3});
  for (DeviceType device : TestDevices()) {
    for (const std::string op : {"Max", "Min"}) {
      auto z = Reduce(op, x, Axes({1}), false, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<float>({kNaN, op == "Max" ? 3.0f : -1.0f}, {2}));
      z = Reduce(op, x, Axes({0}), false, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, op == "Max" ? AsTensor<float>({3.0f, kNaN, 2.0f}, {3})
                                        : AsTensor<float>({1.0f, kNaN, 0.5f}, {3}));
    }
  }
}

TEST(ReductionOpsTest, EmptyReductionsGiveIdentity) {
  const Tensor x(DT_FLOAT, TensorShape{2, 0});
  for (DeviceType device : TestDevices()) {
    const std::vector<std::pair<std::string, float>> cases = {
        {"Sum", 0.0f}, {"Prod", 1.0f}, {"Max", -kInf}, {"Min", kInf}, {"Mean", kNaN}};
    for (const auto& [op, value] : cases) {
      SCOPED_TRACE(op);
      auto z = Reduce(op, x, Axes({1}), false, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<float>({value, value}, {2}));
      z = Reduce(op, x, Axes({0}), true, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{1, 0}));
    }
    auto z = Reduce("Max", Tensor(DT_INT32, TensorShape{0}), Axes({0}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({std::numeric_limits<int32_t>::lowest()}, {}));
    z = Reduce("Mean", Tensor(DT_INT32, TensorShape{2, 0}), Axes({1}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({0, 0}, {2}));
  }
}

TEST(ReductionOpsTest, NoAxesIsIdentity) {
  const Tensor x = AsTensor<float>({1.0f, -2.0f}, {1, 2});
  for (DeviceType device : TestDevices()) {
    auto z = Reduce("Sum", x, Axes({}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, x);
    z = Reduce("Mean", AsTensor<float>({3.0f}, {}), Axes({}), true, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({3.0f}, {}));
    // Only size-1 dims reduced: the values pass through with the reduced shape.
    z = Reduce("Max", x, Axes({0}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1.0f, -2.0f}, {2}));
    // EuclideanNorm still takes |x| (as TensorFlow does).
    z = Reduce("EuclideanNorm", x, Axes({0}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1.0f, 2.0f}, {2}));
  }
}

TEST(ReductionOpsTest, AllAndAny) {
  const Tensor x = AsTensor<bool>({true, false, true, true, true, true}, {2, 3});
  for (DeviceType device : TestDevices()) {
    auto z = Reduce("All", x, Axes({1}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({false, true}, {2}));
    z = Reduce("Any", x, Axes({0}), true, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({true, true, true}, {1, 3}));
    z = Reduce("All", Tensor(DT_BOOL, TensorShape{2, 0}), Axes({1}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({true, true}, {2}));
    z = Reduce("Any", Tensor(DT_BOOL, TensorShape{2, 0}), Axes({1}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<bool>({false, false}, {2}));
  }
}

// A long sum is accumulated pairwise, so float error stays far below the tolerance.
TEST(ReductionOpsTest, LongSumsAreAccurate) {
  constexpr int64_t kN = 4000037;
  std::vector<float> values(kN);
  double exact = 0;
  for (int64_t i = 0; i < kN; ++i) {
    values[i] = 0.1f + static_cast<float>(i % 1000) * 1e-4f;
    exact += values[i];
  }
  for (DeviceType device : TestDevices()) {
    auto z = Reduce("Sum", AsTensor<float>(values, {kN}), Axes({0}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorNear(*z, AsTensor<float>({static_cast<float>(exact)}, {}), 1e-6, 0);
    z = Reduce("Mean", AsTensor<float>(values, {kN, 1}), Axes({0}), false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorNear(*z, AsTensor<float>({static_cast<float>(exact / kN)}, {1}), 1e-6, 0);
  }
}

TEST(ReductionOpsTest, BadAxes) {
  const Tensor x = AsTensor<float>({1.0f, 2.0f}, {1, 2});
  for (DeviceType device : TestDevices()) {
    auto z = Reduce("Sum", x, Axes({2}), false, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Invalid reduction dimension (2 for input with 2"),
              std::string::npos);
    z = Reduce("Sum", x, Axes({1, -1}), false, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("duplicate dimension: 1"), std::string::npos);
    z = Reduce("Sum", AsTensor<float>({1.0f}, {}), Axes({0}), false, device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    z = Reduce("Sum", x, AsTensor<float>({0.0f}, {1}), false, device);
    EXPECT_FALSE(z.ok());
  }
}

}  // namespace
}  // namespace tensord
