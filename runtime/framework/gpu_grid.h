// Launch geometry and the launch check shared by the grid-stride CUDA kernels. For .cu.cc files
// compiled by nvcc only (it includes cuda_runtime.h).
#ifndef TENSORD_RUNTIME_FRAMEWORK_GPU_GRID_H_
#define TENSORD_RUNTIME_FRAMEWORK_GPU_GRID_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace tensord {

inline constexpr int kGridThreads = 256;
// Enough blocks to fill any current GPU several times over; the loops stride past the rest.
inline constexpr int64_t kGridMaxBlocks = 4096;

// Blocks of kGridThreads for a grid-stride loop over `n` elements.
inline int GridBlocks(int64_t n) {
  const int64_t blocks = (n + kGridThreads - 1) / kGridThreads;
  return static_cast<int>(blocks < kGridMaxBlocks ? blocks : kGridMaxBlocks);
}

// Null after a successful launch, else CUDA's text for the error that stopped it.
inline const char* LaunchError() {
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_GPU_GRID_H_
