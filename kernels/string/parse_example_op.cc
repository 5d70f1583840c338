// ParseExample (TF1), ParseExampleV2 and ParseSingleExample: serialized tf.Example protos to
// dense, sparse (COO) and ragged tensors, with TensorFlow's semantics and error messages.
//
// Features are configured by key and type (float, int64 or string):
//   dense d:  output serialized.shape + dense_shapes[d]. A missing feature (or one with no
//             value list set) takes dense_defaults[d]; an empty default makes it required.
//             A leading -1 in dense_shapes[d] makes it variable length: rows of the remaining
//             shape, padded to the longest example with the (single-element) default.
//   sparse k: indices [n, 2] (example, position), values [n], dense_shape [batch, max count].
//   ragged r: values [n] and row_splits [batch + 1] (ParseExampleV2 only).
// A scalar `serialized` (ParseExampleV2, ParseSingleExample) drops the batch dimension: sparse
// indices are [n, 1] with dense_shape [n], and ragged row_splits are empty.
//
// Examples are decoded with the generated tensorflow.Example classes. Differences from
// TensorFlow's hand-written wire parser, all on invalid input only: map keys must be valid
// UTF-8 (proto3 rules); a corrupt value list fails the whole example even when its feature is
// not requested; and when one example has several bad features, the one reported may differ
// (TensorFlow checks them in reverse wire order, which the generated map does not keep).
// Outputs and single-error messages were checked against TensorFlow 2.21 on 1900 random cases.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/string/string_util.h"
#include "protos/tensorflow/example.pb.h"
#include "runtime/framework/kernel_registry.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace string_ops {
namespace {

using ::tensorflow::Feature;

// ---- feature configuration ----

struct DenseConfig {
  DataType dtype = DT_FLOAT;
  PartialShape shape;  // as given, for messages
  bool variable_length = false;
  TensorShape row_shape;  // one example (fixed) or one row (variable length)
  int64_t stride = 1;     // row_shape.num_elements()
};

struct ListConfig {
  DataType dtype = DT_FLOAT;
  DataType splits_dtype = DT_INT64;  // ragged only
};

// What the attrs fix; keys and defaults come from inputs (except for ParseSingleExample).
struct ParseConfig {
  std::vector<DenseConfig> dense;
  std::vector<ListConfig> sparse;
  std::vector<ListConfig> ragged;
};

absl::Status CheckFeatureType(DataType dtype) {
  if (dtype == DT_FLOAT || dtype == DT_INT64 || dtype == DT_STRING) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid feature dtype: ", DataTypeString(dtype),
                   " (ParseExample supports float, int64 and string)"));
}

absl::StatusOr<std::vector<DenseConfig>> MakeDenseConfigs(const std::vector<DataType>& types,
                                                          const std::vector<PartialShape>& shapes) {
  if (types.size() != shapes.size()) {
    return absl::InvalidArgumentError("len(dense_keys) != len(dense_shapes)");
  }
  std::vector<DenseConfig> dense(types.size());
  for (size_t d = 0; d < types.size(); ++d) {
    TENSORD_RETURN_IF_ERROR(CheckFeatureType(types[d]));
    const PartialShape& shape = shapes[d];
    bool inner_known = !shape.unknown_rank;
    for (size_t i = 1; inner_known && i < shape.dims.size(); ++i) inner_known = shape.dims[i] >= 0;
    if (!inner_known) {
      return absl::InvalidArgumentError(
          absl::StrCat("dense_shapes[", d,
                       "] has unknown rank or unknown inner dimensions: ", shape.DebugString()));
    }
    DenseConfig& config = dense[d];
    config.dtype = types[d];
    config.shape = shape;
    config.variable_length = !shape.dims.empty() && shape.dims[0] < 0;
    std::vector<int64_t> row(shape.dims.begin() + (config.variable_length ? 1 : 0),
                             shape.dims.end());
    TENSORD_ASSIGN_OR_RETURN(config.row_shape, TensorShape::FromDims(row));
    config.stride = config.row_shape.num_elements();
  }
  return dense;
}

