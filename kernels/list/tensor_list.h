// TensorList: the value inside the DT_VARIANT tensors of TensorFlow's list ops (what
// tf.TensorArray and Keras' recurrent layers lower to in TF2 graphs).
//
// A list has an element dtype, an element shape that may be partial, and its elements; an
// element never set is empty (IsInitialized() false) and reads as zeros of the element shape.
// Lists are immutable once wrapped in a tensor: ops that change a list make a new one, which
// shares the element buffers.
#ifndef TENSORD_KERNELS_LIST_TENSOR_LIST_H_
#define TENSORD_KERNELS_LIST_TENSOR_LIST_H_

#include <vector>

#include "absl/status/statusor.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_shape.h"

namespace tensord {

struct TensorList {
  DataType element_dtype = DT_INVALID;
  PartialShape element_shape;
  std::vector<Tensor> elements;
};

// A scalar DT_VARIANT tensor holding `list`.
Tensor ListTensor(TensorList list);

// The list in input `index` of the kernel, or INVALID_ARGUMENT naming the node.
absl::StatusOr<const TensorList*> InputList(OpKernelContext* c, int index);

// An element_shape input: -1 (any rank) as a scalar, or a vector of dims with -1 unknown.
absl::StatusOr<PartialShape> ShapeFromTensor(const Tensor& t);

// The more specific of two compatible partial shapes; INVALID_ARGUMENT when they conflict.
absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a, const PartialShape& b);

// The tensor standing for element `index`: the element itself, or zeros of the element shape
// merged with `shape_hint` (which must then be fully defined).
absl::StatusOr<Tensor> ElementOrZeros(const TensorList& list, int64_t index,
                                      const PartialShape& shape_hint);

}  // namespace tensord

#endif  // TENSORD_KERNELS_LIST_TENSOR_LIST_H_
