// TF2 resource variables: VarHandleOp produces a DT_RESOURCE scalar whose ResourceHandle holds the
// Var (created in the session's ResourceMgr under (container, shared_name)); the other ops take
// that handle as input 0.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/state/dense_update.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

struct HandleVar {
  absl::string_view name;  // of the input handle, which outlives the kernel call
  std::shared_ptr<Var> var;
};

// The variable behind the DT_RESOURCE scalar input i.
absl::StatusOr<HandleVar> VarFromInput(const OpKernelContext& c, int i) {
  const Tensor& t = c.input(i);
  if (t.dtype() != DT_RESOURCE || t.dims() != 0) {
    return c.InvalidArgument(absl::StrCat("input ", i, " must be a resource handle scalar, got ",
                                          DataTypeString(t.dtype()), " ", t.shape().DebugString()));
  }
  const ResourceHandle& handle = t.scalar<ResourceHandle>();
  auto var = std::dynamic_pointer_cast<Var>(handle.resource());
  if (var == nullptr) {
    return absl::NotFoundError(absl::StrCat(c.node_name(), ": resource '", handle.name(),
                                            "' (container '", handle.container(),
                                            "') is not a variable"));
  }
  return HandleVar{handle.name(), std::move(var)};
}

absl::Status CheckDtype(const OpKernelContext& c, const char* verb, const HandleVar& v,
                        DataType dtype) {
  if (v.var->dtype() == dtype) return absl::OkStatus();
  return c.InvalidArgument(
      absl::StrCat("Trying to ", verb, " variable ", v.name, " with wrong dtype. Expected ",
                   DataTypeString(v.var->dtype()), " got ", DataTypeString(dtype)));
}

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("dtype", &dtype_);
    c->GetAttr("container", &container_);
    c->GetAttr("shared_name", &shared_name_);
    if (shared_name_.empty()) shared_name_ = c->name();
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<Var> var,
                             c->resource_mgr()->LookupOrCreate<Var>(container_, shared_name_, [&] {
                               return std::make_shared<Var>(dtype_);
                             }));
    if (var->dtype() != dtype_) {
      return c->InvalidArgument(absl::StrCat("variable '", shared_name_, "' exists with dtype ",
                                             DataTypeString(var->dtype()), ", not ",
                                             DataTypeString(dtype_)));
    }
    c->set_output(0, Tensor::Scalar<ResourceHandle>(
                         ResourceHandle(container_, shared_name_, std::move(var))));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  std::string container_;
  std::string shared_name_;
};

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* c) : OpKernel(c) { c->GetAttr("dtype", &dtype_); }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(HandleVar v, VarFromInput(*c, 0));
    TENSORD_RETURN_IF_ERROR(CheckDtype(*c, "read", v, dtype_));
    TENSORD_ASSIGN_OR_RETURN(Tensor value, v.var->Read(v.name));
    c->set_output(0, std::move(value));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("dtype", &dtype_);
    // Absent in graphs from TF versions before the attr existed; TF's default is false.
    if (c->HasAttr("validate_shape")) c->GetAttr("validate_shape", &validate_shape_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(HandleVar v, VarFromInput(*c, 0));
    const Tensor& value = c->input(1);
    TENSORD_RETURN_IF_ERROR(CheckDtype(*c, "assign", v, dtype_));
    TENSORD_RETURN_IF_ERROR(CheckDtype(*c, "assign", v, value.dtype()));
    if (validate_shape_ && v.var->initialized()) {
      TENSORD_ASSIGN_OR_RETURN(Tensor current, v.var->Read(v.name));
      if (current.shape() != value.shape()) {
        return c->InvalidArgument(
            absl::StrCat("Trying to assign to variable with tensor with wrong shape. Expected ",
                         current.shape().DebugString(), " got ", value.shape().DebugString()));
      }
    }
    v.var->Assign(value);
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  bool validate_shape_ = false;
};

template <typename T, DenseUpdate kUpdate>
class ResourceUpdateOp : public OpKernel {
 public:
  explicit ResourceUpdateOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(HandleVar v, VarFromInput(*c, 0));
    return ApplyDenseUpdate<T, kUpdate>(*c, v.name, c->input(1), v.var.get());
  }
};

class VarIsInitializedOp : public OpKernel {
 public:
  explicit VarIsInitializedOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    const Tensor& t = c->input(0);
    if (t.dtype() != DT_RESOURCE || t.dims() != 0) {
      return c->InvalidArgument("input 0 must be a resource handle scalar");
    }
    auto var = std::dynamic_pointer_cast<Var>(t.scalar<ResourceHandle>().resource());
    c->set_output(0, Tensor::Scalar<bool>(var != nullptr && var->initialized()));
    return absl::OkStatus();
  }
};

// Variables live as long as the session's ResourceMgr; destroying one early is not needed for
// serving (TF emits DestroyResourceOp only for temporary resources).
class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* c) : OpKernel(c) {}
  absl::Status Compute(OpKernelContext*) const override { return absl::OkStatus(); }
};

