#include "kernels/math/transpose_util.h"

#include <algorithm>
#include <cstring>

#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace math {
namespace {

template <typename E>
void CopyRuns(const Eigen::ThreadPoolDevice& device, const E* in, const std::vector<int64_t>& dims,
              const std::vector<int64_t>& strides, E* out) {
  const int rank = static_cast<int>(dims.size());
  const int64_t inner = dims.back();
  const int64_t inner_stride = strides.back();
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  ParallelFor(device, total, Eigen::TensorOpCost(sizeof(E), sizeof(E), 1),
              [&](Eigen::Index begin, Eigen::Index end) {
                int64_t row = begin / inner;
                int64_t col = begin % inner;
                while (begin < end) {
                  const int64_t n = std::min<int64_t>(inner - col, end - begin);
                  int64_t offset = col * inner_stride;
                  int64_t rest = row;
                  for (int d = rank - 2; d >= 0 && rest > 0; --d) {
                    offset += (rest % dims[d]) * strides[d];
                    rest /= dims[d];
                  }
                  const E* src = in + offset;
                  E* dst = out + begin;
                  if (inner_stride == 1) {
                    std::memcpy(dst, src, n * sizeof(E));
                  } else {
                    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * inner_stride];
                  }
                  begin += n;
                  ++row;
                  col = 0;
                }
              });
}

struct Bytes16 {
  char bytes[16];
};

}  // namespace

std::vector<int64_t> DenseStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= dims[i];
  }
  return strides;
}

void StridedCopy(const Eigen::ThreadPoolDevice& device, const void* in,
                 const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_strides,
                 int element_size, void* out) {
  // Drop size-1 dims and merge dims that are already contiguous with their inner neighbour.
  std::vector<int64_t> dims, strides;
  for (size_t i = 0; i < out_dims.size(); ++i) {
    if (out_dims[i] == 0) return;
    if (out_dims[i] == 1) continue;
    if (!dims.empty() && strides.back() == in_strides[i] * out_dims[i]) {
      dims.back() *= out_dims[i];
      strides.back() = in_strides[i];
    } else {
      dims.push_back(out_dims[i]);
      strides.push_back(in_strides[i]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    strides.push_back(1);
  }
  switch (element_size) {
    case 1:
      return CopyRuns(device, static_cast<const uint8_t*>(in), dims, strides,
                      static_cast<uint8_t*>(out));
    case 2:
      return CopyRuns(device, static_cast<const uint16_t*>(in), dims, strides,
                      static_cast<uint16_t*>(out));
    case 4:
      return CopyRuns(device, static_cast<const uint32_t*>(in), dims, strides,
                      static_cast<uint32_t*>(out));
    case 8:
      return CopyRuns(device, static_cast<const uint64_t*>(in), dims, strides,
                      static_cast<uint64_t*>(out));
    case 16:
      return CopyRuns(device, static_cast<const Bytes16*>(in), dims, strides,
                      static_cast<Bytes16*>(out));
    default:
      break;
  }
}

}  // namespace math
}  // namespace tensord
