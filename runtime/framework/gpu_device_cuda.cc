// The CUDA build's GPU devices: cudart's device memory, one stream per device.
#include <cuda_runtime.h>

#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/framework/gpu_device.h"

namespace tensord {
namespace {

std::string CudaError(cudaError_t error) {
  return absl::StrCat(cudaGetErrorName(error), ": ", cudaGetErrorString(error));
}

class CudaMemory : public RawAllocator {
 public:
  explicit CudaMemory(int ordinal) : ordinal_(ordinal) {}
  void* Allocate(size_t bytes) override {
    void* block = nullptr;
    if (cudaSetDevice(ordinal_) != cudaSuccess) return nullptr;
    if (cudaMalloc(&block, bytes) != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky: clear it for the next call
      return nullptr;
    }
    return block;
  }
  void Free(void* block, size_t) override {
    cudaSetDevice(ordinal_);
    cudaFree(block);
  }

 private:
  const int ordinal_;
};

class CudaDevice : public GpuDevice {
 public:
  CudaDevice(GpuDeviceInfo info, std::unique_ptr<CachingAllocator> allocator,
             cudaStream_t stream)
      : GpuDevice(std::move(info), std::move(allocator)), stream_(stream) {}
  ~CudaDevice() override {
    cudaSetDevice(info().ordinal);
    cudaStreamDestroy(stream_);
  }

  CUstream_st* compute_stream() const override { return stream_; }

  absl::Status CopyToDevice(const void* host, void* device, size_t bytes) override {
    return Check("copy to device",
                 cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream_));
  }
  // Waits on an event behind the copy rather than on the stream, so that a run does not also
  // wait for the kernels other runs queued after its copy.
  absl::Status CopyToHost(const void* device, void* host, size_t bytes) override {
    cudaSetDevice(info().ordinal);
    cudaEvent_t done = nullptr;
    cudaError_t error = cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_);
    if (error == cudaSuccess) error = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    if (error == cudaSuccess) error = cudaEventRecord(done, stream_);
    if (error == cudaSuccess) error = cudaEventSynchronize(done);
    if (done != nullptr) cudaEventDestroy(done);
    return Check("copy to host", error);
  }
  absl::Status Zero(void* device, size_t bytes) override {
    return Check("zeroing memory", cudaMemsetAsync(device, 0, bytes, stream_));
  }

 private:
  absl::Status Check(const char* what, cudaError_t error) const {
    if (error == cudaSuccess) return absl::OkStatus();
    cudaGetLastError();
    return absl::InternalError(absl::StrCat(name(), " ", what, ": ", CudaError(error)));
  }

  const cudaStream_t stream_;
};

}  // namespace

GpuDiscovery DiscoverGpuDevices(const GpuDeviceOptions& options) {
  GpuDiscovery discovery;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    discovery.none_reason = absl::StrCat("the CUDA runtime found no usable GPU (", CudaError(error),
                                         ")");
    return discovery;
  }
  std::string unusable;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp properties;
    cudaStream_t stream = nullptr;
    cudaError_t step = cudaGetDeviceProperties(&properties, ordinal);
    if (step == cudaSuccess) step = cudaSetDevice(ordinal);
    if (step == cudaSuccess) step = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (step != cudaSuccess) {  // the others may still work
      absl::StrAppend(&unusable, unusable.empty() ? "" : "; ", "GPU ", ordinal, ": ",
                      CudaError(step));
      continue;
    }
    GpuDeviceInfo info;
    info.ordinal = ordinal;
    info.model = properties.name;
    info.total_memory_bytes = properties.totalGlobalMem;
    info.compute_capability = properties.major * 10 + properties.minor;
    CachingAllocator::Options memory;
    memory.name = absl::StrCat("/device:GPU:", ordinal);
    memory.limit_bytes = static_cast<size_t>(
        std::floor(options.memory_fraction * static_cast<double>(info.total_memory_bytes)));
    discovery.devices.push_back(std::make_unique<CudaDevice>(
        std::move(info),
        std::make_unique<CachingAllocator>(std::make_unique<CudaMemory>(ordinal),
                                           std::move(memory)),
        stream));
  }
  if (count == 0) {
    discovery.none_reason = "the CUDA runtime reports no GPU";
  } else if (discovery.devices.empty()) {
    discovery.none_reason = absl::StrCat("no GPU could be used (", unusable, ")");
  }
  return discovery;
}

}  // namespace tensord
