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

// Expected values from TensorFlow 2.21 (tf.strings.length).
TEST(StringLengthTest, BytesAndUtf8Chars) {
  const Tensor input =
      AsTensor<std::string>({"", "abc", "h\xc3\xa9llo", "\xe6\x97\xa5\xe6\x9c\xac"}, {2, 2});
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StringLength").Attr("unit", "BYTE").Build();
    auto out = RunKernel(node, {input}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int32_t>({0, 3, 6, 6}, {2, 2}));

    node = NodeBuilder("StringLength").Attr("unit", "UTF8_CHAR").Build();
    out = RunKernel(node, {input}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int32_t>({0, 3, 5, 2}, {2, 2}));
  }
}

TEST(StringLengthTest, InvalidUtf8CountsLeadBytes) {
  auto node = NodeBuilder("StringLength").Attr("unit", "UTF8_CHAR").Build();
  auto out = RunKernel(node, {AsTensor<std::string>({"\xff\xfe"
                                                     "a",
                                                     "\xc3"},
                                                    {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<int32_t>({3, 1}, {2}));
}

TEST(StringLengthTest, EmptyAndErrors) {
  auto node = NodeBuilder("StringLength").Attr("unit", "BYTE").Build();
  auto out = RunKernel(node, {AsTensor<std::string>({}, {0})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<int32_t>({}, {0}));

  node = NodeBuilder("StringLength").Attr("unit", "CHAR").Build();
  EXPECT_FALSE(RunKernel(node, {AsTensor<std::string>({"a"}, {1})}).ok());
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
