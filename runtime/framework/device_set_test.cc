#include "runtime/framework/device_set.h"

#include <dirent.h>

#include <string>
#include <vector>

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
  ASSERT_EQ(devices.devices().size(), 1 + devices.gpus().size());
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
  // The CUDA runtime starts threads of its own the first time it finds a GPU, once per process.
  DeviceSet::ProcessDefault();
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

// Every GPU the CUDA runtime sees joins the set with a working allocator and stream; where
// there is none, the set says why in one line.
TEST(DeviceSetTest, HasEveryVisibleGpuOrSaysWhyNot) {
  DeviceSet devices(DeviceSetOptions{1, 1});
  if (devices.gpus().empty()) {
    EXPECT_NE(devices.gpus_unavailable(), "");
    EXPECT_EQ(devices.Find("/device:GPU:0"), nullptr);
    return;
  }
  EXPECT_EQ(devices.gpus_unavailable(), "");
  for (size_t i = 0; i < devices.gpus().size(); ++i) {
    GpuDevice* gpu = devices.gpus()[i];
    const std::string name = "/device:GPU:" + std::to_string(i);
    EXPECT_EQ(gpu->name(), name);
    EXPECT_EQ(gpu->type(), DeviceType::kGpu);
    EXPECT_EQ(devices.Find(name), gpu);
    EXPECT_EQ(devices.devices()[1 + i], gpu);
    EXPECT_GT(gpu->info().total_memory_bytes, 0u);
    EXPECT_GE(gpu->info().compute_capability, 75);
    // A round trip through device memory on the compute stream.
    std::vector<float> in(1000), out(1000, 0.0f);
    for (size_t j = 0; j < in.size(); ++j) in[j] = 0.5f * static_cast<float>(j);
    absl::StatusOr<void*> block = gpu->allocator().Allocate(in.size() * sizeof(float));
    ASSERT_TRUE(block.ok()) << block.status();
    ASSERT_TRUE(gpu->CopyToDevice(in.data(), *block, in.size() * sizeof(float)).ok());
    ASSERT_TRUE(gpu->CopyToHost(*block, out.data(), out.size() * sizeof(float)).ok());
    EXPECT_EQ(out, in);
    gpu->allocator().Deallocate(*block);
  }
}

TEST(DeviceSetTest, GpuMemoryFractionCapsEachGpu) {
  DeviceSetOptions options{1, 1};
  options.gpu.memory_fraction = 0.25;
  DeviceSet devices(options);
  for (GpuDevice* gpu : devices.gpus()) {
    const size_t limit = gpu->allocator().stats().limit_bytes;
    EXPECT_GT(limit, gpu->info().total_memory_bytes / 4 - 1024);
    EXPECT_LE(limit, gpu->info().total_memory_bytes / 4);
    // More than the cap is refused with the device's name, and the device stays usable.
    absl::StatusOr<void*> too_much = gpu->allocator().Allocate(limit + 1);
    EXPECT_EQ(too_much.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_NE(too_much.status().message().find(gpu->name()), std::string::npos);
    absl::StatusOr<void*> fits = gpu->allocator().Allocate(1 << 20);
    ASSERT_TRUE(fits.ok()) << fits.status();
    gpu->allocator().Deallocate(*fits);
  }
  if (devices.gpus().empty()) {
    EXPECT_NE(devices.gpus_unavailable(), "");
  }
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
