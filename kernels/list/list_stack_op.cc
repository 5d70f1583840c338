// TensorListStack: the list's elements stacked into one tensor [n, element shape...]; unset
// elements read as zeros.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/list/tensor_list.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class TensorListStackOp : public OpKernel {
 public:
  explicit TensorListStackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("element_dtype", &element_dtype_);
    if (c->HasAttr("num_elements")) c->GetAttr("num_elements", &num_elements_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const TensorList* list, InputList(c, 0));
    if (list->element_dtype != element_dtype_) {
      return c->InvalidArgument(absl::StrCat("the list holds ", DataTypeString(list->element_dtype),
                                             " elements, not ", DataTypeString(element_dtype_)));
    }
    if (DataTypeSize(element_dtype_) == 0 && element_dtype_ != DT_STRING) {
      return c->InvalidArgument(absl::StrCat("cannot stack ", DataTypeString(element_dtype_),
                                             " elements"));
    }
    const int64_t n = static_cast<int64_t>(list->elements.size());
    if (num_elements_ != -1 && num_elements_ != n) {
      return c->InvalidArgument(absl::StrCat("expected a list of ", num_elements_,
                                             " elements, got ", n));
    }
    absl::StatusOr<PartialShape> hint = ShapeFromTensor(c->input(1));
    if (!hint.ok()) return c->InvalidArgument(hint.status().message());
    absl::StatusOr<PartialShape> known = MergeShapes(list->element_shape, *hint);
    if (!known.ok()) return c->InvalidArgument(known.status().message());
    // The element shape: from a set element when there is one, else from the shapes given.
    for (const Tensor& e : list->elements) {
      if (!e.IsInitialized()) continue;
      PartialShape element;
      element.unknown_rank = false;
      element.dims.assign(e.shape().dim_sizes().begin(), e.shape().dim_sizes().end());
      known = MergeShapes(*known, element);
      if (!known.ok()) {
        return c->InvalidArgument(absl::StrCat("elements of different shapes cannot be stacked: ",
                                               known.status().message()));
      }
    }
    if (!known->IsFullyDefined()) {
      return c->InvalidArgument(absl::StrCat("cannot stack a list without set elements whose "
                                             "element shape ", known->DebugString(),
                                             " is not fully defined"));
    }
    const TensorShape element_shape(known->dims);
    TensorShape out_shape = element_shape;
    out_shape.InsertDim(0, n);
    Tensor* out = c->allocate_output(0, element_dtype_, out_shape);
    const int64_t per_element = element_shape.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& e = list->elements[i];
      if (!e.IsInitialized()) continue;  // the output starts zero-filled
      if (element_dtype_ == DT_STRING) {
        std::copy(e.data<std::string>(), e.data<std::string>() + per_element,
                  out->data<std::string>() + i * per_element);
      } else {
        std::memcpy(static_cast<char*>(out->raw_data()) + i * e.TotalBytes(), e.raw_data(),
                    e.TotalBytes());
      }
    }
    return absl::OkStatus();
  }

 private:
  DataType element_dtype_ = DT_INVALID;
  int64_t num_elements_ = -1;
};

TENSORD_REGISTER_KERNEL(KernelDef("TensorListStack").Device(DeviceType::kCpu), TensorListStackOp);

}  // namespace
}  // namespace tensord
