#include <vector>

#include "gtest/gtest.h"
#include "kernels/array/array_test_util.h"
#include "runtime/framework/device_memory.h"
#include "runtime/framework/device_set.h"

namespace tensord {
namespace testing {
namespace {

// The copies exist only on GPUs; on a machine without one there is nothing to run them on.
class DeviceCopyOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (DeviceSet::ProcessDefault().gpus().empty()) {
      GTEST_SKIP() << "no GPU: " << DeviceSet::ProcessDefault().gpus_unavailable();
    }
  }
};

TEST_F(DeviceCopyOpsTest, RoundTripKeepsValuesOfEveryNumericDtype) {
  const std::vector<Tensor> values = {Iota<float>({3, 5}), Iota<int32_t>({7}),
                                      Iota<int64_t>({2, 2}), Iota<uint8_t>({9}),
                                      Iota<float>({0, 4})};
  for (const Tensor& x : values) {
    // RunKernel keeps _HostToDevice's input on the host and copies its output back; it puts
    // _DeviceToHost's input in device memory first.
    Tensor on_device = RunOne(NodeBuilder("_HostToDevice").Build(), {x}, DeviceType::kGpu);
    ExpectTensorEqual(on_device, x);
    Tensor back = RunOne(NodeBuilder("_DeviceToHost").Build(), {x}, DeviceType::kGpu);
    ExpectTensorEqual(back, x);
    EXPECT_EQ(back.memory_space(), MemorySpace::kHost);
  }
}

TEST_F(DeviceCopyOpsTest, StringsCannotMoveToTheDevice) {
  auto out = RunKernel(NodeBuilder("_HostToDevice").Build(), {StringIota({2})}, DeviceType::kGpu);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("string tensor cannot live in /device:GPU:0"),
            std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace testing
}  // namespace tensord
