// Single-precision matrix products on a GPU device's compute stream, through cuBLAS.
//
// cuBLAS is opened at the first product (dlopen of libcublas.so.13, .so.12, .so, then
// /usr/local/cuda/lib64/libcublas.so.13), not linked: a binary starts where it is not
// installed, and a model that needs it on a GPU fails with an error naming the library (run
// such a model with device policy cpu). One cuBLAS handle
// per device, created on first use, in its default math mode: full fp32, no TF32, so GPU results
// stay within the CPU kernels' tolerances. Thread-safe (calls on one device are serialised
// while they queue their work, which is quick).
//
// CUDA builds only (//runtime/framework:gpu_blas is empty without CUDA).
#ifndef TENSORD_RUNTIME_FRAMEWORK_GPU_BLAS_H_
#define TENSORD_RUNTIME_FRAMEWORK_GPU_BLAS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "runtime/framework/gpu_device.h"

namespace tensord {

// batch products C_i[m, n] = op(A_i) · op(B_i) of row-major matrices in device memory, where
// op(A_i) is [m, k] (A_i stored [k, m] when transpose_a), op(B_i) is [k, n] (stored [n, k]
// when transpose_b), and X_i starts stride_x elements after X_{i-1} (stride 0: one matrix for
// all). With accumulate, C_i += the product.
struct GpuGemm {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool transpose_a = false;
  bool transpose_b = false;
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int64_t batch = 1;
  int64_t stride_a = 0;
  int64_t stride_b = 0;
  int64_t stride_c = 0;
  bool accumulate = false;
};

// Queues `gemm` on device's compute stream. InvalidArgument where a dimension exceeds cuBLAS's
// 32-bit sizes, FailedPrecondition where cuBLAS cannot be loaded, Internal for cuBLAS's errors.
absl::Status GpuSgemm(GpuDevice& device, const GpuGemm& gemm);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_GPU_BLAS_H_
