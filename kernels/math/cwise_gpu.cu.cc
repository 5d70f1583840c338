// The GPU elementwise kernels behind cwise_gpu.h: one grid-stride loop per call, the function
// chosen at compile time by template argument so each loop body is a single expression.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/math/cwise_gpu.h"
#include "runtime/framework/gpu_grid.h"

namespace tensord {
namespace math {
namespace {

template <GpuUnaryFn kFn>
__device__ __forceinline__ float Unary(float x, float alpha) {
  if constexpr (kFn == GpuUnaryFn::kAbs) return fabsf(x);
  if constexpr (kFn == GpuUnaryFn::kCeil) return ceilf(x);
  if constexpr (kFn == GpuUnaryFn::kCos) return cosf(x);
  if constexpr (kFn == GpuUnaryFn::kElu) return x < 0.0f ? expm1f(x) : x;
  if constexpr (kFn == GpuUnaryFn::kErf) return erff(x);
  if constexpr (kFn == GpuUnaryFn::kErfc) return erfcf(x);
  if constexpr (kFn == GpuUnaryFn::kExp) return expf(x);
  if constexpr (kFn == GpuUnaryFn::kExpm1) return expm1f(x);
  if constexpr (kFn == GpuUnaryFn::kFloor) return floorf(x);
  if constexpr (kFn == GpuUnaryFn::kLeakyRelu) return x < 0.0f ? alpha * x : x;
  if constexpr (kFn == GpuUnaryFn::kLog) return logf(x);
  if constexpr (kFn == GpuUnaryFn::kLog1p) return log1pf(x);
  if constexpr (kFn == GpuUnaryFn::kNeg) return -x;
  if constexpr (kFn == GpuUnaryFn::kReciprocal) return 1.0f / x;
  // fmaxf would turn NaN into 0; TensorFlow's Relu keeps it.
  if constexpr (kFn == GpuUnaryFn::kRelu) return x < 0.0f ? 0.0f : x;
  if constexpr (kFn == GpuUnaryFn::kRelu6) return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
  if constexpr (kFn == GpuUnaryFn::kRint) return rintf(x);  // halves to even, as Round
  if constexpr (kFn == GpuUnaryFn::kRsqrt) return 1.0f / sqrtf(x);
  if constexpr (kFn == GpuUnaryFn::kSelu) {
    constexpr float kScale = 1.0507009873554804934193349852946f;
    constexpr float kScaledAlpha = 1.7580993408473768599402175208123f;
    return x < 0.0f ? kScaledAlpha * expm1f(x) : kScale * x;
  }
  if constexpr (kFn == GpuUnaryFn::kSigmoid) return 1.0f / (1.0f + expf(-x));
  if constexpr (kFn == GpuUnaryFn::kSin) return sinf(x);
  // log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
  if constexpr (kFn == GpuUnaryFn::kSoftplus) return fmaxf(x, 0.0f) + log1pf(expf(-fabsf(x)));
  if constexpr (kFn == GpuUnaryFn::kSqrt) return sqrtf(x);
  if constexpr (kFn == GpuUnaryFn::kSquare) return x * x;
  if constexpr (kFn == GpuUnaryFn::kTanh) return tanhf(x);
  return x;
}

template <GpuBinaryFn kFn>
__device__ __forceinline__ float Binary(float x, float y) {
  if constexpr (kFn == GpuBinaryFn::kAdd) return x + y;
  if constexpr (kFn == GpuBinaryFn::kDiv) return x / y;
  if constexpr (kFn == GpuBinaryFn::kDivNoNan) return y == 0.0f ? 0.0f : x / y;
  // NaN from either side wins, as TensorFlow's Maximum and Minimum.
  if constexpr (kFn == GpuBinaryFn::kMaximum) return isnan(x) || x > y ? x : y;
  if constexpr (kFn == GpuBinaryFn::kMinimum) return isnan(x) || x < y ? x : y;
  if constexpr (kFn == GpuBinaryFn::kMul) return x * y;
  if constexpr (kFn == GpuBinaryFn::kMulNoNan) return y == 0.0f ? 0.0f : x * y;
  if constexpr (kFn == GpuBinaryFn::kPow) return powf(x, y);
  if constexpr (kFn == GpuBinaryFn::kSquaredDifference) return (x - y) * (x - y);
  if constexpr (kFn == GpuBinaryFn::kSub) return x - y;
  return x;
}

template <GpuUnaryFn kFn>
__global__ void UnaryKernel(const float* x, float* y, int64_t n, float alpha) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    y[i] = Unary<kFn>(x[i], alpha);
  }
}

// Both operands advance with the output (same shapes): no index arithmetic.
template <GpuBinaryFn kFn>
__global__ void SameShapeKernel(const float* x, const float* y, float* out, int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    out[i] = Binary<kFn>(x[i], y[i]);
  }
}

template <GpuBinaryFn kFn>
__global__ void BroadcastKernel(GpuBroadcast shape, const float* x, const float* y, float* out,
                                int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t rest = i;
    int64_t xi = 0;
    int64_t yi = 0;
    for (int d = shape.rank - 1; d >= 0; --d) {
      const int64_t coord = rest % shape.dims[d];
      rest /= shape.dims[d];
      xi += coord * shape.x_strides[d];
      yi += coord * shape.y_strides[d];
    }
    out[i] = Binary<kFn>(x[xi], y[yi]);
  }
}

