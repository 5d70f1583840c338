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

// The functions of the two-operand broadcasting kernels, chosen at compile time.
template <GpuBinaryFn kFn>
struct BinaryFnOf {
  __device__ __forceinline__ float operator()(float x, float y) const { return Binary<kFn>(x, y); }
};

template <GpuCompareFn kFn>
struct CompareFnOf {
  __device__ __forceinline__ bool operator()(float a, float b) const {
    if constexpr (kFn == GpuCompareFn::kEqual) return a == b;
    if constexpr (kFn == GpuCompareFn::kNotEqual) return a != b;
    if constexpr (kFn == GpuCompareFn::kLess) return a < b;
    if constexpr (kFn == GpuCompareFn::kLessEqual) return a <= b;
    if constexpr (kFn == GpuCompareFn::kGreater) return a > b;
    return a >= b;  // kGreaterEqual
  }
};

template <GpuLogicalFn kFn>
struct LogicalFnOf {
  __device__ __forceinline__ bool operator()(bool a, bool b) const {
    return kFn == GpuLogicalFn::kAnd ? (a && b) : (a || b);
  }
};

// The element function of the two-operand broadcasting kernels: out[i] = f(x, y) at the
// operands' offsets.
template <typename In, typename Out, typename F>
struct PairElement {
  const In* x;
  const In* y;
  Out* out;
  __device__ __forceinline__ void operator()(int64_t i, const int64_t (&at)[2]) const {
    out[i] = F()(x[at[0]], y[at[1]]);
  }
};

__global__ void LogicalNotKernel(const bool* x, bool* y, int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) y[i] = !x[i];
}

struct SelectElement {
  const bool* cond;
  const float* t;
  const float* e;
  float* out;
  __device__ __forceinline__ void operator()(int64_t i, const int64_t (&at)[3]) const {
    out[i] = cond[at[0]] ? t[at[1]] : e[at[2]];
  }
};

// Every operand advances with the output (same shapes): no index arithmetic.
template <int kOperands, typename Element>
__global__ void SameShapeKernel(Element element, int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t at[kOperands];
    for (int k = 0; k < kOperands; ++k) at[k] = i;
    element(i, at);
  }
}

template <int kOperands, typename Element>
__global__ void BroadcastKernel(GpuBroadcast shape, Element element, int64_t n) {
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t rest = i;
    int64_t at[kOperands] = {};
    for (int d = shape.rank - 1; d >= 0; --d) {
      const int64_t coord = rest % shape.dims[d];
      rest /= shape.dims[d];
      for (int k = 0; k < kOperands; ++k) at[k] += coord * shape.strides[k][d];
    }
    element(i, at);
  }
}

template <int kOperands, typename Element>
const char* Broadcast(GpuStream s, const GpuBroadcast& shape, Element element, int64_t n) {
  bool same_shape = shape.rank == 1;
  for (int k = 0; k < kOperands; ++k) same_shape = same_shape && shape.strides[k][0] == 1;
  if (same_shape) {
    SameShapeKernel<kOperands><<<GridBlocks(n), kGridThreads, 0, s.stream>>>(element, n);
  } else {
    BroadcastKernel<kOperands><<<GridBlocks(n), kGridThreads, 0, s.stream>>>(shape, element, n);
  }
  return LaunchError();
}

// The step functions of GpuFusedProgram, chosen at run time.
__device__ float FusedUnary(GpuUnaryFn fn, float x) {
  using F = GpuUnaryFn;
  switch (fn) {
    case F::kNeg: return Unary<F::kNeg>(x, 0.0f);
    case F::kAbs: return Unary<F::kAbs>(x, 0.0f);
    case F::kSquare: return Unary<F::kSquare>(x, 0.0f);
    case F::kExp: return Unary<F::kExp>(x, 0.0f);
    case F::kLog: return Unary<F::kLog>(x, 0.0f);
    case F::kSqrt: return Unary<F::kSqrt>(x, 0.0f);
    case F::kSigmoid: return Unary<F::kSigmoid>(x, 0.0f);
    case F::kTanh: return Unary<F::kTanh>(x, 0.0f);
    case F::kErf: return Unary<F::kErf>(x, 0.0f);
    case F::kRelu: return Unary<F::kRelu>(x, 0.0f);
    default: return NAN;  // not a fused function: the op refuses such a program
  }
}

__device__ float FusedBinary(GpuBinaryFn fn, float x, float y) {
  using F = GpuBinaryFn;
  switch (fn) {
    case F::kAdd: return Binary<F::kAdd>(x, y);
    case F::kSub: return Binary<F::kSub>(x, y);
    case F::kMul: return Binary<F::kMul>(x, y);
    case F::kDiv: return Binary<F::kDiv>(x, y);
    case F::kMaximum: return Binary<F::kMaximum>(x, y);
    case F::kMinimum: return Binary<F::kMinimum>(x, y);
    default: return NAN;
  }
}

