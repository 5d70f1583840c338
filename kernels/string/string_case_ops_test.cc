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

// Expected values from TensorFlow 2.21 (tf.strings.lower / tf.strings.upper).
TEST(StringCaseTest, AsciiOnlyByDefault) {
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StringLower").Attr("encoding", "").Build();
    auto out = RunKernel(node, {Str({"HeLLo \xc3\x84\xc3\x96", "ABC"}, {2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str({"hello \xc3\x84\xc3\x96", "abc"}, {2}));

    node = NodeBuilder("StringUpper").Attr("encoding", "").Build();
    out = RunKernel(node, {Str({"HeLLo \xc3\xa4\xc3\xb6", "abc"}, {2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str({"HELLO \xc3\xa4\xc3\xb6", "ABC"}, {2}));
  }
}

TEST(StringCaseTest, Utf8UsesUnicodeMappings) {
  auto node = NodeBuilder("StringLower").Attr("encoding", "utf-8").Build();
  // "HeLLo ÄÖ", "ΣΑΣ İ" (final sigma, dotted capital I), invalid UTF-8.
  auto out = RunKernel(node, {Str({"HeLLo \xc3\x84\xc3\x96", "\xce\xa3\xce\x91\xce\xa3 \xc4\xb0",
                                   "A\xff"
                                   "B"},
                                  {3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"hello \xc3\xa4\xc3\xb6", "\xcf\x83\xce\xb1\xcf\x82 i\xcc\x87",
                                    "a\xef\xbf\xbd"
                                    "b"},
                                   {3}));

  node = NodeBuilder("StringUpper").Attr("encoding", "utf-8").Build();
  // "straße ﬁ" -> "STRASSE FI".
  out = RunKernel(node, {Str({"stra\xc3\x9f"
                              "e \xef\xac\x81",
                              "abc"},
                             {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"STRASSE FI", "ABC"}, {2}));
}

TEST(StringCaseTest, RejectsOtherEncodings) {
  auto node = NodeBuilder("StringLower").Attr("encoding", "latin1").Build();
  auto out = RunKernel(node, {Str({"abc"}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("only utf-8 or '' (no encoding) is supported"),
            std::string::npos);
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
