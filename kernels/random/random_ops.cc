// Stateful random ops: RandomUniform ([0, 1)), RandomStandardNormal, TruncatedNormal (standard
// normal values redrawn until |x| <= 2) and RandomUniformInt ([minval, maxval)).
//
// These exist because some TF1 SavedModels re-run variable initialisers when they load; the
// values only initialise weights that are then overwritten (or multiply zeros). They therefore
// have TensorFlow's dtypes, shapes, ranges and distributions, but NOT TensorFlow's Philox
// streams: the same seed gives different numbers than in TensorFlow.
//
// Generator: counter-based SplitMix64. Every element hashes (kernel key, call number, element,
// draw), so elements are computed in parallel and concurrent calls never share state; the only
// state is an atomic call counter. With seed == seed2 == 0 the key is random per kernel;
// otherwise it derives from (seed, seed2) and a kernel's sequence of calls is reproducible.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace random_ops {
namespace {

uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// 64 random bits for draw `draw` of element `element` in the stream starting at `base`.
uint64_t Bits(uint64_t base, int64_t element, uint64_t draw) {
  return Mix64(base + (static_cast<uint64_t>(element) * 64 + draw + 1) * kGolden);
}

// A uniform double in [0, 1) with 53 random bits.
double Uniform01(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// A standard normal value by Box-Muller from two draws.
double StandardNormal(uint64_t base, int64_t element, uint64_t draw) {
  constexpr double kTwoPi = 6.283185307179586;
  const double u1 = 1.0 - Uniform01(Bits(base, element, draw));  // (0, 1]: log is finite
  const double u2 = Uniform01(Bits(base, element, draw + 1));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

// double -> T; half and bfloat16 convert from float.
template <typename T>
T FromDouble(double x) {
  if constexpr (std::is_same_v<T, double>) {
    return x;
  } else {
    return static_cast<T>(static_cast<float>(x));
  }
}

struct UniformDist {
  template <typename T>
  static T Sample(uint64_t base, int64_t element) {
    // A random multiple of 2^-digits below 1 (digits: float 24, double 53, half 11, bfloat16 8)
    // is exactly representable in T, so it never rounds up to 1.
    constexpr int kDigits = std::numeric_limits<T>::digits;
    const uint64_t bits = Bits(base, element, 0) >> (64 - kDigits);
    return FromDouble<T>(std::ldexp(static_cast<double>(bits), -kDigits));
  }
};

struct NormalDist {
  template <typename T>
  static T Sample(uint64_t base, int64_t element) {
    return FromDouble<T>(StandardNormal(base, element, 0));
  }
};

struct TruncatedNormalDist {
  template <typename T>
  static T Sample(uint64_t base, int64_t element) {
    // Each try accepts with probability 0.954; 32 failing tries have probability 1e-43.
    double x = 0;
    for (uint64_t draw = 0; draw < 64; draw += 2) {
      x = StandardNormal(base, element, draw);
      if (std::fabs(x) <= 2.0) break;
    }
    return FromDouble<T>(std::clamp(x, -2.0, 2.0));
  }
};

// Reads the 1-D int32/int64 shape input.
absl::StatusOr<TensorShape> ReadShape(const OpKernelContext& c, const Tensor& t) {
  if (t.dims() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
    return c.InvalidArgument(absl::StrCat("shape must be a vector of {int32,int64}, got shape ",
                                          t.shape().DebugString()));
  }
  std::vector<int64_t> dims(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    dims[i] = t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
    if (dims[i] < 0) {
      return c.InvalidArgument(absl::StrCat("Dimension ", dims[i], " must be >= 0"));
    }
  }
  auto shape = TensorShape::FromDims(dims);
  if (!shape.ok()) return c.InvalidArgument(shape.status().message());
  return shape;
}

// Holds the stream key and the call counter shared by all random kernels.
class RandomOpBase : public OpKernel {
 public:
  explicit RandomOpBase(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0;
    int64_t seed2 = 0;
    if (!c->GetAttr("seed", &seed) || !c->GetAttr("seed2", &seed2)) return;
    if (seed == 0 && seed2 == 0) {
      std::random_device device;
      key_ = (static_cast<uint64_t>(device()) << 32) ^ device();
    } else {
      key_ = Mix64(static_cast<uint64_t>(seed)) ^ Mix64(static_cast<uint64_t>(seed2) + kGolden);
    }
  }

 protected:
  // The stream of this call: distinct for every call of this kernel.
  uint64_t NextStream() const {
    const uint64_t call = calls_.fetch_add(1, std::memory_order_relaxed);
    return Mix64(key_ ^ Mix64(call * kGolden + 1));
  }

  // Fills out[0, n) with sample(stream, i), in parallel for large n.
  template <typename T, typename SampleFn>
  void Fill(const OpKernelContext& c, T* out, int64_t n, SampleFn sample) const {
    const uint64_t stream = NextStream();
    ParallelFor(c.eigen_cpu_device(), n, Eigen::TensorOpCost(0, sizeof(T), 100),
                [&](Eigen::Index begin, Eigen::Index end) {
                  for (Eigen::Index i = begin; i < end; ++i) {
                    out[i] = sample(stream, i);
                  }
                });
  }

 private:
  uint64_t key_ = 0;
  // The only mutable state: which call this is. Atomic, so concurrent calls are safe.
  mutable std::atomic<uint64_t> calls_{0};
};

// RandomUniform, RandomStandardNormal, TruncatedNormal: (shape) -> dtype.
template <typename T, typename Dist>
class RandomFloatOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(TensorShape shape, ReadShape(*c, c->input(0)));
    Tensor* out = c->allocate_output(0, DataTypeToEnum<T>::value, shape);
    Fill(*c, out->data<T>(), out->NumElements(),
         [](uint64_t stream, int64_t i) { return Dist::template Sample<T>(stream, i); });
    return absl::OkStatus();
  }
};

// RandomUniformInt: (shape, minval, maxval) -> Tout in [minval, maxval).
template <typename T>
class RandomUniformIntOp : public RandomOpBase {
 public:
  using RandomOpBase::RandomOpBase;

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& minval = c->input(1);
    const Tensor& maxval = c->input(2);
    auto check_bound = [c](const Tensor& t, absl::string_view what) {
      if (t.dims() != 0) {
        return c->InvalidArgument(
            absl::StrCat(what, " must be 0-D, got shape ", t.shape().DebugString()));
      }
      if (t.dtype() != DataTypeToEnum<T>::value) {
        return c->InvalidArgument(
            absl::StrCat(what, " must be ", DataTypeString(DataTypeToEnum<T>::value)));
      }
      return absl::OkStatus();
    };
    TENSORD_RETURN_IF_ERROR(check_bound(minval, "minval"));
    TENSORD_RETURN_IF_ERROR(check_bound(maxval, "maxval"));
    TENSORD_ASSIGN_OR_RETURN(TensorShape shape, ReadShape(*c, c->input(0)));
    Tensor* out = c->allocate_output(0, DataTypeToEnum<T>::value, shape);
    if (out->NumElements() == 0) return absl::OkStatus();
    const T lo = minval.scalar<T>();
    const T hi = maxval.scalar<T>();
    if (!(lo < hi)) {
      return c->InvalidArgument(absl::StrCat("Need minval < maxval, got ", lo, " >= ", hi));
    }
    // Unsigned arithmetic: the range of e.g. [INT64_MIN, INT64_MAX) does not overflow.
    using U = std::make_unsigned_t<T>;
    const uint64_t range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
    Fill(*c, out->data<T>(), out->NumElements(), [lo, range](uint64_t stream, int64_t i) {
      return static_cast<T>(static_cast<U>(lo) + static_cast<U>(Bits(stream, i, 0) % range));
    });
    return absl::OkStatus();
  }
};

