#include <string>

#include "gtest/gtest.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace string_ops {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

Tensor Str(const std::vector<std::string>& v, const std::vector<int64_t>& dims) {
  return AsTensor<std::string>(v, dims);
}

// Expected values from TensorFlow 2.21 (tf.raw_ops.StringJoin).
TEST(StringJoinTest, ScalarsRepeat) {
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StringJoin").Attr("N", 3).Attr("separator", "/").Build();
    auto out =
        RunKernel(node, {Str({"a", "b"}, {2}), Str({"-"}, {}), Str({"c", "d"}, {2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str({"a/-/c", "b/-/d"}, {2}));
  }
}

TEST(StringJoinTest, AllScalarsAndSingleInput) {
  auto node = NodeBuilder("StringJoin").Attr("N", 2).Attr("separator", ",").Build();
  auto out = RunKernel(node, {Str({"a"}, {}), Str({"b"}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"a,b"}, {}));

  node = NodeBuilder("StringJoin").Attr("N", 1).Attr("separator", "x").Build();
  out = RunKernel(node, {Str({"a", "b"}, {2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"a", "b"}, {2, 1}));

  node = NodeBuilder("StringJoin").Attr("N", 0).Attr("separator", ",").Build();
  out = RunKernel(node, {});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({""}, {}));
}

TEST(StringJoinTest, EmptyAndErrors) {
  auto node = NodeBuilder("StringJoin").Attr("N", 2).Attr("separator", "").Build();
  auto out = RunKernel(node, {Str({}, {0, 2}), Str({"x"}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({}, {0, 2}));

  out = RunKernel(node, {Str({"a", "b"}, {2}), Str({"c"}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("Input shapes do not match: [2] vs. [1]"),
            std::string::npos)
      << out.status();
  EXPECT_FALSE(RunKernel(node, {Str({"a"}, {1}), AsTensor<int32_t>({1}, {1})}).ok());
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
