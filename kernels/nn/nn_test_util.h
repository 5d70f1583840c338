// Helpers shared by the kernels/nn tests: deterministic pseudo-random float tensors.
#ifndef TENSORD_KERNELS_NN_NN_TEST_UTIL_H_
#define TENSORD_KERNELS_NN_NN_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include "runtime/framework/tensor.h"

namespace tensord {
namespace testing {

// Values uniform in [-1, 1) from a fixed linear congruential sequence seeded by `seed`.
inline Tensor RandomFloatTensor(const std::vector<int64_t>& dims, uint32_t seed) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  uint32_t state = seed * 2654435761u + 1;
  float* data = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    state = state * 1664525u + 1013904223u;
    data[i] = static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return t;
}

}  // namespace testing
}  // namespace tensord

#endif  // TENSORD_KERNELS_NN_NN_TEST_UTIL_H_
