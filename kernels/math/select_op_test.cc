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

// The float forms, which have GPU kernels: a condition vector choosing rows of rank-3 inputs,
// scalar conditions (broadcast on a GPU, forwarded on the CPU), a same-shape condition and
// empty rows.
TEST(SelectOpTest, Tf1FloatForms) {
  const Tensor t = AsTensor<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  const Tensor e = AsTensor<float>({-1, -2, -3, -4, -5, -6, -7, -8}, {2, 2, 2});
  for (DeviceType device : TestDevices()) {
    auto z = RunSelect("Select", AsTensor<bool>({false, true}, {2}), t, e, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({-1, -2, -3, -4, 5, 6, 7, 8}, {2, 2, 2}));
    z = RunSelect("Select", AsTensor<bool>({true}, {}), t, e, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, t);
    z = RunSelect("Select", AsTensor<bool>({false}, {}), t, e, device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, e);
    z = RunSelect("Select", AsTensor<bool>({true, false, false, true}, {2, 2}),
                  AsTensor<float>({1, 2, 3, 4}, {2, 2}), AsTensor<float>({5, 6, 7, 8}, {2, 2}),
                  device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1, 6, 7, 4}, {2, 2}));
    z = RunSelect("Select", Tensor(DT_BOOL, TensorShape{0}), Tensor(DT_FLOAT, TensorShape{0, 3}),
                  Tensor(DT_FLOAT, TensorShape{0, 3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, Tensor(DT_FLOAT, TensorShape{0, 3}));
  }
}

TEST(SelectOpTest, Tf1FloatErrors) {
  const Tensor t = AsTensor<float>({1, 2, 3, 4}, {2, 2});
  for (DeviceType device : TestDevices()) {
    auto z = RunSelect("Select", AsTensor<bool>({true, false, true}, {3}), t, t, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("test_node"), std::string::npos);
    EXPECT_NE(z.status().message().find(
                  "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3"),
              std::string::npos);
    z = RunSelect("Select", AsTensor<bool>({true}, {}), t, AsTensor<float>({1, 2}, {2}), device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("'then' and 'else' must have the same size"),
              std::string::npos);
    z = RunSelect("Select", AsTensor<bool>({true, false}, {1, 2}), t, t, device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find("Inputs to operation Select must have the same size and "
                                        "shape.  Input 0: [1,2] != input 1: [2,2]"),
              std::string::npos);
    z = RunSelect("Select", AsTensor<bool>({true, false}, {2}), AsTensor<float>({1}, {}),
                  AsTensor<float>({2}, {}), device);
    EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
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

// Every operand broadcast, in one, two and three alternating dims.
TEST(SelectOpTest, V2FloatBroadcasts) {
  std::vector<float> e12(12);
  for (int i = 0; i < 12; ++i) e12[i] = 100.0f + static_cast<float>(i);
  for (DeviceType device : TestDevices()) {
    auto z = RunSelect("SelectV2", AsTensor<bool>({true, false}, {2, 1}),
                       AsTensor<float>({1, 2, 3}, {1, 3}),
                       AsTensor<float>({10, 20, 30, 40, 50, 60}, {2, 3}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1, 2, 3, 40, 50, 60}, {2, 3}));
    z = RunSelect("SelectV2", AsTensor<bool>({true, false, true}, {3}),
                  AsTensor<float>({1, 2}, {2, 1}), AsTensor<float>({-1}, {}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1, -1, 1, 2, -1, 2}, {2, 3}));
    // out[i,j,k] = cond[i,k] ? then[j] : else[i,j,k].
    z = RunSelect("SelectV2", AsTensor<bool>({true, false, false, true}, {2, 1, 2}),
                  AsTensor<float>({1, 2, 3}, {1, 3, 1}), AsTensor<float>(e12, {2, 3, 2}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({1, 101, 2, 103, 3, 105, 106, 1, 108, 2, 110, 3},
                                          {2, 3, 2}));
    z = RunSelect("SelectV2", AsTensor<bool>({false}, {}), AsTensor<float>({1, 2}, {2}),
                  AsTensor<float>({7}, {1}), device);
    ASSERT_TRUE(z.ok()) << z.status();
    ExpectTensorEqual(*z, AsTensor<float>({7, 7}, {2}));
    z = RunSelect("SelectV2", AsTensor<bool>({true, false}, {2}), AsTensor<float>({1, 2}, {2}),
                  AsTensor<float>({5, 6, 7}, {3}), device);
    ASSERT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(z.status().message().find(
                  "condition [2], then [2], and else [3] must be broadcastable"),
              std::string::npos);
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
