// The operand checks and product shapes of MatMul and BatchMatMul*, shared by their CPU and
// GPU kernels so that both accept the same inputs and say the same things about bad ones.
#ifndef TENSORD_KERNELS_MATH_MATMUL_SHAPE_H_
#define TENSORD_KERNELS_MATH_MATMUL_SHAPE_H_

#include "absl/status/statusor.h"
#include "kernels/math/matmul_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/types.h"

namespace tensord {
namespace math {

// MatMul: inputs 0 and 1 are `dtype` matrices whose inner dimensions agree.
absl::StatusOr<MatMulDims> MatMulProductDims(const OpKernelContext* c, DataType dtype,
                                             bool transpose_a, bool transpose_b);

// BatchMatMul*: inputs 0 and 1 are `dtype` tensors of rank >= 2 whose matrices multiply and
// whose batch dims are equal (`broadcast` false: BatchMatMul) or broadcast (V2, V3).
struct BatchMatMulShape {
  MatMulDims dims;        // of each product
  BatchBroadcast batches; // which x and y matrix each output matrix multiplies
  TensorShape output;     // batches.shape + [m, n]
};
absl::StatusOr<BatchMatMulShape> BatchMatMulShapes(const OpKernelContext* c, DataType dtype,
                                                   bool adj_x, bool adj_y, bool broadcast);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_MATMUL_SHAPE_H_
