// Unary elementwise ops. Each is an Eigen functor applied over the flat tensor (vectorised where
// the functor has packet access); most are Eigen's own, which is what TensorFlow uses too.
#include <cmath>
#include <limits>

#include "kernels/math/cwise_util.h"
#include "kernels/math/erfc.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

using Eigen::internal::pabs;
using Eigen::internal::padd;
using Eigen::internal::pcmp_lt;
using Eigen::internal::pdiv;
using Eigen::internal::pexp;
using Eigen::internal::plog1p;
using Eigen::internal::pselect;
using Eigen::internal::pset1;
using Eigen::internal::psqrt;

template <typename T, typename Out, typename F>
class UnaryOp : public OpKernel {
 public:
  explicit UnaryOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& x = c->input(0);
    Tensor* y =
        c->forward_input_or_allocate_output({0}, 0, DataTypeToEnum<Out>::value, x.shape());
    UnaryApply(c->eigen_cpu_device(), F(), x.data<T>(), y->data<Out>(), x.NumElements());
    return absl::OkStatus();
  }
};

// 1 / sqrt(x), computed exactly rather than with a hardware estimate.
template <typename T>
struct RsqrtFn {
  T operator()(const T& x) const { return T(1) / std::sqrt(x); }
  template <typename P>
  P packetOp(const P& x) const {
    return pdiv(pset1<P>(T(1)), psqrt(x));
  }
};

// -1, 0 or 1; NaN stays NaN (Eigen's scalar_sign_op maps NaN to 0).
template <typename T>
struct SignFn {
  T operator()(const T& x) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) return x;
    }
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};

// log(1 + e^x) with TensorFlow's cut-offs: x for large x, e^x for very negative x.
template <typename T>
struct SoftplusFn {
  static T Threshold() { return std::log(std::numeric_limits<T>::epsilon()) + T(2); }
  T operator()(const T& x) const {
    const T t = Threshold();
    if (x > -t) return x;
    const T e = std::exp(x);
    return x < t ? e : std::log1p(e);
  }
  template <typename P>
  P packetOp(const P& x) const {
    const P t = pset1<P>(Threshold());
    const P e = pexp(x);
    const P small_or_mid = pselect(pcmp_lt(x, t), e, plog1p(e));
    return pselect(pcmp_lt(Eigen::internal::pnegate(t), x), x, small_or_mid);
  }
};

// x / (1 + |x|).
template <typename T>
struct SoftsignFn {
  T operator()(const T& x) const { return x / (T(1) + std::abs(x)); }
  template <typename P>
  P packetOp(const P& x) const {
    return pdiv(x, padd(pset1<P>(T(1)), pabs(x)));
  }
};

}  // namespace
}  // namespace math
}  // namespace tensord

namespace Eigen {
namespace internal {
template <typename T>
struct functor_traits<tensord::math::RsqrtFn<T>> {
  enum {
    Cost = functor_traits<scalar_sqrt_op<T>>::Cost + scalar_div_cost<T, true>::value,
    PacketAccess = packet_traits<T>::HasSqrt && packet_traits<T>::HasDiv
  };
};
template <typename T>
struct functor_traits<tensord::math::SoftplusFn<T>> {
  enum {
    Cost = functor_traits<scalar_exp_op<T>>::Cost + functor_traits<scalar_log1p_op<T>>::Cost +
           4 * NumTraits<T>::AddCost,
    PacketAccess =
        packet_traits<T>::HasExp && packet_traits<T>::HasLog1p && packet_traits<T>::HasCmp
  };
};
template <typename T>
struct functor_traits<tensord::math::SoftsignFn<T>> {
  enum {
    Cost = 2 * NumTraits<T>::AddCost + scalar_div_cost<T, packet_traits<T>::HasDiv>::value,
    PacketAccess = packet_traits<T>::HasAbs && packet_traits<T>::HasDiv
  };
};
}  // namespace internal
}  // namespace Eigen

