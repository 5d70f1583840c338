// Cast between bool and every numeric type, complex included (attrs SrcT, DstT, Truncate).
//
// Conversions follow TensorFlow on x86: float -> int truncates toward zero; NaN and out-of-range
// values, which C++ leaves undefined, give what the x86 conversion instructions TensorFlow's
// compiled code uses would (the lowest value of the 32- or 64-bit intermediate, then wrapped
// to the destination width); anything -> bool is x != 0; bool -> number is 0/1;
// float -> half/bfloat16 rounds to nearest even, or truncates when Truncate is set; complex ->
// anything else converts the real part (to bool as well: 1j is false), and real -> complex
// gives a zero imaginary part.
#include "kernels/math/cast_op.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
constexpr bool kIsReducedFloat =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// x86 cvttss2si / cvttsd2si: truncation, with NaN and out-of-range mapping to lowest().
template <typename I, typename F>
I X86Truncate(F f) {
  constexpr F kLimit = static_cast<F>(std::numeric_limits<I>::max()) + F(1);  // 2^31 or 2^63
  if (!(f > -kLimit - F(1) && f < kLimit)) return std::numeric_limits<I>::lowest();
  return static_cast<I>(f);
}

template <typename D, typename F>
D FloatToInt(F f) {
  if constexpr (std::is_same_v<D, uint64_t>) {
    if (f >= F(0) && f < F(18446744073709551616.0)) return static_cast<D>(f);
    return static_cast<D>(X86Truncate<int64_t>(f));
  } else if constexpr (sizeof(D) < 4 || std::is_same_v<D, int32_t>) {
    return static_cast<D>(X86Truncate<int32_t>(f));
  } else {
    return static_cast<D>(X86Truncate<int64_t>(f));
  }
}

// Truncate = true. bfloat16 keeps the top 16 bits of the float (NaN stays NaN). half rounds
// toward zero: the nearest-even result stepped one unit toward zero when it rounded away, with
// overflow to infinity left as is (TensorFlow gives inf for 1e6).
template <typename D>
D TruncateToReduced(float f) {
  if constexpr (std::is_same_v<D, Eigen::bfloat16>) {
    if (std::isnan(f)) return D(f);
    return Eigen::numext::bit_cast<D>(
        static_cast<uint16_t>(Eigen::numext::bit_cast<uint32_t>(f) >> 16));
  } else {
    D d(f);
    const float back = static_cast<float>(d);
    if (std::isfinite(back) && std::fabs(back) > std::fabs(f)) {
      // Decrementing the magnitude bits steps toward zero; the sign bit is untouched.
      d = Eigen::numext::bit_cast<D>(
          static_cast<uint16_t>(Eigen::numext::bit_cast<uint16_t>(d) - 1));
    }
    return d;
  }
}

template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <typename S, typename D>
D Convert(S x, bool truncate) {
  if constexpr (kIsComplex<S> && kIsComplex<D>) {
    using R = typename D::value_type;
    return D(static_cast<R>(x.real()), static_cast<R>(x.imag()));
  } else if constexpr (kIsComplex<S>) {
    return Convert<typename S::value_type, D>(x.real(), truncate);  // bool too: real != 0
  } else if constexpr (kIsComplex<D>) {
    return D(Convert<S, typename D::value_type>(x, truncate), 0);
  } else if constexpr (std::is_same_v<D, bool>) {
    if constexpr (kIsReducedFloat<S>) {
      return static_cast<float>(x) != 0.0f;
    } else {
      return x != S(0);
    }
  } else if constexpr (std::is_same_v<S, bool>) {
    return static_cast<D>(x ? 1.0f : 0.0f);
  } else if constexpr (kIsReducedFloat<D>) {
    const float f = static_cast<float>(x);
    return truncate ? TruncateToReduced<D>(f) : D(f);
  } else if constexpr (kIsReducedFloat<S>) {
    return Convert<float, D>(static_cast<float>(x), truncate);
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    return FloatToInt<D>(x);
  } else {
    return static_cast<D>(x);
  }
}

using CastFn = void (*)(const Eigen::ThreadPoolDevice&, const void*, void*, int64_t, bool);

template <typename S, typename D>
void CastLoop(const Eigen::ThreadPoolDevice& device, const void* in, void* out, int64_t n,
              bool truncate) {
  const S* src = static_cast<const S*>(in);
  D* dst = static_cast<D*>(out);
  ParallelFor(device, n, Eigen::TensorOpCost(sizeof(S), sizeof(D), 2),
              [&](Eigen::Index begin, Eigen::Index end) {
                for (Eigen::Index i = begin; i < end; ++i) {
                  dst[i] = Convert<S, D>(src[i], truncate);
                }
              });
}

CastFn FindCast(DataType src, DataType dst) {
  CastFn result = nullptr;
  DispatchNumeric(src, [&](auto s) {
    DispatchNumeric(dst, [&](auto d) { result = &CastLoop<decltype(s), decltype(d)>; });
  });
  return result;
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* c) : OpKernel(c) {
    if (!c->GetAttr("SrcT", &src_) || !c->GetAttr("DstT", &dst_)) return;
    if (c->HasAttr("Truncate")) c->GetAttr("Truncate", &truncate_);
    cast_ = FindCast(src_, dst_);
    if (cast_ == nullptr) {
      c->SetError(absl::UnimplementedError(
          absl::StrCat("Cast from ", DataTypeString(src_), " to ", DataTypeString(dst_),
                       " is not supported (node '", c->name(), "')")));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, src_));
    const Tensor& x = c->input(0);
    if (src_ == dst_) {
      c->set_output(0, x);
      return absl::OkStatus();
    }
    Tensor* y = c->allocate_output(0, dst_, x.shape());
    cast_(c->eigen_cpu_device(), x.raw_data(), y->raw_data(), x.NumElements(), truncate_);
    return absl::OkStatus();
  }

 private:
  DataType src_ = DT_INVALID;
  DataType dst_ = DT_INVALID;
  bool truncate_ = false;
  CastFn cast_ = nullptr;
};

const bool kCastRegistered = RegisterCastPairs<CastOp>(
    DeviceType::kCpu, {DT_BOOL, DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8, DT_INT16,
                       DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64,
                       DT_COMPLEX64, DT_COMPLEX128});

}  // namespace
}  // namespace math
}  // namespace tensord
