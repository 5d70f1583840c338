// Range(start, limit, delta) -> [start, start + delta, ...) up to (excluding) limit.
// Element i is start + i * delta, computed in the output type as TensorFlow does.
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    static const char* const kNames[] = {"start", "limit", "delta"};
    T values[3];
    for (int i = 0; i < 3; ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DataTypeToEnum<T>::value));
      const Tensor& t = c->input(i);
      if (t.NumElements() != 1 || t.dims() > 1) {
        return c->InvalidArgument(
            absl::StrCat(kNames[i], " must be a scalar, not shape ", t.shape().DebugString()));
      }
      values[i] = *t.data<T>();
    }
    const T start = values[0], limit = values[1], delta = values[2];
    if (delta == T(0)) {
      return c->InvalidArgument(absl::StrCat("Requires delta != 0: ", delta));
    }
    if (delta > T(0) && start > limit) {
      return c->InvalidArgument(
          absl::StrCat("Requires start <= limit when delta > 0: ", start, "/", limit));
    }
    if (delta < T(0) && start < limit) {
      return c->InvalidArgument(
          absl::StrCat("Requires start >= limit when delta < 0: ", start, "/", limit));
    }
    int64_t size;
    if constexpr (std::is_integral_v<T>) {
      // Unsigned, so |limit - start| and |delta| cannot overflow for any int64 inputs.
      const uint64_t span = start <= limit
                                ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
      const uint64_t step =
          delta > 0 ? static_cast<uint64_t>(delta) : uint64_t{0} - static_cast<uint64_t>(delta);
      const uint64_t count = span / step + (span % step != 0 ? 1 : 0);
      if (count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return c->InvalidArgument("Requires ((limit - start) / delta) <= int64 max");
      }
      size = static_cast<int64_t>(count);
    } else {
      const T count = std::ceil(std::abs((limit - start) / delta));
      if (!(count < static_cast<T>(std::numeric_limits<int64_t>::max()))) {
        return c->InvalidArgument("Requires ((limit - start) / delta) <= int64 max");
      }
      size = static_cast<int64_t>(count);
    }
    Tensor* out = c->allocate_output(0, DataTypeToEnum<T>::value, TensorShape{size});
    T* o = out->data<T>();
    for (int64_t i = 0; i < size; ++i) o[i] = start + static_cast<T>(i) * delta;
    return absl::OkStatus();
  }
};

#define REGISTER_RANGE(T)                                                       \
  TENSORD_REGISTER_KERNEL(KernelDef("Range")                                    \
                              .Device(DeviceType::kCpu)                         \
                              .TypeConstraint("Tidx", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(0)                               \
                              .HostMemoryInput(1)                               \
                              .HostMemoryInput(2),                              \
                          RangeOp<T>)

REGISTER_RANGE(float);
REGISTER_RANGE(double);
REGISTER_RANGE(int32_t);
REGISTER_RANGE(int64_t);
#undef REGISTER_RANGE

}  // namespace
}  // namespace math
}  // namespace tensord
