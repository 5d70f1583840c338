#include "runtime/util/example_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/util/status_macros.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;

// The names TF Serving's messages give JSON types (its JsonTypeString).
const char* JsonTypeName(const json::Value& v) {
  switch (v.type()) {
    case json::Value::Type::kNull: return "Null";
    case json::Value::Type::kBool: return v.bool_value() ? "True" : "False";
    case json::Value::Type::kNumber: return "Number";
    case json::Value::Type::kString: return "String";
    case json::Value::Type::kArray: return "Array";
    case json::Value::Type::kObject: return "Object";
  }
  return "Unknown";
}

const char* KindName(tf::Feature::KindCase kind) {
  switch (kind) {
    case tf::Feature::kBytesList: return "bytes";
    case tf::Feature::kFloatList: return "float";
    case tf::Feature::kInt64List: return "int64";
    case tf::Feature::KIND_NOT_SET: break;
  }
  return "UNKNOWN";
}

bool IsNanOrInfinity(const std::string& text) {
  return text == "NaN" || text == "Infinity" || text == "-Infinity";
}

// Whether TF Serving's JSON parser (rapidjson) reads the number as a double rather than an
// integer: a fraction or an exponent, NaN / Infinity, or an integer too wide for 64 bits.
bool IsDoubleToken(const json::Value& v) {
  const std::string& text = v.number_text();
  if (text.find_first_of(".eE") != std::string::npos || IsNanOrInfinity(text)) return true;
  int64_t i = 0;
  uint64_t u = 0;
  return !v.ToInt64(&i) && !v.ToUint64(&u);
}

// Adds one JSON value (an element of the feature's list, or its only value) to `feature`, as
// TF Serving's AddValueToFeature.
absl::Status AddValue(const std::string& name, const json::Value& v, tf::Feature* feature) {
  auto unexpected_type = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "Feature: ", name, " has element with unexpected JSON type: ", JsonTypeName(v)));
  };
  // The first value decides the feature's list type; the others must agree with it.
  auto check_kind = [&](tf::Feature::KindCase kind) {
    if (feature->kind_case() == tf::Feature::KIND_NOT_SET || feature->kind_case() == kind) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat("Unexpected element type in feature: ", name,
                                                   " expecting type: ",
                                                   KindName(feature->kind_case())));
  };
  switch (v.type()) {
    case json::Value::Type::kNull:
    case json::Value::Type::kArray:
      return unexpected_type();
    case json::Value::Type::kBool:
      TENSORD_RETURN_IF_ERROR(check_kind(tf::Feature::kInt64List));
      feature->mutable_int64_list()->add_value(v.bool_value() ? 1 : 0);
      return absl::OkStatus();
    case json::Value::Type::kString:
      TENSORD_RETURN_IF_ERROR(check_kind(tf::Feature::kBytesList));
      feature->mutable_bytes_list()->add_value(v.string_value());
      return absl::OkStatus();
    case json::Value::Type::kObject: {
      const json::Value* b64 = v.size() == 1 ? v.Find("b64") : nullptr;
      if (b64 == nullptr || !b64->is_string()) return unexpected_type();
      TENSORD_RETURN_IF_ERROR(check_kind(tf::Feature::kBytesList));
      std::string bytes;
      if (!absl::Base64Unescape(b64->string_value(), &bytes)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Feature: ", name, ": Unable to base64 decode: ", json::Write(*b64)));
      }
      feature->mutable_bytes_list()->add_value(std::move(bytes));
      return absl::OkStatus();
    }
    case json::Value::Type::kNumber: {
      const std::string& text = v.number_text();
      if (IsDoubleToken(v)) {
        TENSORD_RETURN_IF_ERROR(check_kind(tf::Feature::kFloatList));
        // Parsed to double, then narrowed to float, as TF Serving (and the Python client, from
        // a Python float) does. A finite number beyond the float range is refused rather than
        // made infinite.
        const double d = v.number();
        const bool fits = std::isfinite(d) ? std::abs(d) <= std::numeric_limits<float>::max()
                                           : IsNanOrInfinity(text);
        if (!fits) {
          return absl::InvalidArgumentError(absl::StrCat("Feature: ", name,
                                                         ": Cannot convert JSON value: ", text,
                                                         " to float without loss of precision."));
        }
        feature->mutable_float_list()->add_value(static_cast<float>(d));
        return absl::OkStatus();
      }
      TENSORD_RETURN_IF_ERROR(check_kind(tf::Feature::kInt64List));
      int64_t i = 0;
      if (!v.ToInt64(&i)) {  // IsDoubleToken said it fits 64 bits: it is above int64's range
        return absl::InvalidArgumentError(
            absl::StrCat("Feature: ", name, " has uint64 element. Only int64 is supported."));
      }
      feature->mutable_int64_list()->add_value(i);
      return absl::OkStatus();
    }
  }
  return unexpected_type();
}

