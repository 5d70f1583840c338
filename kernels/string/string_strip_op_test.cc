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

TEST(StringStripTest, StripsAsciiWhitespace) {
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StringStrip").Build();
    auto out = RunKernel(
        node, {AsTensor<std::string>({"  a b  ", "\t\nx\r\v\f", "", "   "}, {2, 2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<std::string>({"a b", "x", "", ""}, {2, 2}));
  }
}

TEST(StringStripTest, ScalarAndWrongType) {
  auto node = NodeBuilder("StringStrip").Build();
  auto out = RunKernel(node, {AsTensor<std::string>({" \xc2\xa0x "}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  // Only ASCII whitespace is stripped (U+00A0 stays).
  ExpectTensorEqual((*out)[0], AsTensor<std::string>({"\xc2\xa0x"}, {}));
  EXPECT_FALSE(RunKernel(node, {AsTensor<float>({1}, {1})}).ok());
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