// Gather(read(variable), indices, axis 0), the lookup of Keras 2's Embedding layer.
template <typename Index>
class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("dtype", &dtype_);
    c->GetAttr("batch_dims", &batch_dims_);
    if (batch_dims_ != 0) {
      c->SetError(absl::UnimplementedError(absl::StrCat(
          c->name(), ": ResourceGather with batch_dims = ", batch_dims_, " is not supported")));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(HandleVar v, VarFromInput(*c, 0));
    TENSORD_RETURN_IF_ERROR(CheckDtype(*c, "read", v, dtype_));
    TENSORD_ASSIGN_OR_RETURN(const Tensor params, v.var->Read(v.name));
    const Tensor& indices = c->input(1);
    if (indices.dtype() != DataTypeToEnum<Index>::value) {
      return c->InvalidArgument(absl::StrCat("indices must be ",
                                             DataTypeString(DataTypeToEnum<Index>::value), ", got ",
                                             DataTypeString(indices.dtype())));
    }
    if (params.dims() < 1) return c->InvalidArgument("params must be at least 1 dimensional");

    TensorShape out_shape = indices.shape();
    for (int d = 1; d < params.dims(); ++d) out_shape.AddDim(params.dim_size(d));
    const int64_t rows = params.dim_size(0);
    const int64_t row_elements = rows == 0 ? 0 : params.NumElements() / rows;
    const Index* idx = indices.data<Index>();
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        return c->InvalidArgument(absl::StrCat("indices", IndexString(indices.shape(), i), " = ",
                                               idx[i], " is not in [0, ", rows, ")"));
      }
    }

    Tensor* out = c->allocate_output(0, params.dtype(), out_shape);
    if (params.dtype() == DT_STRING) {
      const auto* src = params.data<std::string>();
      auto* dst = out->data<std::string>();
      for (int64_t i = 0; i < indices.NumElements(); ++i) {
        std::copy_n(src + idx[i] * row_elements, row_elements, dst + i * row_elements);
      }
    } else {
      const size_t row_bytes = row_elements * DataTypeSize(params.dtype());
      const char* src = static_cast<const char*>(params.raw_data());
      char* dst = static_cast<char*>(out->raw_data());
      for (int64_t i = 0; i < indices.NumElements(); ++i) {
        std::memcpy(dst + i * row_bytes, src + idx[i] * row_bytes, row_bytes);
      }
    }
    return absl::OkStatus();
  }

 private:
  // "[1,0]": the multi-index of flat position i, as TensorFlow prints it.
  static std::string IndexString(const TensorShape& shape, int64_t i) {
    std::vector<int64_t> coords(shape.dims());
    for (int d = shape.dims() - 1; d >= 0; --d) {
      coords[d] = i % shape.dim_size(d);
      i /= shape.dim_size(d);
    }
    return absl::StrCat("[", absl::StrJoin(coords, ","), "]");
  }

  DataType dtype_ = DT_INVALID;
  int64_t batch_dims_ = 0;
};

// Handle, read, assign and gather move tensors of any dtype; only the arithmetic updates are
// registered per dtype.
TENSORD_REGISTER_KERNEL(KernelDef("VarHandleOp").Device(DeviceType::kCpu), VarHandleOp);
TENSORD_REGISTER_KERNEL(KernelDef("ReadVariableOp").Device(DeviceType::kCpu), ReadVariableOp);
TENSORD_REGISTER_KERNEL(KernelDef("AssignVariableOp").Device(DeviceType::kCpu), AssignVariableOp);
TENSORD_REGISTER_KERNEL(KernelDef("VarIsInitializedOp").Device(DeviceType::kCpu),
                        VarIsInitializedOp);
TENSORD_REGISTER_KERNEL(KernelDef("DestroyResourceOp").Device(DeviceType::kCpu), DestroyResourceOp);
TENSORD_REGISTER_KERNEL(
    KernelDef("ResourceGather").Device(DeviceType::kCpu).TypeConstraint("Tindices", DT_INT32),
    ResourceGatherOp<int32_t>);
TENSORD_REGISTER_KERNEL(
    KernelDef("ResourceGather").Device(DeviceType::kCpu).TypeConstraint("Tindices", DT_INT64),
    ResourceGatherOp<int64_t>);

#define TENSORD_REGISTER_RESOURCE_UPDATE(T)                                       \
  TENSORD_REGISTER_KERNEL(KernelDef("AssignAddVariableOp")                        \
                              .Device(DeviceType::kCpu)                           \
                              .TypeConstraint("dtype", DataTypeToEnum<T>::value), \
                          ResourceUpdateOp<T, DenseUpdate::kAdd>);                \
  TENSORD_REGISTER_KERNEL(KernelDef("AssignSubVariableOp")                        \
                              .Device(DeviceType::kCpu)                           \
                              .TypeConstraint("dtype", DataTypeToEnum<T>::value), \
                          ResourceUpdateOp<T, DenseUpdate::kSub>);
TENSORD_DENSE_UPDATE_TYPES(TENSORD_REGISTER_RESOURCE_UPDATE)
#undef TENSORD_REGISTER_RESOURCE_UPDATE

}  // namespace
}  // namespace tensord
