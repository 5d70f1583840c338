// Device kinds a kernel can be registered for, and the CPU device's thread pools.
#ifndef TENSORD_RUNTIME_FRAMEWORK_DEVICE_H_
#define TENSORD_RUNTIME_FRAMEWORK_DEVICE_H_

#include <memory>
#include <string>

#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {

enum class DeviceType { kCpu, kGpu };

const char* DeviceTypeName(DeviceType type);  // "CPU", "GPU"

// Number of CPUs this process may use: the cgroup CPU quota (cpu.max / cfs_quota) when set,
// else the affinity mask, else hardware_concurrency. Always >= 1.
int AvailableCpus();

// The CPU device: an intra-op Eigen pool that kernels parallelise on.
// Thread-safe; shared by all sessions that use it.
class CpuDevice {
 public:
  struct Options {
    // Threads inside one kernel; 0 = AvailableCpus().
    int intra_op_threads = 0;
  };
  explicit CpuDevice(Options options);
  ~CpuDevice();

  const Eigen::ThreadPoolDevice& eigen_device() const { return *eigen_device_; }
  int num_threads() const { return num_threads_; }

 private:
  int num_threads_;
  std::unique_ptr<Eigen::ThreadPool> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen_device_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_DEVICE_H_
