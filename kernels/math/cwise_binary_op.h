// BinaryOp: the kernel behind every broadcasting binary elementwise op (Add, Mul, Less, ...).
//
// F is an Eigen-style functor (operator()(T, T) -> Out, optionally packetOp with
// Eigen::internal::functor_traits). A functor that can fail on some right-hand values (integer
// division by zero, integer pow with a negative exponent) declares
//   static bool InvalidRhs(T y);  static constexpr const char* kInvalidRhsMessage = "...";
// and the kernel rejects such inputs before computing anything.
#ifndef TENSORD_KERNELS_MATH_CWISE_BINARY_OP_H_
#define TENSORD_KERNELS_MATH_CWISE_BINARY_OP_H_

#include <algorithm>
#include <type_traits>

#include "kernels/math/cwise_util.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {

template <typename F, typename = void>
struct ChecksRhs : std::false_type {};
template <typename F>
struct ChecksRhs<F, std::void_t<decltype(F::kInvalidRhsMessage)>> : std::true_type {};

template <typename T, typename Out, typename F>
class BinaryOp : public OpKernel {
 public:
  explicit BinaryOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    constexpr DataType kType = DataTypeToEnum<T>::value;
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, kType));
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 1, kType));
    const Tensor& x = c->input(0);
    const Tensor& y = c->input(1);
    std::optional<BroadcastPlan> plan = BroadcastPlan::Make({x.shape(), y.shape()});
    if (!plan) return c->InvalidArgument(IncompatibleShapesMessage(x.shape(), y.shape()));
    if constexpr (ChecksRhs<F>::value) {
      const T* yd = y.data<T>();
      if (std::any_of(yd, yd + y.NumElements(), [](const T& v) { return F::InvalidRhs(v); })) {
        return c->InvalidArgument(F::kInvalidRhsMessage);
      }
    }
    Tensor* out = c->forward_input_or_allocate_output({0, 1}, 0, DataTypeToEnum<Out>::value,
                                                   plan->output_shape());
    if (plan->num_elements() == 0) return absl::OkStatus();
    BinaryBroadcast(c->eigen_cpu_device(), *plan, F(), x.data<T>(), y.data<T>(), out->data<Out>());
    return absl::OkStatus();
  }
};

// Registers BinaryOp<T, OUT, FN> as the CPU kernel of OP for T.
#define TENSORD_REGISTER_BINARY(OP, T, OUT, FN)                                             \
  TENSORD_REGISTER_KERNEL(                                                                  \
      KernelDef(OP).Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      ::tensord::math::BinaryOp<T, OUT, FN>)

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_CWISE_BINARY_OP_H_
