#include "kernels/list/tensor_list.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/framework/variant.h"

namespace tensord {

Tensor ListTensor(TensorList list) {
  Tensor t(DT_VARIANT, TensorShape{});
  t.scalar<Variant>() = Variant(std::make_shared<const TensorList>(std::move(list)));
  return t;
}

absl::StatusOr<const TensorList*> InputList(OpKernelContext* c, int index) {
  const Tensor& t = c->input(index);
  const TensorList* list =
      t.dtype() == DT_VARIANT && t.dims() == 0 ? t.scalar<Variant>().get<TensorList>() : nullptr;
  if (list == nullptr) {
    return c->InvalidArgument(absl::StrCat("input ", index, " is not a TensorList (got ",
                                           DataTypeString(t.dtype()), " ",
                                           t.shape().DebugString(), ")"));
  }
  return list;
}

absl::StatusOr<PartialShape> ShapeFromTensor(const Tensor& t) {
  std::vector<int64_t> dims;
  if (t.dtype() == DT_INT32) {
    for (int64_t i = 0; i < t.NumElements(); ++i) dims.push_back(t.data<int32_t>()[i]);
  } else if (t.dtype() == DT_INT64) {
    for (int64_t i = 0; i < t.NumElements(); ++i) dims.push_back(t.data<int64_t>()[i]);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("element_shape must be int32 or int64, got ",
                                                   DataTypeString(t.dtype())));
  }
  PartialShape shape;
  if (t.dims() == 0) {
    if (dims[0] != -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("a scalar element_shape must be -1 (unknown rank), got ", dims[0]));
    }
    return shape;
  }
  if (t.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("element_shape must be a vector, got shape ", t.shape().DebugString()));
  }
  for (int64_t d : dims) {
    if (d < -1) return absl::InvalidArgumentError(absl::StrCat("invalid dimension ", d));
  }
  shape.unknown_rank = false;
  shape.dims = std::move(dims);
  return shape;
}

absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a, const PartialShape& b) {
  if (a.unknown_rank) return b;
  if (b.unknown_rank) return a;
  if (a.dims.size() != b.dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat("element shapes ", a.DebugString(), " and ",
                                                   b.DebugString(), " differ in rank"));
  }
  PartialShape merged = a;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i] == -1) {
      merged.dims[i] = b.dims[i];
    } else if (b.dims[i] != -1 && a.dims[i] != b.dims[i]) {
      return absl::InvalidArgumentError(absl::StrCat("element shapes ", a.DebugString(), " and ",
                                                     b.DebugString(), " are incompatible"));
    }
  }
  return merged;
}

absl::StatusOr<Tensor> ElementOrZeros(const TensorList& list, int64_t index,
                                      const PartialShape& shape_hint) {
  const Tensor& element = list.elements[index];
  if (element.IsInitialized()) return element;
  absl::StatusOr<PartialShape> shape = MergeShapes(list.element_shape, shape_hint);
  if (!shape.ok()) return shape.status();
  if (!shape->IsFullyDefined()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "element ", index, " of the list was never set and the element shape ",
        shape->DebugString(), " is not fully defined, so it cannot be read as zeros"));
  }
  return Tensor(list.element_dtype, TensorShape(shape->dims));
}

}  // namespace tensord
