#include "runtime/optimizer/fuse_bias_activation.h"

#include "gtest/gtest.h"
#include "runtime/optimizer/optimizer_test_util.h"

namespace tensord {
namespace {

using testing::NodesByName;
using testing::ParseGraph;

constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "gate" op: "NoOp" }
  node { name: "conv" op: "Conv2D" input: "x" input: "w" input: "^gate"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "padding" value { s: "SAME" } }
         attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } } }
  node { name: "bias" op: "BiasAdd" input: "conv" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "act" op: "LeakyRelu" input: "bias" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "alpha" value { f: 0.1 } } }
  node { name: "out" op: "Identity" input: "act" attr { key: "T" value { type: DT_FLOAT } } }
)pb";

TEST(FuseBiasActivationTest, MakesOneFusedNodeNamedAfterTheActivation) {
  ::tensorflow::GraphDef graph = ParseGraph(kGraph);
  auto fused = FuseBiasActivation({&graph, nullptr, {}});
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 1);
  auto nodes = NodesByName(graph);
  EXPECT_FALSE(nodes.count("conv"));
  EXPECT_FALSE(nodes.count("bias"));
  const auto& node = nodes["act"];
  ASSERT_EQ(node.op(), "_FusedConv2D");
  ASSERT_EQ(node.input_size(), 4);
  EXPECT_EQ(node.input(0), "x");
  EXPECT_EQ(node.input(1), "w");
  EXPECT_EQ(node.input(2), "b");
  EXPECT_EQ(node.input(3), "^gate");
  EXPECT_EQ(node.attr().at("padding").s(), "SAME");
  EXPECT_EQ(node.attr().at("strides").list().i(1), 2);
  ASSERT_EQ(node.attr().at("fused_ops").list().s_size(), 2);
  EXPECT_EQ(node.attr().at("fused_ops").list().s(1), "LeakyRelu");
  EXPECT_FLOAT_EQ(node.attr().at("leakyrelu_alpha").f(), 0.1f);
  EXPECT_EQ(nodes["out"].input(0), "act");
}

TEST(FuseBiasActivationTest, FusesDepthwiseConvolutions) {
  std::string text = kGraph;
  const std::string conv = "op: \"Conv2D\"";
  text.replace(text.find(conv), conv.size(), "op: \"DepthwiseConv2dNative\"");
  ::tensorflow::GraphDef graph = ParseGraph(text);
  auto fused = FuseBiasActivation({&graph, nullptr, {}});
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(NodesByName(graph)["act"].op(), "_FusedDepthwiseConv2dNative");
}

// Keras's Dense: MatMul (weights transposed or not) + BiasAdd + activation.
TEST(FuseBiasActivationTest, FusesDenseLayers) {
  ::tensorflow::GraphDef graph = ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "mm" op: "MatMul" input: "x" input: "w"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "transpose_b" value { b: true } } }
    node { name: "bias" op: "BiasAdd" input: "mm" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "act" op: "Relu" input: "bias" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  auto fused = FuseBiasActivation({&graph, nullptr, {}});
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 1);
  auto nodes = NodesByName(graph);
  const auto& node = nodes["act"];
  ASSERT_EQ(node.op(), "_FusedMatMul");
  EXPECT_TRUE(node.attr().at("transpose_b").b());
  ASSERT_EQ(node.input_size(), 3);
  EXPECT_EQ(node.input(2), "b");
  ASSERT_EQ(node.attr().at("fused_ops").list().s_size(), 2);
  EXPECT_EQ(node.attr().at("fused_ops").list().s(1), "Relu");
  EXPECT_FALSE(nodes.count("mm"));
}

// A ResNet block's end: main branch conv -> bias -> Add(shortcut) -> Relu, the shortcut being a
// projection conv -> bias. The main branch takes the add and the ReLU; the shortcut keeps its
// own fused conv, whose name the residual input still refers to.
TEST(FuseBiasActivationTest, FusesTheResidualAddOfAResNetBlock) {
  ::tensorflow::GraphDef graph = ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w1" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w2" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "main" op: "Conv2D" input: "x" input: "w1" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "main_bias" op: "BiasAdd" input: "main" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "short" op: "Conv2D" input: "x" input: "w2" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "short_bias" op: "BiasAdd" input: "short" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "add" op: "AddV2" input: "short_bias" input: "main_bias" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "add" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  auto fused = FuseBiasActivation({&graph, nullptr, {}});
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(*fused, 2);
  auto nodes = NodesByName(graph);
  for (const char* gone : {"main", "main_bias", "short", "add"}) EXPECT_FALSE(nodes.count(gone)) << gone;
  const auto& block = nodes["relu"];
  ASSERT_EQ(block.op(), "_FusedConv2D");
  ASSERT_EQ(block.input_size(), 4);
  EXPECT_EQ(block.input(1), "w1");
  EXPECT_EQ(block.input(3), "short_bias");
  EXPECT_EQ(block.attr().at("num_args").i(), 2);
  ASSERT_EQ(block.attr().at("fused_ops").list().s_size(), 3);
  EXPECT_EQ(block.attr().at("fused_ops").list().s(1), "Add");
  EXPECT_EQ(nodes["short_bias"].op(), "_FusedConv2D");
  EXPECT_EQ(nodes["short_bias"].attr().at("fused_ops").list().s_size(), 1);
}

TEST(FuseBiasActivationTest, StopsAtReadOrUnknownNodes) {
  // The BiasAdd's output is a signature output: conv + bias fuse, the activation stays.
  ::tensorflow::GraphDef graph = ParseGraph(kGraph);
  auto fused = FuseBiasActivation({&graph, nullptr, {"bias"}});
  ASSERT_TRUE(fused.ok());
  auto nodes = NodesByName(graph);
  EXPECT_EQ(nodes["bias"].op(), "_FusedConv2D");
  EXPECT_EQ(nodes["bias"].attr().at("fused_ops").list().s_size(), 1);
  EXPECT_EQ(nodes["act"].op(), "LeakyRelu");

  // The convolution's output is read twice: nothing fuses.
  graph = ParseGraph(std::string(kGraph) +
                     R"pb(node { name: "other" op: "Identity" input: "conv" })pb");
  fused = FuseBiasActivation({&graph, nullptr, {}});
  ASSERT_TRUE(fused.ok());
  EXPECT_EQ(*fused, 0);
  EXPECT_EQ(NodesByName(graph)["conv"].op(), "Conv2D");
}

}  // namespace
}  // namespace tensord
