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

// Expected values below come from TensorFlow 2.21.
TEST(StaticRegexFullMatchTest, MatchesWholeString) {
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StaticRegexFullMatch").Attr("pattern", "a.c").Build();
    auto out = RunKernel(node, {Str({"abc", "abcd", "ABC", ""}, {2, 2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<bool>({true, false, false, false}, {2, 2}));

    node = NodeBuilder("StaticRegexFullMatch").Attr("pattern", "ab|abc").Build();
    out = RunKernel(node, {Str({"abc", "ab", "xx"}, {3})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<bool>({true, true, false}, {3}));
  }
}

TEST(StaticRegexFullMatchTest, InvalidPatternFailsAtLoad) {
  auto node = NodeBuilder("StaticRegexFullMatch").Attr("pattern", "(a").Build();
  auto out = RunKernel(node, {Str({"abc"}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Invalid pattern: (a, error: missing ): (a"),
            std::string::npos)
      << out.status();
}

TEST(RegexFullMatchTest, PatternInput) {
  auto node = NodeBuilder("RegexFullMatch").Build();
  auto out = RunKernel(node, {Str({"abc", "a1"}, {2}), Str({"[a-z]+"}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<bool>({true, false}, {2}));

  out = RunKernel(node, {Str({"abc"}, {1}), Str({"a", "b"}, {2})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Pattern must be scalar, but received [2]"),
            std::string::npos);
  out = RunKernel(node, {Str({"abc"}, {1}), Str({"(a"}, {})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(StaticRegexReplaceTest, GlobalAndFirstOnly) {
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StaticRegexReplace")
                    .Attr("pattern", "[^a-z]+")
                    .Attr("rewrite", "_")
                    .Attr("replace_global", true)
                    .Build();
    auto out = RunKernel(node, {Str({"Hello, World!!", "a  b   c"}, {2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str({"_ello_orld_", "a_b_c"}, {2}));

    node = NodeBuilder("StaticRegexReplace")
               .Attr("pattern", "a")
               .Attr("rewrite", "X")
               .Attr("replace_global", false)
               .Build();
    out = RunKernel(node, {Str({"aaa bbb"}, {1})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str({"Xaa bbb"}, {1}));
  }
}

TEST(StaticRegexReplaceTest, GroupsEmptyMatchesAndBadRewrite) {
  auto node = NodeBuilder("StaticRegexReplace")
                  .Attr("pattern", "(\\w+) (\\w+)")
                  .Attr("rewrite", "\\2 \\1")
                  .Attr("replace_global", true)
                  .Build();
  auto out = RunKernel(node, {Str({"john smith"}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"smith john"}, {}));

  node = NodeBuilder("StaticRegexReplace")
             .Attr("pattern", "x*")
             .Attr("rewrite", "-")
             .Attr("replace_global", true)
             .Build();
  out = RunKernel(node, {Str({"abc"}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"-a-b-c-"}, {1}));

  // A rewrite naming a missing group leaves the input unchanged, as in TensorFlow.
  node = NodeBuilder("StaticRegexReplace")
             .Attr("pattern", "(a)")
             .Attr("rewrite", "\\2")
             .Attr("replace_global", true)
             .Build();
  out = RunKernel(node, {Str({"abc"}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"abc"}, {1}));
}

TEST(RegexReplaceTest, TensorArguments) {
  auto node = NodeBuilder("RegexReplace").Attr("replace_global", true).Build();
  auto out = RunKernel(node, {Str({"abc abc"}, {1}), Str({"b"}, {}), Str({"[\\0]"}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"a[b]c a[b]c"}, {1}));

  out = RunKernel(node, {Str({"abc"}, {1}), Str({"(a"}, {}), Str({""}, {})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Invalid pattern: (a"), std::string::npos);
  out = RunKernel(node, {Str({"abc"}, {1}), Str({"a"}, {}), Str({"x", "y"}, {2})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Rewrite must be scalar"), std::string::npos);
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
