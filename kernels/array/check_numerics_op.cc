// CheckNumerics: forwards its input, or fails naming what it found when any value is NaN or Inf.
#include <cmath>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"

namespace tensord {
namespace {

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("message", &message_);
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    const T* data = x.data<T>();
    bool has_nan = false;
    bool has_inf = false;
    for (int64_t i = 0, n = x.NumElements(); i < n; ++i) {
      const auto v =
          static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(data[i]);
      has_nan |= std::isnan(v);
      has_inf |= std::isinf(v);
    }
    if (has_nan || has_inf) {
      const char* what = has_nan && has_inf ? "Inf and NaN" : has_inf ? "Inf" : "NaN";
      return c->InvalidArgument(absl::StrCat(message_, " : Tensor had ", what, " values"));
    }
    c->set_output(0, x);
    return absl::OkStatus();
  }

 private:
  std::string message_;
};

#define REGISTER(T)                                                                 \
  TENSORD_REGISTER_KERNEL(                                                          \
      array::CpuDef("CheckNumerics").TypeConstraint("T", DataTypeToEnum<T>::value), \
      CheckNumericsOp<T>)
REGISTER(float);
REGISTER(double);
REGISTER(Eigen::half);
REGISTER(Eigen::bfloat16);
#undef REGISTER

}  // namespace
}  // namespace tensord
