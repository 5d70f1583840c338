// GatherV2 (axis input, batch_dims attr), Gather (TF1: axis 0) and GatherNd. Indices are
// validated up front (out of range is an error on CPU); the copy itself is a CopyPlan whose
// gathered axis is a table of source offsets.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/array/array_util.h"
#include "kernels/array/copy_plan.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

int64_t Product(const TensorShape& shape, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= shape.dim_size(i);
  return n;
}

// "[1,2]": the coordinates of flat position `flat` in the first `rank` dims of `shape`, or ""
// for rank 0 (TensorFlow prints "indices[1,2] = ..." and "indices = ..." for a scalar).
std::string Position(const TensorShape& shape, int rank, int64_t flat) {
  if (rank == 0) return "";
  std::vector<int64_t> coords(rank);
  for (int i = rank - 1; i >= 0; --i) {
    coords[i] = flat % shape.dim_size(i);
    flat /= shape.dim_size(i);
  }
  return array::BracketList(coords);
}

class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* c) : OpKernel(c) {
    if (c->HasAttr("batch_dims")) c->GetAttr("batch_dims", &batch_dims_);
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& params = c->input(0);
    const Tensor& indices_t = c->input(1);
    const int rank = params.dims();
    if (rank < 1) return c->InvalidArgument("params must be at least 1 dimensional");
    int64_t axis = 0;  // Gather (TF1) has no axis input
    if (c->num_inputs() > 2) {
      if (c->input(2).NumElements() != 1) return c->InvalidArgument("axis must be scalar");
      TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> a,
                               array::ReadIndexValues(c, c->input(2), "axis"));
      axis = a[0];
    }
    if (axis < -rank || axis >= rank) {
      return c->InvalidArgument(
          absl::StrCat("Expected axis in the range [", -rank, ", ", rank, "), but got ", axis));
    }
    if (axis < 0) axis += rank;
    int64_t batch_dims = batch_dims_;
    if (batch_dims != 0) {
      const int indices_rank = indices_t.dims();
      if (batch_dims < -indices_rank || batch_dims > indices_rank) {
        return c->InvalidArgument(absl::StrCat("Expected batch_dims in the range [", -indices_rank,
                                               ", ", indices_rank, "], but got ", batch_dims));
      }
      if (batch_dims < 0) batch_dims += indices_rank;
      if (batch_dims >= rank) {
        return c->InvalidArgument(absl::StrCat("batch_dims (", batch_dims,
                                               ") must be less than rank(params) (", rank, ")."));
      }
      if (batch_dims > axis) {
        return c->InvalidArgument(absl::StrCat(
            "batch_dims (", batch_dims, ") must be less than or equal to axis (", axis, ")."));
      }
      for (int i = 0; i < batch_dims; ++i) {
        if (params.dim_size(i) != indices_t.dim_size(i)) {
          return c->InvalidArgument(absl::StrCat("params.shape[", i, "]: ", params.dim_size(i),
                                                 " should be equal to indices.shape[", i,
                                                 "]: ", indices_t.dim_size(i)));
        }
      }
    }
    const int b = static_cast<int>(batch_dims);
    const int a = static_cast<int>(axis);
    const int64_t limit = params.dim_size(a);
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> indices,
                             array::ReadIndexValues(c, indices_t, "indices"));
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= limit) {
        return c->InvalidArgument(absl::StrCat("indices",
                                               Position(indices_t.shape(), indices_t.dims(), i),
                                               " = ", indices[i], " is not in [0, ", limit, ")"));
      }
    }

    TensorShape out_shape;
    for (int i = 0; i < a; ++i) out_shape.AddDim(params.dim_size(i));
    for (int i = b; i < indices_t.dims(); ++i) out_shape.AddDim(indices_t.dim_size(i));
    for (int i = a + 1; i < rank; ++i) out_shape.AddDim(params.dim_size(i));
    Tensor* out = c->allocate_output(0, params.dtype(), out_shape);

    // params is [batch, outer, limit, inner]; out is [batch, outer, n, inner].
    const int64_t batch = Product(params.shape(), 0, b);
    const int64_t outer = Product(params.shape(), b, a);
    const int64_t inner = Product(params.shape(), a + 1, rank);
    const int64_t n = Product(indices_t.shape(), b, indices_t.dims());
    for (int64_t bi = 0; bi < batch; ++bi) {
      std::vector<int64_t> offsets(n);
      for (int64_t i = 0; i < n; ++i) offsets[i] = indices[bi * n + i] * inner;
      array::CopyPlan plan;
      plan.src_base = bi * outer * limit * inner;
      plan.dst_base = bi * outer * n * inner;
      plan.AddAxis(outer, limit * inner, n * inner);
      plan.AddTableAxis(std::move(offsets), inner);
      plan.AddAxis(inner, 1, 1);
      TENSORD_RETURN_IF_ERROR(array::ExecuteCopyPlan(c, plan, params, out));
    }
    return absl::OkStatus();
  }

 private:
  int64_t batch_dims_ = 0;
};

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string policy;
    if (c->HasAttr("bad_indices_policy") && c->GetAttr("bad_indices_policy", &policy) &&
        !policy.empty() && policy != "DEFAULT" && policy != "ERROR") {
      c->SetError(absl::UnimplementedError(absl::StrCat(
          "GatherNd node '", c->name(), "': bad_indices_policy '", policy, "' is not supported")));
    }
  }
  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& params = c->input(0);
    const Tensor& indices_t = c->input(1);
    if (params.dims() < 1) return c->InvalidArgument("params must be at least a vector");
    if (indices_t.dims() < 1) return c->InvalidArgument("indices must be at least a vector");
    const int k = static_cast<int>(indices_t.dim_size(indices_t.dims() - 1));
    if (k > params.dims()) {
      return c->InvalidArgument(
          absl::StrCat("index innermost dimension length must be <= params rank; saw: ", k, " vs. ",
                       params.dims()));
    }
    const int index_rank = indices_t.dims() - 1;
    const int64_t n = Product(indices_t.shape(), 0, index_rank);
    const int64_t inner = Product(params.shape(), k, params.dims());
    if (n > 0 && params.NumElements() == 0) {
      return c->InvalidArgument(
          absl::StrCat("Requested more than 0 entries, but params is empty.  Params shape: ",
                       params.shape().DebugString()));
    }
    TENSORD_ASSIGN_OR_RETURN(std::vector<int64_t> indices,
                             array::ReadIndexValues(c, indices_t, "indices"));
    std::vector<int64_t> offsets(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t* index = indices.data() + i * k;
      int64_t offset = 0;
      for (int j = 0; j < k; ++j) {
        if (index[j] < 0 || index[j] >= params.dim_size(j)) {
          return c->InvalidArgument(
              absl::StrCat("indices", Position(indices_t.shape(), index_rank, i), " = [",
                           absl::StrJoin(index, index + k, ", "),
                           "] does not index into param shape ", params.shape().DebugString()));
        }
        offset = offset * params.dim_size(j) + index[j];
      }
      offsets[i] = offset * inner;
    }

    TensorShape out_shape;
    for (int i = 0; i < index_rank; ++i) out_shape.AddDim(indices_t.dim_size(i));
    for (int i = k; i < params.dims(); ++i) out_shape.AddDim(params.dim_size(i));
    Tensor* out = c->allocate_output(0, params.dtype(), out_shape);
    array::CopyPlan plan;
    plan.AddTableAxis(std::move(offsets), inner);
    plan.AddAxis(inner, 1, 1);
    return array::ExecuteCopyPlan(c, plan, params, out);
  }
};

TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("GatherV2").HostMemoryInput(2), "Tparams",
                                  array::kAllValueTypes, GatherOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("Gather"), "Tparams", array::kAllValueTypes,
                                  GatherOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::CpuDef("GatherNd"), "Tparams", array::kAllValueTypes,
                                  GatherNdOp);
// On a GPU the indices are read on the host (they become the plan's offset table, copied to
// the device with the work): an embedding lookup's ids come from the request there anyway.
TENSORD_REGISTER_KERNEL_FOR_TYPES(
    array::GpuDef("GatherV2").HostMemoryInput(1).HostMemoryInput(2), "Tparams",
    array::kNumericAndBoolTypes, GatherOp);
TENSORD_REGISTER_KERNEL_FOR_TYPES(array::GpuDef("GatherNd").HostMemoryInput(1), "Tparams",
                                  array::kNumericAndBoolTypes, GatherNdOp);

}  // namespace
}  // namespace tensord
