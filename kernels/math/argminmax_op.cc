// ArgMax / ArgMin(input, dimension) with attr output_type (int32 or int64).
//
// Like TensorFlow's CPU kernel: the scan starts from (index 0, lowest value) for ArgMax
// ((index 0, highest value) for ArgMin) and moves only on a strictly better value, so ties give
// the lowest index and NaN never wins (all-NaN gives 0).
#include <algorithm>
#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "kernels/math/reduction_shape.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

struct ArgMaxTraits {
  template <typename T>
  static T Start() {
    return std::numeric_limits<T>::lowest();
  }
  template <typename T>
  static bool Better(const T& v, const T& best) {
    return v > best;
  }
};

struct ArgMinTraits {
  template <typename T>
  static T Start() {
    return std::numeric_limits<T>::max();
  }
  template <typename T>
  static bool Better(const T& v, const T& best) {
    return v < best;
  }
};

template <typename T, typename Out, typename Traits>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& input = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(AxisReduction shape, MakeAxisReduction(c, input.shape()));
    Tensor* output = c->allocate_output(0, DataTypeToEnum<Out>::value, shape.output_shape);
    const int64_t A = shape.outer, R = shape.size, B = shape.inner;
    const T* in = input.data<T>();
    Out* out = output->data<Out>();
    // Each unit is one a: B running bests, updated row by row for contiguous reads.
    ParallelFor(c->eigen_cpu_device(), A,
                Eigen::TensorOpCost(R * B * sizeof(T), B * sizeof(Out), 2 * R * B),
                [&](Eigen::Index begin, Eigen::Index end) {
                  std::unique_ptr<T[]> best(new T[B]);
                  for (Eigen::Index a = begin; a < end; ++a) {
                    Out* idx = out + a * B;
                    std::fill(best.get(), best.get() + B, Traits::template Start<T>());
                    std::fill(idx, idx + B, Out{0});
                    const T* slab = in + a * R * B;
                    for (int64_t r = 0; r < R; ++r) {
                      const T* row = slab + r * B;
                      for (int64_t b = 0; b < B; ++b) {
                        if (Traits::Better(row[b], best[b])) {
                          best[b] = row[b];
                          idx[b] = static_cast<Out>(r);
                        }
                      }
                    }
                  }
                });
    return absl::OkStatus();
  }
};

#define REGISTER_ARG_OP(OP, TRAITS, T, OUT)                                              \
  TENSORD_REGISTER_KERNEL(KernelDef(OP)                                                  \
                              .Device(DeviceType::kCpu)                                  \
                              .TypeConstraint("T", DataTypeToEnum<T>::value)             \
                              .TypeConstraint("output_type", DataTypeToEnum<OUT>::value) \
                              .HostMemoryInput(1),                                       \
                          ArgOp<T, OUT, TRAITS>)

#define REGISTER_ARG_OPS(T)                            \
  REGISTER_ARG_OP("ArgMax", ArgMaxTraits, T, int32_t); \
  REGISTER_ARG_OP("ArgMax", ArgMaxTraits, T, int64_t); \
  REGISTER_ARG_OP("ArgMin", ArgMinTraits, T, int32_t); \
  REGISTER_ARG_OP("ArgMin", ArgMinTraits, T, int64_t)

REGISTER_ARG_OPS(float);
REGISTER_ARG_OPS(double);
REGISTER_ARG_OPS(int32_t);
REGISTER_ARG_OPS(int64_t);
REGISTER_ARG_OPS(bool);

#undef REGISTER_ARG_OPS
#undef REGISTER_ARG_OP

}  // namespace
}  // namespace math
}  // namespace tensord
