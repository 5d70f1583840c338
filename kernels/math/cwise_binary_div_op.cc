// Broadcasting division-like ops: Div, RealDiv, DivNoNan, FloorDiv, FloorMod, TruncateDiv,
// TruncateMod, Mod, Pow, Atan2, Xdivy, Xlogy.
//
// Integer division by zero and integer powers with negative exponents are InvalidArgument
// (TensorFlow's CPU messages); lowest / -1 wraps instead of trapping.
#include <cmath>
#include <type_traits>

#include "kernels/math/cwise_binary_op.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {
namespace math {
namespace {

using Eigen::internal::pcmp_eq;
using Eigen::internal::pdiv;
using Eigen::internal::pfloor;
using Eigen::internal::plog;
using Eigen::internal::pmul;
using Eigen::internal::pselect;
using Eigen::internal::pzero;

// Two's-complement negation without signed overflow.
template <typename T>
T WrappingNegate(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U{0} - static_cast<U>(x));
}

struct NonZeroDivisor {
  static constexpr const char* kInvalidRhsMessage = "Integer division by zero";
  template <typename T>
  static bool InvalidRhs(T y) {
    return y == 0;
  }
};

template <typename T>
struct IntTruncDivFn : NonZeroDivisor {
  T operator()(T x, T y) const { return y == -1 ? WrappingNegate(x) : x / y; }
};

template <typename T>
struct IntTruncModFn : NonZeroDivisor {
  T operator()(T x, T y) const { return y == -1 ? 0 : x % y; }
};

template <typename T>
struct IntFloorDivFn : NonZeroDivisor {
  T operator()(T x, T y) const {
    if (y == -1) return WrappingNegate(x);
    const T q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  }
};

// The result has the divisor's sign: floor(x / y) * y + mod == x.
template <typename T>
struct IntFloorModFn : NonZeroDivisor {
  T operator()(T x, T y) const {
    if (y == -1) return 0;
    const T r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
  }
};

template <typename T>
struct IntPowFn {
  static constexpr const char* kInvalidRhsMessage =
      "Integers to negative integer powers are not allowed";
  static bool InvalidRhs(T y) { return y < 0; }
  // Exponentiation by squaring in unsigned arithmetic, so overflow wraps.
  T operator()(T x, T y) const {
    using U = std::make_unsigned_t<T>;
    U base = static_cast<U>(x);
    U result = 1;
    for (U e = static_cast<U>(y); e != 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  }
};

template <typename T>
struct FloorDivFn {
  T operator()(const T& x, const T& y) const { return std::floor(x / y); }
  template <typename P>
  P packetOp(const P& x, const P& y) const {
    return pfloor(pdiv(x, y));
  }
};

template <typename T>
struct FloorModFn {
  T operator()(T x, T y) const {
    const T r = std::fmod(x, y);
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
  }
};

template <typename T>
struct TruncDivFn {
  T operator()(T x, T y) const { return std::trunc(x / y); }
};

template <typename T>
struct TruncModFn {
  T operator()(T x, T y) const { return std::fmod(x, y); }
};

template <typename T>
struct PowFn {
  T operator()(T x, T y) const { return std::pow(x, y); }
};

// Atan2's inputs are (y, x).
template <typename T>
struct Atan2Fn {
  T operator()(T y, T x) const { return std::atan2(y, x); }
};

// x / y, but 0 wherever y == 0.
template <typename T>
struct DivNoNanFn {
  T operator()(const T& x, const T& y) const { return y == T(0) ? T(0) : x / y; }
  template <typename P>
  P packetOp(const P& x, const P& y) const {
    const P zero = pzero(y);
    return pselect(pcmp_eq(y, zero), zero, pdiv(x, y));
  }
};

// x / y, but 0 wherever x == 0.
template <typename T>
struct XdivyFn {
  T operator()(const T& x, const T& y) const { return x == T(0) ? T(0) : x / y; }
  template <typename P>
  P packetOp(const P& x, const P& y) const {
    const P zero = pzero(x);
    return pselect(pcmp_eq(x, zero), zero, pdiv(x, y));
  }
};

// x * log(y), but 0 wherever x == 0.
template <typename T>
struct XlogyFn {
  T operator()(const T& x, const T& y) const { return x == T(0) ? T(0) : x * std::log(y); }
  template <typename P>
  P packetOp(const P& x, const P& y) const {
    const P zero = pzero(x);
    return pselect(pcmp_eq(x, zero), zero, pmul(x, plog(y)));
  }
};

}  // namespace
}  // namespace math
}  // namespace tensord

