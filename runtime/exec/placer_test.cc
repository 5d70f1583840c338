#include "runtime/exec/placer.h"

#include "gtest/gtest.h"
#include "runtime/framework/kernel_registry.h"

namespace tensord {
namespace {

class PlacerTestOp : public OpKernel {
 public:
  explicit PlacerTestOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override { return absl::OkStatus(); }
};
TENSORD_REGISTER_KERNEL(KernelDef("PlacerCpuOnly").Device(DeviceType::kCpu), PlacerTestOp);
TENSORD_REGISTER_KERNEL(KernelDef("PlacerBoth").Device(DeviceType::kCpu), PlacerTestOp);
TENSORD_REGISTER_KERNEL(KernelDef("PlacerBoth").Device(DeviceType::kGpu), PlacerTestOp);

::tensorflow::NodeDef Node(const std::string& op, const std::string& device) {
  ::tensorflow::NodeDef n;
  n.set_name("n");
  n.set_op(op);
  n.set_device(device);
  return n;
}

TEST(PlacerTest, ParsesDeviceStrings) {
  EXPECT_EQ(RequestedDeviceType("/device:GPU:0"), DeviceType::kGpu);
  EXPECT_EQ(RequestedDeviceType("/job:localhost/replica:0/task:0/device:CPU:0"), DeviceType::kCpu);
  EXPECT_EQ(RequestedDeviceType("/device:CPU:*"), DeviceType::kCpu);
  EXPECT_EQ(RequestedDeviceType("/gpu:1"), DeviceType::kGpu);
  EXPECT_FALSE(RequestedDeviceType("").has_value());
}

TEST(PlacerTest, SoftPlacement) {
  const std::vector<DeviceType> cpu_only = {DeviceType::kCpu};
  const std::vector<DeviceType> gpu_first = {DeviceType::kGpu, DeviceType::kCpu};
  // A GPU request on a CPU-only host runs on CPU.
  EXPECT_EQ(*PlaceNode(Node("PlacerBoth", "/device:GPU:0"), cpu_only), DeviceType::kCpu);
  // With a GPU: the request is honoured, unpinned nodes take the preferred device.
  EXPECT_EQ(*PlaceNode(Node("PlacerBoth", "/device:GPU:0"), gpu_first), DeviceType::kGpu);
  EXPECT_EQ(*PlaceNode(Node("PlacerBoth", ""), gpu_first), DeviceType::kGpu);
  EXPECT_EQ(*PlaceNode(Node("PlacerBoth", "/device:CPU:0"), gpu_first), DeviceType::kCpu);
  // No GPU kernel: falls back to CPU.
  EXPECT_EQ(*PlaceNode(Node("PlacerCpuOnly", "/device:GPU:0"), gpu_first), DeviceType::kCpu);
  auto missing = PlaceNode(Node("PlacerNoSuchOp", ""), gpu_first);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("PlacerNoSuchOp"), std::string::npos);
}

}  // namespace
}  // namespace tensord
