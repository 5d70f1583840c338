// Broadcasting arithmetic: Add, AddV2, Sub, Mul, MulNoNan, Maximum, Minimum, SquaredDifference.
#include <string>

#include "kernels/math/cwise_binary_op.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace math {
namespace {

using Eigen::internal::pcmp_eq;
using Eigen::internal::pmul;
using Eigen::internal::pselect;
using Eigen::internal::psub;
using Eigen::internal::pzero;

// (x - y)^2.
template <typename T>
struct SquaredDifferenceFn {
  T operator()(const T& x, const T& y) const {
    const T d = x - y;
    return d * d;
  }
  template <typename P>
  P packetOp(const P& x, const P& y) const {
    const P d = psub(x, y);
    return pmul(d, d);
  }
};

// x * y, but 0 wherever y == 0 (even when x is NaN or infinite).
template <typename T>
struct MulNoNanFn {
  T operator()(const T& x, const T& y) const { return y == T(0) ? T(0) : x * y; }
  template <typename P>
  P packetOp(const P& x, const P& y) const {
    const P zero = pzero(y);
    return pselect(pcmp_eq(y, zero), zero, pmul(x, y));
  }
};

struct StringConcatFn {
  std::string operator()(const std::string& x, const std::string& y) const { return x + y; }
};

}  // namespace
}  // namespace math
}  // namespace tensord

namespace Eigen {
namespace internal {
template <typename T>
struct functor_traits<tensord::math::SquaredDifferenceFn<T>> {
  enum {
    Cost = NumTraits<T>::AddCost + NumTraits<T>::MulCost,
    PacketAccess = packet_traits<T>::HasSub && packet_traits<T>::HasMul
  };
};
template <typename T>
struct functor_traits<tensord::math::MulNoNanFn<T>> {
  enum {
    Cost = 2 * NumTraits<T>::AddCost + NumTraits<T>::MulCost,
    PacketAccess = packet_traits<T>::HasMul && packet_traits<T>::HasCmp
  };
};
}  // namespace internal
}  // namespace Eigen

namespace tensord {
namespace math {
namespace {

#define REGISTER_BINARY(OP, T, FN) TENSORD_REGISTER_BINARY(OP, T, T, FN)

#define REGISTER_ARITH(T)                                              \
  REGISTER_BINARY("Add", T, Eigen::internal::scalar_sum_op<T>);        \
  REGISTER_BINARY("AddV2", T, Eigen::internal::scalar_sum_op<T>);      \
  REGISTER_BINARY("Sub", T, Eigen::internal::scalar_difference_op<T>); \
  REGISTER_BINARY("Mul", T, Eigen::internal::scalar_product_op<T>);    \
  REGISTER_BINARY("Maximum", T, MaxFn<T>);                             \
  REGISTER_BINARY("Minimum", T, MinFn<T>);                             \
  REGISTER_BINARY("SquaredDifference", T, SquaredDifferenceFn<T>)

REGISTER_ARITH(float);
REGISTER_ARITH(double);
REGISTER_ARITH(int32_t);
REGISTER_ARITH(int64_t);
REGISTER_BINARY("MulNoNan", float, MulNoNanFn<float>);
REGISTER_BINARY("MulNoNan", double, MulNoNanFn<double>);
REGISTER_BINARY("Add", std::string, StringConcatFn);

#undef REGISTER_ARITH
#undef REGISTER_BINARY

}  // namespace
}  // namespace math
}  // namespace tensord
