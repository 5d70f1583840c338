// Devices: the kinds a kernel can be registered for, the device objects kernels run on, and
// the CPU device's thread pools.
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

// The name of the process's one CPU device (a DeviceSet has exactly one).
inline constexpr char kCpuDeviceName[] = "/device:CPU:0";

// A device kernels run on. The server builds the process's devices once (a DeviceSet,
// runtime/framework/device_set.h) and every session borrows them, so thread pools do not
// multiply with loaded models.
// Thread-safe: shared by every session and run.
class Device {
 public:
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // "/device:CPU:0", "/device:GPU:1": the form TensorFlow graphs name devices in.
  const std::string& name() const { return name_; }
  DeviceType type() const { return type_; }

 protected:
  Device(DeviceType type, int index);

 private:
  DeviceType type_;
  std::string name_;
};

// The CPU device: an intra-op Eigen pool that kernels parallelise on, and an inter-op pool the
// executor runs independent nodes on. A kernel's calling thread works on its share too
// (ParallelFor and RunShares, runtime/framework/parallel_for.h), so for N threads per kernel the
// intra-op pool has N - 1: a pool of N leaves one thread spinning for work that never comes,
// competing with the N working threads for N CPUs (ResNet50 batch 1 on 2 CPUs: 10.4–11.3 ms
// with a pool of 2, 8.6–8.9 ms with a pool of 1). Kernels split work through those functions
// rather than through Eigen's parallelFor, which leaves the caller idle when it cuts more blocks
// than threads.
class CpuDevice : public Device {
 public:
  struct Options {
    // Threads inside one kernel, the caller included; 0 = AvailableCpus().
    int intra_op_threads = 0;
    // Threads running independent graph nodes concurrently, across all runs of all sessions
    // on the device; 0 = min(4, AvailableCpus()); 1 = none (nodes run on the caller's thread).
    int inter_op_threads = 0;
  };
  explicit CpuDevice(Options options);
  ~CpuDevice() override;

  const Eigen::ThreadPoolDevice& eigen_device() const { return *eigen_device_; }
  int num_threads() const { return num_threads_; }
  // Nodes run at once across runs (1: on the caller's thread).
  int inter_op_threads() const { return inter_op_threads_; }
  // Null when inter_op_threads is 1.
  Eigen::ThreadPoolInterface* inter_op_pool() const { return inter_op_pool_.get(); }

 private:
  int num_threads_;
  int inter_op_threads_ = 1;
  std::unique_ptr<Eigen::ThreadPoolInterface> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen_device_;
  std::unique_ptr<Eigen::ThreadPoolInterface> inter_op_pool_;
};

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_DEVICE_H_
