// AddN: the elementwise sum of N same-shaped tensors (no broadcasting), added left to right.
#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_util.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const int n = c->num_inputs();
    if (n == 0) return c->InvalidArgument("AddN needs at least one input");
    const Tensor& first = c->input(0);
    for (int i = 0; i < n; ++i) {
      TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, DataTypeToEnum<T>::value));
      if (c->input(i).shape() != first.shape()) {
        return c->InvalidArgument(absl::StrCat(
            "Inputs to operation AddN must have the same size and shape.  Input 0: ",
            first.shape().DebugString(), " != input ", i, ": ", c->input(i).shape().DebugString()));
      }
    }
    if (n == 1) {
      c->set_output(0, first);
      return absl::OkStatus();
    }
    Tensor* out = c->allocate_output(0, first.dtype(), first.shape());
    T* o = out->data<T>();
    const Eigen::TensorOpCost cost(n * sizeof(T), sizeof(T), n - 1);
    ParallelFor(c->eigen_cpu_device(), first.NumElements(), cost,
                [&](Eigen::Index begin, Eigen::Index end) {
                  const Eigen::Index len = end - begin;
                  ArrayMap<T> acc(o + begin, len);
                  acc = ConstArrayMap<T>(c->input(0).data<T>() + begin, len) +
                        ConstArrayMap<T>(c->input(1).data<T>() + begin, len);
                  for (int i = 2; i < n; ++i)
                    acc += ConstArrayMap<T>(c->input(i).data<T>() + begin, len);
                });
    return absl::OkStatus();
  }
};

#define REGISTER_ADD_N(T)                                                                       \
  TENSORD_REGISTER_KERNEL(                                                                      \
      KernelDef("AddN").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      AddNOp<T>)

REGISTER_ADD_N(float);
REGISTER_ADD_N(double);
REGISTER_ADD_N(int32_t);
REGISTER_ADD_N(int64_t);
#undef REGISTER_ADD_N

}  // namespace
}  // namespace math
}  // namespace tensord
