#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/string/string_hash.h"
#include "kernels/testing/kernel_test_util.h"

namespace tensord {
namespace string_ops {
namespace {

using testing::AsTensor;
using testing::ExpectTensorEqual;
using testing::NodeBuilder;
using testing::RunKernel;
using testing::TestDevices;

// Reference fingerprints from TensorFlow 2.21: tf.raw_ops.Fingerprint(method="farmhash64").
TEST(StringHashTest, Fingerprint64MatchesTensorFlow) {
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes.push_back(static_cast<char>(i));
  const std::vector<std::pair<std::string, uint64_t>> cases = {
      {"", 11160318154034397263ULL},
      {"a", 12917804110809363939ULL},
      {"ab", 12289600257749001502ULL},
      {"abc", 2640714258260161385ULL},
      {"abcd", 1897425971756105985ULL},
      {"hello", 13009744463427800296ULL},
      {"Hello", 15404698994557526151ULL},
      {"TensorFlow", 4265654129848386254ULL},
      {"2.x", 943390013796179357ULL},
      {"abcdefgh", 18368443631171807497ULL},
      {"0123456789abcdef", 6105018409752412263ULL},
      {"0123456789abcdefg", 12024047538191061578ULL},
      {std::string(31, 'x'), 14488865282191048223ULL},
      {std::string(32, 'y'), 6963001497674513743ULL},
      {std::string(33, 'z'), 15818058294452501359ULL},
      {std::string(63, 'q'), 2530101068778109086ULL},
      {std::string(64, 'w'), 4555407945498560506ULL},
      {std::string(65, 'e'), 8492481647093572336ULL},
      {"The quick brown fox jumps over the lazy dog", 12375473906752639284ULL},
      {all_bytes, 5291657088564336415ULL},
      {std::string(127, 'r'), 15977414908552912871ULL},
      {std::string(128, 't'), 15034229540971743227ULL},
      {std::string(129, 'u'), 15021529140033089332ULL},
      {std::string("\xff\xfe\x00\x01", 4), 14876852221558322068ULL},
  };
  for (const auto& [s, want] : cases) {
    EXPECT_EQ(Fingerprint64(s), want) << "length " << s.size();
  }
}

TEST(StringToHashBucketFastTest, MatchesTensorFlow) {
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StringToHashBucketFast").Attr("num_buckets", 3).Build();
    auto out =
        RunKernel(node, {AsTensor<std::string>({"Hello", "TensorFlow", "2.x"}, {3})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int64_t>({0, 2, 2}, {3}));

    node = NodeBuilder("StringToHashBucketFast").Attr("num_buckets", 1000003).Build();
    out = RunKernel(node, {AsTensor<std::string>({"", "a", "hello world", "a"}, {2, 2})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int64_t>({377723, 291400, 234754, 291400}, {2, 2}));
  }
}

TEST(StringToHashBucketFastTest, EmptyAndErrors) {
  auto node = NodeBuilder("StringToHashBucketFast").Attr("num_buckets", 5).Build();
  auto out = RunKernel(node, {AsTensor<std::string>({}, {0, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], AsTensor<int64_t>({}, {0, 3}));

  EXPECT_EQ(RunKernel(node, {AsTensor<float>({1}, {1})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  node = NodeBuilder("StringToHashBucketFast").Attr("num_buckets", 0).Build();
  EXPECT_FALSE(RunKernel(node, {AsTensor<std::string>({"a"}, {1})}).ok());
}

TEST(StringToHashBucketStrongTest, MatchesTensorFlow) {
  for (DeviceType device : TestDevices()) {
    auto node = NodeBuilder("StringToHashBucketStrong")
                    .Attr("num_buckets", 1000003)
                    .Attr("key", std::vector<int64_t>{1, 2})
                    .Build();
    auto out = RunKernel(
        node, {AsTensor<std::string>({"", "a", "Hello", "TensorFlow", std::string(40, 'x')}, {5})},
        device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], AsTensor<int64_t>({383377, 332029, 225227, 188113, 811830}, {5}));

    node = NodeBuilder("StringToHashBucketStrong")
               .Attr("num_buckets", int64_t{1} << 62)
               .Attr("key", std::vector<int64_t>{0xdeadbeef, 12345678901234})
               .Build();
    out = RunKernel(node, {AsTensor<std::string>({"Hello", "TensorFlow", "2.x"}, {3})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual(
        (*out)[0],
        AsTensor<int64_t>({1948065281386399248, 3022851040503073557, 969271114313793063}, {3}));
  }
}

TEST(StringToHashBucketStrongTest, KeyMustHaveTwoElements) {
  auto node = NodeBuilder("StringToHashBucketStrong")
                  .Attr("num_buckets", 10)
                  .Attr("key", std::vector<int64_t>{1})
                  .Build();
  auto out = RunKernel(node, {AsTensor<std::string>({"Hello"}, {1})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Key must have 2 elements"), std::string::npos);
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
