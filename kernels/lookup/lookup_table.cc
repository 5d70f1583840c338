#include "kernels/lookup/lookup_table.h"

#include <string>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace tensord {
namespace {

template <typename T>
std::string ValueString(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else {
    return absl::StrCat(v);
  }
}

// One template for both kinds: they share storage and differ only in the few rules below.
template <typename K, typename V>
class HashTable final : public LookupTable {
 public:
  HashTable(Kind kind, std::string name)
      : LookupTable(kind, DataTypeToEnum<K>::value, DataTypeToEnum<V>::value, std::move(name)) {}

  int64_t size() const override {
    absl::ReaderMutexLock lock(&mu_);
    return static_cast<int64_t>(map_.size());
  }

  bool is_initialized() const override {
    absl::ReaderMutexLock lock(&mu_);
    return initialized_;
  }

  absl::Status Find(const Tensor& keys, const Tensor& default_value,
                    Tensor* values) const override {
    absl::ReaderMutexLock lock(&mu_);
    if (!initialized_) return absl::FailedPreconditionError("Table not initialized.");
    const int64_t n = keys.NumElements();
    const K* k = keys.data<K>();
    const V* d = default_value.data<V>();
    V* out = values->data<V>();
    const bool per_key_default = kind() == Kind::kMutable && default_value.NumElements() == n;
    for (int64_t i = 0; i < n; ++i) {
      auto it = map_.find(k[i]);
      out[i] = it != map_.end() ? it->second : d[per_key_default ? i : 0];
    }
    return absl::OkStatus();
  }

  absl::Status Initialize(const Tensor& keys, const Tensor& values) override {
    if (kind() == Kind::kMutable) {
      return absl::InvalidArgumentError(absl::StrCat("Table ", name(), " is not initializable"));
    }
    if (keys.NumElements() == 0) {
      return absl::InvalidArgumentError("keys and values cannot be empty tensors.");
    }
    absl::MutexLock lock(&mu_);
    if (initialized_) {
      // TensorFlow only compares the entry count before accepting a re-initialisation.
      if (static_cast<int64_t>(map_.size()) == keys.NumElements()) return absl::OkStatus();
      return absl::FailedPreconditionError("Table was already initialized with different data.");
    }
    // Built aside so that a failed initialisation leaves the table empty and uninitialised.
    absl::flat_hash_map<K, V> map;
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      auto [it, inserted] = map.try_emplace(k[i], v[i]);
      if (!inserted && it->second != v[i]) {
        return absl::FailedPreconditionError(absl::StrCat(
            "HashTable has different value for same key. Key ", ValueString(k[i]), " has ",
            ValueString(it->second), " and trying to add value ", ValueString(v[i])));
      }
    }
    map_ = std::move(map);
    initialized_ = true;
    return absl::OkStatus();
  }

  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    if (kind() == Kind::kStatic) return Initialize(keys, values);
    absl::MutexLock lock(&mu_);
    map_.clear();
    InsertLocked(keys, values);
    return absl::OkStatus();
  }

  absl::Status Insert(const Tensor& keys, const Tensor& values) override {
    if (kind() == Kind::kStatic) {
      return absl::UnimplementedError(
          absl::StrCat("Insert not supported by initializable tables such as HashTable ", name()));
    }
    absl::MutexLock lock(&mu_);
    InsertLocked(keys, values);
    return absl::OkStatus();
  }

 private:
  // Later duplicates win, as in TensorFlow's MutableHashTable.
  void InsertLocked(const Tensor& keys, const Tensor& values) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    for (int64_t i = 0; i < keys.NumElements(); ++i) map_.insert_or_assign(k[i], v[i]);
  }

  mutable absl::Mutex mu_;
  absl::flat_hash_map<K, V> map_ ABSL_GUARDED_BY(mu_);
  bool initialized_ ABSL_GUARDED_BY(mu_) = kind() == Kind::kMutable;
};

template <typename Fn>
bool DispatchKey(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_INT32: fn(int32_t{}); return true;
    case DT_INT64: fn(int64_t{}); return true;
    case DT_STRING: fn(std::string{}); return true;
    default: return false;
  }
}

template <typename Fn>
bool DispatchValue(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_INT32: fn(int32_t{}); return true;
    case DT_INT64: fn(int64_t{}); return true;
    case DT_FLOAT: fn(float{}); return true;
    case DT_DOUBLE: fn(double{}); return true;
    case DT_STRING: fn(std::string{}); return true;
    case DT_BOOL: fn(bool{}); return true;
    default: return false;
  }
}

}  // namespace

absl::Status LookupTable::CheckDtypes(DataType key_dtype, DataType value_dtype) {
  const bool supported =
      DispatchKey(key_dtype, [](auto) {}) && DispatchValue(value_dtype, [](auto) {});
  if (supported) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "lookup tables from ", DataTypeString(key_dtype), " to ", DataTypeString(value_dtype),
      " are not supported (keys: int32, int64, "
      "string; values: int32, int64, float, double, string, bool)"));
}

std::shared_ptr<LookupTable> LookupTable::Create(Kind kind, DataType key_dtype,
                                                 DataType value_dtype, std::string name) {
  std::shared_ptr<LookupTable> table;
  DispatchKey(key_dtype, [&](auto key_tag) {
    DispatchValue(value_dtype, [&](auto value_tag) {
      using K = decltype(key_tag);
      using V = decltype(value_tag);
      table = std::make_shared<HashTable<K, V>>(kind, std::move(name));
    });
  });
  return table;
}

std::string LookupTable::DebugString() const {
  return absl::StrCat(kind_ == Kind::kStatic ? "HashTable " : "MutableHashTable ", name_, " ",
                      DataTypeString(key_dtype_), "->", DataTypeString(value_dtype_));
}

absl::Status LookupTable::CheckFindArgs(const Tensor& keys, const Tensor& default_value) {
  if (default_value.dims() == 0 || default_value.shape() == keys.shape()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Expected shape [] or ", keys.shape().DebugString(), " for default value, got ",
                   default_value.shape().DebugString()));
}

absl::Status LookupTable::CheckInsertArgs(const Tensor& keys, const Tensor& values) {
  if (values.shape() == keys.shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("Expected shape ", keys.shape().DebugString(),
                                                 " for value, got ", values.shape().DebugString()));
}

absl::StatusOr<std::shared_ptr<LookupTable>> TableFromInput(const OpKernelContext& c, int i) {
  const Tensor& t = c.input(i);
  if (t.dtype() != DT_RESOURCE || t.dims() != 0) {
    return c.InvalidArgument(absl::StrCat("input ", i, " must be a table handle scalar, got ",
                                          DataTypeString(t.dtype()), " ", t.shape().DebugString()));
  }
  const ResourceHandle& handle = t.scalar<ResourceHandle>();
  auto table = std::dynamic_pointer_cast<LookupTable>(handle.resource());
  if (table == nullptr) {
    return absl::NotFoundError(absl::StrCat(c.node_name(), ": resource '", handle.name(),
                                            "' (container '", handle.container(),
                                            "') is not a lookup table"));
  }
  return table;
}

absl::Status WithNodeName(const OpKernelContext& c, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(c.node_name(), ": ", status.message()));
}

}  // namespace tensord
