// In-place `variable += value` / `variable -= value`, shared by TF1 AssignAdd/AssignSub and the
// resource ops AssignAddVariableOp/AssignSubVariableOp.
#ifndef TENSORD_KERNELS_STATE_DENSE_UPDATE_H_
#define TENSORD_KERNELS_STATE_DENSE_UPDATE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/parallel_for.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/tensor_eigen.h"

namespace tensord {

enum class DenseUpdate { kAdd, kSub };

// The dtypes the update ops are registered for: M(C++ type) for each.
#define TENSORD_DENSE_UPDATE_TYPES(M) \
  M(float) M(double) M(Eigen::half) M(Eigen::bfloat16) M(int32_t) M(int64_t)

// Applies the update to `var` under its lock; `var_name` appears in errors. Both dtypes must be
// T and the shapes equal (no broadcasting, as in TensorFlow).
template <typename T, DenseUpdate kUpdate>
absl::Status ApplyDenseUpdate(const OpKernelContext& c, absl::string_view var_name,
                              const Tensor& value, Var* var) {
  constexpr DataType kDtype = DataTypeToEnum<T>::value;
  if (var->dtype() != kDtype || value.dtype() != kDtype) {
    return c.InvalidArgument(absl::StrCat(
        "cannot update ", DataTypeString(var->dtype()), " variable ", var_name, " with a ",
        DataTypeString(value.dtype()), " value (T is ", DataTypeString(kDtype), ")"));
  }
  return var->Update(var_name, [&](Tensor* current) -> absl::Status {
    if (current->shape() != value.shape()) {
      return c.InvalidArgument(absl::StrCat(
          "Cannot update variable ", var_name, " with shape ", current->shape().DebugString(),
          " using a Tensor with shape ", value.shape().DebugString(), ", shapes must be equal."));
    }
    T* out = current->data<T>();
    const T* in = value.data<T>();
    ParallelFor(c.eigen_cpu_device(), current->NumElements(),
                Eigen::TensorOpCost(2 * sizeof(T), sizeof(T), 1),
                [&](Eigen::Index begin, Eigen::Index end) {
                  for (Eigen::Index i = begin; i < end; ++i) {
                    if constexpr (kUpdate == DenseUpdate::kAdd) {
                      out[i] += in[i];
                    } else {
                      out[i] -= in[i];
                    }
                  }
                });
    return absl::OkStatus();
  });
}

}  // namespace tensord

#endif  // TENSORD_KERNELS_STATE_DENSE_UPDATE_H_
