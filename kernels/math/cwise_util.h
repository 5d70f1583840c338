// Shared machinery for elementwise kernels: NumPy broadcasting plans and parallel loops that
// apply an Eigen-style functor (operator() plus optional packetOp, described by
// Eigen::internal::functor_traits) to contiguous runs of elements.
//
// The loops are generic over rank: a broadcast is collapsed to a few dims, and the work is
// split into runs along the innermost dim where every operand either advances by one element
// or repeats a single element. Runs are evaluated with Eigen array maps, which vectorise when
// the functor has packet access, so same-shape, scalar and bias-like broadcasts all hit
// vectorised code without instantiating Eigen's rank-specific broadcasting templates.
#ifndef TENSORD_KERNELS_MATH_CWISE_UTIL_H_
#define TENSORD_KERNELS_MATH_CWISE_UTIL_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_eigen.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {
namespace math {

// The broadcast of several operand shapes. Dims of size 1 in the output are dropped and
// adjacent dims are merged when every operand is broadcast (or not) in both, so a same-shape
// or scalar-operand broadcast has rank 1 and a [N,C] + [C] broadcast has rank 2.
class BroadcastPlan {
 public:
  // nullopt when the shapes are not broadcast-compatible.
  static std::optional<BroadcastPlan> Make(absl::Span<const TensorShape> shapes);

  const TensorShape& output_shape() const { return output_shape_; }
  int64_t num_elements() const { return output_shape_.num_elements(); }
  // Collapsed iteration space, outermost first; never empty (a scalar output is {1}).
  absl::Span<const int64_t> dims() const { return dims_; }
  // The number of shapes given to Make.
  int num_operands() const { return static_cast<int>(strides_.size() / dims_.size()); }
  // Element stride of `operand` along collapsed dim `dim`; 0 where it is broadcast.
  int64_t stride(int operand, int dim) const { return strides_[operand * dims_.size() + dim]; }
  // Stride along the innermost dim: 1, or 0 when the operand repeats one element there.
  int64_t inner_stride(int operand) const { return stride(operand, dims_.size() - 1); }

 private:
  TensorShape output_shape_;
  // Inline: a plan is made per kernel call, mostly for a few dims and operands.
  absl::InlinedVector<int64_t, 4> dims_;
  absl::InlinedVector<int64_t, 12> strides_;  // operand-major, dims_.size() per operand
};

// "[2,3] vs. [4]": TensorFlow's wording for incompatible binary shapes.
std::string IncompatibleShapesMessage(const TensorShape& a, const TensorShape& b);

// Per-element cost of a functor for Eigen's parallelFor cost model.
template <typename F, typename Out, typename... In>
Eigen::TensorOpCost ElementCost() {
  return Eigen::TensorOpCost((0 + ... + sizeof(In)), sizeof(Out),
                             Eigen::internal::functor_traits<F>::Cost);
}

template <typename F>
constexpr bool kHasPacketAccess = Eigen::internal::functor_traits<F>::PacketAccess;

// Max / min that propagate NaN from either operand (TensorFlow's Maximum, Minimum, Max, Min).
template <typename T>
using MaxFn = std::conditional_t<std::is_floating_point_v<T>,
                                 Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>,
                                 Eigen::internal::scalar_max_op<T, T>>;
template <typename T>
using MinFn = std::conditional_t<std::is_floating_point_v<T>,
                                 Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>,
                                 Eigen::internal::scalar_min_op<T, T>>;

// Calls run(offsets, out_begin, n) for consecutive output elements [out_begin, out_begin + n)
// during which operand k starts at offsets[k] and advances by plan.inner_stride(k) per element.
// Work is split across the device's threads.
template <size_t N, typename Run>
void ForEachRun(const Eigen::ThreadPoolDevice& device, const BroadcastPlan& plan,
                const Eigen::TensorOpCost& cost, Run run) {
  const absl::Span<const int64_t> dims = plan.dims();
  const int rank = static_cast<int>(dims.size());
  const int64_t inner = dims.back();
  std::array<int64_t, N> steps;
  for (size_t k = 0; k < N; ++k) steps[k] = plan.inner_stride(k);
  ParallelFor(device, plan.num_elements(), cost, [&](Eigen::Index begin, Eigen::Index end) {
    int64_t row = begin / inner;
    int64_t col = begin % inner;
    while (begin < end) {
      const int64_t n = std::min<int64_t>(inner - col, end - begin);
      std::array<int64_t, N> offsets;
      for (size_t k = 0; k < N; ++k) offsets[k] = col * steps[k];
      int64_t rest = row;
      for (int d = rank - 2; d >= 0 && rest > 0; --d) {
        const int64_t index = rest % dims[d];
        rest /= dims[d];
        for (size_t k = 0; k < N; ++k) offsets[k] += index * plan.stride(k, d);
      }
      run(offsets, begin, n);
      begin += n;
      ++row;
      col = 0;
    }
  });
}

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// out[i] = f(x[i * sx], y[i * sy]) for i < n, with sx, sy in {0, 1}.
template <typename In, typename Out, typename F>
void BinaryRun(const F& f, const In* x, int64_t sx, const In* y, int64_t sy, Out* out, int64_t n) {
  if constexpr (kHasPacketAccess<F>) {
    using InArray = Eigen::Array<In, Eigen::Dynamic, 1>;
    ArrayMap<Out> o(out, n);
    if (sx != 0 && sy != 0) {
      o = ConstArrayMap<In>(x, n).binaryExpr(ConstArrayMap<In>(y, n), f);
    } else if (sx != 0) {
      o = ConstArrayMap<In>(x, n).binaryExpr(InArray::Constant(n, *y), f);
    } else if (sy != 0) {
      o = InArray::Constant(n, *x).binaryExpr(ConstArrayMap<In>(y, n), f);
    } else {
      o.setConstant(f(*x, *y));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i * sx], y[i * sy]);
  }
}

// out = f(x, y) with x and y broadcast to plan.output_shape().
template <typename In, typename Out, typename F>
void BinaryBroadcast(const Eigen::ThreadPoolDevice& device, const BroadcastPlan& plan, const F& f,
                     const In* x, const In* y, Out* out) {
  const int64_t sx = plan.inner_stride(0);
  const int64_t sy = plan.inner_stride(1);
  ForEachRun<2>(device, plan, ElementCost<F, Out, In, In>(),
                [&](const std::array<int64_t, 2>& off, int64_t begin, int64_t n) {
                  BinaryRun(f, x + off[0], sx, y + off[1], sy, out + begin, n);
                });
}

// out[i] = f(in[i]) for i < n, split across the device's threads.
template <typename In, typename Out, typename F>
void UnaryApply(const Eigen::ThreadPoolDevice& device, const F& f, const In* in, Out* out,
                int64_t n) {
  ParallelFor(device, n, ElementCost<F, Out, In>(), [&](Eigen::Index begin, Eigen::Index end) {
    if constexpr (kHasPacketAccess<F>) {
      ArrayMap<Out>(out + begin, end - begin) =
          ConstArrayMap<In>(in + begin, end - begin).unaryExpr(f);
    } else {
      for (Eigen::Index i = begin; i < end; ++i) out[i] = f(in[i]);
    }
  });
}

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_CWISE_UTIL_H_
