// Launcher of the GPU Softmax/LogSoftmax kernel (float), in plain C++ for nvcc and gcc alike.
// Contract as kernels/math/cwise_gpu.h: queues one kernel on `stream`, returns null or CUDA's
// error text.
#ifndef TENSORD_KERNELS_NN_SOFTMAX_GPU_H_
#define TENSORD_KERNELS_NN_SOFTMAX_GPU_H_

#include <cstdint>

#include "runtime/framework/gpu_stream.h"

namespace tensord {

// y[r, :] = softmax(x[r, :]) (log_softmax when `log`) for each of `rows` rows of `cols` values,
// shifted by the row's maximum like the CPU kernel.
const char* LaunchGpuSoftmax(GpuStream stream, bool log, const float* x, float* y, int64_t rows,
                             int64_t cols);

}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_SOFTMAX_GPU_H_
