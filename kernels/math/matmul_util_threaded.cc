// MatMulThreaded: the product's output rows split over the device's threads (ParallelFor, the
// caller included), each share one single-thread Eigen GEMM; float only, double and int32
// products run on the calling thread. Kept apart from matmul_util.cc so the two compile in
// parallel.
#include <type_traits>

#include "Eigen/Core"
#include "kernels/math/matmul_util.h"
#include "runtime/framework/parallel_for.h"

namespace tensord {
namespace math {

namespace {

// Rows [begin, end) of C = op(A) · op(B), on this thread.
void ProductRows(const MatMulDims& dims, Eigen::Index begin, Eigen::Index end, const float* a,
                 const float* b, float* c) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Strided = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
  const Eigen::Index rows = end - begin;
  Eigen::Map<Matrix> out(c + begin * dims.n, rows, dims.n);
  if (dims.k == 0) {
    out.setZero();
    return;
  }
  // op(A)'s rows: rows of the stored [m, k] A, or columns of the stored [k, m] one.
  const Strided lhs = dims.transpose_a
                          ? Strided(a + begin, dims.k, rows, Eigen::OuterStride<>(dims.m))
                          : Strided(a + begin * dims.k, rows, dims.k, Eigen::OuterStride<>(dims.k));
  Eigen::Map<const Matrix> rhs(b, dims.transpose_b ? dims.n : dims.k,
                               dims.transpose_b ? dims.k : dims.n);
  if (dims.transpose_a && dims.transpose_b) {
    out.noalias() = lhs.transpose() * rhs.transpose();
  } else if (dims.transpose_a) {
    out.noalias() = lhs.transpose() * rhs;
  } else if (dims.transpose_b) {
    out.noalias() = lhs * rhs.transpose();
  } else {
    out.noalias() = lhs * rhs;
  }
}

}  // namespace

template <typename T>
void MatMulThreaded(const Eigen::ThreadPoolDevice& device, const MatMulDims& dims, const T* a,
                    const T* b, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    if (dims.m == 0 || dims.n == 0) return;
    const Eigen::TensorOpCost row_cost(dims.k * sizeof(float), dims.n * sizeof(float),
                                       2.0 * dims.k * dims.n);
    ParallelFor(device, dims.m, row_cost, [&](Eigen::Index begin, Eigen::Index end) {
      ProductRows(dims, begin, end, a, b, c);
    });
  } else {
    MatMulSingleThread(dims, a, b, c);
  }
}

template void MatMulThreaded<float>(const Eigen::ThreadPoolDevice&, const MatMulDims&, const float*,
                                    const float*, float*);
template void MatMulThreaded<double>(const Eigen::ThreadPoolDevice&, const MatMulDims&,
                                     const double*, const double*, double*);
template void MatMulThreaded<int32_t>(const Eigen::ThreadPoolDevice&, const MatMulDims&,
                                      const int32_t*, const int32_t*, int32_t*);

}  // namespace math
}  // namespace tensord
