#include "server/rest/json_tensor.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/framework/tensor.h"
#include "runtime/framework/tensor_proto.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;

bool IsB64Object(const json::Value& v) {
  return v.is_object() && v.size() == 1 && v.keys()[0] == "b64";
}

// Appends one scalar JSON value to `proto` as `dtype`.
absl::Status AppendScalar(const json::Value& v, tf::DataType dtype, tf::TensorProto* proto) {
  auto type_error = [&](const char* want) {
    return absl::InvalidArgumentError(absl::StrCat("Expected ", want, " for ",
                                                   tf::DataType_Name(dtype), " but got ",
                                                   v.TypeName(), ": ", json::Write(v)));
  };
  switch (dtype) {
    case tf::DT_FLOAT:
    case tf::DT_DOUBLE: {
      if (!v.is_number()) return type_error("a number");
      double d = v.number();
      if (dtype == tf::DT_FLOAT) {
        proto->add_float_val(static_cast<float>(d));
      } else {
        proto->add_double_val(d);
      }
      return absl::OkStatus();
    }
    case tf::DT_INT8:
    case tf::DT_UINT8:
    case tf::DT_INT16:
    case tf::DT_UINT16:
    case tf::DT_INT32:
    case tf::DT_UINT32:
    case tf::DT_INT64: {
      int64_t i = 0;
      if (!v.is_number() || !v.ToInt64(&i)) return type_error("an integer");
      int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
      switch (dtype) {
        case tf::DT_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
        case tf::DT_UINT8: lo = 0; hi = UINT8_MAX; break;
        case tf::DT_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
        case tf::DT_UINT16: lo = 0; hi = UINT16_MAX; break;
        case tf::DT_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
        case tf::DT_UINT32: lo = 0; hi = UINT32_MAX; break;
        default: break;
      }
      if (i < lo || i > hi) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Value ", v.number_text(), " is out of range for ", tf::DataType_Name(dtype)));
      }
      if (dtype == tf::DT_INT64) {
        proto->add_int64_val(i);
      } else if (dtype == tf::DT_UINT32) {
        proto->add_uint32_val(static_cast<uint32_t>(i));
      } else {
        proto->add_int_val(static_cast<int32_t>(i));
      }
      return absl::OkStatus();
    }
    case tf::DT_UINT64: {
      uint64_t u = 0;
      if (!v.is_number() || !v.ToUint64(&u)) return type_error("a non-negative integer");
      proto->add_uint64_val(u);
      return absl::OkStatus();
    }
    case tf::DT_BOOL:
      if (!v.is_bool()) return type_error("true/false");
      proto->add_bool_val(v.bool_value());
      return absl::OkStatus();
    case tf::DT_STRING:
      if (v.is_string()) {
        proto->add_string_val(v.string_value());
        return absl::OkStatus();
      }
      if (IsB64Object(v)) {
        const json::Value& b = v.items()[0];
        std::string bytes;
        if (!b.is_string() || !absl::Base64Unescape(b.string_value(), &bytes)) {
          return absl::InvalidArgumentError(
              absl::StrCat("Unable to base64 decode: ", json::Write(b)));
        }
        proto->add_string_val(std::move(bytes));
        return absl::OkStatus();
      }
      return type_error("a string or {\"b64\": ...}");
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("Conversion of JSON values to ", tf::DataType_Name(dtype),
                       " is not supported"));
  }
}

// Shape of a nested list, following the first element at each level.
void InferShape(const json::Value& v, std::vector<int64_t>* shape) {
  const json::Value* cur = &v;
  while (cur->is_array()) {
    shape->push_back(static_cast<int64_t>(cur->size()));
    if (cur->size() == 0) break;
    cur = &cur->items()[0];
  }
}

absl::Status Flatten(const json::Value& v, const std::vector<int64_t>& shape, size_t depth,
                     tf::DataType dtype, tf::TensorProto* proto) {
  if (depth == shape.size()) {
    if (v.is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Ragged nested list: expected a scalar at depth ", depth,
                       " but got a list of ", v.size(), " elements"));
    }
    return AppendScalar(v, dtype, proto);
  }
  if (!v.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat("Ragged nested list: expected a list of ",
                                                   shape[depth], " elements at depth ", depth,
                                                   " but got ", v.TypeName()));
  }
  if (static_cast<int64_t>(v.size()) != shape[depth]) {
    return absl::InvalidArgumentError(absl::StrCat("Ragged nested list: expected ", shape[depth],
                                                   " elements at depth ", depth, " but got ",
                                                   v.size()));
  }
  for (const json::Value& item : v.items()) {
    if (absl::Status s = Flatten(item, shape, depth + 1, dtype, proto); !s.ok()) return s;
  }
  return absl::OkStatus();
}

