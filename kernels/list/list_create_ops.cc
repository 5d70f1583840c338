// Ops that make TensorLists: TensorListReserve (n unset elements), EmptyTensorList and
// TensorListFromTensor (the rows of a tensor, shared, not copied).
#include "absl/strings/str_cat.h"
#include "kernels/list/tensor_list.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

class ListWithCountOp : public OpKernel {
 public:
  // TensorListReserve(element_shape, num_elements) or EmptyTensorList(element_shape,
  // max_num_elements): the second input is a size or only a capacity.
  explicit ListWithCountOp(OpKernelConstruction* c)
      : OpKernel(c), reserve_(c->op() == "TensorListReserve") {
    c->GetAttr("element_dtype", &element_dtype_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    absl::StatusOr<PartialShape> shape = ShapeFromTensor(c->input(0));
    if (!shape.ok()) return c->InvalidArgument(shape.status().message());
    const Tensor& count = c->input(1);
    if (count.dtype() != DT_INT32 || count.dims() != 0) {
      return c->InvalidArgument("the element count must be an int32 scalar");
    }
    TensorList list;
    list.element_dtype = element_dtype_;
    list.element_shape = *std::move(shape);
    if (reserve_) {
      if (count.scalar<int32_t>() < 0) {
        return c->InvalidArgument(absl::StrCat("cannot reserve ", count.scalar<int32_t>(),
                                               " elements"));
      }
      list.elements.resize(count.scalar<int32_t>());
    }
    c->set_output(0, ListTensor(std::move(list)));
    return absl::OkStatus();
  }

 private:
  const bool reserve_;
  DataType element_dtype_ = DT_INVALID;
};

class TensorListFromTensorOp : public OpKernel {
 public:
  explicit TensorListFromTensorOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("element_dtype", &element_dtype_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& t = c->input(0);
    if (t.dims() < 1) return c->InvalidArgument("the tensor must have at least one dimension");
    absl::StatusOr<PartialShape> shape = ShapeFromTensor(c->input(1));
    if (!shape.ok()) return c->InvalidArgument(shape.status().message());
    TensorShape row_shape = t.shape();
    row_shape.RemoveDim(0);
    if (!shape->IsCompatibleWith(row_shape)) {
      return c->InvalidArgument(absl::StrCat("rows of shape ", row_shape.DebugString(),
                                             " do not match element_shape ",
                                             shape->DebugString()));
    }
    TensorList list;
    list.element_dtype = element_dtype_;
    list.element_shape = *std::move(shape);
    for (int64_t i = 0; i < t.dim_size(0); ++i) {
      TENSORD_ASSIGN_OR_RETURN(Tensor row, t.Slice(i, i + 1).Reshaped(row_shape));
      list.elements.push_back(std::move(row));
    }
    c->set_output(0, ListTensor(std::move(list)));
    return absl::OkStatus();
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

TENSORD_REGISTER_KERNEL(KernelDef("TensorListReserve").Device(DeviceType::kCpu),
                        ListWithCountOp);
TENSORD_REGISTER_KERNEL(KernelDef("EmptyTensorList").Device(DeviceType::kCpu), ListWithCountOp);
TENSORD_REGISTER_KERNEL(KernelDef("TensorListFromTensor").Device(DeviceType::kCpu),
                        TensorListFromTensorOp);

}  // namespace
}  // namespace tensord
