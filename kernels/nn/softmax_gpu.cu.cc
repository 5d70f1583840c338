// One thread block per row (blocks stride over the rows): the row's maximum and the sum of
// exponentials are block reductions through shared memory, then every thread writes its share.
#include <cuda_runtime.h>

#include "kernels/nn/softmax_gpu.h"

namespace tensord {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 8192;

enum class Combine { kMax, kSum };

// Every thread's `value` combined across the block; all threads receive the result.
template <Combine kCombine>
__device__ float BlockReduce(float value, float* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      const float other = scratch[threadIdx.x + width];
      scratch[threadIdx.x] = kCombine == Combine::kMax ? fmaxf(scratch[threadIdx.x], other)
                                                       : scratch[threadIdx.x] + other;
    }
    __syncthreads();
  }
  const float result = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return result;
}

__global__ void SoftmaxKernel(bool log, const float* x, float* y, int64_t rows, int64_t cols) {
  __shared__ float scratch[kThreads];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* in = x + row * cols;
    float* out = y + row * cols;
    float max = -INFINITY;
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) max = fmaxf(max, in[i]);
    max = BlockReduce<Combine::kMax>(max, scratch);
    float sum = 0.0f;
    for (int64_t i = threadIdx.x; i < cols; i += kThreads) sum += expf(in[i] - max);
    sum = BlockReduce<Combine::kSum>(sum, scratch);
    if (log) {
      const float log_sum = logf(sum);
      for (int64_t i = threadIdx.x; i < cols; i += kThreads) out[i] = in[i] - max - log_sum;
    } else {
      const float scale = 1.0f / sum;
      for (int64_t i = threadIdx.x; i < cols; i += kThreads) out[i] = expf(in[i] - max) * scale;
    }
  }
}

}  // namespace

const char* LaunchGpuSoftmax(GpuStream s, bool log, const float* x, float* y, int64_t rows,
                             int64_t cols) {
  if (rows == 0 || cols == 0) return nullptr;
  if (const cudaError_t e = cudaSetDevice(s.ordinal); e != cudaSuccess) {
    return cudaGetErrorString(e);
  }
  const int blocks = static_cast<int>(rows < kMaxBlocks ? rows : kMaxBlocks);
  SoftmaxKernel<<<blocks, kThreads, 0, s.stream>>>(log, x, y, rows, cols);
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

}  // namespace tensord
