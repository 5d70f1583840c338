#include "runtime/optimizer/drop_constant_control_edges.h"

#include "gtest/gtest.h"
#include "runtime/optimizer/optimizer_test_util.h"

namespace tensord {
namespace {

using testing::NodesByName;
using testing::ParseGraph;

// What a TensorFlow 2 function leaves after inlining and freezing: the output waits for the
// variable read (frozen: in the constant table), a Const and a stateful op.
constexpr char kGraph[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "read" op: "ReadVariableOp" input: "handle"
         attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "handle" op: "VarHandleOp" }
  node { name: "two" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "print" op: "PrintV2" input: "x" }
  node { name: "mul" op: "Mul" input: "x" input: "read" input: "^two"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "out" op: "Identity" input: "mul" input: "^read" input: "^print" input: "^two"
         attr { key: "T" value { type: DT_FLOAT } } }
)pb";

TEST(DropConstantControlEdgesTest, DropsEdgesFromConstantsAndKeepsTheRest) {
  ::tensorflow::GraphDef graph = ParseGraph(kGraph);
  ConstantTable constants;
  constants["read"] = {Tensor::Scalar<float>(3.0f)};
  EXPECT_EQ(DropConstantControlEdges({&graph, &constants, {}}), 3);
  auto nodes = NodesByName(graph);
  ASSERT_EQ(nodes["out"].input_size(), 2);
  EXPECT_EQ(nodes["out"].input(0), "mul");
  EXPECT_EQ(nodes["out"].input(1), "^print");
  ASSERT_EQ(nodes["mul"].input_size(), 2);
  EXPECT_EQ(nodes["mul"].input(0), "x");
  EXPECT_EQ(nodes["mul"].input(1), "read");
  EXPECT_EQ(graph.node_size(), 7);
}

TEST(DropConstantControlEdgesTest, WithoutAConstantTableOnlyConstNodesCount) {
  ::tensorflow::GraphDef graph = ParseGraph(kGraph);
  EXPECT_EQ(DropConstantControlEdges({&graph, nullptr, {}}), 2);
  auto nodes = NodesByName(graph);
  ASSERT_EQ(nodes["out"].input_size(), 3);
  EXPECT_EQ(nodes["out"].input(1), "^read");
  EXPECT_EQ(nodes["out"].input(2), "^print");
}

}  // namespace
}  // namespace tensord