#define TENSORD_REGISTER_RANDOM_FLOAT(OP, DIST, T)                               \
  TENSORD_REGISTER_KERNEL(KernelDef(OP)                                          \
                              .Device(DeviceType::kCpu)                          \
                              .TypeConstraint("dtype", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(0),                               \
                          RandomFloatOp<T, DIST>)
#define TENSORD_REGISTER_RANDOM_FLOAT_ALL(OP, DIST)     \
  TENSORD_REGISTER_RANDOM_FLOAT(OP, DIST, float);       \
  TENSORD_REGISTER_RANDOM_FLOAT(OP, DIST, double);      \
  TENSORD_REGISTER_RANDOM_FLOAT(OP, DIST, Eigen::half); \
  TENSORD_REGISTER_RANDOM_FLOAT(OP, DIST, Eigen::bfloat16)
TENSORD_REGISTER_RANDOM_FLOAT_ALL("RandomUniform", UniformDist);
TENSORD_REGISTER_RANDOM_FLOAT_ALL("RandomStandardNormal", NormalDist);
TENSORD_REGISTER_RANDOM_FLOAT_ALL("TruncatedNormal", TruncatedNormalDist);
#undef TENSORD_REGISTER_RANDOM_FLOAT_ALL
#undef TENSORD_REGISTER_RANDOM_FLOAT

#define TENSORD_REGISTER_RANDOM_INT(T)                                          \
  TENSORD_REGISTER_KERNEL(KernelDef("RandomUniformInt")                         \
                              .Device(DeviceType::kCpu)                         \
                              .TypeConstraint("Tout", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(0)                               \
                              .HostMemoryInput(1)                               \
                              .HostMemoryInput(2),                              \
                          RandomUniformIntOp<T>)
TENSORD_REGISTER_RANDOM_INT(int32_t);
TENSORD_REGISTER_RANDOM_INT(int64_t);
#undef TENSORD_REGISTER_RANDOM_INT

}  // namespace
}  // namespace random_ops
}  // namespace tensord
