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

absl::StatusOr<Tensor> RunSelect(const std::string& op, const Tensor& cond, const Tensor& t,
                                 const Tensor& e, DeviceType device) {
  auto out = RunKernel(NodeBuilder(op).Attr("T", t.dtype()).Build(), {cond, t, e}, device);
  if (!out.ok()) return out.status();
  return (*out)[0];
}

const Tensor kThen = AsTensor<int32_t>({1, 2, 3, 4}, {2, 2});
const Tensor kElse = AsTensor<int32_t>({5, 6, 7, 8}, {2, 2});

// Expected values observed with TensorFlow 2.21.
TEST(SelectOpTest, Tf1Forms) {
  for (DeviceType device : TestDevices()) {
    auto z = RunSelect("Select", AsTensor<bool>({true, false}, {2}), kThen, kElse, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1, 2, 7, 8}, {2, 2}));
    z = RunSelect("Select", AsTensor<bool>({true, false, false, true}, {2, 2}), kThen, kElse,
                  device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1, 6, 7, 4}, {2, 2}));
    z = RunSelect("Select", AsTensor<bool>({false}, {}), kThen, kElse, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, kElse);
    z = RunSelect("Select", AsTensor<bool>({true, false}, {2}), AsTensor<int32_t>({1, 2}, {2}),
                  AsTensor<int32_t>({5, 6}, {2}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<int32_t>({1, 6}, {2}));
  }
}

TEST(SelectOpTest, Tf1Errors) {
  for (DeviceType device : TestDevices()) {
    auto z = RunSelect("Select", AsTensor<bool>({true, false, true}, {3}), kThen, kElse, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Number of batches of 'then' must match size of 'cond'"),
              std::string::npos);
    z = RunSelect("Select", AsTensor<bool>({true, false}, {2}), kThen,
                  AsTensor<int32_t>({5, 6}, {1, 2}), device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("'then' and 'else' must have the same size"),
              std::string::npos);
    z = RunSelect("Select", AsTensor<bool>({true, false}, {1, 2}), kThen, kElse, device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(SelectOpTest, V2Broadcasts) {
  for (DeviceType device : TestDevices()) {
    // cond [2,1,1], then [3], else scalar -> [2,1,3].
    auto z = RunSelect("SelectV2", AsTensor<bool>({true, false}, {2, 1, 1}),
                       AsTensor<float>({1, 2, 3}, {3}), AsTensor<float>({-1}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1, 2, 3, -1, -1, -1}, {2, 1, 3}));
    z = RunSelect("SelectV2", AsTensor<bool>({true, false, true}, {3}),
                  AsTensor<std::string>({"a"}, {}),
                  AsTensor<std::string>({"x", "y", "z", "u", "v", "w"}, {2, 3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<std::string>({"a", "y", "a", "a", "v", "a"}, {2, 3}));
    z = RunSelect("SelectV2", AsTensor<bool>({true}, {}), Tensor(DT_INT64, TensorShape{0, 2}),
                  AsTensor<int64_t>({1, 2}, {2}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_INT64, TensorShape{0, 2}));
  }
}

TEST(SelectOpTest, V2LargeSameShape) {
  constexpr int64_t kN = 100001;
  std::vector<bool> cond(kN);
  std::vector<float> t(kN), e(kN), want(kN);
  for (int64_t i = 0; i < kN; ++i) {
    cond[i] = (i % 3) == 0;
    t[i] = static_cast<float>(i);
    e[i] = -static_cast<float>(i);
    want[i] = cond[i] ? t[i] : e[i];
  }
  for (DeviceType device : TestDevices()) {
    auto z = RunSelect("SelectV2", AsTensor<bool>(cond, {kN}), AsTensor<float>(t, {kN}),
                       AsTensor<float>(e, {kN}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>(want, {kN}));
  }
}

TEST(SelectOpTest, V2Incompatible) {
  for (DeviceType device : TestDevices()) {
    auto z = RunSelect("SelectV2", AsTensor<bool>({true, false, true}, {3}), kThen, kElse, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find(
                  "condition [3], then [2,2], and else [2,2] must be broadcastable"),
              std::string::npos);
    z = RunSelect("SelectV2", AsTensor<int32_t>({1}, {}), kThen, kElse, device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace tensord
