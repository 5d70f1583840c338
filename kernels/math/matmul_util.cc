#include "kernels/math/matmul_util.h"

#include <algorithm>

#include "runtime/framework/parallel_for.h"

namespace tensord {
namespace math {

template <typename T>
void MatMulSingleThread(const MatMulDims& dims, const T* a, const T* b, T* c) {
  if (dims.m == 0 || dims.n == 0) return;
  using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<RowMajor> out(c, dims.m, dims.n);
  if (dims.k == 0) {
    out.setZero();
    return;
  }
  Eigen::Map<const RowMajor> lhs(a, dims.transpose_a ? dims.k : dims.m,
                                 dims.transpose_a ? dims.m : dims.k);
  Eigen::Map<const RowMajor> rhs(b, dims.transpose_b ? dims.n : dims.k,
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

#define TENSORD_INSTANTIATE_MATMUL(T)                                                       \
  template void MatMulSingleThread<T>(const MatMulDims&, const T*, const T*, T*);           \
  template void BatchMatMul<T>(const Eigen::ThreadPoolDevice&, const MatMulDims&, const T*, \
                               const T*, T*, const std::vector<int64_t>&,                   \
                               const std::vector<int64_t>&)
TENSORD_INSTANTIATE_MATMUL(float);
TENSORD_INSTANTIATE_MATMUL(double);
TENSORD_INSTANTIATE_MATMUL(int32_t);
#undef TENSORD_INSTANTIATE_MATMUL

}  // namespace math
}  // namespace tensord