absl::StatusOr<std::vector<ListConfig>> MakeListConfigs(const std::vector<DataType>& types) {
  std::vector<ListConfig> lists(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    TENSORD_RETURN_IF_ERROR(CheckFeatureType(types[i]));
    lists[i].dtype = types[i];
  }
  return lists;
}

// ---- reading Feature protos ----

DataType FeatureType(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kBytesList:
      return DT_STRING;
    case Feature::kFloatList:
      return DT_FLOAT;
    case Feature::kInt64List:
      return DT_INT64;
    default:
      return DT_INVALID;
  }
}

int64_t NumValues(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kBytesList:
      return f.bytes_list().value_size();
    case Feature::kFloatList:
      return f.float_list().value_size();
    case Feature::kInt64List:
      return f.int64_list().value_size();
    default:
      return 0;
  }
}

// The word TensorFlow's messages use for a list type.
const char* ListWord(DataType dtype) {
  return dtype == DT_STRING ? "bytes" : dtype == DT_FLOAT ? "float" : "int64";
}

// Copies the values of `f` (whose type matches T) to `out`.
template <typename T>
void CopyValues(const Feature& f, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    std::copy(f.float_list().value().begin(), f.float_list().value().end(), out);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    std::copy(f.int64_list().value().begin(), f.int64_list().value().end(), out);
  } else {
    std::copy(f.bytes_list().value().begin(), f.bytes_list().value().end(), out);
  }
}

// Calls fn(T{}) with the C++ type of a feature dtype (float, int64 or string).
template <typename Fn>
void DispatchFeatureType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT:
      fn(float{});
      break;
    case DT_INT64:
      fn(int64_t{});
      break;
    default:
      fn(std::string{});
      break;
  }
}

// ---- parsing ----

// The features of one request: keys per kind and the dense defaults.
struct FeatureRequest {
  std::vector<std::string> dense_keys;
  std::vector<std::string> sparse_keys;
  std::vector<std::string> ragged_keys;
  std::vector<Tensor> dense_defaults;
};

// One decoded example and, per configured feature, its Feature (null when absent or unset).
struct ParsedExample {
  ::tensorflow::Example proto;
  std::vector<const Feature*> dense, sparse, ragged;
};

// Error wording: a batch names the example ("Name: n, Key: k, Index: i.  "); a single example
// only the key ("Key: k.  ").
struct ErrorContext {
  bool single;
  absl::string_view name;
  int64_t index;

  std::string Prefix(absl::string_view key) const {
    return single ? absl::StrCat("Key: ", key, ".  ")
                  : absl::StrCat("Name: ", name, ", Key: ", key, ", Index: ", index, ".  ");
  }
};

const Feature* FindFeature(const ::tensorflow::Example& example, const std::string& key) {
  const auto& map = example.features().feature();
  auto it = map.find(key);
  if (it == map.end() || it->second.kind_case() == Feature::KIND_NOT_SET) return nullptr;
  return &it->second;
}

