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

// out = f(x, y) as a bool: comparisons of floats, and logical and/or of bools.
enum class GpuCompareFn { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };
enum class GpuLogicalFn { kAnd, kOr };

// The iteration space of a broadcast with its operands' element strides (0 where an operand
// repeats), outermost dim first: BroadcastPlan's collapsed form. Operands are numbered as the
// launcher's pointer arguments (x, y; or cond, t, e); strides of unused operands stay 0.
struct GpuBroadcast {
  static constexpr int kMaxRank = 6;
  static constexpr int kMaxOperands = 3;  // Select's
  int rank = 1;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kMaxOperands][kMaxRank] = {};
};

const char* LaunchGpuUnary(GpuStream stream, GpuUnaryFn fn, float alpha, const float* x,
                           float* y, int64_t n);

// `num_elements` is the product of `shape.dims`; a no-op when zero.
const char* LaunchGpuBinary(GpuStream stream, GpuBinaryFn fn, const GpuBroadcast& shape,
                            const float* x, const float* y, float* out, int64_t num_elements);

// Broadcasting predicates; `num_elements` as for LaunchGpuBinary.
const char* LaunchGpuCompare(GpuStream stream, GpuCompareFn fn, const GpuBroadcast& shape,
                             const float* x, const float* y, bool* out, int64_t num_elements);
const char* LaunchGpuLogical(GpuStream stream, GpuLogicalFn fn, const GpuBroadcast& shape,
                             const bool* x, const bool* y, bool* out, int64_t num_elements);
// y = !x element by element (y may be x).
const char* LaunchGpuLogicalNot(GpuStream stream, const bool* x, bool* y, int64_t n);

// A _FusedElementwise group as its GPU kernel runs it: for each output element, the inputs at
// their broadcast offsets, then each step in order on inputs or earlier results (operand
// k < num_inputs: input k, else the result of step k - num_inputs); the last step's result is
// the element. Steps use the functions the fusion pass groups: Neg, Abs, Square, Exp, Log,
// Sqrt, Sigmoid, Tanh, Erf, Relu; Add, Sub, Mul, Div, Maximum, Minimum.
struct GpuFusedProgram {
  static constexpr int kMaxSteps = 16;
  static constexpr int kMaxInputs = kMaxSteps + 1;
  int num_steps = 0;
  int num_inputs = 0;
  bool unary[kMaxSteps] = {};
  GpuUnaryFn unary_fn[kMaxSteps] = {};
  GpuBinaryFn binary_fn[kMaxSteps] = {};
  int operands[kMaxSteps][2] = {};
  const float* inputs[kMaxInputs] = {};
  // The broadcast, outermost dim first, with each input's element strides.
  int rank = 1;
  int64_t dims[GpuBroadcast::kMaxRank] = {};
  int64_t strides[kMaxInputs][GpuBroadcast::kMaxRank] = {};
};

// `num_elements` is the product of `program.dims`; a no-op when zero.
const char* LaunchGpuFused(GpuStream stream, const GpuFusedProgram& program, float* out,
                           int64_t num_elements);

// out = cond ? t : e, the three operands broadcast by `shape`; `num_elements` as above.
const char* LaunchGpuSelect(GpuStream stream, const GpuBroadcast& shape, const bool* cond,
                            const float* t, const float* e, float* out, int64_t num_elements);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_CWISE_GPU_H_
