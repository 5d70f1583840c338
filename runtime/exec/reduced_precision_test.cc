#include "runtime/exec/reduced_precision.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/framework/device.h"
#include "runtime/graph/function_inliner.h"

namespace tensord {
namespace {

::tensorflow::NodeDef* Add(::tensorflow::GraphDef* graph, const std::string& name,
                           const std::string& op, ::tensorflow::DataType t,
                           const std::string& device = kCpuDeviceName) {
  ::tensorflow::NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  node->set_device(device);
  (*node->mutable_attr())["T"].set_type(t);
  return node;
}

bool Marked(const ::tensorflow::NodeDef& node) {
  auto it = node.attr().find(kPrecisionAttr);
  return it != node.attr().end() && it->second.s() == "bf16";
}

// The graph a placed model has: the ops bf16 applies to on the CPU in float and in other types,
// on the GPU, ops it leaves alone, and a loop body holding a MatMul.
::tensorflow::GraphDef PlacedGraph() {
  ::tensorflow::GraphDef graph;
  for (const char* op : {"MatMul", "_FusedMatMul", "BatchMatMul", "BatchMatMulV2", "Conv2D",
                         "_FusedConv2D"}) {
    Add(&graph, std::string("float_") + op, op, ::tensorflow::DT_FLOAT);
    Add(&graph, std::string("double_") + op, op, ::tensorflow::DT_DOUBLE);
  }
  ::tensorflow::NodeDef* v3 = Add(&graph, "float_v3", "BatchMatMulV3", ::tensorflow::DT_FLOAT);
  for (const char* attr : {"Ta", "Tb", "Tout"}) {
    (*v3->mutable_attr())[attr].set_type(::tensorflow::DT_FLOAT);
  }
  ::tensorflow::NodeDef* int8_v3 = Add(&graph, "int8_v3", "BatchMatMulV3", ::tensorflow::DT_FLOAT);
  (*int8_v3->mutable_attr())["Ta"].set_type(::tensorflow::DT_INT8);
  (*int8_v3->mutable_attr())["Tb"].set_type(::tensorflow::DT_INT8);
  (*int8_v3->mutable_attr())["Tout"].set_type(::tensorflow::DT_FLOAT);
  Add(&graph, "int_matmul", "MatMul", ::tensorflow::DT_INT32);
  Add(&graph, "gpu_matmul", "MatMul", ::tensorflow::DT_FLOAT, "/device:GPU:0");
  Add(&graph, "depthwise", "DepthwiseConv2dNative", ::tensorflow::DT_FLOAT);
  Add(&graph, "softmax", "Softmax", ::tensorflow::DT_FLOAT);
  ::tensorflow::NodeDef* loop = Add(&graph, "loop", "While", ::tensorflow::DT_FLOAT);
  ::tensorflow::GraphDef body;
  Add(&body, "inside", "MatMul", ::tensorflow::DT_FLOAT);
  (*loop->mutable_attr())[FlatFunctionAttr("body")].set_s(body.SerializeAsString());
  return graph;
}

TEST(ReducedPrecisionTest, Bfloat16MarksTheCpusFloatProductsAndConvolutionsOnly) {
  ::tensorflow::GraphDef graph = PlacedGraph();
  EXPECT_EQ(MarkReducedPrecision(&graph, ComputePrecision::kBfloat16), 8);
  for (const ::tensorflow::NodeDef& node : graph.node()) {
    const bool expected = node.name().rfind("float_", 0) == 0;
    EXPECT_EQ(Marked(node), expected) << node.name();
  }
  ::tensorflow::GraphDef body;
  ASSERT_TRUE(body.ParseFromString(graph.node(graph.node_size() - 1)
                                       .attr()
                                       .at(FlatFunctionAttr("body"))
                                       .s()));
  EXPECT_TRUE(Marked(body.node(0)));
}

TEST(ReducedPrecisionTest, Float32LeavesTheGraphAsItIs) {
  ::tensorflow::GraphDef graph = PlacedGraph();
  const std::string before = graph.SerializeAsString();
  EXPECT_EQ(MarkReducedPrecision(&graph, ComputePrecision::kFloat32), 0);
  EXPECT_EQ(graph.SerializeAsString(), before);
}

TEST(ReducedPrecisionTest, EffectivePrecisionFallsBackWithoutBfloat16Arithmetic) {
  EXPECT_EQ(EffectivePrecision(ComputePrecision::kFloat32), ComputePrecision::kFloat32);
  EXPECT_EQ(EffectivePrecision(ComputePrecision::kBfloat16),
            CpuHasBfloat16() ? ComputePrecision::kBfloat16 : ComputePrecision::kFloat32);
}

}  // namespace
}  // namespace tensord
