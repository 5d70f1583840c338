// Reductions over a set of axes: Sum, Mean, Prod, Max, Min, All, Any, EuclideanNorm
// (input, reduction_indices) with attr keep_dims.
//
// The input is viewed as groups of adjacent dims that are all reduced or all kept (size-1 dims
// dropped). Reduced groups are removed one at a time, last first, each as a reduction of
// [A, R, B] to [A, B]: contiguous rows when B == 1 (Eigen's vectorised redux, summed pairwise
// in blocks for accuracy) or vectorised accumulation of B-wide rows otherwise (combined
// pairwise over R). Every reducer is associative, so the repeated passes give the same result
// as one multi-axis reduction.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_util.h"
#include "kernels/math/op_util.h"
#include "kernels/math/reduction_shape.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace tensord {
namespace math {
namespace {

struct LogicalAndFn {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOrFn {
  bool operator()(bool a, bool b) const { return a || b; }
};

// A reducer: an associative Eigen functor F, its identity, and a finishing step applied to each
// output given the number of reduced elements. Prepare transforms the input first.
template <typename T, typename F>
struct Reducer {
  using Fn = F;
  static constexpr bool kPrepares = false;
  static void Prepare(T*, int64_t) {}
  static void Finalize(T*, int64_t, int64_t) {}
};

template <typename T>
struct SumReducer : Reducer<T, Eigen::internal::scalar_sum_op<T>> {
  static T Identity() { return T(0); }
};

template <typename T>
struct ProdReducer : Reducer<T, Eigen::internal::scalar_product_op<T>> {
  static T Identity() { return T(1); }
};

// Max/Min propagate NaN; an empty reduction gives -inf/+inf (lowest/highest for integers).
template <typename T>
struct MaxReducer : Reducer<T, MaxFn<T>> {
  static T Identity() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
};

template <typename T>
struct MinReducer : Reducer<T, MinFn<T>> {
  static T Identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
};

struct AllReducer : Reducer<bool, LogicalAndFn> {
  static bool Identity() { return true; }
};

struct AnyReducer : Reducer<bool, LogicalOrFn> {
  static bool Identity() { return false; }
};

// Sum divided by the count; integer means truncate, and an empty integer mean is 0.
template <typename T>
struct MeanReducer : SumReducer<T> {
  static void Finalize(T* out, int64_t n, int64_t count) {
    if (std::is_integral_v<T> && count == 0) return;
    for (int64_t i = 0; i < n; ++i) out[i] /= static_cast<T>(count);
  }
};

// sqrt(sum(x^2)), truncated for integers.
template <typename T>
struct EuclideanNormReducer : SumReducer<T> {
  static constexpr bool kPrepares = true;
  static void Prepare(T* data, int64_t n) {
    for (int64_t i = 0; i < n; ++i) data[i] *= data[i];
  }
  static void Finalize(T* out, int64_t n, int64_t) {
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<T>(std::sqrt(static_cast<double>(out[i])));
    }
  }
};

template <typename T, typename F>
constexpr bool kVectorizable = Eigen::internal::functor_traits<F>::PacketAccess;

// f over p[0..n), n > 0; long inputs are split in halves so rounding error grows with log(n).
template <typename T, typename F>
T ReduceContiguous(const T* p, int64_t n) {
  constexpr int64_t kLeaf = 4096;
  if (n > kLeaf) {
    const int64_t half = (n / 2 + 63) / 64 * 64;
    return F()(ReduceContiguous<T, F>(p, half), ReduceContiguous<T, F>(p + half, n - half));
  }
  if constexpr (kVectorizable<T, F>) {
    return ConstArrayMap<T>(p, n).redux(F());
  } else {
    T acc = p[0];
    for (int64_t i = 1; i < n; ++i) acc = F()(acc, p[i]);
    return acc;
  }
}

// out[0..w) = f over rows r < rows of in[r * stride + 0..w), rows > 0; combined pairwise.
template <typename T, typename F>
void ReduceRows(const T* in, int64_t rows, int64_t stride, int64_t w, T* out) {
  constexpr int64_t kLeafRows = 128;
  if (rows > kLeafRows) {
    const int64_t half = rows / 2;
    ReduceRows<T, F>(in, half, stride, w, out);
    std::unique_ptr<T[]> tmp(new T[w]);
    ReduceRows<T, F>(in + half * stride, rows - half, stride, w, tmp.get());
    ArrayMap<T> acc(out, w);
    acc = acc.binaryExpr(ConstArrayMap<T>(tmp.get(), w), F());
    return;
  }
  std::copy(in, in + w, out);
  ArrayMap<T> acc(out, w);
  for (int64_t r = 1; r < rows; ++r) {
    acc = acc.binaryExpr(ConstArrayMap<T>(in + r * stride, w), F());
  }
}

// out[a, b] = f over r of in[a, r, b].
template <typename T, typename F>
void ReduceMiddle(const Eigen::ThreadPoolDevice& device, const T* in, int64_t A, int64_t R,
                  int64_t B, T identity, T* out) {
  if (A * B == 0) return;
  if (R == 0) {
    std::fill(out, out + A * B, identity);
    return;
  }
  if (B == 1) {
    ParallelFor(device, A, Eigen::TensorOpCost(R * sizeof(T), sizeof(T), R),
                [&](Eigen::Index begin, Eigen::Index end) {
                  for (Eigen::Index a = begin; a < end; ++a) {
                    out[a] = ReduceContiguous<T, F>(in + a * R, R);
                  }
                });
    return;
  }
  // Units of (a, block of columns), narrow enough that small A still spreads over threads.
  const int64_t width = std::min<int64_t>(
      B, std::max<int64_t>(256, (B + 4 * device.numThreads() - 1) / (4 * device.numThreads())));
  const int64_t blocks = (B + width - 1) / width;
  ParallelFor(device, A * blocks,
              Eigen::TensorOpCost(R * width * sizeof(T), width * sizeof(T), R * width),
              [&](Eigen::Index begin, Eigen::Index end) {
                for (Eigen::Index u = begin; u < end; ++u) {
                  const int64_t a = u / blocks;
                  const int64_t b0 = (u % blocks) * width;
                  const int64_t w = std::min(width, B - b0);
                  ReduceRows<T, F>(in + a * R * B + b0, R, B, w, out + a * B + b0);
                }
              });
}

template <typename T, typename R>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("keep_dims", &keep_dims_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& input = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(ReductionShape shape,
                             MakeReductionShape(c, input.shape(), keep_dims_));
    std::vector<ReductionShape::Group>& groups = shape.groups;
    const bool reduces_anything = shape.reduces_anything();
    if (!reduces_anything && !R::kPrepares) {
      TENSORD_ASSIGN_OR_RETURN(Tensor same, input.Reshaped(shape.output_shape));
      c->set_output(0, std::move(same));
      return absl::OkStatus();
    }

    Tensor* output = c->allocate_output(0, input.dtype(), shape.output_shape);
    const T* current = input.data<T>();
    std::unique_ptr<T[]> prepared;
    if constexpr (R::kPrepares) {
      prepared.reset(new T[input.NumElements()]);
      std::copy(current, current + input.NumElements(), prepared.get());
      R::Prepare(prepared.get(), input.NumElements());
      current = prepared.get();
      if (!reduces_anything) {
        std::copy(current, current + input.NumElements(), output->data<T>());
      }
    }
    std::unique_ptr<T[]> buffer;  // holds `current` between passes
    while (true) {
      int last = -1;
      for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
        if (groups[g].reduced) last = g;
      }
      if (last < 0) break;
      int64_t before = 1, after = 1;
      for (int g = 0; g < last; ++g) before *= groups[g].size;
      for (int g = last + 1; g < static_cast<int>(groups.size()); ++g) after *= groups[g].size;
      const bool final_pass = std::none_of(groups.begin(), groups.begin() + last,
                                           [](const auto& g) { return g.reduced; });
      T* dst = output->data<T>();
      std::unique_ptr<T[]> next;
      if (!final_pass) {
        next.reset(new T[before * after]);
        dst = next.get();
      }
      ReduceMiddle<T, typename R::Fn>(c->eigen_cpu_device(), current, before, groups[last].size,
                                      after, R::Identity(), dst);
      if (final_pass) break;
      buffer = std::move(next);
      current = buffer.get();
      // Drop the group and merge its kept neighbours.
      groups.erase(groups.begin() + last);
      if (last > 0 && last < static_cast<int>(groups.size()) &&
          groups[last - 1].reduced == groups[last].reduced) {
        groups[last - 1].size *= groups[last].size;
        groups.erase(groups.begin() + last);
      }
    }
    R::Finalize(output->data<T>(), output->NumElements(), shape.count);
    return absl::OkStatus();
  }

