// The device-neutral half of Einsum: the equation and the operands' shapes turned into dense
// layouts and one batched matrix product, which the CPU kernel (einsum_op.cc) and the GPU
// kernel (einsum_op_gpu.cc) then carry out with their own copies, sums and GEMMs.
//
// Equations have one or two operands and an explicit "->" output, e.g. "abc,cd->abd",
// "abcd,aecd->acbe", "...ij,...jk->...ik", "ii->i". Each operand is seen through its labels: a
// label repeated within an operand selects the diagonal (its strides add up), and a broadcast
// ellipsis dim of size 1 is dropped when the other side has it larger. Labels in both operands
// and the output are batch dims, in both but not the output contracted, in one operand and the
// output free, in one operand only summed out while that operand is laid out. Each operand is
// laid out (copied only when it is not already dense in that order) as [batch, free,
// contracted] or [batch, contracted, free], multiplied with the batched GEMM, and the [batch,
// free_x, free_y] result is moved into the output order when that differs.
#ifndef TENSORD_KERNELS_MATH_EINSUM_PLAN_H_
#define TENSORD_KERNELS_MATH_EINSUM_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/math/matmul_util.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/tensor_shape.h"

namespace tensord {
namespace math {

// How a source tensor becomes dense in a label order: element (i over `dims`) of the source is
// at sum i_d * strides[d]; the first dims (their product: `rows`) are the order's, the rest
// (product `cols`) are summed into each result element.
struct EinsumLayout {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  int64_t rows = 1;
  int64_t cols = 1;
  // False when the source already is that dense tensor (nothing to copy or sum).
  bool copy_needed = true;
};

struct EinsumPlan {
  TensorShape output_shape;
  int num_operands = 1;
  // One operand: the output is input 0 laid out by `x`.
  // Two: the output is the product, for each of `batches` entries, of input `left` laid out by
  // `x` ([m, k], or [k, m] when dims.transpose_a) and the other input laid out by `y` ([k, n],
  // or [n, k] when dims.transpose_b); then, when set, `result` moves the dense [batches, m, n]
  // product into the output order.
  int left = 0;
  EinsumLayout x;
  EinsumLayout y;
  MatMulDims dims;
  int64_t batches = 1;
  std::optional<EinsumLayout> result;
};

// Validates the node's inputs (their count against the N attr `num_inputs`, their ranks and
// sizes against `equation`) and plans the work. INVALID_ARGUMENT naming the node otherwise.
// Input dtypes are the kernel's to check.
absl::StatusOr<EinsumPlan> MakeEinsumPlan(const OpKernelContext* c, const std::string& equation,
                                          int num_inputs);

}  // namespace math
}  // namespace tensord

#endif  // TENSORD_KERNELS_MATH_EINSUM_PLAN_H_
