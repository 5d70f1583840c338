// Device kinds a kernel can be registered for, and the CPU device's thread pools.
#ifndef TENSORD_RUNTIME_FRAMEWORK_DEVICE_H_
#define TENSORD_RUNTIME_FRAMEWORK_DEVICE_H_

#include <memory>
#include <string>

// Declared as Eigen declares them; kernels that use the device include Eigen's Tensor module
// (tensor_eigen.h), the rest of the server need not.
namespace Eigen {
class ThreadPoolInterface;
struct ThreadPoolDevice;
}  // namespace Eigen

namespace tensord {

enum class DeviceType { kCpu, kGpu };

const char* DeviceTypeName(DeviceType type);  // "CPU", "GPU"

// Number of CPUs this process may use: the cgroup CPU quota (cpu.max / cfs_quota) when set,
// else the affinity mask, else hardware_concurrency. Always >= 1.
int AvailableCpus();

// The CPU device: an intra-op Eigen pool that kernels parallelise on. A kernel's calling thread
// works on its share too (ParallelFor and RunShares, runtime/framework/parallel_for.h), so for
// N threads per kernel the pool has N - 1: a pool of N leaves one thread spinning for work that
// never comes, competing with the N working threads for N CPUs (ResNet50 batch 1 on 2 CPUs:
// 10.4–11.3 ms with a pool of 2, 8.6–8.9 ms with a pool of 1). Kernels split work through
// those functions rather than through Eigen's parallelFor, which leaves the caller idle when it
// cuts more blocks than threads.
// Thread-safe; shared by all sessions that use it.
class CpuDevice {
 public:
  struct Options {
    // Threads inside one kernel, the caller included; 0 = AvailableCpus().
    int intra_op_threads = 0;
  };
  explicit CpuDevice(Options options);
  ~CpuDevice();

  const Eigen::ThreadPoolDevice& eigen_device() const { return *eigen_device_; }
  int num_threads() const { return num_threads_; }

 private:
  int num_threads_;
  std::unique_ptr<Eigen::ThreadPoolInterface> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen_device_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_DEVICE_H_
