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

// Expected values from TensorFlow 2.21 (tf.io.encode_base64 / decode_base64).
TEST(Base64Test, Encode) {
  const Tensor input = Str({"", "a", "ab", "abc", "\xff\xfe\xfd\xfc"});
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("EncodeBase64").Attr("pad", false).Build();
    auto out = RunKernel(node, {input}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str({"", "YQ", "YWI", "YWJj", "__79_A"}));

    node = NodeBuilder("EncodeBase64").Attr("pad", true).Build();
    out = RunKernel(node, {input}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str({"", "YQ==", "YWI=", "YWJj", "__79_A=="}));
  }
}

TEST(Base64Test, Decode) {
  auto node = NodeBuilder("DecodeBase64").Build();
  auto out =
      RunKernel(node, {Str({"", "YQ", "YWI=", "YWJj", "__79_A", "YQ==", "_-_-", "YWJjYWI"})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0],
                    Str({"", "a", "ab", "abc", "\xff\xfe\xfd\xfc", "a", "\xff\xef\xfe", "abcab"}));
}

TEST(Base64Test, RoundTripAllBytes) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  auto enc = RunKernel(NodeBuilder("EncodeBase64").Attr("pad", true).Build(), {Str({all})});
  ASSERT_TRUE(enc.ok()) << enc.status();
  auto dec = RunKernel(NodeBuilder("DecodeBase64").Build(), {(*enc)[0]});
  ASSERT_TRUE(dec.ok()) << dec.status();
  ExpectTensorEqual((*dec)[0], Str({all}));
}

TEST(Base64Test, DecodeErrors) {
  auto node = NodeBuilder("DecodeBase64").Build();
  auto expect_error = [&](const std::string& in, const std::string& message) {
    auto out = RunKernel(node, {Str({"YQ", in})});
    ASSERT_FALSE(out.ok()) << in;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find(message), std::string::npos) << out.status();
  };
  expect_error("Y", "Base64 string length cannot be 1 modulo 4.");
  expect_error("YWJjY", "Base64 string length cannot be 1 modulo 4.");
  for (const char* bad : {"Y+Q=", "YQ=a", "YQ=", "Y Q", "===="}) {
    expect_error(bad, "Invalid character found in base64.");
  }
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
