// Launcher of the GPU Cast kernel, in plain C++ for nvcc and gcc alike. Contract as
// cwise_gpu.h: makes `stream.ordinal` current, queues one kernel on `stream.stream` and returns
// null, or CUDA's text for the error that stopped the launch.
#ifndef TENSORD_KERNELS_MATH_CAST_GPU_H_
#define TENSORD_KERNELS_MATH_CAST_GPU_H_

#include <cstdint>

#include "runtime/framework/gpu_stream.h"

namespace tensord {
namespace math {

// The dtypes the GPU Cast converts between (bool is one byte, 0 or 1, as in host tensors).
enum class GpuCastType { kBool, kFloat, kInt32, kInt64 };

// y[i] = x[i] converted from `src` to `dst` for i < n, as the CPU Cast converts (cast_op.cc):
// float -> int truncates toward zero, with NaN and values out of the destination's range giving
// its lowest value; anything -> bool is x != 0; bool -> number is 0 or 1; int64 -> int32 keeps
// the low 32 bits; int -> float rounds to nearest even. A no-op when n is zero.
const char* LaunchGpuCast(GpuStream stream, GpuCastType src, GpuCastType dst, const void* x,
                          void* y, int64_t n);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_CAST_GPU_H_
