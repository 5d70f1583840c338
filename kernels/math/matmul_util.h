// Matrix products for MatMul, BatchMatMul* and Einsum on row-major buffers.
//
// Instantiated for float, double and int32 only (the heavy Eigen GEMM templates live in
// matmul_util.cc so they compile once, in parallel with everything else).
#ifndef TENSORD_KERNELS_MATH_MATMUL_UTIL_H_
#define TENSORD_KERNELS_MATH_MATMUL_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/framework/tensor_eigen.h"
#include "runtime/framework/tensor_shape.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {
namespace math {

// Dimensions of C[m, n] = op(A) · op(B) where op(A) is [m, k] and op(B) is [k, n]. A is stored
// [m, k], or [k, m] when transpose_a; B is [k, n], or [n, k] when transpose_b.
struct MatMulDims {
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;
  bool transpose_a = false;
  bool transpose_b = false;
};

// One product parallelised over the device's threads (output rows split, each share a
// single-thread Eigen GEMM). Only float is parallelised; other types run on this thread.
template <typename T>
void MatMulThreaded(const Eigen::ThreadPoolDevice& device, const MatMulDims& dims, const T* a,
                    const T* b, T* c);

// One product on the calling thread (Eigen's dense GEMM).
template <typename T>
void MatMulSingleThread(const MatMulDims& dims, const T* a, const T* b, T* c);

// Rows [begin, end) of C of one product, on the calling thread.
template <typename T>
void MatMulRows(const MatMulDims& dims, int64_t begin, int64_t end, const T* a, const T* b, T* c);

// out[i] = op(x[x_batch[i]]) · op(y[y_batch[i]]) for every i, where x holds [m, k] (or [k, m])
// matrices back to back, y likewise, and out receives [m, n] matrices. Small products are
// spread over threads one per batch entry; large ones are each parallelised.
template <typename T>
void BatchMatMul(const Eigen::ThreadPoolDevice& device, const MatMulDims& dims, const T* x,
                 const T* y, T* out, const std::vector<int64_t>& x_batch,
                 const std::vector<int64_t>& y_batch);

// NumPy broadcast of two batch shapes: the output batch shape and, for each output batch entry
// (row-major), the flat batch index into x and into y. nullopt when they do not broadcast.
struct BatchBroadcast {
  TensorShape shape;
  std::vector<int64_t> x_index;
  std::vector<int64_t> y_index;
};
std::optional<BatchBroadcast> BroadcastBatches(const TensorShape& x, const TensorShape& y);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_MATMUL_UTIL_H_
