// TopKV2(input, k) with attrs sorted, T, Tk and index_type: the k largest entries along the last
// dimension and their indices.
//
// Like TensorFlow's CPU kernel: values come out in descending order (also when sorted=false,
// whose order TF leaves undefined) and equal values keep their input order (lower index first).
#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/tensor_eigen.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {
namespace {

template <typename T>
class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->HasAttr("index_type")) c->GetAttr("index_type", &index_type_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, 0, DataTypeToEnum<T>::value));
    const Tensor& input = c->input(0);
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> k_values, ReadIndexValues(c, 1, "k"));
    if (c->input(1).dims() != 0 || k_values.size() != 1) {
      return c->InvalidArgument(
          absl::StrCat("k must be a scalar, got shape ", c->input(1).shape().DebugString()));
    }
    const int64_t k = k_values[0];
    if (k < 0) return c->InvalidArgument(absl::StrCat("Need k >= 0, got ", k));
    if (input.dims() < 1) {
      return c->InvalidArgument(
          absl::StrCat("input must be >= 1-D, got shape ", input.shape().DebugString()));
    }
    const int64_t n = input.dim_size(input.dims() - 1);
    if (n < k) {
      return c->InvalidArgument(
          absl::StrCat("input must have at least k columns. Had ", n, ", needed ", k));
    }
    if (index_type_ != DT_INT32 && index_type_ != DT_INT64) {
      return c->InvalidArgument(
          absl::StrCat("index_type must be int32 or int64, got ", DataTypeString(index_type_)));
    }
    TensorShape out_shape = input.shape();
    out_shape.set_dim(out_shape.dims() - 1, k);
    Tensor* values = c->allocate_output(0, input.dtype(), out_shape);
    Tensor* indices = c->allocate_output(1, index_type_, out_shape);
    const int64_t rows = n == 0 ? 0 : input.NumElements() / n;
    const T* in = input.data<T>();
    T* out = values->data<T>();
    ParallelFor(c->eigen_cpu_device(), rows,
                Eigen::TensorOpCost(n * sizeof(T), 2 * k * sizeof(T), n * 4),
                [&](Eigen::Index begin, Eigen::Index end) {
                  std::vector<int64_t> order(n);
                  for (Eigen::Index r = begin; r < end; ++r) {
                    const T* row = in + r * n;
                    std::iota(order.begin(), order.end(), 0);
                    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                                      [row](int64_t a, int64_t b) {
                                        return row[a] > row[b] || (row[a] == row[b] && a < b);
                                      });
                    for (int64_t j = 0; j < k; ++j) {
                      out[r * k + j] = row[order[j]];
                      if (index_type_ == DT_INT32) {
                        indices->data<int32_t>()[r * k + j] = static_cast<int32_t>(order[j]);
                      } else {
                        indices->data<int64_t>()[r * k + j] = order[j];
                      }
                    }
                  }
                });
    return absl::OkStatus();
  }

 private:
  DataType index_type_ = DT_INT32;
};

#define REGISTER_TOPK(T)                                                     \
  TENSORD_REGISTER_KERNEL(KernelDef("TopKV2")                                \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .HostMemoryInput(1),                           \
                          TopKOp<T>)

REGISTER_TOPK(float);
REGISTER_TOPK(double);
REGISTER_TOPK(int32_t);
REGISTER_TOPK(int64_t);
REGISTER_TOPK(uint8_t);
REGISTER_TOPK(int8_t);
REGISTER_TOPK(int16_t);

#undef REGISTER_TOPK

}  // namespace
}  // namespace math
}  // namespace tensord
