#include "runtime/exec/device_policy.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tensord {
namespace {

TEST(DevicePolicyTest, ParsesEveryFormAndRejectsTheRest) {
  for (const char* text : {"auto", "cpu", "gpu:0", "gpu:7", "gpu:1023"}) {
    absl::StatusOr<DevicePolicy> policy = ParseDevicePolicy(text);
    ASSERT_TRUE(policy.ok()) << text << ": " << policy.status();
    EXPECT_EQ(policy->ToString(), text);
  }
  absl::StatusOr<DevicePolicy> gpu = ParseDevicePolicy("gpu");
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ(gpu->kind, DevicePolicy::Kind::kGpu);
  EXPECT_EQ(gpu->gpu, 0);
  for (const char* text : {"", "GPU", "gpu:", "gpu:-1", "gpu:1024", "gpu:00001", "gpu:1x",
                           "tpu", "cpu:0", " auto"}) {
    absl::StatusOr<DevicePolicy> policy = ParseDevicePolicy(text);
    ASSERT_FALSE(policy.ok()) << text;
    EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(policy.status().message(),
              absl::StrCat("device policy '", text, "' is not one of auto, cpu, gpu, gpu:N"));
  }
}

}  // namespace
}  // namespace tensord