template <GpuUnaryFn kFn>
const char* Unary(GpuStream s, float alpha, const float* x, float* y, int64_t n) {
  UnaryKernel<kFn><<<GridBlocks(n), kGridThreads, 0, s.stream>>>(x, y, n, alpha);
  return LaunchError();
}

template <GpuBinaryFn kFn>
const char* Binary(GpuStream s, const GpuBroadcast& shape, const float* x, const float* y,
                   float* out, int64_t n) {
  if (shape.rank == 1 && shape.x_strides[0] == 1 && shape.y_strides[0] == 1) {
    SameShapeKernel<kFn><<<GridBlocks(n), kGridThreads, 0, s.stream>>>(x, y, out, n);
  } else {
    BroadcastKernel<kFn><<<GridBlocks(n), kGridThreads, 0, s.stream>>>(shape, x, y, out, n);
  }
  return LaunchError();
}

}  // namespace

const char* LaunchGpuUnary(GpuStream s, GpuUnaryFn fn, float alpha, const float* x, float* y,
                           int64_t n) {
  if (n == 0) return nullptr;
  if (const cudaError_t e = cudaSetDevice(s.ordinal); e != cudaSuccess) {
    return cudaGetErrorString(e);
  }
  using F = GpuUnaryFn;
  switch (fn) {
    case F::kAbs: return Unary<F::kAbs>(s, alpha, x, y, n);
    case F::kCeil: return Unary<F::kCeil>(s, alpha, x, y, n);
    case F::kCos: return Unary<F::kCos>(s, alpha, x, y, n);
    case F::kElu: return Unary<F::kElu>(s, alpha, x, y, n);
    case F::kErf: return Unary<F::kErf>(s, alpha, x, y, n);
    case F::kErfc: return Unary<F::kErfc>(s, alpha, x, y, n);
    case F::kExp: return Unary<F::kExp>(s, alpha, x, y, n);
    case F::kExpm1: return Unary<F::kExpm1>(s, alpha, x, y, n);
    case F::kFloor: return Unary<F::kFloor>(s, alpha, x, y, n);
    case F::kLeakyRelu: return Unary<F::kLeakyRelu>(s, alpha, x, y, n);
    case F::kLog: return Unary<F::kLog>(s, alpha, x, y, n);
    case F::kLog1p: return Unary<F::kLog1p>(s, alpha, x, y, n);
    case F::kNeg: return Unary<F::kNeg>(s, alpha, x, y, n);
    case F::kReciprocal: return Unary<F::kReciprocal>(s, alpha, x, y, n);
    case F::kRelu: return Unary<F::kRelu>(s, alpha, x, y, n);
    case F::kRelu6: return Unary<F::kRelu6>(s, alpha, x, y, n);
    case F::kRint: return Unary<F::kRint>(s, alpha, x, y, n);
    case F::kRsqrt: return Unary<F::kRsqrt>(s, alpha, x, y, n);
    case F::kSelu: return Unary<F::kSelu>(s, alpha, x, y, n);
    case F::kSigmoid: return Unary<F::kSigmoid>(s, alpha, x, y, n);
    case F::kSin: return Unary<F::kSin>(s, alpha, x, y, n);
    case F::kSoftplus: return Unary<F::kSoftplus>(s, alpha, x, y, n);
    case F::kSqrt: return Unary<F::kSqrt>(s, alpha, x, y, n);
    case F::kSquare: return Unary<F::kSquare>(s, alpha, x, y, n);
    case F::kTanh: return Unary<F::kTanh>(s, alpha, x, y, n);
  }
  return "unknown unary function";
}

const char* LaunchGpuBinary(GpuStream s, GpuBinaryFn fn, const GpuBroadcast& shape,
                            const float* x, const float* y, float* out, int64_t n) {
  if (n == 0) return nullptr;
  if (const cudaError_t e = cudaSetDevice(s.ordinal); e != cudaSuccess) {
    return cudaGetErrorString(e);
  }
  using F = GpuBinaryFn;
  switch (fn) {
    case F::kAdd: return Binary<F::kAdd>(s, shape, x, y, out, n);
    case F::kDiv: return Binary<F::kDiv>(s, shape, x, y, out, n);
    case F::kDivNoNan: return Binary<F::kDivNoNan>(s, shape, x, y, out, n);
    case F::kMaximum: return Binary<F::kMaximum>(s, shape, x, y, out, n);
    case F::kMinimum: return Binary<F::kMinimum>(s, shape, x, y, out, n);
    case F::kMul: return Binary<F::kMul>(s, shape, x, y, out, n);
    case F::kMulNoNan: return Binary<F::kMulNoNan>(s, shape, x, y, out, n);
    case F::kPow: return Binary<F::kPow>(s, shape, x, y, out, n);
    case F::kSquaredDifference: return Binary<F::kSquaredDifference>(s, shape, x, y, out, n);
    case F::kSub: return Binary<F::kSub>(s, shape, x, y, out, n);
  }
  return "unknown binary function";
}

}  // namespace math
}  // namespace tensord
