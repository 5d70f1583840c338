#include "runtime/saved_model/load_passes.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace {

using Names = std::vector<std::string>;

TEST(LoadPassesTest, OptimizationPassesRunInTheirOrder) {
  FoldAffineIntoConvPass* fold_affine = nullptr;
  const GraphPassPipeline passes = OptimizationPasses(&fold_affine);
  // Pads fold into a convolution before its affine ops do, both before bias and activation
  // fuse onto it; identities go last, once the fusions no longer look through them.
  EXPECT_EQ(passes.Names(),
            (Names{"drop_constant_control_edges", "fold_pad_into_conv", "fold_affine_into_conv",
                   "fuse_bias_activation", "fuse_elementwise", "eliminate_identities"}));
  ASSERT_NE(fold_affine, nullptr);
  EXPECT_EQ(fold_affine->name(), "fold_affine_into_conv");
}

TEST(LoadPassesTest, LoopPassesHoistReads) {
  const OpRegistry ops{::tensorflow::OpList(), ::tensorflow::FunctionDefLibrary()};
  EXPECT_EQ(LoopPasses(ops).Names(), Names{"hoist_loop_invariant_reads"});
}

class LoadPassesTestOp : public OpKernel {
 public:
  explicit LoadPassesTestOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override { return absl::OkStatus(); }
};
TENSORD_REGISTER_KERNEL(KernelDef("LoadPassesCpuOnly").Device(DeviceType::kCpu), LoadPassesTestOp);

// Placement, precision marks, then copy insertion, into one record: on the process's devices a
// node asking for a GPU without a GPU kernel runs on the CPU, the float product placed there
// is marked for bf16, and nothing needs a copy.
TEST(LoadPassesTest, DevicePassesPlaceMarkPrecisionThenInsertCopies) {
  PlacementRecord record;
  const GraphPassPipeline passes = DevicePasses(
      DeviceSet::ProcessDefault(), PlacementOptions{}, ComputePrecision::kBfloat16, &record);
  EXPECT_EQ(passes.Names(), (Names{"placement", "reduced_precision", "copy_insertion"}));
  ::tensorflow::GraphDef graph;
  for (const char* name : {"a", "b"}) {
    ::tensorflow::NodeDef* node = graph.add_node();
    node->set_name(name);
    node->set_op("LoadPassesCpuOnly");
  }
  graph.mutable_node(0)->set_device("/device:GPU:0");
  graph.mutable_node(1)->add_input("a");
  ::tensorflow::NodeDef* product = graph.add_node();
  product->set_name("product");
  product->set_op("MatMul");
  (*product->mutable_attr())["T"].set_type(::tensorflow::DT_FLOAT);
  std::map<std::string, int> rewrites;
  ASSERT_TRUE(passes.Run(GraphPassContext{&graph, nullptr, {}}, &rewrites).ok());
  EXPECT_EQ(rewrites, (std::map<std::string, int>{
                          {"placement", 3}, {"reduced_precision", 1}, {"copy_insertion", 0}}));
  EXPECT_EQ(graph.node(2).attr().at(kPrecisionAttr).s(), "bf16");
  ASSERT_EQ(record.nodes.size(), 3u);
  EXPECT_EQ(record.nodes[0].assigned, "/device:CPU:0");
  EXPECT_TRUE(record.nodes[0].soft_placed);
  EXPECT_EQ(record.copies, 0);
  EXPECT_EQ(graph.node(0).device(), "/device:CPU:0");
  EXPECT_EQ(graph.node_size(), 3);  // no copies
}

}  // namespace
}  // namespace tensord
