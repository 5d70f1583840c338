#include "runtime/exec/placement.h"

#include "gtest/gtest.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/graph/function_inliner.h"

namespace tensord {
namespace {

class PlacementTestOp : public OpKernel {
 public:
  explicit PlacementTestOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override { return absl::OkStatus(); }
};
TENSORD_REGISTER_KERNEL(KernelDef("PlacementCpuOnly").Device(DeviceType::kCpu), PlacementTestOp);
// "If" is the real op name, so that the pass finds the flattened body on it; this test's
// registration is the only one linked here.
TENSORD_REGISTER_KERNEL(KernelDef("If").Device(DeviceType::kCpu), PlacementTestOp);

::tensorflow::NodeDef* Add(::tensorflow::GraphDef* graph, const std::string& name,
                           const std::string& op, const std::string& device = "") {
  ::tensorflow::NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  node->set_device(device);
  return node;
}

// pinned_gpu (/device:GPU:0), free (no device), orphan (no kernel anywhere), and an If whose
// flattened then-branch holds one node pinned to /device:CPU:0.
::tensorflow::GraphDef TestGraph() {
  ::tensorflow::GraphDef graph;
  Add(&graph, "pinned_gpu", "PlacementCpuOnly", "/device:GPU:0");
  Add(&graph, "free", "PlacementCpuOnly");
  Add(&graph, "orphan", "PlacementNoKernel", "/device:GPU:0");
  ::tensorflow::NodeDef* branchy = Add(&graph, "branchy", "If");
  ::tensorflow::GraphDef body;
  Add(&body, "inside", "PlacementCpuOnly", "/job:localhost/replica:0/task:0/device:CPU:0");
  (*branchy->mutable_attr())[FlatFunctionAttr("then_branch")].set_s(body.SerializeAsString());
  return graph;
}

const NodePlacement& Find(const PlacementRecord& record, const std::string& name) {
  for (const NodePlacement& node : record.nodes) {
    if (node.node == name) return node;
  }
  static const NodePlacement none;
  ADD_FAILURE() << "no placement for " << name;
  return none;
}

TEST(PlacementTest, CpuOnlySetSoftPlacesGpuRequestsAndRewritesDevices) {
  DeviceSet devices(DeviceSetOptions{1, 1});
  ::tensorflow::GraphDef graph = TestGraph();
  const PlacementRecord record = PlaceGraph(&graph, devices, PlacementOptions());
  ASSERT_EQ(record.nodes.size(), 5u);
  EXPECT_EQ(record.nodes[0].node, "inside");  // function bodies first

  const NodePlacement& pinned = Find(record, "pinned_gpu");
  EXPECT_EQ(pinned.op, "PlacementCpuOnly");
  EXPECT_EQ(pinned.requested, "/device:GPU:0");
  EXPECT_EQ(pinned.assigned, "/device:CPU:0");
  EXPECT_TRUE(pinned.soft_placed);
  EXPECT_FALSE(pinned.in_function);

  const NodePlacement& free = Find(record, "free");
  EXPECT_EQ(free.requested, "");
  EXPECT_EQ(free.assigned, "/device:CPU:0");
  EXPECT_FALSE(free.soft_placed);

  // No device has its kernel: the first device, where the loader then reports the op missing.
  const NodePlacement& orphan = Find(record, "orphan");
  EXPECT_EQ(orphan.assigned, "/device:CPU:0");
  EXPECT_TRUE(orphan.soft_placed);

  const NodePlacement& inside = Find(record, "inside");
  EXPECT_TRUE(inside.in_function);
  EXPECT_EQ(inside.requested, "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(inside.assigned, "/device:CPU:0");
  EXPECT_FALSE(inside.soft_placed);

  EXPECT_EQ(record.copies, 0);
  EXPECT_EQ(record.SoftPlaced(), 2);
  EXPECT_EQ(record.NodesPerDevice(), (std::map<std::string, int>{{"/device:CPU:0", 5}}));
  EXPECT_EQ(record.DeviceSummary(), "/device:CPU:0=5");

  // The graph now names the assigned devices.
  for (const auto& node : graph.node()) EXPECT_EQ(node.device(), "/device:CPU:0") << node.name();
  ::tensorflow::GraphDef placed_body;
  ASSERT_TRUE(placed_body.ParseFromString(
      graph.node(3).attr().at(FlatFunctionAttr("then_branch")).s()));
  EXPECT_EQ(placed_body.node(0).device(), "/device:CPU:0");
}

TEST(PlacementTest, GpuPolicyIsARequestForUnpinnedNodes) {
  DeviceSet devices(DeviceSetOptions{1, 1});
  ::tensorflow::GraphDef graph = TestGraph();
  PlacementOptions options;
  options.policy.kind = DevicePolicy::Kind::kGpu;
  const PlacementRecord record = PlaceGraph(&graph, devices, options);
  const NodePlacement& free = Find(record, "free");
  EXPECT_EQ(free.requested, "/device:GPU:0");
  EXPECT_EQ(free.assigned, "/device:CPU:0");
  EXPECT_TRUE(free.soft_placed);
  // A device the graph names wins over the default.
  EXPECT_FALSE(Find(record, "inside").soft_placed);
  // pinned_gpu, free, orphan and branchy asked for the GPU and run on the CPU.
  EXPECT_EQ(record.SoftPlaced(), 4);

  options.policy.gpu = 3;
  graph = TestGraph();
  EXPECT_EQ(Find(PlaceGraph(&graph, devices, options), "free").requested, "/device:GPU:3");
}

// Unpinned int32 arithmetic (shapes, sizes, indices) asks for the CPU even under the GPU
// policy; a pin is still honoured.
TEST(PlacementTest, IndexArithmeticStaysOnTheHost) {
  DeviceSet devices(DeviceSetOptions{1, 1});
  ::tensorflow::GraphDef graph;
  (*Add(&graph, "shape_math", "PlacementCpuOnly")->mutable_attr())["T"].set_type(DT_INT32);
  (*Add(&graph, "values", "PlacementCpuOnly")->mutable_attr())["T"].set_type(DT_FLOAT);
  (*Add(&graph, "pinned", "PlacementCpuOnly", "/device:GPU:0")->mutable_attr())["T"].set_type(
      DT_INT32);
  PlacementOptions options;
  options.policy.kind = DevicePolicy::Kind::kGpu;
  const PlacementRecord record = PlaceGraph(&graph, devices, options);
  EXPECT_EQ(Find(record, "shape_math").requested, "/device:CPU:0");
  EXPECT_FALSE(Find(record, "shape_math").soft_placed);
  EXPECT_EQ(Find(record, "values").requested, "/device:GPU:0");
  EXPECT_EQ(Find(record, "pinned").requested, "/device:GPU:0");
  EXPECT_EQ(record.SoftPlaced(), 2);
}

TEST(PlacementTest, CpuPolicyOverridesPins) {
  DeviceSet devices(DeviceSetOptions{1, 1});
  ::tensorflow::GraphDef graph = TestGraph();
  PlacementOptions options;
  options.policy.kind = DevicePolicy::Kind::kCpu;
  const PlacementRecord record = PlaceGraph(&graph, devices, options);
  const NodePlacement& pinned = Find(record, "pinned_gpu");
  EXPECT_EQ(pinned.requested, "/device:CPU:0");
  EXPECT_EQ(pinned.assigned, "/device:CPU:0");
  EXPECT_FALSE(pinned.soft_placed);
  // Every node asked for the CPU and runs there (the kernel-less orphan on the first device).
  EXPECT_EQ(record.SoftPlaced(), 0);
}

// With no GPU in the set, auto asks for nothing beyond what the graph pins.
TEST(PlacementTest, AutoPolicyOnCpuOnlySetRequestsNothingForUnpinnedNodes) {
  DeviceSet devices(DeviceSetOptions{1, 1});
  ASSERT_TRUE(devices.gpus().empty());
  ::tensorflow::GraphDef graph = TestGraph();
  const PlacementRecord record = PlaceGraph(&graph, devices, PlacementOptions());
  EXPECT_EQ(Find(record, "free").requested, "");
  EXPECT_EQ(Find(record, "branchy").requested, "");
}

TEST(PlacementTest, PrimaryDeviceIsTheBusiestGpuElseTheCpu) {
  PlacementRecord record;
  auto add = [&](const std::string& assigned, int n) {
    for (int i = 0; i < n; ++i) record.nodes.push_back({"n", "Op", false, "", assigned, false});
  };
  add("/device:CPU:0", 30);
  EXPECT_EQ(record.PrimaryDevice(), "/device:CPU:0");
  // Shapes and sizes stay on the host, so a GPU model has CPU nodes too, maybe more.
  add("/device:GPU:1", 5);
  add("/device:GPU:0", 12);
  EXPECT_EQ(record.PrimaryDevice(), "/device:GPU:0");
  EXPECT_EQ(PlacementRecord().PrimaryDevice(), "/device:CPU:0");
}

}  // namespace
}  // namespace tensord