absl::Status ParseOne(const std::string& serialized, const ErrorContext& ctx,
                      const ParseConfig& config, const FeatureRequest& request,
                      ParsedExample* out) {
  if (!out->proto.ParseFromString(serialized)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not parse example input, value: '", serialized, "'"));
  }
  for (size_t d = 0; d < config.dense.size(); ++d) {
    const DenseConfig& dc = config.dense[d];
    const std::string& key = request.dense_keys[d];
    const Feature* f = FindFeature(out->proto, key);
    out->dense.push_back(f);
    if (f == nullptr) continue;
    if (FeatureType(*f) != dc.dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          ctx.Prefix(key), "Data types don't match. Data type: ", DataTypeString(FeatureType(*f)),
          " but expected type: ", DataTypeString(dc.dtype)));
    }
    const int64_t n = NumValues(*f);
    // TensorFlow's parser reads at most `stride` strings into the output, so an overlong
    // bytes_list fails as a parse error rather than a count mismatch.
    if (!dc.variable_length && dc.dtype == DT_STRING && n > dc.stride) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Prefix(key), "Can't parse serialized Example",
                       ctx.single ? ": Parsing bytes_list failed." : "."));
    }
    if (!dc.variable_length && n != dc.stride) {
      return absl::InvalidArgumentError(
          ctx.single ? absl::StrCat(ctx.Prefix(key), "Can't parse serialized Example: Some ",
                                    ListWord(dc.dtype), "_list slice was not parsed.")
                     : absl::StrCat(ctx.Prefix(key), "Number of ", ListWord(dc.dtype),
                                    " values != expected.  Values size: ", n,
                                    " but output shape: ", dc.shape.DebugString()));
    }
    if (dc.variable_length && dc.stride > 0 && n % dc.stride != 0) {
      return absl::InvalidArgumentError(
          ctx.single ? absl::StrCat("Error while parsing feature with key ", key,
                                    ": number of elements should be divisible by ", dc.stride,
                                    ", found ", n, " instead")
                     : absl::StrCat(ctx.Prefix(key), "Number of ", ListWord(dc.dtype),
                                    " values is not a multiple of stride length. Saw ", n,
                                    " values but output shape is: ", dc.shape.DebugString()));
    }
  }
  auto find_lists = [&](const std::vector<ListConfig>& configs,
                        const std::vector<std::string>& keys,
                        std::vector<const Feature*>* found) -> absl::Status {
    for (size_t k = 0; k < configs.size(); ++k) {
      const Feature* f = FindFeature(out->proto, keys[k]);
      found->push_back(f);
      if (f != nullptr && FeatureType(*f) != configs[k].dtype) {
        return absl::InvalidArgumentError(absl::StrCat(
            ctx.Prefix(keys[k]), "Data types don't match. Expected type: ",
            DataTypeString(configs[k].dtype), ", Actual type: ", DataTypeString(FeatureType(*f))));
      }
    }
    return absl::OkStatus();
  };
  TENSORD_RETURN_IF_ERROR(find_lists(config.sparse, request.sparse_keys, &out->sparse));
  TENSORD_RETURN_IF_ERROR(find_lists(config.ragged, request.ragged_keys, &out->ragged));
  for (size_t d = 0; d < config.dense.size(); ++d) {
    const DenseConfig& dc = config.dense[d];
    if (out->dense[d] != nullptr || dc.variable_length ||
        request.dense_defaults[d].NumElements() > 0) {
      continue;
    }
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.single ? "" : absl::StrCat("Name: ", ctx.name, ", "),
                     "Feature: ", request.dense_keys[d], " (data type: ", DataTypeString(dc.dtype),
                     ")", " is required but could not be found."));
  }
  return absl::OkStatus();
}

// Output positions of each feature kind: sparse indices, values and shapes, then dense, then
// ragged values and splits.
struct OutputLayout {
  int num_sparse, num_dense, num_ragged;
  int sparse_indices(int k) const { return k; }
  int sparse_values(int k) const { return num_sparse + k; }
  int sparse_shape(int k) const { return 2 * num_sparse + k; }
  int dense(int d) const { return 3 * num_sparse + d; }
  int ragged_values(int r) const { return 3 * num_sparse + num_dense + r; }
  int ragged_splits(int r) const { return 3 * num_sparse + num_dense + num_ragged + r; }
};

