// Launchers of the GPU elementwise kernels (float), in plain C++: the .cu.cc file that nvcc
// compiles includes this, and the OpKernels that call it (cwise_gpu_op.h) are compiled by gcc.
//
// Each launcher makes `stream.ordinal` the calling thread's device, queues one kernel on
// `stream.stream` and returns null, or CUDA's text for the error that stopped the launch.
// Pointers are device memory; the kernel reads them after the launcher returns.
#ifndef TENSORD_KERNELS_MATH_CWISE_GPU_H_
#define TENSORD_KERNELS_MATH_CWISE_GPU_H_

#include <cstdint>

#include "runtime/framework/gpu_stream.h"

namespace tensord {
namespace math {

// y = f(x). kLeakyRelu reads `alpha`.
enum class GpuUnaryFn {
  kAbs, kCeil, kCos, kElu, kErf, kErfc, kExp, kExpm1, kFloor, kLeakyRelu, kLog, kLog1p, kNeg,
  kReciprocal, kRelu, kRelu6, kRint, kRsqrt, kSelu, kSigmoid, kSin, kSoftplus, kSqrt, kSquare,
  kTanh,
};

// out = f(x, y).
enum class GpuBinaryFn {
  kAdd, kDiv, kDivNoNan, kMaximum, kMinimum, kMul, kMulNoNan, kPow, kSquaredDifference, kSub,
};

// The iteration space of a broadcast with its operands' element strides (0 where an operand
// repeats), outermost dim first: BroadcastPlan's collapsed form.
struct GpuBroadcast {
  static constexpr int kMaxRank = 6;
  int rank = 1;
  int64_t dims[kMaxRank] = {};
  int64_t x_strides[kMaxRank] = {};
  int64_t y_strides[kMaxRank] = {};
};

const char* LaunchGpuUnary(GpuStream stream, GpuUnaryFn fn, float alpha, const float* x,
                           float* y, int64_t n);

// `num_elements` is the product of `shape.dims`; a no-op when zero.
const char* LaunchGpuBinary(GpuStream stream, GpuBinaryFn fn, const GpuBroadcast& shape,
                            const float* x, const float* y, float* out, int64_t num_elements);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_CWISE_GPU_H_
