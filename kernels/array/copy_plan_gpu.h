// Launchers of the GPU copy engine behind copy_plan.h, in plain C++: the .cu.cc file that nvcc
// compiles includes this, and copy_plan_gpu_op.cc (gcc) calls it.
//
// A copy is the merged loops of a CopyPlan (MergedLoops): for output element n, its index
// tuple over `sizes` (outermost first) gives the source offset src_base + sum of each axis's
// i * src_stride, or its table entry, and the destination offset dst_base + sum of
// i * dst_stride. Elements are moved as opaque words of `element_bytes` (1, 2, 4, 8 or 16), so
// one kernel per size serves every dtype. Each launcher makes `stream.ordinal` the calling
// thread's device, queues one kernel on `stream.stream` and returns null, or CUDA's text for
// the error that stopped the launch.
#ifndef TENSORD_KERNELS_ARRAY_COPY_PLAN_GPU_H_
#define TENSORD_KERNELS_ARRAY_COPY_PLAN_GPU_H_

#include <cstdint>

#include "runtime/framework/gpu_stream.h"

namespace tensord {
namespace array {

struct GpuCopyLoops {
  static constexpr int kMaxRank = 8;
  int rank = 0;
  int64_t sizes[kMaxRank] = {};
  int64_t src_strides[kMaxRank] = {};
  int64_t dst_strides[kMaxRank] = {};
  // Where axis k's source offsets start in the launch's `tables`, or -1 for an affine axis.
  int64_t table_start[kMaxRank] = {};
  int64_t src_base = 0;
  int64_t dst_base = 0;
};

// `tables` is device memory holding the tabled axes' offsets (null when none is tabled);
// `num_elements` is the product of `loops.sizes`.
const char* LaunchGpuCopy(GpuStream stream, const GpuCopyLoops& loops, const int64_t* tables,
                          const void* src, void* dst, int element_bytes, int64_t num_elements);

// Every element of `dst` set to the `element_bytes` bytes at `value` (host memory, read before
// this returns).
const char* LaunchGpuFill(GpuStream stream, const void* value, int element_bytes, void* dst,
                          int64_t num_elements);

}  // namespace array
}  // namespace tensord

#endif  // TENSORD_KERNELS_ARRAY_COPY_PLAN_GPU_H_
