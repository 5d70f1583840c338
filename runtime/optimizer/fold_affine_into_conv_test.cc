#include "runtime/optimizer/fold_affine_into_conv.h"

#include "gtest/gtest.h"
#include "runtime/optimizer/optimizer_test_util.h"

namespace tensord {
namespace {

using testing::FloatConst;
using testing::NodesByName;
using testing::ParseGraph;
using testing::Values;

// conv (1x1 filter, 1 -> 2 channels) -> BiasAdd -> Mul -> AddV2 -> Relu, all constants per
// channel: the way Keras 3 exports Conv2D + BatchNormalization.
::tensorflow::GraphDef KerasConvBn() {
  ::tensorflow::GraphDef graph = ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "conv" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "bias" op: "BiasAdd" input: "conv" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "scale" op: "Mul" input: "s" input: "bias:0" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "shift" op: "AddV2" input: "scale" input: "t" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "relu" op: "Relu" input: "shift" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  *graph.add_node() = FloatConst("w", {1.0f, -2.0f}, {1, 1, 1, 2});
  *graph.add_node() = FloatConst("b", {0.5f, 1.0f}, {2});
  *graph.add_node() = FloatConst("s", {2.0f, 3.0f}, {1, 1, 1, 2});
  *graph.add_node() = FloatConst("t", {10.0f}, {});
  return graph;
}

TEST(FoldAffineIntoConvTest, FoldsKerasBatchNormIntoFilterAndBias) {
  ::tensorflow::GraphDef graph = KerasConvBn();
  ConstantTable constants;
  GraphPassContext context{&graph, &constants, {}};
  auto folded = FoldAffineIntoConv(context);
  ASSERT_TRUE(folded.ok()) << folded.status();
  EXPECT_EQ(folded->folded_ops, 2);  // BiasAdd and Mul are gone; AddV2 became the BiasAdd
  // The filter (a Const node's value) is held by nothing else: scaled in its own buffer.
  const float* original = constants.at("conv/_folded_filter")[0].data<float>();
  ScaleFoldedFilters(std::move(folded->filter_scales), &constants);
  EXPECT_EQ(constants.at("conv/_folded_filter")[0].data<float>(), original);
  auto nodes = NodesByName(graph);
  EXPECT_FALSE(nodes.count("bias"));
  EXPECT_FALSE(nodes.count("scale"));
  ASSERT_EQ(nodes["shift"].op(), "BiasAdd");
  EXPECT_EQ(nodes["shift"].input(0), "conv");
  EXPECT_EQ(nodes["relu"].input(0), "shift");
  ASSERT_EQ(nodes["conv"].input(1), "conv/_folded_filter");
  // W·s = [2, -6]; (b·s) + t = [0.5*2 + 10, 1*3 + 10].
  EXPECT_EQ(Values(constants.at("conv/_folded_filter")[0]), (std::vector<float>{2.0f, -6.0f}));
  EXPECT_EQ(Values(constants.at(nodes["shift"].input(1))[0]), (std::vector<float>{11.0f, 13.0f}));
}

TEST(FoldAffineIntoConvTest, FoldsFusedBatchNorm) {
  ::tensorflow::GraphDef graph = ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "conv" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "bn" op: "FusedBatchNormV3" input: "conv" input: "gamma" input: "beta"
           input: "mean" input: "var"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "epsilon" value { f: 0.0 } }
           attr { key: "is_training" value { b: false } } }
    node { name: "out" op: "Identity" input: "bn" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  *graph.add_node() = FloatConst("w", {1.0f, 1.0f}, {1, 1, 1, 2});
  *graph.add_node() = FloatConst("gamma", {2.0f, 1.0f}, {2});
  *graph.add_node() = FloatConst("beta", {1.0f, 0.0f}, {2});
  *graph.add_node() = FloatConst("mean", {3.0f, -1.0f}, {2});
  *graph.add_node() = FloatConst("var", {4.0f, 1.0f}, {2});
  ConstantTable constants;
  auto folded = FoldAffineIntoConv({&graph, &constants, {}});
  ASSERT_TRUE(folded.ok()) << folded.status();
  ScaleFoldedFilters(std::move(folded->filter_scales), &constants);
  auto nodes = NodesByName(graph);
  ASSERT_EQ(nodes["bn"].op(), "BiasAdd");
  // scale = gamma / sqrt(var) = [1, 1]; bias = -mean * scale + beta = [-2, 1].
  EXPECT_EQ(Values(constants.at("conv/_folded_filter")[0]), (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(Values(constants.at(nodes["bn"].input(1))[0]), (std::vector<float>{-2.0f, 1.0f}));
}

// A model exported with two signatures has a copy of each layer per signature, both reading
// the same variable (frozen: one buffer in the constant table).
TEST(FoldAffineIntoConvTest, CopiesOfALayerShareOneFoldedFilter) {
  ::tensorflow::GraphDef graph = ParseGraph(R"pb(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "w" op: "ReadVariableOp" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "conv1" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "scale1" op: "Mul" input: "conv1" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "conv2" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "scale2" op: "Mul" input: "conv2" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "conv3" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "scale3" op: "Mul" input: "conv3" input: "s3" attr { key: "T" value { type: DT_FLOAT } } }
  )pb");
  *graph.add_node() = FloatConst("s", {2.0f, 3.0f}, {2});
  *graph.add_node() = FloatConst("s3", {4.0f}, {});
  Tensor w(DT_FLOAT, TensorShape{1, 1, 1, 2});
  w.data<float>()[0] = 1.0f;
  w.data<float>()[1] = -2.0f;
  ConstantTable constants;
  constants["w"] = {w};
  auto folded = FoldAffineIntoConv({&graph, &constants, {}});
  ASSERT_TRUE(folded.ok()) << folded.status();
  ScaleFoldedFilters(std::move(folded->filter_scales), &constants);
  // The variable's buffer is still held (by `w` here, as by a variable serving still reads):
  // the folded filters are copies, and the original keeps its values.
  const Tensor& f1 = constants.at("conv1/_folded_filter")[0];
  const Tensor& f2 = constants.at("conv2/_folded_filter")[0];
  const Tensor& f3 = constants.at("conv3/_folded_filter")[0];
  EXPECT_EQ(Values(f1), (std::vector<float>{2.0f, -6.0f}));
  EXPECT_EQ(f1.data<float>(), f2.data<float>());
  EXPECT_EQ(Values(f3), (std::vector<float>{4.0f, -8.0f}));
  EXPECT_EQ(Values(w), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_NE(f1.data<float>(), w.data<float>());
  EXPECT_NE(f3.data<float>(), w.data<float>());
}

TEST(FoldAffineIntoConvTest, LeavesSharedFetchedAndNonChannelOpsAlone) {
  // The Mul's result is fetched by a signature: only the BiasAdd before it may fold... and
  // since the BiasAdd is the chain's last node then, nothing is removed.
  ::tensorflow::GraphDef graph = KerasConvBn();
  ConstantTable constants;
  auto folded = FoldAffineIntoConv({&graph, &constants, {"bias"}});
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded->folded_ops, 0);
  EXPECT_EQ(NodesByName(graph)["scale"].op(), "Mul");

  // A Mul by a full tensor (not per channel) stops the chain.
  graph = KerasConvBn();
  for (auto& node : *graph.mutable_node()) {
    if (node.name() == "s") node = FloatConst("s", {1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 2, 2});
  }
  folded = FoldAffineIntoConv({&graph, &constants, {}});
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded->folded_ops, 0);
  EXPECT_EQ(NodesByName(graph)["scale"].op(), "Mul");

  // A filter that is not constant is left alone.
  graph = KerasConvBn();
  for (auto& node : *graph.mutable_node()) {
    if (node.name() == "w") node.set_op("Placeholder");
  }
  folded = FoldAffineIntoConv({&graph, &constants, {}});
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded->folded_ops, 0);

  // Without a constant table there is nowhere to put the folded filters.
  graph = KerasConvBn();
  folded = FoldAffineIntoConv({&graph, nullptr, {}});
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(folded->folded_ops, 0);
}

// A folded constant the load released (no signature reads it) is not computed.
TEST(FoldAffineIntoConvTest, ReleasedFoldedFiltersAreNotComputed) {
  ::tensorflow::GraphDef graph = KerasConvBn();
  ConstantTable constants;
  auto folded = FoldAffineIntoConv({&graph, &constants, {}});
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_EQ(folded->filter_scales.size(), 1u);
  constants.erase("conv/_folded_filter");
  ScaleFoldedFilters(std::move(folded->filter_scales), &constants);
  EXPECT_EQ(constants.count("conv/_folded_filter"), 0u);
}

}  // namespace
}  // namespace tensord