__global__ void FusedKernel(GpuFusedProgram p, float* out, int64_t n) {
  constexpr int kInputs = GpuFusedProgram::kMaxInputs;
  float values[kInputs + GpuFusedProgram::kMaxSteps];
  const int64_t step = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t at[kInputs] = {};
    int64_t rest = i;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t coord = rest % p.dims[d];
      rest /= p.dims[d];
      for (int k = 0; k < p.num_inputs; ++k) at[k] += coord * p.strides[k][d];
    }
    for (int k = 0; k < p.num_inputs; ++k) values[k] = p.inputs[k][at[k]];
    for (int s = 0; s < p.num_steps; ++s) {
      const float x = values[p.operands[s][0]];
      values[p.num_inputs + s] = p.unary[s] ? FusedUnary(p.unary_fn[s], x)
                                            : FusedBinary(p.binary_fn[s], x,
                                                          values[p.operands[s][1]]);
    }
    out[i] = values[p.num_inputs + p.num_steps - 1];
  }
}

// Null when `s.ordinal` is now the calling thread's device, else CUDA's error text.
const char* UseDevice(GpuStream s) {
  const cudaError_t e = cudaSetDevice(s.ordinal);
  return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
}

template <GpuUnaryFn kFn>
const char* Unary(GpuStream s, float alpha, const float* x, float* y, int64_t n) {
  UnaryKernel<kFn><<<GridBlocks(n), kGridThreads, 0, s.stream>>>(x, y, n, alpha);
  return LaunchError();
}

template <GpuBinaryFn kFn>
const char* Binary(GpuStream s, const GpuBroadcast& shape, const float* x, const float* y,
                   float* out, int64_t n) {
  return Broadcast<2>(s, shape, PairElement<float, float, BinaryFnOf<kFn>>{x, y, out}, n);
}

}  // namespace

const char* LaunchGpuUnary(GpuStream s, GpuUnaryFn fn, float alpha, const float* x, float* y,
                           int64_t n) {
  if (n == 0) return nullptr;
  if (const char* error = UseDevice(s)) return error;
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
  if (const char* error = UseDevice(s)) return error;
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

const char* LaunchGpuCompare(GpuStream s, GpuCompareFn fn, const GpuBroadcast& shape,
                             const float* x, const float* y, bool* out, int64_t n) {
  if (n == 0) return nullptr;
  if (const char* error = UseDevice(s)) return error;
  using F = GpuCompareFn;
  auto run = [&](auto fn_of) {
    return Broadcast<2>(s, shape, PairElement<float, bool, decltype(fn_of)>{x, y, out}, n);
  };
  switch (fn) {
    case F::kEqual: return run(CompareFnOf<F::kEqual>());
    case F::kNotEqual: return run(CompareFnOf<F::kNotEqual>());
    case F::kLess: return run(CompareFnOf<F::kLess>());
    case F::kLessEqual: return run(CompareFnOf<F::kLessEqual>());
    case F::kGreater: return run(CompareFnOf<F::kGreater>());
    case F::kGreaterEqual: return run(CompareFnOf<F::kGreaterEqual>());
  }
  return "unknown comparison";
}

const char* LaunchGpuLogical(GpuStream s, GpuLogicalFn fn, const GpuBroadcast& shape,
                             const bool* x, const bool* y, bool* out, int64_t n) {
  if (n == 0) return nullptr;
  if (const char* error = UseDevice(s)) return error;
  using And = LogicalFnOf<GpuLogicalFn::kAnd>;
  using Or = LogicalFnOf<GpuLogicalFn::kOr>;
  if (fn == GpuLogicalFn::kAnd) {
    return Broadcast<2>(s, shape, PairElement<bool, bool, And>{x, y, out}, n);
  }
  return Broadcast<2>(s, shape, PairElement<bool, bool, Or>{x, y, out}, n);
}

const char* LaunchGpuLogicalNot(GpuStream s, const bool* x, bool* y, int64_t n) {
  if (n == 0) return nullptr;
  if (const char* error = UseDevice(s)) return error;
  LogicalNotKernel<<<GridBlocks(n), kGridThreads, 0, s.stream>>>(x, y, n);
  return LaunchError();
}

const char* LaunchGpuFused(GpuStream s, const GpuFusedProgram& program, float* out, int64_t n) {
  if (n == 0) return nullptr;
  if (const char* error = UseDevice(s)) return error;
  FusedKernel<<<GridBlocks(n), kGridThreads, 0, s.stream>>>(program, out, n);
  return LaunchError();
}

const char* LaunchGpuSelect(GpuStream s, const GpuBroadcast& shape, const bool* cond,
                            const float* t, const float* e, float* out, int64_t n) {
  if (n == 0) return nullptr;
  if (const char* error = UseDevice(s)) return error;
  return Broadcast<3>(s, shape, SelectElement{cond, t, e, out}, n);
}

}  // namespace math
}  // namespace tensord
