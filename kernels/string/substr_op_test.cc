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
Tensor I32(const std::vector<int32_t>& v, const std::vector<int64_t>& dims) {
  return AsTensor<int32_t>(v, dims);
}

absl::StatusOr<std::vector<Tensor>> RunOp(const Tensor& in, const Tensor& pos, const Tensor& len,
                                          const std::string& unit = "BYTE",
                                          DeviceType device = DeviceType::kCpu) {
  auto node = NodeBuilder("Substr").Attr("T", pos.dtype()).Attr("unit", unit).Build();
  return RunKernel(node, {in, pos, len}, device);
}

void Expect(const absl::StatusOr<std::vector<Tensor>>& out, const Tensor& want) {
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], want);
}

// Expected values from TensorFlow 2.21 (tf.strings.substr).
TEST(SubstrTest, ScalarPositions) {
  const Tensor words = Str({"Hello", "World"}, {2});
  for (DeviceType device : TestDevices()) {
    Expect(RunOp(words, I32({1}, {}), I32({3}, {}), "BYTE", device), Str({"ell", "orl"}, {2}));
    Expect(RunOp(words, I32({-3}, {}), I32({2}, {}), "BYTE", device), Str({"ll", "rl"}, {2}));
  }
  Expect(RunOp(Str({"Hello"}, {1}), I32({5}, {1}), I32({2}, {1})), Str({""}, {1}));
  Expect(RunOp(Str({"Hello"}, {1}), I32({1}, {1}), I32({-1}, {1})), Str({"ello"}, {1}));
  Expect(RunOp(Str({"Hello"}, {1}), AsTensor<int64_t>({1}, {1}), AsTensor<int64_t>({2}, {1})),
         Str({"el"}, {1}));
}

TEST(SubstrTest, ElementwiseAndBroadcast) {
  Expect(RunOp(Str({"Hello", "World"}, {2}), I32({0, 4}, {2}), I32({2, 10}, {2})),
         Str({"He", "d"}, {2}));
  Expect(RunOp(Str({"ab", "cd", "ef", "gh"}, {2, 2}), I32({0, 1}, {2}), I32({1, 1}, {2})),
         Str({"a", "d", "e", "h"}, {2, 2}));
  Expect(RunOp(Str({"Hello"}, {}), I32({1, 2}, {2}), I32({1, 3}, {2})), Str({"e", "llo"}, {2}));
  // Rank 3 broadcasting (TensorFlow stops at rank 2; NumPy rules extend it).
  Expect(RunOp(Str({"ab", "cd"}, {1, 1, 2}), I32({0, 1}, {2, 1}), I32({1, 1}, {2, 1})),
         Str({"a", "c", "b", "d"}, {1, 2, 2}));
}

TEST(SubstrTest, Utf8Chars) {
  // "héllo", "日本語"
  const Tensor words = Str({"h\xc3\xa9llo", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"}, {2});
  Expect(RunOp(words, I32({1, -2}, {2}), I32({2, 1}, {2}), "UTF8_CHAR"),
         Str({"\xc3\xa9l", "\xe6\x9c\xac"}, {2}));
  const Tensor nihongo = Str({"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"}, {1});
  Expect(RunOp(nihongo, I32({-3}, {1}), I32({5}, {1}), "UTF8_CHAR"),
         Str({"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"}, {1}));
  Expect(RunOp(nihongo, I32({1}, {1}), I32({-1}, {1}), "UTF8_CHAR"), Str({""}, {1}));
  auto out = RunOp(nihongo, I32({4}, {1}), I32({1}, {1}), "UTF8_CHAR");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("pos 4 out of range for string at index 0"),
            std::string::npos)
      << out.status();
}

TEST(SubstrTest, Errors) {
  auto expect_error = [](const absl::StatusOr<std::vector<Tensor>>& out,
                         const std::string& message) {
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find(message), std::string::npos) << out.status();
  };
  expect_error(RunOp(Str({"Hello", "World"}, {2}), I32({0, 6}, {2}), I32({2, 10}, {2})),
               "pos 6 out of range for string b'World' at index 1");
  expect_error(RunOp(Str({"Hello"}, {1}), I32({-6}, {1}), I32({2}, {1})),
               "pos -6 out of range for string b'Hello' at index 0");
  expect_error(RunOp(Str({"Hello"}, {1}), I32({1, 2}, {2}), I32({1}, {1})),
               "pos and len should have the same shape, got: [2] vs. [1]");
  expect_error(RunOp(Str({"Hello", "a", "b"}, {3}), I32({1, 2}, {2}), I32({1, 1}, {2})),
               "Incompatible shapes: [3] vs. [2]");
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
