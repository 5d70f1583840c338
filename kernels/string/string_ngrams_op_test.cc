// Expected values from TensorFlow 2.21 (tf.raw_ops.StringNGrams).
#include <string>
#include <vector>

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

::tensorflow::NodeDef NGrams(std::vector<int64_t> widths, int64_t pad_width, bool preserve,
                             DataType splits = DT_INT64) {
  return NodeBuilder("StringNGrams")
      .Attr("separator", "|")
      .Attr("left_pad", "L")
      .Attr("right_pad", "R")
      .Attr("ngram_widths", widths)
      .Attr("pad_width", pad_width)
      .Attr("preserve_short_sequences", preserve)
      .Attr("Tsplits", splits)
      .Build();
}

Tensor Str(const std::vector<std::string>& v) {
  return AsTensor<std::string>(v, {static_cast<int64_t>(v.size())});
}

// Rows {a, b, c}, {d, e} and {}.
const std::vector<std::string> kTokens = {"a", "b", "c", "d", "e"};

void ExpectNGrams(const ::tensorflow::NodeDef& node, const std::vector<std::string>& ngrams,
                  const std::vector<int64_t>& splits) {
  for (DeviceType device : TestDevices()) {
    auto out = RunKernel(node, {Str(kTokens), AsTensor<int64_t>({0, 3, 5, 5}, {4})}, device);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], Str(ngrams));
    ExpectTensorEqual((*out)[1], AsTensor<int64_t>(splits, {4}));
  }
}

TEST(StringNGramsTest, UnpaddedBigrams) {
  ExpectNGrams(NGrams({2}, 0, false), {"a|b", "b|c", "d|e"}, {0, 2, 3, 3});
}

TEST(StringNGramsTest, SeveralWidthsWithFullPaddingIncludingAnEmptyRow) {
  ExpectNGrams(NGrams({1, 3}, -1, false),
               {"a", "b", "c", "L|L|a", "L|a|b", "a|b|c", "b|c|R", "c|R|R",  //
                "d", "e", "L|L|d", "L|d|e", "d|e|R", "e|R|R",                //
                "L|L|R", "L|R|R"},
               {0, 8, 14, 16});
}

TEST(StringNGramsTest, PadWidthOneAndPadWidthCappedAtWidthMinusOne) {
  ExpectNGrams(NGrams({3}, 1, false), {"L|a|b", "a|b|c", "b|c|R", "L|d|e", "d|e|R"}, {0, 3, 5, 5});
  auto out = RunKernel(NGrams({2}, 5, false), {Str({"a", "b"}), AsTensor<int64_t>({0, 2}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"L|a", "a|b", "b|R"}));
}

TEST(StringNGramsTest, PreserveShortSequences) {
  ExpectNGrams(NGrams({4}, 0, true), {"a|b|c", "d|e"}, {0, 1, 2, 2});
  ExpectNGrams(NGrams({4}, 1, true), {"L|a|b|c", "a|b|c|R", "L|d|e|R"}, {0, 2, 3, 3});
}

TEST(StringNGramsTest, PreservedShortRowIsPaddedOnBothSidesWithInt32Splits) {
  auto out =
      RunKernel(NGrams({5}, 1, true, DT_INT32), {Str({"a"}), AsTensor<int32_t>({0, 1}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Str({"L|a|R"}));
  ExpectTensorEqual((*out)[1], AsTensor<int32_t>({0, 1}, {2}));
}

TEST(StringNGramsTest, BadSplitsAndWidthsNameTheProblem) {
  auto message = [](const std::vector<std::string>& data, const std::vector<int64_t>& splits) {
    return std::string(
        RunKernel(NGrams({2}, 0, false),
                  {Str(data), AsTensor<int64_t>(splits, {static_cast<int64_t>(splits.size())})})
            .status()
            .message());
  };
  EXPECT_NE(message({"a"}, {1, 1}).find("First split value must be 0, got 1"), std::string::npos);
  EXPECT_NE(message({"a", "b"}, {0, 3}).find("Invalid split value 3, must be in [0, 2]"),
            std::string::npos);
  EXPECT_NE(message({"a", "b"}, {0, 2, 1}).find("Invalid split value 1, must be in [2, 2]"),
            std::string::npos);
  EXPECT_NE(message({"a", "b"}, {0, 1})
                .find("Last split value must be data size. Expected 2, "
                      "got 1"),
            std::string::npos);
  EXPECT_NE(message({"a"}, {}).find("non-empty vector"), std::string::npos);
  auto zero_width = RunKernel(NGrams({0}, 0, false), {Str({"a"}), AsTensor<int64_t>({0, 1}, {2})});
  EXPECT_NE(zero_width.status().message().find("ngram_widths must contain positive values"),
            std::string::npos)
      << zero_width.status();
}

}  // namespace
}  // namespace string_ops
}  // namespace tensord
