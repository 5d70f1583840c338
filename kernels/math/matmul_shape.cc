#include "kernels/math/matmul_shape.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/op_util.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace math {

absl::StatusOr<MatMulDims> MatMulProductDims(const OpKernelContext* c, DataType dtype,
                                             bool transpose_a, bool transpose_b) {
  for (int i = 0; i < 2; ++i) {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, dtype));
    if (c->input(i).dims() != 2) {
      return c->InvalidArgument(absl::StrCat("In[", i, "] is not a matrix. Instead it has shape ",
                                             c->input(i).shape().DebugString()));
    }
  }
  const Tensor& a = c->input(0);
  const Tensor& b = c->input(1);
  MatMulDims dims;
  dims.transpose_a = transpose_a;
  dims.transpose_b = transpose_b;
  dims.m = a.dim_size(transpose_a ? 1 : 0);
  dims.k = a.dim_size(transpose_a ? 0 : 1);
  dims.n = b.dim_size(transpose_b ? 0 : 1);
  if (b.dim_size(transpose_b ? 1 : 0) != dims.k) {
    return c->InvalidArgument(absl::StrCat("Matrix size-incompatible: In[0]: ",
                                           a.shape().DebugString(),
                                           ", In[1]: ", b.shape().DebugString()));
  }
  return dims;
}

absl::StatusOr<BatchMatMulShape> BatchMatMulShapes(const OpKernelContext* c, DataType dtype,
                                                   bool adj_x, bool adj_y, bool broadcast) {
  for (int i = 0; i < 2; ++i) {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, i, dtype));
    if (c->input(i).dims() < 2) {
      return c->InvalidArgument(
          absl::StrCat("In[", i, "] ndims must be >= 2: ", c->input(i).dims()));
    }
  }
  const Tensor& x = c->input(0);
  const Tensor& y = c->input(1);
  const int xr = x.dims();
  const int yr = y.dims();
  BatchMatMulShape shape;
  MatMulDims& dims = shape.dims;
  dims.transpose_a = adj_x;
  dims.transpose_b = adj_y;
  dims.m = x.dim_size(adj_x ? xr - 1 : xr - 2);
  dims.k = x.dim_size(adj_x ? xr - 2 : xr - 1);
  dims.n = y.dim_size(adj_y ? yr - 2 : yr - 1);
  if (y.dim_size(adj_y ? yr - 1 : yr - 2) != dims.k) {
    return c->InvalidArgument(absl::StrCat("Matrix size-incompatible: In[0]: ",
                                           x.shape().DebugString(),
                                           ", In[1]: ", y.shape().DebugString()));
  }
  const TensorShape x_batch(
      std::vector<int64_t>(x.shape().dim_sizes().begin(), x.shape().dim_sizes().end() - 2));
  const TensorShape y_batch(
      std::vector<int64_t>(y.shape().dim_sizes().begin(), y.shape().dim_sizes().end() - 2));
  if (!broadcast && x_batch != y_batch) {
    return c->InvalidArgument(absl::StrCat("In[0] and In[1] must have the same batch dimensions: ",
                                           x.shape().DebugString(), " vs. ",
                                           y.shape().DebugString()));
  }
  std::optional<BatchBroadcast> batches = BroadcastBatches(x_batch, y_batch);
  if (!batches) {
    return c->InvalidArgument(absl::StrCat(
        "In[0] and In[1] must have compatible batch dimensions: ", x.shape().DebugString(),
        " vs. ", y.shape().DebugString()));
  }
  shape.batches = *std::move(batches);
  shape.output = shape.batches.shape;
  shape.output.AddDim(dims.m);
  shape.output.AddDim(dims.n);
  return shape;
}

}  // namespace math
}  // namespace tensord
