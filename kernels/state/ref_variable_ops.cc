// TF1 reference variables: VariableV2 / Variable produce a reference edge to a Var kept in the
// session's ResourceMgr; Assign, AssignAdd, AssignSub and IsVariableInitialized take that
// reference as input 0 (KernelDef::RefInput) and Assign* forward it as their output.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/state/dense_update.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

// A TF1 variable remembers its name (for errors) and the shape VariableV2 declared, which is
// the shape Assign(validate_shape=true) checks against before the first assignment.
class RefVariable : public Var {
 public:
  RefVariable(DataType dtype, TensorShape declared_shape, std::string name)
      : Var(dtype), declared_shape_(std::move(declared_shape)), name_(std::move(name)) {}
  const TensorShape& declared_shape() const { return declared_shape_; }
  const std::string& name() const { return name_; }

 private:
  const TensorShape declared_shape_;
  const std::string name_;
};

// The variable name to report: the RefVariable's own, else the consuming node's.
std::string VarName(const OpKernelContext& c, const Var& var) {
  const auto* ref = dynamic_cast<const RefVariable*>(&var);
  return ref != nullptr ? ref->name() : c.node_name();
}

absl::StatusOr<std::shared_ptr<Var>> RefInput(const OpKernelContext& c, int i) {
  const std::shared_ptr<Var>& var = c.input_ref(i);
  if (var == nullptr) {
    return c.InvalidArgument(absl::StrCat("input ", i, " must be a reference to a variable"));
  }
  return var;
}

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("dtype", &dtype_);
    c->GetAttr("shape", &shape_);
    c->GetAttr("container", &container_);
    c->GetAttr("shared_name", &shared_name_);
    if (shared_name_.empty()) shared_name_ = c->name();
  }

  absl::Status Compute(OpKernelContext* c) const override {
    // As in TensorFlow: an unknown rank declares a scalar, unknown dims are an error.
    if (!shape_.unknown_rank && !shape_.IsFullyDefined()) {
      return c->InvalidArgument(
          absl::StrCat("Shape ", shape_.DebugString(), " is not fully defined"));
    }
    const TensorShape declared = shape_.unknown_rank ? TensorShape() : TensorShape(shape_.dims);
    TENSORD_ASSIGN_OR_RETURN(
        std::shared_ptr<RefVariable> var,
        c->resource_mgr()->LookupOrCreate<RefVariable>(container_, shared_name_, [&] {
          return std::make_shared<RefVariable>(dtype_, declared, shared_name_);
        }));
    if (var->dtype() != dtype_) {
      return c->InvalidArgument(absl::StrCat("variable '", shared_name_, "' exists with dtype ",
                                             DataTypeString(var->dtype()), ", not ",
                                             DataTypeString(dtype_)));
    }
    c->set_output_ref(0, std::move(var));
    return absl::OkStatus();
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialShape shape_;
  std::string container_;
  std::string shared_name_;
};

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("validate_shape", &validate_shape_);
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, RefInput(*c, 0));
    const Tensor& value = c->input(1);
    if (value.dtype() != var->dtype()) {
      return c->InvalidArgument(absl::StrCat("cannot assign a ", DataTypeString(value.dtype()),
                                             " value to ", DataTypeString(var->dtype()),
                                             " variable ", VarName(*c, *var)));
    }
    if (validate_shape_) {
      TensorShape lhs;
      if (var->initialized()) {
        TENSORD_ASSIGN_OR_RETURN(Tensor current, var->Read(VarName(*c, *var)));
        lhs = current.shape();
      } else if (const auto* ref = dynamic_cast<const RefVariable*>(var.get())) {
        lhs = ref->declared_shape();
      } else {
        lhs = value.shape();
      }
      if (lhs != value.shape()) {
        return c->InvalidArgument(absl::StrCat(
            "Assign requires shapes of both tensors to match. lhs shape= ", lhs.DebugString(),
            " rhs shape= ", value.shape().DebugString()));
      }
    }
    var->Assign(value);
    c->set_output_ref(0, std::move(var));
    return absl::OkStatus();
  }

 private:
  bool validate_shape_ = true;
};

template <typename T, DenseUpdate kUpdate>
class RefUpdateOp : public OpKernel {
 public:
  explicit RefUpdateOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, RefInput(*c, 0));
    TENSORD_RETURN_IF_ERROR(
        (ApplyDenseUpdate<T, kUpdate>(*c, VarName(*c, *var), c->input(1), var.get())));
    c->set_output_ref(0, std::move(var));
    return absl::OkStatus();
  }
};

class IsVariableInitializedOp : public OpKernel {
 public:
  explicit IsVariableInitializedOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<Var> var, RefInput(*c, 0));
    c->set_output(0, Tensor::Scalar<bool>(var->initialized()));
    return absl::OkStatus();
  }
};

// Variables of any dtype: VariableV2, Assign and IsVariableInitialized only move tensors.
TENSORD_REGISTER_KERNEL(KernelDef("VariableV2").Device(DeviceType::kCpu), VariableOp);
TENSORD_REGISTER_KERNEL(KernelDef("Variable").Device(DeviceType::kCpu), VariableOp);
TENSORD_REGISTER_KERNEL(KernelDef("Assign").Device(DeviceType::kCpu).RefInput(0), AssignOp);
TENSORD_REGISTER_KERNEL(KernelDef("IsVariableInitialized").Device(DeviceType::kCpu).RefInput(0),
                        IsVariableInitializedOp);

#define TENSORD_REGISTER_REF_UPDATE(T)                                       \
  TENSORD_REGISTER_KERNEL(KernelDef("AssignAdd")                             \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .RefInput(0),                                  \
                          RefUpdateOp<T, DenseUpdate::kAdd>);                \
  TENSORD_REGISTER_KERNEL(KernelDef("AssignSub")                             \
                              .Device(DeviceType::kCpu)                      \
                              .TypeConstraint("T", DataTypeToEnum<T>::value) \
                              .RefInput(0),                                  \
                          RefUpdateOp<T, DenseUpdate::kSub>);
TENSORD_DENSE_UPDATE_TYPES(TENSORD_REGISTER_REF_UPDATE)
#undef TENSORD_REGISTER_REF_UPDATE

}  // namespace
}  // namespace tensord
