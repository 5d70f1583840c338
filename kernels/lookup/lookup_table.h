// Lookup tables: session resources (ResourceMgr) behind the DT_RESOURCE handles of HashTableV2
// and MutableHashTableV2, shared by the initialiser, import, insert, find and size ops.
//
// Two kinds, following TensorFlow:
//  * kStatic (HashTableV2): filled once by an initialiser (InitializeTableV2,
//    InitializeTableFromTextFileV2, or LookupTableImportV2); lookups before that fail.
//  * kMutable (MutableHashTableV2): starts empty, Insert overwrites, Import replaces everything.
// Keys and values are scalars; supported key dtypes int32/int64/string, value dtypes
// int32/int64/float/double/string/bool.
//
// Methods taking tensors expect keys of key_dtype and values of value_dtype: the ops check
// dtypes first (TensorFlow's "Signature mismatch" error).
//
// Thread safety: all methods are thread-safe; lookups share a reader lock.
#ifndef TENSORD_KERNELS_LOOKUP_LOOKUP_TABLE_H_
#define TENSORD_KERNELS_LOOKUP_LOOKUP_TABLE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/framework/op_kernel.h"
#include "runtime/framework/resource.h"
#include "runtime/framework/tensor.h"

namespace tensord {

class LookupTable : public ResourceBase {
 public:
  enum class Kind { kStatic, kMutable };

  // INVALID_ARGUMENT unless tables from key_dtype to value_dtype are supported.
  static absl::Status CheckDtypes(DataType key_dtype, DataType value_dtype);
  // A new empty table; null for unsupported dtypes (see CheckDtypes). `name` only appears in
  // messages.
  static std::shared_ptr<LookupTable> Create(Kind kind, DataType key_dtype, DataType value_dtype,
                                             std::string name);

  Kind kind() const { return kind_; }
  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }
  const std::string& name() const { return name_; }
  std::string DebugString() const override;

  virtual int64_t size() const = 0;
  // True once a static table has been filled; always true for mutable tables.
  virtual bool is_initialized() const = 0;

  // Fills `values` (allocated with keys' shape and value_dtype) with the value of each key, or
  // the default for missing keys. `default_value` is a scalar or has keys' shape; a static table
  // uses only its first element, as TensorFlow's HashTable does. Check shapes with CheckFindArgs.
  virtual absl::Status Find(const Tensor& keys, const Tensor& default_value,
                            Tensor* values) const = 0;

  // Static tables: the one-time initialisation. Later calls succeed without change when they
  // carry as many entries as the table holds (TensorFlow's check) and fail with
  // FAILED_PRECONDITION otherwise; a key given twice with different values fails too.
  // Mutable tables are not initializable (INVALID_ARGUMENT).
  virtual absl::Status Initialize(const Tensor& keys, const Tensor& values) = 0;
  // LookupTableImportV2: Initialize for static tables, replace the contents of mutable ones.
  virtual absl::Status Import(const Tensor& keys, const Tensor& values) = 0;
  // LookupTableInsertV2: add or overwrite (mutable tables only; UNIMPLEMENTED otherwise).
  virtual absl::Status Insert(const Tensor& keys, const Tensor& values) = 0;

  // Shape checks shared by the ops, with TensorFlow's messages (no node name): the default is a
  // scalar or has keys' shape; inserted values have keys' shape.
  static absl::Status CheckFindArgs(const Tensor& keys, const Tensor& default_value);
  static absl::Status CheckInsertArgs(const Tensor& keys, const Tensor& values);

 protected:
  LookupTable(Kind kind, DataType key_dtype, DataType value_dtype, std::string name)
      : kind_(kind), key_dtype_(key_dtype), value_dtype_(value_dtype), name_(std::move(name)) {}

 private:
  const Kind kind_;
  const DataType key_dtype_;
  const DataType value_dtype_;
  const std::string name_;
};

// The table behind the DT_RESOURCE scalar input `i` of a table op.
absl::StatusOr<std::shared_ptr<LookupTable>> TableFromInput(const OpKernelContext& c, int i);

// `status` (not OK) with the node name prefixed to its message, keeping its code.
absl::Status WithNodeName(const OpKernelContext& c, const absl::Status& status);

}  // namespace tensord

#endif  // TENSORD_KERNELS_LOOKUP_LOOKUP_TABLE_H_
