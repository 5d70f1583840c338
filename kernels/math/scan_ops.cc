// Cumsum / Cumprod(x, axis) with attrs exclusive and reverse. For [a, b, c]:
// inclusive [a, a+b, a+b+c]; exclusive [0, a, a+b]; reverse [a+b+c, b+c, c];
// exclusive + reverse [b+c, c, 0]. Accumulates sequentially along the axis like TensorFlow.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kernels/math/cwise_util.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
struct SumScan {
  static T Identity() { return T(0); }
  using Fn = Eigen::internal::scalar_sum_op<T>;
};

template <typename T>
struct ProdScan {
  static T Identity() { return T(1); }
  using Fn = Eigen::internal::scalar_product_op<T>;
};

template <typename T, typename Scan>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("exclusive", &exclusive_);
    c->GetAttr("reverse", &reverse_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& x = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> axis_values, ReadIndexValues(c, 1, "axis"));
    const int rank = x.dims();
    if (c->input(1).dims() != 0) {
      return c->InvalidArgument(
          absl::StrCat("ScanOp: axis must be a scalar, not ", c->input(1).shape().DebugString()));
    }
    const int64_t axis_value = axis_values[0];
    if (axis_value < -rank || axis_value >= rank) {
      return c->InvalidArgument(absl::StrCat("ScanOp: Expected scan axis in the range [", -rank,
                                             ", ", rank, "), but got ", axis_value));
    }
    const int axis = static_cast<int>(axis_value < 0 ? axis_value + rank : axis_value);
    Tensor* out = c->allocate_output(0, x.dtype(), x.shape());
    int64_t A = 1, B = 1;
    const int64_t L = x.dim_size(axis);
    for (int i = 0; i < axis; ++i) A *= x.dim_size(i);
    for (int i = axis + 1; i < rank; ++i) B *= x.dim_size(i);
    if (out->NumElements() == 0) return absl::OkStatus();

    const T* in = x.data<T>();
    T* o = out->data<T>();
    const bool exclusive = exclusive_;
    const bool reverse = reverse_;
    // Units of (a, column block); each scans its columns row by row, B-contiguous.
    const int64_t width = std::min<int64_t>(B, 1024);
    const int64_t blocks = (B + width - 1) / width;
    ParallelFor(c->eigen_cpu_device(), A * blocks,
                Eigen::TensorOpCost(L * width * sizeof(T), L * width * sizeof(T), L * width),
                [&](Eigen::Index begin, Eigen::Index end) {
                  for (Eigen::Index u = begin; u < end; ++u) {
                    const int64_t a = u / blocks;
                    const int64_t b0 = (u % blocks) * width;
                    const int64_t w = std::min(width, B - b0);
                    const T* src = in + a * L * B + b0;
                    T* dst = o + a * L * B + b0;
                    for (int64_t step = 0; step < L; ++step) {
                      const int64_t l = reverse ? L - 1 - step : step;
                      const int64_t prev = reverse ? l + 1 : l - 1;
                      ArrayMap<T> row(dst + l * B, w);
                      if (step == 0) {
                        if (exclusive) {
                          row.setConstant(Scan::Identity());
                        } else {
                          row = ConstArrayMap<T>(src + l * B, w);
                        }
                      } else {
                        // Exclusive scans add the previous input, inclusive ones the current one.
                        const int64_t term = exclusive ? prev : l;
                        row = ConstArrayMap<T>(dst + prev * B, w)
                                  .binaryExpr(ConstArrayMap<T>(src + term * B, w),
                                              typename Scan::Fn());
                      }
                    }
                  }
                });
    return absl::OkStatus();
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

#define REGISTER_SCANS(T)                                                    \
  TENSORD_REGISTER_KERNEL(KernelDef("Cumsum")                                \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(1),                           \
                          ScanOp<T, SumScan<T>>);                            \
  TENSORD_REGISTER_KERNEL(KernelDef("Cumprod")                               \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(1),                           \
                          ScanOp<T, ProdScan<T>>)

REGISTER_SCANS(float);
REGISTER_SCANS(double);
REGISTER_SCANS(int32_t);
REGISTER_SCANS(int64_t);
#undef REGISTER_SCANS

}  // namespace
}  // namespace math
}  // namespace tensord
