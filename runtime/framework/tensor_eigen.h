// Eigen views of a Tensor's elements: TTypes and the bodies of Tensor::flat, tensor and
// matrix_split_at. Include this (not only tensor.h) where a file computes through Eigen.
#ifndef TENSORD_RUNTIME_FRAMEWORK_TENSOR_EIGEN_H_
#define TENSORD_RUNTIME_FRAMEWORK_TENSOR_EIGEN_H_

#include <cstdint>

#include "runtime/framework/tensor.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {

// Row-major and unaligned, because slices may start anywhere in a buffer.
template <typename T, int NDIMS>
struct TTypes {
  using Tensor = Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>>;
  using ConstTensor =
      Eigen::TensorMap<Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, Eigen::DenseIndex>>;
  using Flat = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;
  using ConstFlat = Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, Eigen::DenseIndex>>;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
  using ConstMatrix =
      Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, Eigen::DenseIndex>>;
};

template <typename T>
typename TTypes<T>::Flat Tensor::flat() const {
  return typename TTypes<T>::Flat(data<T>(), NumElements());
}

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::tensor() const {
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> dims;
  for (int i = 0; i < NDIMS; ++i) dims[i] = shape().dim_size(i);
  return typename TTypes<T, NDIMS>::Tensor(data<T>(), dims);
}

template <typename T>
typename TTypes<T>::Matrix Tensor::matrix_split_at(int split_dim) const {
  int64_t outer = 1;
  for (int i = 0; i < split_dim; ++i) outer *= shape().dim_size(i);
  int64_t inner = outer == 0 ? 0 : NumElements() / outer;
  return typename TTypes<T>::Matrix(data<T>(), outer, inner);
}

}  // namespace tensord

#endif  // TENSORD_RUNTIME_FRAMEWORK_TENSOR_EIGEN_H_
