// Element access on TensorLists: TensorListGetItem, TensorListSetItem (a new list sharing the
// other elements), TensorListPushBack, TensorListLength and TensorListElementShape.
#include "absl/strings/str_cat.h"
#include "kernels/list/tensor_list.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

absl::StatusOr<int32_t> IndexInput(OpKernelContext* c, int input) {
  const Tensor& t = c->input(input);
  if (t.dtype() != DT_INT32 || t.dims() != 0) {
    return c->InvalidArgument("the index must be an int32 scalar");
  }
  return t.scalar<int32_t>();
}

absl::Status CheckItem(OpKernelContext* c, const TensorList& list, const Tensor& item) {
  if (item.dtype() != list.element_dtype) {
    return c->InvalidArgument(absl::StrCat("the list holds ", DataTypeString(list.element_dtype),
                                           " elements, got ", DataTypeString(item.dtype())));
  }
  if (!list.element_shape.IsCompatibleWith(item.shape())) {
    return c->InvalidArgument(absl::StrCat("an element of shape ", item.shape().DebugString(),
                                           " does not match the list's element shape ",
                                           list.element_shape.DebugString()));
  }
  return absl::OkStatus();
}

class TensorListGetItemOp : public OpKernel {
 public:
  explicit TensorListGetItemOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const TensorList* list, InputList(c, 0));
    TENSORD_ASSIGN_OR_RETURN(int32_t index, IndexInput(c, 1));
    if (index < 0 || index >= static_cast<int64_t>(list->elements.size())) {
      return c->InvalidArgument(absl::StrCat("cannot read element ", index, " of a list of ",
                                             list->elements.size()));
    }
    absl::StatusOr<PartialShape> hint = ShapeFromTensor(c->input(2));
    if (!hint.ok()) return c->InvalidArgument(hint.status().message());
    absl::StatusOr<Tensor> item = ElementOrZeros(*list, index, *hint);
    if (!item.ok()) return c->InvalidArgument(item.status().message());
    c->set_output(0, *std::move(item));
    return absl::OkStatus();
  }
};

class TensorListSetItemOp : public OpKernel {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->HasAttr("resize_if_index_out_of_bounds")) {
      c->GetAttr("resize_if_index_out_of_bounds", &resize_);
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const TensorList* list, InputList(c, 0));
    TENSORD_ASSIGN_OR_RETURN(int32_t index, IndexInput(c, 1));
    const Tensor& item = c->input(2);
    TENSORD_RETURN_IF_ERROR(CheckItem(c, *list, item));
    const int64_t size = static_cast<int64_t>(list->elements.size());
    if (index < 0 || (index >= size && !resize_)) {
      return c->InvalidArgument(absl::StrCat("cannot set element ", index, " of a list of ",
                                             size));
    }
    TensorList out = *list;
    if (index >= size) out.elements.resize(index + 1);
    out.elements[index] = item;
    c->set_output(0, ListTensor(std::move(out)));
    return absl::OkStatus();
  }

 private:
  bool resize_ = false;
};

class TensorListPushBackOp : public OpKernel {
 public:
  explicit TensorListPushBackOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const TensorList* list, InputList(c, 0));
    TENSORD_RETURN_IF_ERROR(CheckItem(c, *list, c->input(1)));
    TensorList out = *list;
    out.elements.push_back(c->input(1));
    c->set_output(0, ListTensor(std::move(out)));
    return absl::OkStatus();
  }
};

class TensorListLengthOp : public OpKernel {
 public:
  explicit TensorListLengthOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const TensorList* list, InputList(c, 0));
    c->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(list->elements.size())));
    return absl::OkStatus();
  }
};

class TensorListElementShapeOp : public OpKernel {
 public:
  explicit TensorListElementShapeOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("shape_type", &shape_type_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(const TensorList* list, InputList(c, 0));
    const PartialShape& shape = list->element_shape;
    const std::vector<int64_t> dims = shape.unknown_rank ? std::vector<int64_t>{-1} : shape.dims;
    Tensor* out = c->allocate_output(
        0, shape_type_,
        shape.unknown_rank ? TensorShape{} : TensorShape{static_cast<int64_t>(dims.size())});
    for (size_t i = 0; i < dims.size(); ++i) {
      if (shape_type_ == DT_INT64) {
        out->data<int64_t>()[i] = dims[i];
      } else {
        out->data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
      }
    }
    return absl::OkStatus();
  }

 private:
  DataType shape_type_ = DT_INT32;
};

TENSORD_REGISTER_KERNEL(KernelDef("TensorListGetItem").Device(DeviceType::kCpu),
                        TensorListGetItemOp);
TENSORD_REGISTER_KERNEL(KernelDef("TensorListSetItem").Device(DeviceType::kCpu),
                        TensorListSetItemOp);
TENSORD_REGISTER_KERNEL(KernelDef("TensorListPushBack").Device(DeviceType::kCpu),
                        TensorListPushBackOp);
TENSORD_REGISTER_KERNEL(KernelDef("TensorListLength").Device(DeviceType::kCpu),
                        TensorListLengthOp);
TENSORD_REGISTER_KERNEL(KernelDef("TensorListElementShape").Device(DeviceType::kCpu)
                            .TypeConstraint("shape_type", DT_INT32),
                        TensorListElementShapeOp);
TENSORD_REGISTER_KERNEL(KernelDef("TensorListElementShape").Device(DeviceType::kCpu)
                            .TypeConstraint("shape_type", DT_INT64),
                        TensorListElementShapeOp);

}  // namespace
}  // namespace tensord