void WriteDense(OpKernelContext* c, const OutputLayout& layout, const ParseConfig& config,
                const FeatureRequest& request, const std::vector<ParsedExample>& examples,
                bool single) {
  const int64_t batch = static_cast<int64_t>(examples.size());
  for (size_t d = 0; d < config.dense.size(); ++d) {
    const DenseConfig& dc = config.dense[d];
    const Tensor& def = request.dense_defaults[d];
    // Rows per example: the whole example for fixed features, the longest one otherwise.
    int64_t rows = 1;
    if (dc.variable_length) {
      rows = 0;
      for (const ParsedExample& e : examples) {
        if (e.dense[d] != nullptr && dc.stride > 0) {
          rows = std::max(rows, NumValues(*e.dense[d]) / dc.stride);
        }
      }
    }
    TensorShape shape = dc.row_shape;
    if (dc.variable_length) shape.InsertDim(0, rows);
    if (!single) shape.InsertDim(0, batch);
    Tensor* out = c->allocate_output(layout.dense(d), dc.dtype, shape);
    const int64_t per_example = rows * dc.stride;
    DispatchFeatureType(dc.dtype, [&](auto tag) {
      using T = decltype(tag);
      T* data = out->data<T>();
      for (int64_t i = 0; i < batch; ++i) {
        T* dst = data + i * per_example;
        const Feature* f = examples[i].dense[d];
        if (dc.variable_length) {
          std::fill(dst, dst + per_example, def.data<T>()[0]);  // padding
          if (f != nullptr) CopyValues(*f, dst);
        } else if (f != nullptr) {
          CopyValues(*f, dst);
        } else {
          std::copy(def.data<T>(), def.data<T>() + per_example, dst);
        }
      }
    });
  }
}

// Writes values of one list feature (sparse or ragged) for all examples; returns the per-example
// value counts.
std::vector<int64_t> WriteListValues(OpKernelContext* c, int output, DataType dtype,
                                     const std::vector<const Feature*>& features) {
  std::vector<int64_t> counts;
  int64_t total = 0;
  for (const Feature* f : features) {
    counts.push_back(f == nullptr ? 0 : NumValues(*f));
    total += counts.back();
  }
  Tensor* values = c->allocate_output(output, dtype, {total});
  DispatchFeatureType(dtype, [&](auto tag) {
    using T = decltype(tag);
    T* dst = values->data<T>();
    for (size_t i = 0; i < features.size(); ++i) {
      if (features[i] != nullptr) CopyValues(*features[i], dst);
      dst += counts[i];
    }
  });
  return counts;
}

void WriteSparse(OpKernelContext* c, const OutputLayout& layout, const ParseConfig& config,
                 const std::vector<ParsedExample>& examples, bool single) {
  for (size_t k = 0; k < config.sparse.size(); ++k) {
    std::vector<const Feature*> features;
    for (const ParsedExample& e : examples) features.push_back(e.sparse[k]);
    const std::vector<int64_t> counts =
        WriteListValues(c, layout.sparse_values(k), config.sparse[k].dtype, features);
    int64_t total = 0;
    int64_t max_count = 0;
    for (int64_t n : counts) {
      total += n;
      max_count = std::max(max_count, n);
    }
    // Batches index (example, position); a single example only the position.
    const int64_t index_dims = single ? 1 : 2;
    int64_t* indices = c->allocate_output(layout.sparse_indices(k), DT_INT64, {total, index_dims})
                           ->data<int64_t>();
    for (size_t i = 0; i < counts.size(); ++i) {
      for (int64_t j = 0; j < counts[i]; ++j) {
        if (!single) *indices++ = static_cast<int64_t>(i);
        *indices++ = j;
      }
    }
    int64_t* shape =
        c->allocate_output(layout.sparse_shape(k), DT_INT64, {index_dims})->data<int64_t>();
    if (!single) *shape++ = static_cast<int64_t>(examples.size());
    *shape = max_count;
  }
}

void WriteRagged(OpKernelContext* c, const OutputLayout& layout, const ParseConfig& config,
                 const std::vector<ParsedExample>& examples, bool single) {
  for (size_t r = 0; r < config.ragged.size(); ++r) {
    std::vector<const Feature*> features;
    for (const ParsedExample& e : examples) features.push_back(e.ragged[r]);
    const std::vector<int64_t> counts =
        WriteListValues(c, layout.ragged_values(r), config.ragged[r].dtype, features);
    // A single example has no rows to split: its row_splits are empty.
    const DataType splits_dtype = config.ragged[r].splits_dtype;
    Tensor* splits = c->allocate_output(layout.ragged_splits(r), splits_dtype,
                                        {single ? 0 : static_cast<int64_t>(counts.size()) + 1});
    if (single) continue;
    int64_t offset = 0;
    for (size_t i = 0; i <= counts.size(); ++i) {
      if (splits_dtype == DT_INT32) {
        splits->data<int32_t>()[i] = static_cast<int32_t>(offset);
      } else {
        splits->data<int64_t>()[i] = offset;
      }
      if (i < counts.size()) offset += counts[i];
    }
  }
}

