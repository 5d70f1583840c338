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

absl::StatusOr<Tensor> RunScan(const std::string& op, const Tensor& x, const Tensor& axis,
                               bool exclusive, bool reverse, DeviceType device) {
  auto out = RunKernel(NodeBuilder(op)
                           .Attr("T", x.dtype())
                           .Attr("Tidx", axis.dtype())
                           .Attr("exclusive", exclusive)
                           .Attr("reverse", reverse)
                           .Build(),
                       {x, axis}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(ScanOpsTest, ExclusiveAndReverseCombinations) {
  const Tensor x = AsTensor<float>({1, 2, 3}, {3});
  const Tensor axis = AsTensor<int32_t>({0}, {});
  const std::vector<std::tuple<bool, bool, std::vector<float>>> cases = {
      {false, false, {1, 3, 6}},
      {true, false, {0, 1, 3}},
      {false, true, {6, 5, 3}},
      {true, true, {5, 3, 0}},
  };
  for (DeviceType device : TestDevices()) {
    for (const auto& [exclusive, reverse, want] : cases) {
      auto z = RunScan("Cumsum", x, axis, exclusive, reverse, device);
      ASSERT_TRUE(z.ok()) << z.status();
      ExpectTensorEqual(*z, AsTensor<float>(want, {3}));
    }
  }
}

// Expected values computed once with TensorFlow 2.21.
TEST(ScanOpsTest, CumprodAlongLastAxis) {
  for (DeviceType device : TestDevices()) {
    auto z = RunScan("Cumprod", AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                     AsTensor<int32_t>({-1}, {}), true, false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1, 1, 2, 1, 4, 20}, {2, 3}));
    z = RunScan("Cumsum", AsTensor<int32_t>({1, 2, 3, 4}, {2, 2}), AsTensor<int64_t>({0}, {}),
                false, false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1, 2, 4, 6}, {2, 2}));
  }
}

// Middle axes and wide inner dims against a naive scan.
TEST(ScanOpsTest, MatchesNaiveScan) {
  const std::vector<int64_t> dims = {3, 50, 2100};
  Tensor x(DT_FLOAT, TensorShape(dims));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    x.data<float>()[i] = static_cast<float>((i * 31) % 7) - 3.0f;
  }
  for (DeviceType device : TestDevices()) {
    for (int axis = 0; axis < 3; ++axis) {
      for (int mode = 0; mode < 4; ++mode) {
        const bool exclusive = mode & 1, reverse = mode & 2;
        SCOPED_TRACE("axis " + std::to_string(axis) + " mode " + std::to_string(mode));
        int64_t A = 1, B = 1;
        for (int i = 0; i < axis; ++i) A *= dims[i];
        for (int i = axis + 1; i < 3; ++i) B *= dims[i];
        const int64_t L = dims[axis];
        Tensor want(DT_FLOAT, x.shape());
        for (int64_t a = 0; a < A; ++a) {
          for (int64_t b = 0; b < B; ++b) {
            float acc = 0;
            for (int64_t s = 0; s < L; ++s) {
              const int64_t l = reverse ? L - 1 - s : s;
              const int64_t index = (a * L + l) * B + b;
              if (exclusive) {
                want.data<float>()[index] = acc;
                acc += x.data<float>()[index];
              } else {
                acc += x.data<float>()[index];
                want.data<float>()[index] = acc;
              }
            }
          }
        }
        auto z = RunScan("Cumsum", x, AsTensor<int32_t>({axis}, {}), exclusive, reverse, device);
        ASSERT_TRUE(z.ok()) << z.status();
        ExpectTensorEqual(*z, want);
      }
    }
  }
}

TEST(ScanOpsTest, EmptyAndErrors) {
  for (DeviceType device : TestDevices()) {
    auto z = RunScan("Cumsum", Tensor(DT_FLOAT, TensorShape{0, 3}), AsTensor<int32_t>({1}, {}),
                     false, false, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{0, 3}));
    z = RunScan("Cumsum", AsTensor<float>({1, 2}, {2}), AsTensor<int32_t>({1}, {}), false, false,
                device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Expected scan axis in the range [-1, 1), but got 1"),
              std::string::npos);
    z = RunScan("Cumsum", AsTensor<float>({1}, {}), AsTensor<int32_t>({0}, {}), false, false,
                device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    z = RunScan("Cumsum", AsTensor<float>({1, 2}, {2}), AsTensor<int32_t>({0}, {1}), false, false,
                device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensord
