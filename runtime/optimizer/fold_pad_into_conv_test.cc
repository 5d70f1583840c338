#include "runtime/optimizer/fold_pad_into_conv.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "runtime/optimizer/optimizer_test_util.h"

namespace tensord {
namespace {

using testing::NodesByName;
using testing::ParseGraph;

// Keras's ZeroPadding2D(((3, 2), (1, 0))) then a VALID strided convolution.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "paddings" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor {
           dtype: DT_INT32 tensor_shape { dim { size: 4 } dim { size: 2 } }
           int_val: 0 int_val: 0 int_val: 3 int_val: 2 int_val: 1 int_val: 0 int_val: 0 int_val: 0
         } } } }
  node { name: "gate" op: "NoOp" }
  node { name: "pad" op: "Pad" input: "x" input: "paddings" input: "^gate"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "conv" op: "Conv2D" input: "pad" input: "w"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "padding" value { s: "VALID" } }
         attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } } }
  node { name: "out" op: "Identity" input: "conv" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

std::vector<int64_t> ExplicitPaddings(const ::tensorflow::NodeDef& node) {
  const auto& list = node.attr().at("explicit_paddings").list().i();
  return std::vector<int64_t>(list.begin(), list.end());
}

TEST(FoldPadIntoConvTest, PadBecomesTheConvolutionsExplicitPadding) {
  ::tensorflow::GraphDef graph = ParseGraph(kGraph);
  auto folded = FoldPadIntoConv({&graph, nullptr, {}});
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(*folded, 1);
  auto nodes = NodesByName(graph);
  EXPECT_FALSE(nodes.count("pad"));
  const auto& conv = nodes["conv"];
  ASSERT_EQ(conv.input_size(), 3);
  EXPECT_EQ(conv.input(0), "x");
  EXPECT_EQ(conv.input(1), "w");
  EXPECT_EQ(conv.input(2), "^gate");
  EXPECT_EQ(conv.attr().at("padding").s(), "EXPLICIT");
  EXPECT_EQ(ExplicitPaddings(conv), (std::vector<int64_t>{0, 0, 3, 2, 1, 0, 0, 0}));
}

TEST(FoldPadIntoConvTest, AddsToExistingExplicitPaddingAndFoldsIntoDepthwise) {
  std::string text = absl::StrReplaceAll(
      kGraph, {{"op: \"Conv2D\"", "op: \"DepthwiseConv2dNative\""},
               {"attr { key: \"padding\" value { s: \"VALID\" } }",
                "attr { key: \"padding\" value { s: \"EXPLICIT\" } } attr { key: "
                "\"explicit_paddings\" value { list { i: 0 i: 0 i: 1 i: 1 i: 2 i: 2 i: 0 i: 0 "
                "} } }"}});
  ::tensorflow::GraphDef graph = ParseGraph(text);
  auto folded = FoldPadIntoConv({&graph, nullptr, {}});
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(*folded, 1);
  EXPECT_EQ(ExplicitPaddings(NodesByName(graph)["conv"]),
            (std::vector<int64_t>{0, 0, 4, 3, 3, 2, 0, 0}));
}

TEST(FoldPadIntoConvTest, PadV2FoldsOnlyWithAZeroFill) {
  for (const std::string fill : {"0", "1.5"}) {
    std::string text = absl::StrReplaceAll(
        kGraph, {{"op: \"Pad\" input: \"x\" input: \"paddings\"",
                  "op: \"PadV2\" input: \"x\" input: \"paddings\" input: \"fill\""}});
    text += absl::StrCat(
        "node { name: \"fill\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
        "attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: ",
        fill, " } } } }");
    ::tensorflow::GraphDef graph = ParseGraph(text);
    auto folded = FoldPadIntoConv({&graph, nullptr, {}});
    ASSERT_TRUE(folded.ok()) << folded.status();
    EXPECT_EQ(*folded, fill == "0" ? 1 : 0) << fill;
  }
}

// Each leaves the graph as it was: the folded form would compute something else, or another
// reader needs the padded tensor.
TEST(FoldPadIntoConvTest, LeavesWhatItCannotFold) {
  const std::vector<std::vector<std::pair<std::string, std::string>>> edits = {
      // Pads of the channels.
      {{"int_val: 1 int_val: 0 int_val: 0 int_val: 0", "int_val: 1 int_val: 0 int_val: 0 int_val: 1"}},
      // A SAME convolution (its own padding depends on the padded size).
      {{"s: \"VALID\"", "s: \"SAME\""}},
      // The padded tensor is also an output.
      {{"input: \"conv\" attr", "input: \"pad\" attr"}},
      // The pad feeds the filter input.
      {{"input: \"pad\" input: \"w\"", "input: \"w\" input: \"pad\""}},
  };
  for (const auto& edit : edits) {
    ::tensorflow::GraphDef graph = ParseGraph(absl::StrReplaceAll(kGraph, edit));
    auto folded = FoldPadIntoConv({&graph, nullptr, {}});
    ASSERT_TRUE(folded.ok()) << folded.status();
    EXPECT_EQ(*folded, 0) << edit.front().second;
    EXPECT_TRUE(NodesByName(graph).count("pad"));
  }
  // A signature fetches the pad.
  ::tensorflow::GraphDef graph = ParseGraph(kGraph);
  auto folded = FoldPadIntoConv({&graph, nullptr, {"pad"}});
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(*folded, 0);
}

}  // namespace
}  // namespace tensord
