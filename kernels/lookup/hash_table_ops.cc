// Hash table ops: HashTableV2 / MutableHashTableV2 create (or find) a LookupTable in the
// session's ResourceMgr and output its handle; InitializeTableV2, LookupTableImportV2,
// LookupTableInsertV2, LookupTableFindV2 and LookupTableSizeV2 take that handle as input 0.
// The table ops accept any key/value dtypes; they check them against the table at run time.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/lookup/lookup_table.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

template <LookupTable::Kind kKind>
class TableHandleOp : public OpKernel {
 public:
  explicit TableHandleOp(OpKernelConstruction* c) : OpKernel(c) {
    c->GetAttr("container", &container_);
    c->GetAttr("shared_name", &shared_name_);
    c->GetAttr("key_dtype", &key_dtype_);
    c->GetAttr("value_dtype", &value_dtype_);
    // Without a shared_name TensorFlow either shares by node name (use_node_name_sharing) or
    // keeps the table private to this kernel object. Plans are rebuilt per feed/fetch set while
    // initialisers and lookups run in different plans, so both cases share by node name here.
    if (shared_name_.empty()) shared_name_ = c->name();
    absl::Status dtypes = LookupTable::CheckDtypes(key_dtype_, value_dtype_);
    if (!dtypes.ok()) {
      c->SetError(absl::InvalidArgumentError(absl::StrCat(c->name(), ": ", dtypes.message())));
    }
  }

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(
        std::shared_ptr<LookupTable> table,
        c->resource_mgr()->LookupOrCreate<LookupTable>(container_, shared_name_, [&] {
          return LookupTable::Create(kKind, key_dtype_, value_dtype_,
                                     absl::StrCat(container_, "/", shared_name_));
        }));
    if (table->key_dtype() != key_dtype_ || table->value_dtype() != value_dtype_) {
      return c->InvalidArgument(
          absl::StrCat("Conflicting key/value dtypes ", DataTypeString(key_dtype_), "->",
                       DataTypeString(value_dtype_), " with ", DataTypeString(table->key_dtype()),
                       "-", DataTypeString(table->value_dtype()), " for table ", shared_name_));
    }
    c->set_output(0, Tensor::Scalar<ResourceHandle>(
                         ResourceHandle(container_, shared_name_, std::move(table))));
    return absl::OkStatus();
  }

 private:
  std::string container_;
  std::string shared_name_;
  DataType key_dtype_ = DT_INVALID;
  DataType value_dtype_ = DT_INVALID;
};

// TensorFlow's MatchSignature: inputs (handle, keys: key_dtype, values: value_dtype), and for
// lookups one output of value_dtype.
absl::Status CheckSignature(const OpKernelContext& c, const LookupTable& table, bool value_output) {
  const DataType keys = c.input(1).dtype();
  const DataType values = c.input(2).dtype();
  if (keys == table.key_dtype() && values == table.value_dtype()) return absl::OkStatus();
  auto signature = [&](DataType k, DataType v) {
    return absl::StrCat("resource, ", DataTypeString(k), ", ", DataTypeString(v), "->",
                        value_output ? DataTypeString(v) : "");
  };
  return c.InvalidArgument(
      absl::StrCat("Signature mismatch, have: ", signature(keys, values),
                   " expected: ", signature(table.key_dtype(), table.value_dtype())));
}

class LookupTableFindOp : public OpKernel {
 public:
  explicit LookupTableFindOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<LookupTable> table, TableFromInput(*c, 0));
    TENSORD_RETURN_IF_ERROR(CheckSignature(*c, *table, /*value_output=*/true));
    const Tensor& keys = c->input(1);
    const Tensor& default_value = c->input(2);
    absl::Status status = LookupTable::CheckFindArgs(keys, default_value);
    if (status.ok()) {
      Tensor* values = c->allocate_output(0, table->value_dtype(), keys.shape());
      status = table->Find(keys, default_value, values);
    }
    return status.ok() ? status : WithNodeName(*c, status);
  }
};

// LookupTableImportV2 and LookupTableInsertV2: keys and values of the same shape.
template <absl::Status (LookupTable::*kUpdate)(const Tensor&, const Tensor&)>
class TableUpdateOp : public OpKernel {
 public:
  explicit TableUpdateOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<LookupTable> table, TableFromInput(*c, 0));
    TENSORD_RETURN_IF_ERROR(CheckSignature(*c, *table, /*value_output=*/false));
    const Tensor& keys = c->input(1);
    const Tensor& values = c->input(2);
    absl::Status status = LookupTable::CheckInsertArgs(keys, values);
    if (status.ok()) status = ((*table).*kUpdate)(keys, values);
    return status.ok() ? status : WithNodeName(*c, status);
  }
};

class InitializeTableOp : public OpKernel {
 public:
  explicit InitializeTableOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<LookupTable> table, TableFromInput(*c, 0));
    TENSORD_RETURN_IF_ERROR(CheckSignature(*c, *table, /*value_output=*/false));
    const Tensor& keys = c->input(1);
    const Tensor& values = c->input(2);
    if (keys.dims() != 1) {
      return c->InvalidArgument(
          absl::StrCat("Keys must be a vector, but received ", keys.shape().DebugString()));
    }
    if (values.dims() != 1) {
      return c->InvalidArgument(
          absl::StrCat("Values must be a vector, but received ", values.shape().DebugString()));
    }
    if (keys.NumElements() != values.NumElements()) {
      return c->InvalidArgument(absl::StrCat("Keys and values must have the same size ",
                                             keys.NumElements(), " vs ", values.NumElements()));
    }
    absl::Status status = table->Initialize(keys, values);
    return status.ok() ? status : WithNodeName(*c, status);
  }
};

class LookupTableSizeOp : public OpKernel {
 public:
  explicit LookupTableSizeOp(OpKernelConstruction* c) : OpKernel(c) {}

  absl::Status Compute(OpKernelContext* c) const override {
    TENSORD_ASSIGN_OR_RETURN(std::shared_ptr<LookupTable> table, TableFromInput(*c, 0));
    c->set_output(0, Tensor::Scalar<int64_t>(table->size()));
    return absl::OkStatus();
  }
};

constexpr DeviceType kCpu = DeviceType::kCpu;

TENSORD_REGISTER_KERNEL(KernelDef("HashTableV2").Device(kCpu),
                        TableHandleOp<LookupTable::Kind::kStatic>);
TENSORD_REGISTER_KERNEL(KernelDef("MutableHashTableV2").Device(kCpu),
                        TableHandleOp<LookupTable::Kind::kMutable>);
TENSORD_REGISTER_KERNEL(KernelDef("LookupTableFindV2").Device(kCpu), LookupTableFindOp);
TENSORD_REGISTER_KERNEL(KernelDef("LookupTableImportV2").Device(kCpu),
                        TableUpdateOp<&LookupTable::Import>);
TENSORD_REGISTER_KERNEL(KernelDef("LookupTableInsertV2").Device(kCpu),
                        TableUpdateOp<&LookupTable::Insert>);
TENSORD_REGISTER_KERNEL(KernelDef("InitializeTableV2").Device(kCpu), InitializeTableOp);
TENSORD_REGISTER_KERNEL(KernelDef("LookupTableSizeV2").Device(kCpu), LookupTableSizeOp);

}  // namespace
}  // namespace tensord
