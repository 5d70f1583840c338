// Launchers of the GPU reduction kernels (float), in plain C++: reduction_gpu.cu.cc (nvcc)
// implements them, the OpKernels of reduction_ops_gpu.cc and argminmax_op_gpu.cc (gcc) call
// them. Each makes `stream.ordinal` the calling thread's device, queues one kernel on
// `stream.stream` and returns null, or CUDA's text for the error that stopped the launch.
// Pointers are device memory.
#ifndef TENSORD_KERNELS_MATH_REDUCTION_GPU_H_
#define TENSORD_KERNELS_MATH_REDUCTION_GPU_H_

#include <cstdint>

#include "runtime/framework/gpu_stream.h"

namespace tensord {
namespace math {

// Sum, Mean, Prod, Max, Min and EuclideanNorm: as the CPU kernels, Max/Min propagate NaN and
// an empty reduction gives the identity (0, NaN for Mean, 1, -inf, +inf, 0).
enum class GpuReduceFn { kSum, kMean, kProd, kMax, kMin, kEuclideanNorm };

// Output element o folds the input elements at kept_offset(o) + reduced_offset(r) for
// r < count, where each offset decomposes its index over the axes' sizes (outermost first)
// and sums index * stride: ReductionShape's groups, kept and reduced ones apart.
struct GpuReduceLayout {
  static constexpr int kMaxRank = 8;
  int kept_rank = 0;
  int64_t kept_sizes[kMaxRank] = {};
  int64_t kept_strides[kMaxRank] = {};
  int reduced_rank = 0;
  int64_t reduced_sizes[kMaxRank] = {};
  int64_t reduced_strides[kMaxRank] = {};
  int64_t outputs = 0;  // product of kept_sizes
  int64_t count = 0;    // product of reduced_sizes
  // The innermost input axis is reduced: neighbouring elements of a reduction are adjacent.
  bool innermost_reduced = false;
};

const char* LaunchGpuReduce(GpuStream stream, GpuReduceFn fn, const GpuReduceLayout& layout,
                            const float* in, float* out);

// ArgMax (`max`) or ArgMin over the middle axis of in[outer, size, inner] into
// out[outer, inner] as int32 or int64 (`out64`), with the CPU kernel's rule: the lowest index
// of the best value strictly better than the lowest (highest) float, else 0; NaN never wins.
const char* LaunchGpuArgReduce(GpuStream stream, bool max, int64_t outer, int64_t size,
                               int64_t inner, const float* in, void* out, bool out64);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_REDUCTION_GPU_H_
