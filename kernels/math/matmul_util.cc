#include "kernels/math/matmul_util.h"

#include <algorithm>
#include <type_traits>

#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace math {

template <typename T>
void MatMulRows(const MatMulDims& dims, int64_t begin, int64_t end, const T* a, const T* b, T* c) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Strided = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
  const int64_t rows = end - begin;
  if (rows <= 0 || dims.n == 0) return;
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

template <typename T>
void MatMulSingleThread(const MatMulDims& dims, const T* a, const T* b, T* c) {
  MatMulRows(dims, 0, dims.m, a, b, c);
}

template <typename T>
void MatMulThreaded(const Eigen::ThreadPoolDevice& device, const MatMulDims& dims, const T* a,
                    const T* b, T* c) {
  if constexpr (!std::is_same_v<T, float>) {
    MatMulSingleThread(dims, a, b, c);
    return;
  }
  if (dims.m == 0 || dims.n == 0) return;
  // Output rows split over the threads (the caller's included), each share one GEMM.
  const Eigen::TensorOpCost row_cost(dims.k * sizeof(T), dims.n * sizeof(T), 2.0 * dims.k * dims.n);
  ParallelFor(device, dims.m, row_cost,
              [&](Eigen::Index begin, Eigen::Index end) { MatMulRows(dims, begin, end, a, b, c); });
}

template <typename T>
void BatchMatMul(const Eigen::ThreadPoolDevice& device, const MatMulDims& dims, const T* x,
                 const T* y, T* out, const std::vector<int64_t>& x_batch,
                 const std::vector<int64_t>& y_batch) {
  const int64_t batches = static_cast<int64_t>(x_batch.size());
  const int64_t x_size = dims.m * dims.k;
  const int64_t y_size = dims.k * dims.n;
  const int64_t out_size = dims.m * dims.n;
  // Products this large are worth parallelising individually when batches are few.
  constexpr int64_t kLargeProduct = 64 * 64 * 64;
  const bool large = dims.m * dims.k * dims.n >= kLargeProduct;
  if (batches == 1 || (large && batches < device.numThreads())) {
    for (int64_t i = 0; i < batches; ++i) {
      MatMulThreaded(device, dims, x + x_batch[i] * x_size, y + y_batch[i] * y_size,
                     out + i * out_size);
    }
    return;
  }
  const Eigen::TensorOpCost cost((x_size + y_size) * sizeof(T), out_size * sizeof(T),
                                 2.0 * dims.m * dims.k * dims.n);
  ParallelFor(device, batches, cost, [&](Eigen::Index begin, Eigen::Index end) {
    for (Eigen::Index i = begin; i < end; ++i) {
      MatMulSingleThread(dims, x + x_batch[i] * x_size, y + y_batch[i] * y_size,
                         out + i * out_size);
    }
  });
}

std::optional<BatchBroadcast> BroadcastBatches(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  auto dim = [rank](const TensorShape& s, int i) -> int64_t {
    const int offset = rank - s.dims();
    return i < offset ? 1 : s.dim_size(i - offset);
  };
  BatchBroadcast result;
  for (int i = 0; i < rank; ++i) {
    const int64_t dx = dim(x, i);
    const int64_t dy = dim(y, i);
    if (dx != dy && dx != 1 && dy != 1) return std::nullopt;
    result.shape.AddDim(dx == 1 ? dy : dx);
  }
  const int64_t total = result.shape.num_elements();
  result.x_index.resize(total);
  result.y_index.resize(total);
  std::vector<int64_t> coord(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t xi = 0, yi = 0;
    for (int d = 0; d < rank; ++d) {
      xi = xi * dim(x, d) + (dim(x, d) == 1 ? 0 : coord[d]);
      yi = yi * dim(y, d) + (dim(y, d) == 1 ? 0 : coord[d]);
    }
    result.x_index[i] = xi;
    result.y_index[i] = yi;
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < result.shape.dim_size(d)) break;
      coord[d] = 0;
    }
  }
  return result;
}

#define TENSORD_INSTANTIATE_MATMUL(T)                                                          \
  template void MatMulRows<T>(const MatMulDims&, int64_t, int64_t, const T*, const T*, T*);    \
  template void MatMulSingleThread<T>(const MatMulDims&, const T*, const T*, T*);              \
  template void MatMulThreaded<T>(const Eigen::ThreadPoolDevice&, const MatMulDims&, const T*, \
                                  const T*, T*);                                               \
  template void BatchMatMul<T>(const Eigen::ThreadPoolDevice&, const MatMulDims&, const T*,    \
                               const T*, T*, const std::vector<int64_t>&,                      \
                               const std::vector<int64_t>&)
TENSORD_INSTANTIATE_MATMUL(float);
TENSORD_INSTANTIATE_MATMUL(double);
TENSORD_INSTANTIATE_MATMUL(int32_t);
#undef TENSORD_INSTANTIATE_MATMUL

}  // namespace math
}  // namespace tensord
