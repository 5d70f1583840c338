// How TensorFlow's If and While read a predicate tensor: a scalar is true when non-zero (a
// string when non-empty); any other tensor is true when it has elements.
#ifndef TENSORD_KERNELS_CONTROL_FLOW_PREDICATE_H_
#define TENSORD_KERNELS_CONTROL_FLOW_PREDICATE_H_

#include "absl/status/statusor.h"
#include "runtime/framework/tensor.h"

namespace tensord {

// INVALID_ARGUMENT for dtypes without a truth value (resource, variant) or device memory.
absl::StatusOr<bool> PredicateValue(const Tensor& t);

}  // namespace tensord

#endif  // TENSORD_KERNELS_CONTROL_FLOW_PREDICATE_H_
