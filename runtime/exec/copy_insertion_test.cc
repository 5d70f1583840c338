#include "runtime/exec/copy_insertion.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/graph/function_inliner.h"

namespace tensord {
namespace {

// Registrations only: the pass reads which arguments a GPU kernel keeps in host memory.
class CopyTestOp : public OpKernel {
 public:
  explicit CopyTestOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override { return absl::OkStatus(); }
};
TENSORD_REGISTER_KERNEL(KernelDef("CopyTestCpu").Device(DeviceType::kCpu), CopyTestOp);
// Output 1 is written to host memory (a shape, say).
TENSORD_REGISTER_KERNEL(KernelDef("CopyTestGpuSource").Device(DeviceType::kGpu).HostMemoryOutput(1),
                        CopyTestOp);
// Input 1 is read from host memory (an axis).
TENSORD_REGISTER_KERNEL(KernelDef("CopyTestGpuSink").Device(DeviceType::kGpu).HostMemoryInput(1),
                        CopyTestOp);
// The last input is read from host memory, whatever the number before it (ConcatV2's axis).
TENSORD_REGISTER_KERNEL(KernelDef("CopyTestGpuConcat").Device(DeviceType::kGpu).HostMemoryInput(-1),
                        CopyTestOp);
TENSORD_REGISTER_KERNEL(KernelDef("If").Device(DeviceType::kCpu), CopyTestOp);

constexpr char kCpu[] = "/device:CPU:0";
constexpr char kGpu0[] = "/device:GPU:0";
constexpr char kGpu1[] = "/device:GPU:1";

::tensorflow::NodeDef* Add(::tensorflow::GraphDef* graph, const std::string& name,
                           const std::string& op, const std::string& device,
                           const std::vector<std::string>& inputs = {}) {
  ::tensorflow::NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  node->set_device(device);
  for (const std::string& input : inputs) node->add_input(input);
  return node;
}

std::map<std::string, ::tensorflow::NodeDef> ByName(const ::tensorflow::GraphDef& graph) {
  std::map<std::string, ::tensorflow::NodeDef> nodes;
  for (const auto& node : graph.node()) nodes[node.name()] = node;
  return nodes;
}

std::vector<std::string> Inputs(const ::tensorflow::NodeDef& node) {
  return std::vector<std::string>(node.input().begin(), node.input().end());
}

TEST(CopyInsertionTest, HostValuesReadOnTheGpuGetOneSharedCopy) {
  ::tensorflow::GraphDef graph;
  Add(&graph, "x", "CopyTestCpu", kCpu);
  // Input 0 is read from device memory, input 1 (host memory) is not copied.
  Add(&graph, "a", "CopyTestGpuSink", kGpu0, {"x", "x"});
  Add(&graph, "b", "CopyTestGpuSink", kGpu0, {"x:0", "x", "^a"});
  EXPECT_EQ(InsertCopies(&graph), 1);
  auto nodes = ByName(graph);
  ASSERT_EQ(nodes.count("x_0/_to_GPU_0"), 1u);
  const ::tensorflow::NodeDef& copy = nodes["x_0/_to_GPU_0"];
  EXPECT_EQ(copy.op(), kHostToDeviceOp);
  EXPECT_EQ(copy.device(), kGpu0);
  EXPECT_EQ(Inputs(copy), std::vector<std::string>{"x:0"});
  EXPECT_EQ(Inputs(nodes["a"]), (std::vector<std::string>{"x_0/_to_GPU_0", "x"}));
  EXPECT_EQ(Inputs(nodes["b"]), (std::vector<std::string>{"x_0/_to_GPU_0", "x", "^a"}));
}

TEST(CopyInsertionTest, HostMemoryInputCountedFromTheEndFollowsTheNode) {
  ::tensorflow::GraphDef graph;
  Add(&graph, "x", "CopyTestCpu", kCpu);
  Add(&graph, "two", "CopyTestGpuConcat", kGpu0, {"x", "x:1", "x:2", "^x"});
  Add(&graph, "three", "CopyTestGpuConcat", kGpu0, {"x", "x:1", "x:2", "x:3"});
  EXPECT_EQ(InsertCopies(&graph), 3);  // x:0, x:1 and x:2 each copied once
  auto nodes = ByName(graph);
  EXPECT_EQ(Inputs(nodes["two"]),
            (std::vector<std::string>{"x_0/_to_GPU_0", "x_1/_to_GPU_0", "x:2", "^x"}));
  EXPECT_EQ(Inputs(nodes["three"]), (std::vector<std::string>{"x_0/_to_GPU_0", "x_1/_to_GPU_0",
                                                               "x_2/_to_GPU_0", "x:3"}));
}

TEST(CopyInsertionTest, GpuValuesReadOnTheCpuAreCopiedBackUnlessInHostMemory) {
  ::tensorflow::GraphDef graph;
  Add(&graph, "x", "CopyTestCpu", kCpu);
  Add(&graph, "g", "CopyTestGpuSource", kGpu0, {"x"});  // x read from GPU memory: a copy
  Add(&graph, "y", "CopyTestCpu", kCpu, {"g", "g:1"});
  EXPECT_EQ(InsertCopies(&graph), 2);
  auto nodes = ByName(graph);
  EXPECT_EQ(Inputs(nodes["g"]), std::vector<std::string>{"x_0/_to_GPU_0"});
  EXPECT_EQ(Inputs(nodes["y"]), (std::vector<std::string>{"g_0/_to_host", "g:1"}));
  EXPECT_EQ(nodes["g_0/_to_host"].op(), kDeviceToHostOp);
  // Placed on the GPU it reads from.
  EXPECT_EQ(nodes["g_0/_to_host"].device(), kGpu0);
}

TEST(CopyInsertionTest, GpuToGpuGoesThroughTheHost) {
  ::tensorflow::GraphDef graph;
  Add(&graph, "x", "CopyTestCpu", kCpu);
  Add(&graph, "g", "CopyTestGpuSource", kGpu0, {"x"});
  Add(&graph, "h", "CopyTestGpuSink", kGpu1, {"g", "x"});
  EXPECT_EQ(InsertCopies(&graph), 3);
  auto nodes = ByName(graph);
  EXPECT_EQ(Inputs(nodes["h"]), (std::vector<std::string>{"g_0/_to_host/_to_GPU_1", "x"}));
  EXPECT_EQ(nodes["g_0/_to_host"].device(), kGpu0);
  EXPECT_EQ(nodes["g_0/_to_host/_to_GPU_1"].op(), kHostToDeviceOp);
  EXPECT_EQ(nodes["g_0/_to_host/_to_GPU_1"].device(), kGpu1);
}

TEST(CopyInsertionTest, CpuOnlyGraphIsUnchanged) {
  ::tensorflow::GraphDef graph;
  Add(&graph, "x", "CopyTestCpu", kCpu);
  Add(&graph, "y", "CopyTestCpu", kCpu, {"x", "x:1", "^x"});
  const std::string before = graph.SerializeAsString();
  EXPECT_EQ(InsertCopies(&graph), 0);
  EXPECT_EQ(graph.SerializeAsString(), before);
}

TEST(CopyInsertionTest, FunctionBodiesGetCopiesToo) {
  ::tensorflow::GraphDef body;
  Add(&body, "arg", "CopyTestCpu", kCpu);
  Add(&body, "step", "CopyTestGpuSink", kGpu0, {"arg", "arg"});
  ::tensorflow::GraphDef graph;
  (*Add(&graph, "branchy", "If", kCpu)->mutable_attr())[FlatFunctionAttr("then_branch")].set_s(
      body.SerializeAsString());
  EXPECT_EQ(InsertCopies(&graph), 1);
  ::tensorflow::GraphDef rewritten;
  ASSERT_TRUE(rewritten.ParseFromString(
      graph.node(0).attr().at(FlatFunctionAttr("then_branch")).s()));
  auto nodes = ByName(rewritten);
  EXPECT_EQ(Inputs(nodes["step"]), (std::vector<std::string>{"arg_0/_to_GPU_0", "arg"}));
}

}  // namespace
}  // namespace tensord