namespace Eigen {
namespace internal {
template <typename T>
struct functor_traits<tensord::math::FloorDivFn<T>> {
  enum {
    Cost = scalar_div_cost<T, packet_traits<T>::HasDiv>::value + NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasFloor
  };
};
template <typename T>
struct functor_traits<tensord::math::DivNoNanFn<T>> {
  enum {
    Cost = scalar_div_cost<T, packet_traits<T>::HasDiv>::value + 2 * NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasCmp
  };
};
template <typename T>
struct functor_traits<tensord::math::XdivyFn<T>> {
  enum {
    Cost = scalar_div_cost<T, packet_traits<T>::HasDiv>::value + 2 * NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasCmp
  };
};
template <typename T>
struct functor_traits<tensord::math::XlogyFn<T>> {
  enum {
    Cost =
        functor_traits<scalar_log_op<T>>::Cost + NumTraits<T>::MulCost + 2 * NumTraits<T>::AddCost,
    PacketAccess = packet_traits<T>::HasLog && packet_traits<T>::HasCmp
  };
};
// Scalar-only functors that call libm: make the parallel cost model see their real price.
#define TENSORD_LIBM_FUNCTOR_COST(FN)                                 \
  template <typename T>                                               \
  struct functor_traits<tensord::math::FN<T>> {                       \
    enum { Cost = 40 * NumTraits<T>::MulCost, PacketAccess = false }; \
  }
TENSORD_LIBM_FUNCTOR_COST(FloorModFn);
TENSORD_LIBM_FUNCTOR_COST(TruncModFn);
TENSORD_LIBM_FUNCTOR_COST(PowFn);
TENSORD_LIBM_FUNCTOR_COST(Atan2Fn);
#undef TENSORD_LIBM_FUNCTOR_COST
}  // namespace internal
}  // namespace Eigen

namespace tensord {
namespace math {
namespace {

#define REGISTER_BINARY(OP, T, FN) TENSORD_REGISTER_BINARY(OP, T, T, FN)

#define REGISTER_FLOAT_OPS(T)                                            \
  REGISTER_BINARY("Div", T, Eigen::internal::scalar_quotient_op<T>);     \
  REGISTER_BINARY("RealDiv", T, Eigen::internal::scalar_quotient_op<T>); \
  REGISTER_BINARY("DivNoNan", T, DivNoNanFn<T>);                         \
  REGISTER_BINARY("FloorDiv", T, FloorDivFn<T>);                         \
  REGISTER_BINARY("FloorMod", T, FloorModFn<T>);                         \
  REGISTER_BINARY("TruncateDiv", T, TruncDivFn<T>);                      \
  REGISTER_BINARY("TruncateMod", T, TruncModFn<T>);                      \
  REGISTER_BINARY("Mod", T, TruncModFn<T>);                              \
  REGISTER_BINARY("Pow", T, PowFn<T>);                                   \
  REGISTER_BINARY("Atan2", T, Atan2Fn<T>);                               \
  REGISTER_BINARY("Xdivy", T, XdivyFn<T>);                               \
  REGISTER_BINARY("Xlogy", T, XlogyFn<T>)

#define REGISTER_INT_OPS(T)                            \
  REGISTER_BINARY("Div", T, IntTruncDivFn<T>);         \
  REGISTER_BINARY("TruncateDiv", T, IntTruncDivFn<T>); \
  REGISTER_BINARY("FloorDiv", T, IntFloorDivFn<T>);    \
  REGISTER_BINARY("FloorMod", T, IntFloorModFn<T>);    \
  REGISTER_BINARY("TruncateMod", T, IntTruncModFn<T>); \
  REGISTER_BINARY("Mod", T, IntTruncModFn<T>);         \
  REGISTER_BINARY("Pow", T, IntPowFn<T>)

REGISTER_FLOAT_OPS(float);
REGISTER_FLOAT_OPS(double);
REGISTER_INT_OPS(int32_t);
REGISTER_INT_OPS(int64_t);

#undef REGISTER_INT_OPS
#undef REGISTER_FLOAT_OPS
#undef REGISTER_BINARY

}  // namespace
}  // namespace math
}  // namespace tensord