// Validates the defaults against the config (TensorFlow's checks, in its order).
absl::Status CheckDefaults(const ParseConfig& config, const std::vector<Tensor>& defaults) {
  if (defaults.size() != config.dense.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected len(dense_defaults) == len(dense_keys) but got: ", defaults.size(),
                     " vs. ", config.dense.size()));
  }
  for (size_t d = 0; d < defaults.size(); ++d) {
    const DenseConfig& dc = config.dense[d];
    const Tensor& def = defaults[d];
    if (dc.variable_length) {
      if (def.NumElements() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dense_shape[", d, "] is a variable length shape: ", dc.shape.DebugString(),
            ", therefore def_value[", d,
            "] must contain a single element (the padding element).  But its shape is: ",
            def.shape().DebugString()));
      }
    } else if (def.NumElements() > 0 && !dc.shape.IsCompatibleWith(def.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "def_value[", d, "].shape() == ", def.shape().DebugString(),
          " is not compatible with dense_shapes_[", d, "] == ", dc.shape.DebugString()));
    }
    if (def.dtype() != dc.dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat("dense_defaults[", d, "].dtype() == ", DataTypeString(def.dtype()),
                       " != dense_types_[", d, "] == ", DataTypeString(dc.dtype)));
    }
  }
  return absl::OkStatus();
}

// Parses `serialized` (a vector, or a scalar when `single`) and writes all outputs.
absl::Status ParseAndWrite(OpKernelContext* c, const ParseConfig& config,
                           const FeatureRequest& request, const Tensor& serialized,
                           const Tensor& names, bool single) {
  const int64_t batch = serialized.NumElements();
  std::vector<ParsedExample> examples(batch);
  const std::string* in = serialized.data<std::string>();
  const bool named = names.NumElements() > 0;
  TENSORD_RETURN_IF_ERROR(
      ParallelForWithStatus(*c, batch, 50 * AverageStringLength(serialized) + 1000, [&](int64_t i) {
        const absl::string_view name =
            named ? absl::string_view(names.data<std::string>()[i]) : "<unknown>";
        const ErrorContext ctx{single, name, i};
        absl::Status status = ParseOne(in[i], ctx, config, request, &examples[i]);
        return status.ok() ? status : c->InvalidArgument(status.message());
      }));
  const OutputLayout layout{static_cast<int>(config.sparse.size()),
                            static_cast<int>(config.dense.size()),
                            static_cast<int>(config.ragged.size())};
  WriteSparse(c, layout, config, examples, single);
  WriteDense(c, layout, config, request, examples, single);
  WriteRagged(c, layout, config, examples, single);
  return absl::OkStatus();
}

// Reads `count` inputs from `first` on: scalar strings (ParseExample's per-key inputs) or the
// elements of one string tensor (ParseExampleV2's key vectors).
absl::StatusOr<std::vector<std::string>> ScalarKeys(const OpKernelContext& c, int first, int count,
                                                    absl::string_view what) {
  std::vector<std::string> keys;
  for (int i = 0; i < count; ++i) {
    TENSORD_RETURN_IF_ERROR(CheckInputType(c, first + i, DT_STRING));
    const Tensor& t = c.input(first + i);
    if (t.dims() != 0) {
      return c.InvalidArgument(absl::StrCat(
          "Expected ", what, "[", i, "] to be a scalar, got shape: ", t.shape().DebugString()));
    }
    keys.push_back(t.scalar<std::string>());
  }
  return keys;
}

absl::StatusOr<std::vector<std::string>> VectorKeys(const OpKernelContext& c, int index) {
  TENSORD_RETURN_IF_ERROR(CheckInputType(c, index, DT_STRING));
  const Tensor& t = c.input(index);
  return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + t.NumElements());
}

