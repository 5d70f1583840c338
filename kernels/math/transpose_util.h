// Strided copies: out[i0, ..., in-1] = in[i0 * s0 + ... + in-1 * sn-1] for arbitrary element
// strides s (in elements). Transposes, diagonals (summed strides) and broadcasts (stride 0) are
// all instances. Works on raw element bytes, so one compiled routine serves every dtype with a
// trivially copyable element.
#ifndef TENSORD_KERNELS_MATH_TRANSPOSE_UTIL_H_
#define TENSORD_KERNELS_MATH_TRANSPOSE_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "runtime/framework/tensor_eigen.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {
namespace math {

void StridedCopy(const Eigen::ThreadPoolDevice& device, const void* in,
                 const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_strides,
                 int element_size, void* out);

// Row-major element strides of a dense tensor with `dims`.
std::vector<int64_t> DenseStrides(absl::Span<const int64_t> dims);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_TRANSPOSE_UTIL_H_