namespace tensord {
namespace math {
namespace {

namespace ei = ::Eigen::internal;

#define REGISTER_UNARY_OUT(OP, T, OUT, FN)                                                  \
  TENSORD_REGISTER_KERNEL(                                                                  \
      KernelDef(OP).Device(DeviceType::kCpu).TypeConstraint("T", DataTypeToEnum<T>::value), \
      UnaryOp<T, OUT, FN>)
#define REGISTER_UNARY(OP, T, FN) REGISTER_UNARY_OUT(OP, T, T, FN)

#define REGISTER_FLOAT_UNARY(T)                                 \
  REGISTER_UNARY("Exp", T, ei::scalar_exp_op<T>);               \
  REGISTER_UNARY("Expm1", T, ei::scalar_expm1_op<T>);           \
  REGISTER_UNARY("Log", T, ei::scalar_log_op<T>);               \
  REGISTER_UNARY("Log1p", T, ei::scalar_log1p_op<T>);           \
  REGISTER_UNARY("Sqrt", T, ei::scalar_sqrt_op<T>);             \
  REGISTER_UNARY("Rsqrt", T, RsqrtFn<T>);                       \
  REGISTER_UNARY("Reciprocal", T, ei::scalar_inverse_op<T>);    \
  REGISTER_UNARY("Inv", T, ei::scalar_inverse_op<T>);           \
  REGISTER_UNARY("Floor", T, ei::scalar_floor_op<T>);           \
  REGISTER_UNARY("Ceil", T, ei::scalar_ceil_op<T>);             \
  /* rint rounds half to even in the default rounding mode. */  \
  REGISTER_UNARY("Round", T, ei::scalar_rint_op<T>);            \
  REGISTER_UNARY("Rint", T, ei::scalar_rint_op<T>);             \
  REGISTER_UNARY("Sin", T, ei::scalar_sin_op<T>);               \
  REGISTER_UNARY("Cos", T, ei::scalar_cos_op<T>);               \
  REGISTER_UNARY("Tan", T, ei::scalar_tan_op<T>);               \
  REGISTER_UNARY("Tanh", T, ei::scalar_tanh_op<T>);             \
  REGISTER_UNARY("Sigmoid", T, ei::scalar_logistic_op<T>);      \
  REGISTER_UNARY("Erf", T, ei::scalar_erf_op<T>);               \
  REGISTER_UNARY("Softplus", T, SoftplusFn<T>);                 \
  REGISTER_UNARY("Softsign", T, SoftsignFn<T>);                 \
  REGISTER_UNARY_OUT("IsNan", T, bool, ei::scalar_isnan_op<T>); \
  REGISTER_UNARY_OUT("IsInf", T, bool, ei::scalar_isinf_op<T>); \
  REGISTER_UNARY_OUT("IsFinite", T, bool, ei::scalar_isfinite_op<T>)

#define REGISTER_SIGNED_UNARY(T)                        \
  REGISTER_UNARY("Abs", T, ei::scalar_abs_op<T>);       \
  REGISTER_UNARY("Neg", T, ei::scalar_opposite_op<T>);  \
  REGISTER_UNARY("Square", T, ei::scalar_square_op<T>); \
  REGISTER_UNARY("Sign", T, SignFn<T>)

REGISTER_FLOAT_UNARY(float);
REGISTER_FLOAT_UNARY(double);
REGISTER_UNARY("Erfc", float, ErfcFn);  // vectorised (erfc.h)
REGISTER_UNARY("Erfc", double, ei::scalar_erfc_op<double>);
REGISTER_SIGNED_UNARY(float);
REGISTER_SIGNED_UNARY(double);
REGISTER_SIGNED_UNARY(int32_t);
REGISTER_SIGNED_UNARY(int64_t);
TENSORD_REGISTER_KERNEL(KernelDef("LogicalNot").Device(DeviceType::kCpu),
                        UnaryOp<bool, bool, ei::scalar_boolean_not_op<bool>>);

#undef REGISTER_SIGNED_UNARY
#undef REGISTER_FLOAT_UNARY
#undef REGISTER_UNARY
#undef REGISTER_UNARY_OUT

}  // namespace
}  // namespace math
}  // namespace tensord
