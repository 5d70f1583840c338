// Unique(x) -> (y, idx): the distinct values of a vector in order of first occurrence, and for
// each element its position in y. Values compare with ==, so 0.0 and -0.0 are one value and
// every NaN is its own.
#include <type_traits>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/framework/dispatch_numeric.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

// Fills `first` with the position of each distinct value's first occurrence and `idx` with each
// element's index into `first`. Values are compared as `Key` (float for half and bfloat16).
template <typename Key, typename T>
void FindUnique(const T* data, int64_t n, std::vector<int64_t>* first, std::vector<int64_t>* idx) {
  std::unordered_map<Key, int64_t> seen;
  for (int64_t i = 0; i < n; ++i) {
    auto [it, inserted] = seen.emplace(static_cast<Key>(data[i]), first->size());
    if (inserted) first->push_back(i);
    (*idx)[i] = it->second;
  }
}

class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("out_idx", &out_idx_); }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& x = c->input(0);
    if (x.dims() != 1) return c->InvalidArgument("unique expects a 1D vector.");
    const int64_t n = x.NumElements();
    std::vector<int64_t> first;
    std::vector<int64_t> idx(n);
    if (x.dtype() == DT_STRING) {
      FindUnique<std::string>(x.data<std::string>(), n, &first, &idx);
    } else {
      bool supported = false;
      DispatchNumeric(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>) {
          FindUnique<float>(x.data<T>(), n, &first, &idx);
          supported = true;
        } else if constexpr (std::is_arithmetic_v<T>) {
          FindUnique<T>(x.data<T>(), n, &first, &idx);
          supported = true;
        }
      });
      if (!supported) {
        return c->InvalidArgument("Unique does not support dtype " + DataTypeString(x.dtype()));
      }
    }

    Tensor* y = c->allocate_output(0, x.dtype(), TensorShape{static_cast<int64_t>(first.size())});
    array::CopyPlan plan;
    plan.AddTableAxis(std::move(first), 1);
    TENSORD_RETURN_IF_ERROR(array::ExecuteCopyPlan(c, plan, x, y));
    Tensor* idx_out = c->allocate_output(1, out_idx_, TensorShape{n});
    for (int64_t i = 0; i < n; ++i) {
      if (out_idx_ == DT_INT64) {
        idx_out->data<int64_t>()[i] = idx[i];
      } else {
        idx_out->data<int32_t>()[i] = static_cast<int32_t>(idx[i]);
      }
    }
    return absl::OkStatus();
  }

 private:
  DataType out_idx_ = DT_INT32;
};

// Every value type but complex (TensorFlow has no Unique kernel for complex numbers).
constexpr DataType kUniqueTypes[] = {DT_FLOAT,  DT_DOUBLE, DT_HALF,  DT_BFLOAT16, DT_INT8,
                                     DT_INT16,  DT_INT32,  DT_INT64, DT_UINT8,    DT_UINT16,
                                     DT_UINT32, DT_UINT64, DT_BOOL,  DT_STRING};
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Unique"), "T", kUniqueTypes, UniqueOp);

}  // namespace
}  // namespace tensord
