// Shared by the list op tests: make a list tensor directly and read one back.
#ifndef TENSORD_KERNELS_LIST_LIST_TEST_UTIL_H_
#define TENSORD_KERNELS_LIST_LIST_TEST_UTIL_H_

#include <vector>

#include "kernels/list/tensor_list.h"
#include "runtime/framework/variant.h"

namespace tensord {
namespace testing {

// A float list of `elements` (uninitialized tensors stand for unset elements).
inline Tensor FloatList(std::vector<Tensor> elements, PartialShape element_shape = {}) {
  TensorList list;
  list.element_dtype = DT_FLOAT;
  list.element_shape = std::move(element_shape);
  list.elements = std::move(elements);
  return ListTensor(std::move(list));
}

inline const TensorList* GetList(const Tensor& t) {
  return t.dtype() == DT_VARIANT ? t.scalar<Variant>().get<TensorList>() : nullptr;
}

}  // namespace testing
}  // namespace tensord

#endif  // TENSORD_KERNELS_LIST_LIST_TEST_UTIL_H_
