// Select (TF1) and SelectV2: output = condition ? t : e, elementwise.
//
// SelectV2 broadcasts all three inputs. Select requires t and e of the same shape and a
// condition that is a scalar (picks a whole input), of that shape, or a vector choosing rows
// along dim 0; the row form is computed as a broadcast of condition reshaped to [n, 1, ...].
// The GPU kernels (float) are in select_op_gpu.cc.
#include "kernels/math/select_op.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_util.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
void SelectBroadcast(const Eigen::ThreadPoolDevice& device, const BroadcastPlan& plan,
                     const bool* cond, const T* t, const T* e, T* out) {
  const int64_t sc = plan.inner_stride(0);
  const int64_t st = plan.inner_stride(1);
  const int64_t se = plan.inner_stride(2);
  ForEachRun<3>(device, plan, Eigen::TensorOpCost(1 + 2 * sizeof(T), sizeof(T), 1),
                [&](const std::array<int64_t, 3>& off, int64_t begin, int64_t n) {
                  const bool* c = cond + off[0];
                  const T* a = t + off[1];
                  const T* b = e + off[2];
                  T* o = out + begin;
                  for (int64_t i = 0; i < n; ++i) o[i] = c[i * sc] ? a[i * st] : b[i * se];
                });
}

template <typename T>
absl::Status ComputeSelect(OpKernelContext* c, const TensorShape& cond_shape) {
  TENSORD_ASSIGN_OR_RETURN(const BroadcastPlan plan, SelectPlan(c, cond_shape));
  Tensor* out = c->allocate_output(0, c->input(1).dtype(), plan.output_shape());
  if (plan.num_elements() == 0) return absl::OkStatus();
  SelectBroadcast(c->eigen_cpu_device(), plan, c->input(0).data<bool>(), c->input(1).data<T>(),
                  c->input(2).data<T>(), out->data<T>());
  return absl::OkStatus();
}

template <typename T>
class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckSelectTypes(c, DataTypeToEnum<T>::value));
    return ComputeSelect<T>(c, c->input(0).shape());
  }
};

template <typename T>
class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckSelectTypes(c, DataTypeToEnum<T>::value));
    TENSORD_ASSIGN_OR_RETURN(const TensorShape cond_shape, SelectConditionShape(c));
    const Tensor& cond = c->input(0);
    if (cond.dims() == 0) {
      c->set_output(0, cond.scalar<bool>() ? c->input(1) : c->input(2));
      return absl::OkStatus();
    }
    return ComputeSelect<T>(c, cond_shape);
  }
};

#define REGISTER_SELECT(T)                                                                        \
  TENSORD_REGISTER_KERNEL(                                                                        \
      KernelDef("Select").Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      SelectOp<T>);                                                                               \
  TENSORD_REGISTER_KERNEL(KernelDef("SelectV2")                                                   \
                              .Device(DeviceType::kCpu)                                           \
                              .TypeConstraint("T", DataTypeToEnum<T>::value),                     \
                          SelectV2Op<T>)

REGISTER_SELECT(float);
REGISTER_SELECT(double);
REGISTER_SELECT(int32_t);
REGISTER_SELECT(int64_t);
REGISTER_SELECT(bool);
REGISTER_SELECT(std::string);
#undef REGISTER_SELECT

}  // namespace

absl::Status CheckSelectTypes(const OpKernelContext* c, DataType dtype) {
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DT_BOOL));
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, 1, dtype));
  return CheckInputType(c, 2, dtype);
}

absl::StatusOr<TensorShape> SelectConditionShape(const OpKernelContext* c) {
  const TensorShape& cond = c->input(0).shape();
  const TensorShape& t = c->input(1).shape();
  const TensorShape& e = c->input(2).shape();
  if (t != e) {
    return c->InvalidArgument(
        absl::StrCat("'then' and 'else' must have the same size.  but "
                     "received: ",
                     t.DebugString(), " vs. ", e.DebugString()));
  }
  if (cond.dims() == 0 || cond == t) return cond;
  if (cond.dims() == 1 && t.dims() >= 1) {
    if (cond.dim_size(0) != t.dim_size(0)) {
      return c->InvalidArgument(absl::StrCat(
          "Number of batches of 'then' must match size of 'cond', but saw: ", t.dim_size(0),
          " vs. ", cond.dim_size(0)));
    }
    std::vector<int64_t> rows(t.dims(), 1);
    rows[0] = cond.dim_size(0);
    return TensorShape(rows);
  }
  return c->InvalidArgument(
      absl::StrCat("Inputs to operation Select must have the same size and shape.  Input 0: ",
                   cond.DebugString(), " != input 1: ", t.DebugString()));
}

absl::StatusOr<BroadcastPlan> SelectPlan(const OpKernelContext* c, const TensorShape& cond_shape) {
  const TensorShape& t = c->input(1).shape();
  const TensorShape& e = c->input(2).shape();
  std::optional<BroadcastPlan> plan = BroadcastPlan::Make({cond_shape, t, e});
  if (!plan) {
    return c->InvalidArgument(absl::StrCat("condition ", c->input(0).shape().DebugString(),
                                           ", then ", t.DebugString(), ", and else ",
                                           e.DebugString(), " must be broadcastable"));
  }
  return *std::move(plan);
}

}  // namespace math
}  // namespace tensord
