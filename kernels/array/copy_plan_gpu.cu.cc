// The GPU copy engine behind copy_plan_gpu.h: one grid-stride loop per launch, each thread
// decoding its output index into the plan's loops.
#include <cuda_runtime.h>

#include <cstring>

#include "kernels/array/copy_plan_gpu.h"
#include "runtime/framework/gpu_grid.h"

namespace tensord {
namespace array {
namespace {

// Elements move as words of their size: no dtype is ever interpreted.
struct alignas(16) Word16 {
  unsigned long long lo, hi;
};

template <typename U>
__global__ void CopyKernel(GpuCopyLoops loops, const int64_t* tables, const U* src, U* dst,
                           int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t rest = i;
    int64_t from = loops.src_base;
    int64_t to = loops.dst_base;
    for (int k = loops.rank - 1; k >= 0; --k) {
      const int64_t index = rest % loops.sizes[k];
      rest /= loops.sizes[k];
      from += loops.table_start[k] < 0 ? index * loops.src_strides[k]
                                       : tables[loops.table_start[k] + index];
      to += index * loops.dst_strides[k];
    }
    dst[to] = src[from];
  }
}

template <typename U>
__global__ void FillKernel(U value, U* dst, int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    dst[i] = value;
  }
}

template <typename U>
const char* Copy(GpuStream stream, const GpuCopyLoops& loops, const int64_t* tables,
                 const void* src, void* dst, int64_t n) {
  CopyKernel<U><<<GridBlocks(n), kGridThreads, 0, stream.stream>>>(
      loops, tables, static_cast<const U*>(src), static_cast<U*>(dst), n);
  return LaunchError();
}

template <typename U>
const char* Fill(GpuStream stream, const void* value, void* dst, int64_t n) {
  U word;
  std::memcpy(&word, value, sizeof(U));
  FillKernel<U><<<GridBlocks(n), kGridThreads, 0, stream.stream>>>(word, static_cast<U*>(dst), n);
  return LaunchError();
}

}  // namespace

const char* LaunchGpuCopy(GpuStream stream, const GpuCopyLoops& loops, const int64_t* tables,
                          const void* src, void* dst, int element_bytes, int64_t num_elements) {
  if (num_elements == 0) return nullptr;
  if (const cudaError_t error = cudaSetDevice(stream.ordinal); error != cudaSuccess) {
    return cudaGetErrorString(error);
  }
  switch (element_bytes) {
    case 1: return Copy<unsigned char>(stream, loops, tables, src, dst, num_elements);
    case 2: return Copy<unsigned short>(stream, loops, tables, src, dst, num_elements);
    case 4: return Copy<unsigned int>(stream, loops, tables, src, dst, num_elements);
    case 8: return Copy<unsigned long long>(stream, loops, tables, src, dst, num_elements);
    case 16: return Copy<Word16>(stream, loops, tables, src, dst, num_elements);
    default: return "unsupported element size";
  }
}

const char* LaunchGpuFill(GpuStream stream, const void* value, int element_bytes, void* dst,
                          int64_t num_elements) {
  if (num_elements == 0) return nullptr;
  if (const cudaError_t error = cudaSetDevice(stream.ordinal); error != cudaSuccess) {
    return cudaGetErrorString(error);
  }
  switch (element_bytes) {
    case 1: return Fill<unsigned char>(stream, value, dst, num_elements);
    case 2: return Fill<unsigned short>(stream, value, dst, num_elements);
    case 4: return Fill<unsigned int>(stream, value, dst, num_elements);
    case 8: return Fill<unsigned long long>(stream, value, dst, num_elements);
    case 16: return Fill<Word16>(stream, value, dst, num_elements);
    default: return "unsupported element size";
  }
}

}  // namespace array
}  // namespace tensord
