// MatMulThreaded: Eigen tensor contraction on the thread pool, instantiated for float only (each
// instantiation costs tens of seconds of compile time); double and int32 products use the
// single-thread GEMM. Kept apart from matmul_util.cc so the two compile in parallel.
#include <algorithm>
#include <type_traits>

#include "kernels/math/matmul_util.h"

namespace tensord {
namespace math {

namespace {

void ContractOnPool(const Eigen::ThreadPoolDevice& device, const MatMulDims& dims, const float* a,
                    const float* b, float* c) {
  if (dims.m == 0 || dims.n == 0) return;
  if (dims.k == 0) {
    std::fill(c, c + dims.m * dims.n, 0.0f);
    return;
  }
  using ConstMatrix =
      Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
  ConstMatrix lhs(a, dims.transpose_a ? dims.k : dims.m, dims.transpose_a ? dims.m : dims.k);
  ConstMatrix rhs(b, dims.transpose_b ? dims.n : dims.k, dims.transpose_b ? dims.k : dims.n);
  Matrix out(c, dims.m, dims.n);
  // Contract lhs's k dim with rhs's k dim; the transposes only change which dims those are.
  const Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> contract = {
      Eigen::IndexPair<Eigen::DenseIndex>(dims.transpose_a ? 0 : 1, dims.transpose_b ? 1 : 0)};
  out.device(device) = lhs.contract(rhs, contract);
}

}  // namespace

template <typename T>
void MatMulThreaded(const Eigen::ThreadPoolDevice& device, const MatMulDims& dims, const T* a,
                    const T* b, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    ContractOnPool(device, dims, a, b, c);
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