int64_t NumElements(const tf::TensorProto& p) {
  int64_t n = 1;
  for (const auto& d : p.tensor_shape().dim()) n *= d.size();
  return n;
}

std::string ShapeText(const tf::TensorProto& p) {
  std::vector<int64_t> dims;
  for (const auto& d : p.tensor_shape().dim()) dims.push_back(d.size());
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// Stacks same-shaped rows along a new dim 0.
absl::StatusOr<tf::TensorProto> StackRows(const std::vector<tf::TensorProto>& rows) {
  tf::TensorProto out;
  out.set_dtype(rows[0].dtype());
  out.mutable_tensor_shape()->add_dim()->set_size(static_cast<int64_t>(rows.size()));
  for (const auto& d : rows[0].tensor_shape().dim()) {
    out.mutable_tensor_shape()->add_dim()->set_size(d.size());
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const tf::TensorProto& r = rows[i];
    if (NumElements(r) != NumElements(rows[0])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Failed to process element: ", i, " of 'instances' list. Error: Invalid argument: ",
          "Expecting tensor size: ", NumElements(rows[0]), " but got: ", NumElements(r)));
    }
    if (ShapeText(r) != ShapeText(rows[0])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Failed to process element: ", i, " of 'instances' list. Error: Invalid argument: ",
          "Expecting shape ", ShapeText(rows[0]), " but got: ", ShapeText(r)));
    }
    out.mutable_float_val()->MergeFrom(r.float_val());
    out.mutable_double_val()->MergeFrom(r.double_val());
    out.mutable_int_val()->MergeFrom(r.int_val());
    out.mutable_int64_val()->MergeFrom(r.int64_val());
    out.mutable_uint32_val()->MergeFrom(r.uint32_val());
    out.mutable_uint64_val()->MergeFrom(r.uint64_val());
    out.mutable_bool_val()->MergeFrom(r.bool_val());
    out.mutable_string_val()->MergeFrom(r.string_val());
  }
  return out;
}

template <typename T>
json::Value Leaf(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return json::Value::Bool(v);
  } else if constexpr (std::is_same_v<T, float>) {
    return json::Value::Float(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return json::Value::Double(v);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return json::Value::NumberText(std::to_string(v));
  } else {
    return json::Value::Int(static_cast<int64_t>(v));
  }
}

json::Value StringLeaf(const std::string& s, bool binary) {
  if (binary || !json::IsValidUtf8(s)) {
    json::Value o = json::Value::Object();
    o.Set("b64", json::Value::String(absl::Base64Escape(s)));
    return o;
  }
  return json::Value::String(s);
}

// Nested list of dims [depth, rank) starting at flat element `offset`.
template <typename T, typename LeafFn>
json::Value Nest(const T* data, const std::vector<int64_t>& dims, size_t depth, int64_t offset,
                 const LeafFn& leaf) {
  if (depth == dims.size()) return leaf(data[offset]);
  int64_t stride = 1;
  for (size_t i = depth + 1; i < dims.size(); ++i) stride *= dims[i];
  json::Value list = json::Value::Array();
  for (int64_t i = 0; i < dims[depth]; ++i) {
    list.Append(Nest(data, dims, depth + 1, offset + i * stride, leaf));
  }
  return list;
}