absl::Status Prefixed(const std::string& prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(prefix, ": ", status.message()));
}

// Labels are bytes. Those that are not UTF-8 text are written as {"b64": ...}, as string tensors
// are in predict responses, so that the reply stays valid JSON.
json::Value LabelJson(const std::string& label) {
  if (json::IsValidUtf8(label)) return json::Value::String(label);
  json::Value b64 = json::Value::Object();
  b64.Set("b64", json::Value::String(absl::Base64Escape(label)));
  return b64;
}

json::Value Results(json::Value list) {
  json::Value out = json::Value::Object();
  out.Set("results", std::move(list));
  return out;
}

}  // namespace

absl::StatusOr<tf::Example> ExampleFromJson(const json::Value& value) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Example must be JSON object but got JSON ", JsonTypeName(value)));
  }
  tf::Example example;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string& name = value.keys()[i];
    const json::Value& content = value.items()[i];
    tf::Feature feature;
    if (content.is_array()) {
      for (const json::Value& v : content.items()) {
        TENSORD_RETURN_IF_ERROR(AddValue(name, v, &feature));
      }
    } else {
      TENSORD_RETURN_IF_ERROR(AddValue(name, content, &feature));
    }
    (*example.mutable_features()->mutable_feature())[name] = std::move(feature);
  }
  return example;
}

absl::StatusOr<serving::Input> InputFromJson(const json::Value& examples,
                                             const json::Value* context) {
  serving::Input input;
  google::protobuf::RepeatedPtrField<tf::Example>* out;
  // The context first, as TF Serving reads it.
  if (context != nullptr) {
    absl::StatusOr<tf::Example> example = ExampleFromJson(*context);
    if (!example.ok()) return Prefixed("context", example.status());
    *input.mutable_example_list_with_context()->mutable_context() = *std::move(example);
    out = input.mutable_example_list_with_context()->mutable_examples();
  } else {
    out = input.mutable_example_list()->mutable_examples();
  }
  if (!examples.is_array()) {
    return absl::InvalidArgumentError("Expecting 'examples' value to be an list/array");
  }
  if (examples.size() == 0) {
    return absl::InvalidArgumentError("'examples' value is an empty array");
  }
  for (size_t i = 0; i < examples.size(); ++i) {
    absl::StatusOr<tf::Example> example = ExampleFromJson(examples.items()[i]);
    if (!example.ok()) return Prefixed(absl::StrCat("example ", i), example.status());
    *out->Add() = *std::move(example);
  }
  return input;
}

absl::StatusOr<serving::Input> InputFromRequestJson(const json::Value& body) {
  const json::Value* examples = body.Find("examples");
  if (examples == nullptr) {
    // TF Serving's text, which says "classify" for regress requests too.
    return absl::InvalidArgumentError(
        "When method is classify, key 'examples' is expected and was not found");
  }
  return InputFromJson(*examples, body.Find("context"));
}

json::Value ClassificationResultToJson(const serving::ClassificationResult& result) {
  json::Value results = json::Value::Array();
  for (const serving::Classifications& classifications : result.classifications()) {
    json::Value classes = json::Value::Array();
    for (const serving::Class& c : classifications.classes()) {
      json::Value pair = json::Value::Array();
      pair.Append(LabelJson(c.label()));
      pair.Append(json::Value::Float(c.score()));
      classes.Append(std::move(pair));
    }
    results.Append(std::move(classes));
  }
  return Results(std::move(results));
}

json::Value RegressionResultToJson(const serving::RegressionResult& result) {
  json::Value results = json::Value::Array();
  for (const serving::Regression& r : result.regressions()) {
    results.Append(json::Value::Float(r.value()));
  }
  return Results(std::move(results));
}

}  // namespace tensord
