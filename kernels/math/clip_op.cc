// ClipByValue(t, clip_value_min, clip_value_max) = max(min(t, max), min), where each bound is a
// scalar or has t's shape. NaN in t stays NaN; a NaN bound leaves t unchanged, and when
// min > max every element becomes min, as in TensorFlow.
#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  explicit ClipByValueOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    for (int i = 0; i < 3; ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DataTypeToEnum<T>::value));
    }
    const Tensor& t = c->input(0);
    const Tensor& lo = c->input(1);
    const Tensor& hi = c->input(2);
    auto scalar_or_same = [&](const Tensor& b) { return b.dims() == 0 || b.shape() == t.shape(); };
    if (!scalar_or_same(lo) || !scalar_or_same(hi)) {
      return c->InvalidArgument(absl::StrCat(
          "clip_value_min and clip_value_max must be either of the same shape as input, or a "
          "scalar. input shape: ",
          t.shape().DebugString(), " clip_value_min shape: ", lo.shape().DebugString(),
          " clip_value_max shape: ", hi.shape().DebugString()));
    }
    Tensor* out = c->allocate_output(0, t.dtype(), t.shape());
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    const int64_t sl = lo.dims() == 0 ? 0 : 1;
    const int64_t sh = hi.dims() == 0 ? 0 : 1;
    T* o = out->data<T>();
    ParallelFor(c->eigen_cpu_device(), t.NumElements(),
                Eigen::TensorOpCost(3 * sizeof(T), sizeof(T), 2),
                [&](Eigen::Index begin, Eigen::Index end) {
                  for (Eigen::Index i = begin; i < end; ++i) {
                    T v = x[i];
                    if (h[i * sh] < v) v = h[i * sh];
                    if (v < l[i * sl]) v = l[i * sl];
                    o[i] = v;
                  }
                });
    return absl::OkStatus();
  }
};

#define REGISTER_CLIP(T)                                                      \
  TENSORD_REGISTER_KERNEL(KernelDef("ClipByValue")                            \
                              .Device(DeviceType::kCpu)                       \
                              .TypeConstraint("T", DataTypeToEnum<T>::value), \
                          ClipByValueOp<T>)

REGISTER_CLIP(float);
REGISTER_CLIP(double);
REGISTER_CLIP(int32_t);
REGISTER_CLIP(int64_t);
#undef REGISTER_CLIP

}  // namespace
}  // namespace math
}  // namespace tensord