// Writes tensor `t` (dims [depth, rank) at `offset`) as JSON.
absl::StatusOr<json::Value> TensorJson(const Tensor& t, size_t depth, int64_t offset,
                                       bool binary) {
  std::vector<int64_t> dims;
  for (int i = 0; i < t.dims(); ++i) dims.push_back(t.dim_size(i));
  switch (t.dtype()) {
#define TENSORD_CASE(DT, T) \
  case tf::DT:              \
    return Nest(t.data<T>(), dims, depth, offset, [](const T& v) { return Leaf<T>(v); });
    TENSORD_CASE(DT_FLOAT, float)
    TENSORD_CASE(DT_DOUBLE, double)
    TENSORD_CASE(DT_INT8, int8_t)
    TENSORD_CASE(DT_UINT8, uint8_t)
    TENSORD_CASE(DT_INT16, int16_t)
    TENSORD_CASE(DT_UINT16, uint16_t)
    TENSORD_CASE(DT_INT32, int32_t)
    TENSORD_CASE(DT_UINT32, uint32_t)
    TENSORD_CASE(DT_INT64, int64_t)
    TENSORD_CASE(DT_UINT64, uint64_t)
    TENSORD_CASE(DT_BOOL, bool)
#undef TENSORD_CASE
    case tf::DT_STRING:
      return Nest(t.data<std::string>(), dims, depth, offset,
                  [binary](const std::string& s) { return StringLeaf(s, binary); });
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "Conversion of ", tf::DataType_Name(t.dtype()), " tensors to JSON is not supported"));
  }
}

bool IsBinaryAlias(const std::string& alias) { return absl::EndsWith(alias, "_bytes"); }

}  // namespace

absl::StatusOr<tf::TensorProto> JsonToTensorProto(const json::Value& value, tf::DataType dtype) {
  tf::TensorProto proto;
  proto.set_dtype(dtype);
  std::vector<int64_t> shape;
  InferShape(value, &shape);
  for (int64_t d : shape) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  if (absl::Status s = Flatten(value, shape, 0, dtype, &proto); !s.ok()) return s;
  return proto;
}

absl::StatusOr<json::Value> TensorProtoToJson(const tf::TensorProto& proto, bool binary) {
  absl::StatusOr<Tensor> t = TensorFromProto(proto);
  if (!t.ok()) return t.status();
  return TensorJson(*t, 0, 0, binary);
}

absl::Status FillPredictRequestFromJson(const json::Value& body, const tf::SignatureDef& signature,
                                        serving::PredictRequest* request, JsonFormat* format) {
  if (!body.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Request body must be a JSON object, got ", body.TypeName()));
  }
  const json::Value* instances = body.Find("instances");
  const json::Value* inputs = body.Find("inputs");
  if (instances != nullptr && inputs != nullptr) {
    return absl::InvalidArgumentError(
        "JSON Value: expecting only one of 'inputs' or 'instances' keys to exist");
  }
  if (instances == nullptr && inputs == nullptr) {
    return absl::InvalidArgumentError("Missing 'inputs' or 'instances' key");
  }
  auto dtype_of = [&](const std::string& alias) -> absl::StatusOr<tf::DataType> {
    auto it = signature.inputs().find(alias);
    if (it == signature.inputs().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input alias \"", alias, "\" is not in the signature"));
    }
    return it->second.dtype();
  };
  auto single_alias = [&]() -> absl::StatusOr<std::string> {
    if (signature.inputs().size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The signature has ", signature.inputs().size(),
          " inputs; name them with an object of named inputs"));
    }
    return signature.inputs().begin()->first;
  };
  auto* out = request->mutable_inputs();
  out->clear();

  if (inputs != nullptr) {
    *format = JsonFormat::kColumnar;
    if (inputs->is_object() && !IsB64Object(*inputs)) {
      for (size_t i = 0; i < inputs->size(); ++i) {
        const std::string& alias = inputs->keys()[i];
        absl::StatusOr<tf::DataType> dtype = dtype_of(alias);
        if (!dtype.ok()) return dtype.status();
        absl::StatusOr<tf::TensorProto> t = JsonToTensorProto(inputs->items()[i], *dtype);
        if (!t.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("Input \"", alias, "\": ", t.status().message()));
        }
        (*out)[alias] = *std::move(t);
      }
      return absl::OkStatus();
    }
    absl::StatusOr<std::string> alias = single_alias();
    if (!alias.ok()) return alias.status();
    absl::StatusOr<tf::TensorProto> t = JsonToTensorProto(*inputs, *dtype_of(*alias));
    if (!t.ok()) return t.status();
    (*out)[*alias] = *std::move(t);
    return absl::OkStatus();
  }

  *format = JsonFormat::kRow;
  if (!instances->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected 'instances' to be a list, got ", instances->TypeName()));
  }
  if (instances->size() == 0) return absl::InvalidArgumentError("No values in 'instances' array");
  const json::Value& first = instances->items()[0];
  const bool named = first.is_object() && !IsB64Object(first);
  std::map<std::string, std::vector<tf::TensorProto>> rows;
  for (size_t r = 0; r < instances->size(); ++r) {
    const json::Value& row = instances->items()[r];
    auto elem_error = [r](const absl::Status& s) {
      return absl::InvalidArgumentError(absl::StrCat("Failed to process element: ", r,
                                                     " of 'instances' list. Error: ",
                                                     s.message()));
    };
    if (named) {
      if (!row.is_object() || IsB64Object(row)) {
        return elem_error(absl::InvalidArgumentError(
            absl::StrCat("Expecting an object of named inputs, got ", row.TypeName())));
      }
      if (r > 0 && row.size() != rows.size()) {
        return elem_error(absl::InvalidArgumentError(absl::StrCat(
            "Expecting ", rows.size(), " named inputs (as in element 0) but got ", row.size())));
      }
      for (size_t i = 0; i < row.size(); ++i) {
        const std::string& alias = row.keys()[i];
        if (r > 0 && rows.count(alias) == 0) {
          return elem_error(absl::InvalidArgumentError(
              absl::StrCat("Input \"", alias, "\" is not in element 0")));
        }
        absl::StatusOr<tf::DataType> dtype = dtype_of(alias);
        if (!dtype.ok()) return dtype.status();
        absl::StatusOr<tf::TensorProto> t = JsonToTensorProto(row.items()[i], *dtype);
        if (!t.ok()) return elem_error(t.status());
        rows[alias].push_back(*std::move(t));
      }
    } else {
      absl::StatusOr<std::string> alias = single_alias();
      if (!alias.ok()) return alias.status();
      absl::StatusOr<tf::TensorProto> t = JsonToTensorProto(row, *dtype_of(*alias));
      if (!t.ok()) return elem_error(t.status());
      rows[*alias].push_back(*std::move(t));
    }
  }
  for (const auto& [alias, list] : rows) {
    absl::StatusOr<tf::TensorProto> stacked = StackRows(list);
    if (!stacked.ok()) return stacked.status();
    (*out)[alias] = *std::move(stacked);
  }
  return absl::OkStatus();
}

