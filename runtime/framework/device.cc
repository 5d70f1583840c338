#include "runtime/framework/device.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>

#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {

const char* DeviceTypeName(DeviceType type) { return type == DeviceType::kGpu ? "GPU" : "CPU"; }

namespace {

// cgroup v2 "cpu.max" = "<quota> <period>" or "max <period>"; v1 uses two files.
int CgroupCpuQuota() {
  std::ifstream v2("/sys/fs/cgroup/cpu.max");
  std::string quota;
  long long period = 0;
  if (v2 >> quota >> period && quota != "max" && period > 0) {
    return static_cast<int>(std::ceil(std::stod(quota) / static_cast<double>(period)));
  }
  std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  std::ifstream p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
  long long quota_us = 0;
  if (q >> quota_us && p >> period && quota_us > 0 && period > 0) {
    return static_cast<int>(std::ceil(static_cast<double>(quota_us) / period));
  }
  return 0;
}

}  // namespace

int AvailableCpus() {
  int cpus = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
  const int quota = CgroupCpuQuota();
  if (quota > 0) cpus = std::min(cpus, quota);
  return std::max(cpus, 1);
}

Device::Device(DeviceType type, int index)
    : type_(type),
      name_(std::string("/device:") + DeviceTypeName(type) + ":" + std::to_string(index)) {}

CpuDevice::CpuDevice(Options options)
    : Device(DeviceType::kCpu, 0),
      num_threads_(options.intra_op_threads > 0 ? options.intra_op_threads : AvailableCpus()),
      pool_(std::make_unique<Eigen::ThreadPool>(std::max(1, num_threads_ - 1))),
      eigen_device_(std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), num_threads_)) {
  const int inter = options.inter_op_threads > 0 ? options.inter_op_threads
                                                 : std::min(4, AvailableCpus());
  inter_op_threads_ = inter;
  if (inter > 1) inter_op_pool_ = std::make_unique<Eigen::ThreadPool>(inter);
}

CpuDevice::~CpuDevice() = default;

}  // namespace tensord