 private:
  bool keep_dims_ = false;
};

#define REGISTER_REDUCTION(OP, T, REDUCER)                                   \
  TENSORD_REGISTER_KERNEL(KernelDef(OP)                                      \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(1),                           \
                          ReductionOp<T, REDUCER>)

#define REGISTER_NUMERIC_REDUCTIONS(T)           \
  REGISTER_REDUCTION("Sum", T, SumReducer<T>);   \
  REGISTER_REDUCTION("Mean", T, MeanReducer<T>); \
  REGISTER_REDUCTION("Prod", T, ProdReducer<T>); \
  REGISTER_REDUCTION("Max", T, MaxReducer<T>);   \
  REGISTER_REDUCTION("Min", T, MinReducer<T>);   \
  REGISTER_REDUCTION("EuclideanNorm", T, EuclideanNormReducer<T>)

REGISTER_NUMERIC_REDUCTIONS(float);
REGISTER_NUMERIC_REDUCTIONS(double);
REGISTER_NUMERIC_REDUCTIONS(int32_t);
REGISTER_NUMERIC_REDUCTIONS(int64_t);

TENSORD_REGISTER_KERNEL(KernelDef("All").Device(DeviceType::kCpu).HostMemoryInput(1),
                        ReductionOp<bool, AllReducer>);
TENSORD_REGISTER_KERNEL(KernelDef("Any").Device(DeviceType::kCpu).HostMemoryInput(1),
                        ReductionOp<bool, AnyReducer>);

#undef REGISTER_NUMERIC_REDUCTIONS
#undef REGISTER_REDUCTION

}  // namespace
}  // namespace math
}  // namespace tensord