absl::StatusOr<json::Value> PredictResponseToJson(const serving::PredictResponse& response,
                                                  JsonFormat format) {
  // Sorted aliases for a stable output order.
  std::map<std::string, Tensor> outputs;
  for (const auto& [alias, proto] : response.outputs()) {
    absl::StatusOr<Tensor> t = TensorFromProto(proto);
    if (!t.ok()) return t.status();
    outputs.emplace(alias, *std::move(t));
  }
  json::Value result = json::Value::Object();
  if (format == JsonFormat::kColumnar) {
    if (outputs.size() == 1) {
      const auto& [alias, t] = *outputs.begin();
      absl::StatusOr<json::Value> v = TensorJson(t, 0, 0, IsBinaryAlias(alias));
      if (!v.ok()) return v.status();
      result.Set("outputs", *std::move(v));
      return result;
    }
    json::Value obj = json::Value::Object();
    for (const auto& [alias, t] : outputs) {
      absl::StatusOr<json::Value> v = TensorJson(t, 0, 0, IsBinaryAlias(alias));
      if (!v.ok()) return v.status();
      obj.Set(alias, *std::move(v));
    }
    result.Set("outputs", std::move(obj));
    return result;
  }
  int64_t batch = -1;
  for (const auto& [alias, t] : outputs) {
    if (t.dims() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Output \"", alias, "\" is a scalar; row format needs a batch dimension"));
    }
    if (batch >= 0 && t.dim_size(0) != batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Output tensors must have the same size in dimension 0 for row format: \"", alias,
          "\" has ", t.dim_size(0), ", expected ", batch));
    }
    batch = t.dim_size(0);
  }
  json::Value predictions = json::Value::Array();
  for (int64_t r = 0; r < std::max<int64_t>(batch, 0); ++r) {
    json::Value row = json::Value::Object();
    for (const auto& [alias, t] : outputs) {
      int64_t stride = t.dim_size(0) == 0 ? 0 : t.NumElements() / t.dim_size(0);
      absl::StatusOr<json::Value> v = TensorJson(t, 1, r * stride, IsBinaryAlias(alias));
      if (!v.ok()) return v.status();
      if (outputs.size() == 1) {
        row = *std::move(v);
      } else {
        row.Set(alias, *std::move(v));
      }
    }
    predictions.Append(std::move(row));
  }
  result.Set("predictions", std::move(predictions));
  return result;
}

}  // namespace tensord