enum class Version { kV1, kV2, kSingle };

template <Version kVersion>
class ParseExampleOp : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction* c) : OpKernel(c) {
    absl::Status status = Init(c);
    if (!status.ok()) SetAttrError(c, status.message());
  }

  absl::Status Compute(OpKernelContext* c) const override {
    const int num_dense = static_cast<int>(config_.dense.size());
    const int num_sparse = static_cast<int>(config_.sparse.size());
    // Input layout: ParseExample (serialized, names, sparse_keys x Ns, dense_keys x Nd,
    // defaults x Nd), ParseExampleV2 (serialized, names, sparse_keys, dense_keys, ragged_keys,
    // defaults x Nd), ParseSingleExample (serialized, defaults x Nd).
    const int first_default = kVersion == Version::kV1   ? 2 + num_sparse + num_dense
                              : kVersion == Version::kV2 ? 5
                                                         : 1;
    if (c->num_inputs() != first_default + num_dense) {
      return c->InvalidArgument(
          absl::StrCat("expected ", first_default + num_dense, " inputs, got ", c->num_inputs()));
    }
    TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 0, DT_STRING));
    const Tensor& serialized = c->input(0);
    Tensor names(DT_STRING, {0});
    FeatureRequest request;
    if constexpr (kVersion == Version::kSingle) {
      if (serialized.dims() != 0) {
        return c->InvalidArgument(absl::StrCat("Expected serialized to be a scalar, got shape: ",
                                               serialized.shape().DebugString()));
      }
      request.dense_keys = dense_keys_;
      request.sparse_keys = sparse_keys_;
    } else {
      if (kVersion == Version::kV1 ? serialized.dims() != 1 : serialized.dims() > 1) {
        return c->InvalidArgument(absl::StrCat(
            kVersion == Version::kV1 ? "Expected serialized to be a vector, got shape: "
                                     : "Expected serialized to be a scalar or vector, got shape: ",
            serialized.shape().DebugString()));
      }
      TENSORD_RETURN_IF_ERROR(CheckInputType(*c, 1, DT_STRING));
      names = c->input(1);
      if (names.NumElements() > 0 && names.shape() != serialized.shape()) {
        return c->InvalidArgument(absl::StrCat(
            "Expected names have the same shape as serialized: name.shape=",
            names.shape().DebugString(), ", serialized.shape=", serialized.shape().DebugString()));
      }
      if constexpr (kVersion == Version::kV1) {
        TENSORD_ASSIGN_OR_RETURN(request.sparse_keys, ScalarKeys(*c, 2, num_sparse, "sparse_keys"));
        TENSORD_ASSIGN_OR_RETURN(request.dense_keys,
                                 ScalarKeys(*c, 2 + num_sparse, num_dense, "dense_keys"));
      } else {
        TENSORD_ASSIGN_OR_RETURN(request.sparse_keys, VectorKeys(*c, 2));
        TENSORD_ASSIGN_OR_RETURN(request.dense_keys, VectorKeys(*c, 3));
        TENSORD_ASSIGN_OR_RETURN(request.ragged_keys, VectorKeys(*c, 4));
        TENSORD_RETURN_IF_ERROR(CheckKeyCounts(*c, request));
      }
    }
    for (int d = 0; d < num_dense; ++d)
      request.dense_defaults.push_back(c->input(first_default + d));
    absl::Status status = CheckDefaults(config_, request.dense_defaults);
    if (!status.ok()) return c->InvalidArgument(status.message());
    return ParseAndWrite(c, config_, request, serialized, names, serialized.dims() == 0);
  }

 private:
  absl::Status Init(OpKernelConstruction* c) {
    std::vector<DataType> dense_types, sparse_types, ragged_types, split_types;
    std::vector<PartialShape> dense_shapes;
    int64_t num_sparse = 0;
    if (!c->GetAttr("Tdense", &dense_types) || !c->GetAttr("dense_shapes", &dense_shapes) ||
        !c->GetAttr("sparse_types", &sparse_types)) {
      return absl::OkStatus();  // GetAttr recorded the error
    }
    if constexpr (kVersion == Version::kV1) {
      int64_t num_dense = 0;
      if (!c->GetAttr("Nsparse", &num_sparse) || !c->GetAttr("Ndense", &num_dense)) {
        return absl::OkStatus();
      }
      if (num_dense != static_cast<int64_t>(dense_types.size())) {
        return absl::InvalidArgumentError("len(dense_keys) != len(dense_types)");
      }
    } else if constexpr (kVersion == Version::kV2) {
      if (!c->GetAttr("num_sparse", &num_sparse) ||
          !c->GetAttr("ragged_value_types", &ragged_types) ||
          !c->GetAttr("ragged_split_types", &split_types)) {
        return absl::OkStatus();
      }
      if (ragged_types.size() != split_types.size()) {
        return absl::InvalidArgumentError("len(ragged_keys) != len(ragged_split_types)");
      }
    } else {
      if (!c->GetAttr("num_sparse", &num_sparse) || !c->GetAttr("sparse_keys", &sparse_keys_) ||
          !c->GetAttr("dense_keys", &dense_keys_)) {
        return absl::OkStatus();
      }
      if (sparse_keys_.size() != sparse_types.size() ||
          num_sparse != static_cast<int64_t>(sparse_keys_.size())) {
        return absl::InvalidArgumentError("len(sparse_keys) != len(sparse_types)");
      }
      if (dense_keys_.size() != dense_types.size()) {
        return absl::InvalidArgumentError("len(dense_keys) != len(dense_types)");
      }
    }
    if (num_sparse != static_cast<int64_t>(sparse_types.size())) {
      return absl::InvalidArgumentError("len(sparse_keys) != len(sparse_types)");
    }
    TENSORD_ASSIGN_OR_RETURN(config_.dense, MakeDenseConfigs(dense_types, dense_shapes));
    TENSORD_ASSIGN_OR_RETURN(config_.sparse, MakeListConfigs(sparse_types));
    TENSORD_ASSIGN_OR_RETURN(config_.ragged, MakeListConfigs(ragged_types));
    for (size_t r = 0; r < split_types.size(); ++r) {
      if (split_types[r] != DT_INT32 && split_types[r] != DT_INT64) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid ragged_split_type: ", DataTypeString(split_types[r])));
      }
      config_.ragged[r].splits_dtype = split_types[r];
    }
    return absl::OkStatus();
  }

  absl::Status CheckKeyCounts(const OpKernelContext& c, const FeatureRequest& request) const {
    auto check = [&](size_t got, size_t want, absl::string_view what) {
      if (got == want) return absl::OkStatus();
      return c.InvalidArgument(absl::StrCat("Expected ", what, " but got: ", got, " vs. ", want));
    };
    TENSORD_RETURN_IF_ERROR(check(request.dense_keys.size(), config_.dense.size(),
                                  "len(dense_keys) == len(dense_types)"));
    TENSORD_RETURN_IF_ERROR(
        check(request.sparse_keys.size(), config_.sparse.size(), "len(sparse_keys) == num_sparse"));
    return check(request.ragged_keys.size(), config_.ragged.size(),
                 "len(ragged_keys) == len(ragged_value_types)");
  }

  ParseConfig config_;
  std::vector<std::string> dense_keys_, sparse_keys_;  // ParseSingleExample's key attrs
};

TENSORD_REGISTER_KERNEL(KernelDef("ParseExample").Device(DeviceType::kCpu),
                        ParseExampleOp<Version::kV1>);
TENSORD_REGISTER_KERNEL(KernelDef("ParseExampleV2").Device(DeviceType::kCpu),
                        ParseExampleOp<Version::kV2>);
TENSORD_REGISTER_KERNEL(KernelDef("ParseSingleExample").Device(DeviceType::kCpu),
                        ParseExampleOp<Version::kSingle>);

}  // namespace
}  // namespace string_ops
}  // namespace tensord
