#include "kernels/control_flow/predicate.h"

#include "absl/strings/str_cat.h"
#include "runtime/framework/dispatch_numeric.h"

namespace tensord {

absl::StatusOr<bool> PredicateValue(const Tensor& t) {
  if (t.memory_space() != MemorySpace::kHost) {
    return absl::InvalidArgumentError("a predicate must be in host memory");
  }
  if (t.dims() > 0) return t.NumElements() > 0;
  if (t.dtype() == DT_STRING) return !t.scalar<std::string>().empty();
  bool value = false;
  const bool numeric = DispatchNumeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    value = t.scalar<T>() != T(0);
  });
  if (!numeric) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", DataTypeString(t.dtype()), " tensor has no truth value"));
  }
  return value;
}

}  // namespace tensord
