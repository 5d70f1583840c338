// The GPU Cast kernel behind cast_gpu.h: one grid-stride loop per (source, destination) pair,
// the conversion chosen at compile time.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/math/cast_gpu.h"
#include "runtime/framework/gpu_grid.h"

namespace tensord {
namespace math {
namespace {

// What the CPU kernel's x86 conversion gives (cvttss2si): truncation toward zero, with NaN and
// values out of I's range mapping to its lowest value. CUDA's own conversion saturates instead
// (and gives 0 for NaN), so the range is checked here.
template <typename I>
__device__ __forceinline__ I TruncateToInt(float f) {
  constexpr float kLimit = -static_cast<float>(std::numeric_limits<I>::lowest());  // 2^31, 2^63
  if (!(f >= -kLimit && f < kLimit)) return std::numeric_limits<I>::lowest();
  return static_cast<I>(f);
}

template <typename S, typename D>
__device__ __forceinline__ D Convert(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);  // NaN is true, -0.0 false
  } else if constexpr (std::is_same_v<S, bool>) {
    return x ? D(1) : D(0);
  } else if constexpr (std::is_same_v<S, float> && std::is_integral_v<D>) {
    return TruncateToInt<D>(x);
  } else {
    return static_cast<D>(x);  // int -> float rounds to nearest; int64 -> int32 wraps
  }
}

template <typename S, typename D>
__global__ void CastKernel(const S* x, D* y, int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    y[i] = Convert<S, D>(x[i]);
  }
}

template <typename S, typename D>
const char* Cast(GpuStream s, const void* x, void* y, int64_t n) {
  CastKernel<S, D><<<GridBlocks(n), kGridThreads, 0, s.stream>>>(static_cast<const S*>(x),
                                                                 static_cast<D*>(y), n);
  return LaunchError();
}

template <typename S>
const char* CastFrom(GpuStream s, GpuCastType dst, const void* x, void* y, int64_t n) {
  switch (dst) {
    case GpuCastType::kBool: return Cast<S, bool>(s, x, y, n);
    case GpuCastType::kFloat: return Cast<S, float>(s, x, y, n);
    case GpuCastType::kInt32: return Cast<S, int32_t>(s, x, y, n);
    case GpuCastType::kInt64: return Cast<S, int64_t>(s, x, y, n);
  }
  return "unknown cast destination type";
}

}  // namespace

const char* LaunchGpuCast(GpuStream s, GpuCastType src, GpuCastType dst, const void* x, void* y,
                          int64_t n) {
  if (n == 0) return nullptr;
  if (const cudaError_t e = cudaSetDevice(s.ordinal); e != cudaSuccess) {
    return cudaGetErrorString(e);
  }
  switch (src) {
    case GpuCastType::kBool: return CastFrom<bool>(s, dst, x, y, n);
    case GpuCastType::kFloat: return CastFrom<float>(s, dst, x, y, n);
    case GpuCastType::kInt32: return CastFrom<int32_t>(s, dst, x, y, n);
    case GpuCastType::kInt64: return CastFrom<int64_t>(s, dst, x, y, n);
  }
  return "unknown cast source type";
}

}  // namespace math
}  // namespace tensord
