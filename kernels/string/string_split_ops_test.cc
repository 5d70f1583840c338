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

Tensor Str(const std::vector<std::string>& v) {
  return AsTensor<std::string>(v, {static_cast<int64_t>(v.size())});
}

struct Sparse {
  std::vector<int64_t> indices;
  std::vector<std::string> values;
  std::vector<int64_t> shape;
};

void ExpectSparse(const absl::StatusOr<std::vector<Tensor>>& out, const Sparse& want) {
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  const int64_t n = static_cast<int64_t>(want.values.size());
  ExpectTensorEqual((*out)[0], AsTensor<int64_t>(want.indices, {n, 2}));
  ExpectTensorEqual((*out)[1], AsTensor<std::string>(want.values, {n}));
  ExpectTensorEqual((*out)[2], AsTensor<int64_t>(want.shape, {2}));
}

absl::StatusOr<std::vector<Tensor>> V2(const std::vector<std::string>& in, const std::string& sep,
                                       int64_t maxsplit = -1,
                                       DeviceType device = DeviceType::kCpu) {
  auto node = NodeBuilder("StringSplitV2").Attr("maxsplit", maxsplit).Build();
  return RunKernel(node, {Str(in), AsTensor<std::string>({sep}, {})}, device);
}

absl::StatusOr<std::vector<Tensor>> V1(const std::vector<std::string>& in,
                                       const std::string& delimiter, bool skip_empty) {
  auto node = NodeBuilder("StringSplit").Attr("skip_empty", skip_empty).Build();
  return RunKernel(node, {Str(in), AsTensor<std::string>({delimiter}, {})});
}

// Expected values from TensorFlow 2.21 (tf.raw_ops.StringSplitV2 / StringSplit).
TEST(StringSplitV2Test, Whitespace) {
  for (DeviceType device : TestDevices()) {
    ExpectSparse(V2({"a b  c", "", " d "}, "", -1, device),
                 {{0, 0, 0, 1, 0, 2, 2, 0}, {"a", "b", "c", "d"}, {3, 3}});
  }
  ExpectSparse(V2({"  a b  c d "}, "", 2), {{0, 0, 0, 1, 0, 2}, {"a", "b", "c d "}, {1, 3}});
  ExpectSparse(V2({"a b   "}, "", 1), {{0, 0, 0, 1}, {"a", "b   "}, {1, 2}});
  ExpectSparse(V2({"a    "}, "", 1), {{0, 0, 0, 1}, {"a", ""}, {1, 2}});
  ExpectSparse(V2({" a b "}, "", 0), {{0, 0}, {" a b "}, {1, 1}});
  ExpectSparse(V2({"   ", "\t"}, ""), {{}, {}, {2, 0}});
}

TEST(StringSplitV2Test, Separator) {
  ExpectSparse(V2({"a,b,,c", "", "d"}, ","),
               {{0, 0, 0, 1, 0, 2, 0, 3, 1, 0, 2, 0}, {"a", "b", "", "c", "", "d"}, {3, 4}});
  ExpectSparse(V2({"a,b,,c", "x,y"}, ",", 1),
               {{0, 0, 0, 1, 1, 0, 1, 1}, {"a", "b,,c", "x", "y"}, {2, 2}});
  ExpectSparse(V2({"a<>b<><>c"}, "<>"), {{0, 0, 0, 1, 0, 2, 0, 3}, {"a", "b", "", "c"}, {1, 4}});
  ExpectSparse(V2({"a,b"}, ",", 0), {{0, 0}, {"a,b"}, {1, 1}});
  ExpectSparse(V2({}, ","), {{}, {}, {0, 0}});
}

TEST(StringSplitV2Test, Errors) {
  auto node = NodeBuilder("StringSplitV2").Attr("maxsplit", -1).Build();
  auto out = RunKernel(node, {AsTensor<std::string>({"a b"}, {}), AsTensor<std::string>({""}, {})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("input must be a vector, got shape: []"),
            std::string::npos);
  out = RunKernel(node, {Str({"a b"}), Str({" "})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("sep must be a scalar, got shape: [1]"), std::string::npos);
}

TEST(StringSplitTest, AnyDelimiterByte) {
  ExpectSparse(V1({"a b  c", "", "xy"}, " ", true),
               {{0, 0, 0, 1, 0, 2, 2, 0}, {"a", "b", "c", "xy"}, {3, 3}});
  ExpectSparse(V1({"a,b;c", ",,"}, ",;", false),
               {{0, 0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 2}, {"a", "b", "c", "", "", ""}, {2, 3}});
  ExpectSparse(V1({"", "a"}, " ", false), {{1, 0}, {"a"}, {2, 1}});
  ExpectSparse(V1({"ab c", "x"}, "", true),
               {{0, 0, 0, 1, 0, 2, 0, 3, 1, 0}, {"a", "b", " ", "c", "x"}, {2, 4}});
  auto out = V1({"a"}, "", true);
  ASSERT_TRUE(out.ok());
  auto node = NodeBuilder("StringSplit").Attr("skip_empty", true).Build();
  out = RunKernel(node, {Str({"a"}), Str({" "})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("delimiter must be a scalar, got shape: [1]"),
            std::string::npos);
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
