// Classify/regress requests and results in the JSON form of TensorFlow Serving's REST API, for
// clients that call the gRPC Classify/Regress RPCs.
//
// Examples: one JSON object per tf.Example, feature name → value, where a value is one number,
// string or {"b64": "<base64>"}, or a flat list of them. As in TF Serving's REST API
// (tensorflow_serving/util/json_tensor.cc), the JSON token decides the feature's list type:
//   integers (1, -3)                  int64_list
//   true / false                      int64_list (1 / 0)
//   decimals (1.0, 2e-3, NaN)         float_list
//   strings, {"b64": ...}             bytes_list (b64 decoded)
// so a float feature is written 1.0, not 1, and one feature cannot mix the kinds. An empty list
// gives a feature with no values. Nested lists, null and other objects are errors. Every error is
// INVALID_ARGUMENT and names the example (or the context) and the feature.
//
// Results: {"results": [[["label", score], ...], ...]} (one list of classes per example) and
// {"results": [value, ...]}, one line, floats in their shortest exact form (as AppendFloatJson).
#ifndef TENSORD_CLIENTS_COMMON_CLASSIFY_REGRESS_JSON_H_
#define TENSORD_CLIENTS_COMMON_CLASSIFY_REGRESS_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "protos/serving/classification.pb.h"
#include "protos/serving/input.pb.h"
#include "protos/serving/regression.pb.h"
#include "protos/tensorflow/example.pb.h"
#include "runtime/util/json.h"

namespace tensord {

// One JSON object of features → tf.Example.
absl::StatusOr<::tensorflow::Example> ExampleFromJson(const json::Value& value);

// `examples` (a non-empty list of objects) and `context` (an object, or nullptr for none) → a
// request's Input: example_list, or example_list_with_context when there is a context.
absl::StatusOr<::tensorflow::serving::Input> InputFromJson(const json::Value& examples,
                                                           const json::Value* context);

std::string ClassificationResultJson(const ::tensorflow::serving::ClassificationResult& result);
std::string RegressionResultJson(const ::tensorflow::serving::RegressionResult& result);

}  // namespace tensord

#endif  // TENSORD_CLIENTS_COMMON_CLASSIFY_REGRESS_JSON_H_
