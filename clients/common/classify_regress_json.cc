#include "clients/common/classify_regress_json.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "clients/common/tensor_json.h"

namespace tensord {
namespace {

namespace tf = ::tensorflow;
namespace serving = ::tensorflow::serving;

enum class Kind { kInt64, kFloat, kBytes };

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kInt64: return "int64";
    case Kind::kFloat: return "float";
    case Kind::kBytes: return "bytes";
  }
  return "?";
}

bool IsSpecialNumber(const std::string& text) {
  return text == "NaN" || text == "Infinity" || text == "-Infinity";
}

// The list type a value asks for; nullopt for values a feature cannot hold.
std::optional<Kind> KindOf(const json::Value& v) {
  switch (v.type()) {
    case json::Value::Type::kBool:
      return Kind::kInt64;
    case json::Value::Type::kNumber: {
      // The token, not the value, decides: 1.0 is a float as in TF Serving's REST API.
      const std::string& text = v.number_text();
      return text.find_first_of(".eE") != std::string::npos || IsSpecialNumber(text)
                 ? Kind::kFloat
                 : Kind::kInt64;
    }
    case json::Value::Type::kString:
      return Kind::kBytes;
    case json::Value::Type::kObject: {
      const json::Value* b64 = v.size() == 1 ? v.Find("b64") : nullptr;
      if (b64 != nullptr && b64->is_string()) return Kind::kBytes;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

absl::StatusOr<tf::Feature> FeatureFromJson(const std::string& name, const json::Value& value) {
  auto error = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("feature \"", name, "\": ", why));
  };
  std::vector<const json::Value*> values;
  if (value.is_array()) {
    for (const json::Value& v : value.items()) values.push_back(&v);
  } else {
    values.push_back(&value);
  }
  std::optional<Kind> kind;
  for (const json::Value* v : values) {
    if (v->is_array()) {
      return error("nested lists are not allowed (a feature is one value or a flat list)");
    }
    std::optional<Kind> k = KindOf(*v);
    if (!k) {
      return error(absl::StrCat(json::Write(*v), " is not a number, a string or {\"b64\": ...}"));
    }
    if (kind && *k != *kind) {
      const bool numbers = *k != Kind::kBytes && *kind != Kind::kBytes;
      return error(absl::StrCat("mixes value kinds: ", json::Write(*values[0]), " is ",
                                KindName(*kind), ", ", json::Write(*v), " is ", KindName(*k),
                                numbers ? " (write 1.0, not 1, in a float feature)" : ""));
    }
    kind = k;
  }

  tf::Feature feature;
  if (!kind) return feature;  // [] : a feature without values
  switch (*kind) {
    case Kind::kInt64:
      for (const json::Value* v : values) {
        int64_t x = 0;
        if (v->is_bool()) {
          x = v->bool_value() ? 1 : 0;
        } else if (!v->ToInt64(&x)) {
          return error(absl::StrCat(v->number_text(), " is out of the int64 range"));
        }
        feature.mutable_int64_list()->add_value(x);
      }
      break;
    case Kind::kFloat: {
      // TensorFromJson parses each token straight to float (no double rounding).
      absl::StatusOr<Tensor> floats = TensorFromJson(value, DT_FLOAT);
      if (!floats.ok()) return error(std::string(floats.status().message()));
      for (size_t i = 0; i < values.size(); ++i) {
        const float f = floats->data<float>()[i];
        if (std::isinf(f) && !IsSpecialNumber(values[i]->number_text())) {
          return error(absl::StrCat(values[i]->number_text(), " is out of the float range"));
        }
        feature.mutable_float_list()->add_value(f);
      }
      break;
    }
    case Kind::kBytes: {
      absl::StatusOr<Tensor> strings = TensorFromJson(value, DT_STRING);
      if (!strings.ok()) return error(std::string(strings.status().message()));
      for (size_t i = 0; i < values.size(); ++i) {
        feature.mutable_bytes_list()->add_value(strings->data<std::string>()[i]);
      }
      break;
    }
  }
  return feature;
}

absl::Status Prefixed(const std::string& prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(prefix, ": ", status.message()));
}

}  // namespace

absl::StatusOr<tf::Example> ExampleFromJson(const json::Value& value) {
  if (!value.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected an object of feature: value, got ", value.TypeName()));
  }
  tf::Example example;
  auto* features = example.mutable_features()->mutable_feature();
  for (size_t i = 0; i < value.size(); ++i) {
    absl::StatusOr<tf::Feature> feature = FeatureFromJson(value.keys()[i], value.items()[i]);
    if (!feature.ok()) return feature.status();
    (*features)[value.keys()[i]] = *std::move(feature);
  }
  return example;
}

absl::StatusOr<serving::Input> InputFromJson(const json::Value& examples,
                                             const json::Value* context) {
  if (!examples.is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("examples must be a list of objects, got ", examples.TypeName()));
  }
  if (examples.size() == 0) return absl::InvalidArgumentError("examples is an empty list");
  serving::Input input;
  google::protobuf::RepeatedPtrField<tf::Example>* out;
  if (context != nullptr) {
    absl::StatusOr<tf::Example> example = ExampleFromJson(*context);
    if (!example.ok()) return Prefixed("context", example.status());
    *input.mutable_example_list_with_context()->mutable_context() = *std::move(example);
    out = input.mutable_example_list_with_context()->mutable_examples();
  } else {
    out = input.mutable_example_list()->mutable_examples();
  }
  for (size_t i = 0; i < examples.size(); ++i) {
    absl::StatusOr<tf::Example> example = ExampleFromJson(examples.items()[i]);
    if (!example.ok()) return Prefixed(absl::StrCat("example ", i), example.status());
    *out->Add() = *std::move(example);
  }
  return input;
}

std::string ClassificationResultJson(const serving::ClassificationResult& result) {
  std::string out = "{\"results\": [";
  for (int i = 0; i < result.classifications_size(); ++i) {
    if (i > 0) out += ", ";
    out += "[";
    const auto& classes = result.classifications(i).classes();
    for (int j = 0; j < classes.size(); ++j) {
      if (j > 0) out += ", ";
      out += "[";
      AppendStringJson(classes[j].label(), &out);
      out += ", ";
      AppendFloatJson(classes[j].score(), &out);
      out += "]";
    }
    out += "]";
  }
  out += "]}";
  return out;
}

std::string RegressionResultJson(const serving::RegressionResult& result) {
  std::string out = "{\"results\": [";
  for (int i = 0; i < result.regressions_size(); ++i) {
    if (i > 0) out += ", ";
    AppendFloatJson(result.regressions(i).value(), &out);
  }
  out += "]}";
  return out;
}

}  // namespace tensord
