#include "runtime/framework/device_set.h"

#include <dirent.h>

#include "gtest/gtest.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {
namespace {

int ThreadsOfThisProcess() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int threads = 0;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++threads;
  }
  closedir(dir);
  return threads;
}

TEST(DeviceSetTest, HoldsTheCpuDeviceByName) {
  DeviceSet devices(DeviceSetOptions{3, 2});
  ASSERT_EQ(devices.devices().size(), 1u);
  EXPECT_EQ(devices.devices()[0], devices.cpu());
  EXPECT_EQ(devices.cpu()->name(), "/device:CPU:0");
  EXPECT_EQ(devices.cpu()->type(), DeviceType::kCpu);
  EXPECT_EQ(devices.Find("/device:CPU:0"), devices.cpu());
  EXPECT_EQ(devices.Find("/device:GPU:0"), nullptr);
  EXPECT_EQ(devices.cpu()->num_threads(), 3);
  EXPECT_EQ(devices.cpu()->eigen_device().numThreads(), 3);
  ASSERT_NE(devices.cpu()->inter_op_pool(), nullptr);
  EXPECT_EQ(devices.cpu()->inter_op_pool()->NumThreads(), 2);
}

TEST(DeviceSetTest, StartsExactlyItsPoolsThreads) {
  const int before = ThreadsOfThisProcess();
  {
    // An intra-op pool of 4 - 1 (the calling thread works too) and an inter-op pool of 3.
    DeviceSet devices(DeviceSetOptions{4, 3});
    EXPECT_EQ(ThreadsOfThisProcess(), before + 3 + 3);
  }
  {
    DeviceSet devices(DeviceSetOptions{2, 1});  // inter-op 1: nodes run on the caller
    EXPECT_EQ(devices.cpu()->inter_op_pool(), nullptr);
    EXPECT_EQ(ThreadsOfThisProcess(), before + 1);
  }
  EXPECT_EQ(ThreadsOfThisProcess(), before);
}

TEST(DeviceSetTest, ProcessDefaultIsOneSet) {
  EXPECT_EQ(&DeviceSet::ProcessDefault(), &DeviceSet::ProcessDefault());
  EXPECT_GE(DeviceSet::ProcessDefault().cpu()->num_threads(), 1);
  EXPECT_EQ(&DeviceSet::OrProcessDefault(nullptr), &DeviceSet::ProcessDefault());
  DeviceSet own(DeviceSetOptions{1, 1});
  EXPECT_EQ(&DeviceSet::OrProcessDefault(&own), &own);
}

}  // namespace
}  // namespace tensord
