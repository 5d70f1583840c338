// Classify/regress requests and results in the JSON form of TensorFlow Serving's REST API, shared
// by the REST server (server/rest) and the gRPC command-line client (tensorctl), so that a JSON
// request means the same tf.Examples to both. The rules are TF Serving's
// (tensorflow_serving/util/json_tensor.cc: MakeExampleFromJsonObject, AddValueToFeature,
// FillClassifyRegressRequestFromJson), and so are the error texts, except that errors inside an
// example or the context start with "example <i>: " or "context: ".
//
// An example is a JSON object of features, feature name → one value or a flat list of values.
// The JSON token of each value decides the feature's list type:
//   integers (1, -3)                           int64_list
//   true / false                               int64_list (1 / 0)
//   numbers with a '.' or an exponent, NaN,    float_list (through double, as TF Serving and the
//     Infinity, -Infinity                        Python client convert; beyond the float range
//                                                is an error)
//   strings, {"b64": "<base64>"}               bytes_list (b64 decoded)
// So a float feature is written 1.0, not 1. Values of one feature must all have the same type
// ("Unexpected element type in feature: x expecting type: int64"); null, nested lists, other
// objects and integers above int64's range that fit uint64 are errors. Integers that fit
// neither int64 nor uint64 are doubles to TF Serving's JSON parser, so floats here too.
// [] gives a feature with no values.
//
// A feature may be in the context and in an example: the Input keeps both, and the server
// merges them with the example's value winning (ExampleListWithContext).
//
// Results are json::Values: {"results": [[["label", score], ...], ...]} (one list of classes per
// example) and {"results": [value, ...]}; floats as json::Value::Float writes them, labels that
// are not valid UTF-8 as {"b64": "..."}.
#ifndef TENSORD_RUNTIME_UTIL_EXAMPLE_JSON_H_
#define TENSORD_RUNTIME_UTIL_EXAMPLE_JSON_H_

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

// A REST classify/regress request body, {"examples": [...], "context": {...}} with the context
// optional → Input as InputFromJson. Other members (signature_name) are the caller's.
absl::StatusOr<::tensorflow::serving::Input> InputFromRequestJson(const json::Value& body);

json::Value ClassificationResultToJson(const ::tensorflow::serving::ClassificationResult& result);
json::Value RegressionResultToJson(const ::tensorflow::serving::RegressionResult& result);

}  // namespace tensord

#endif  // TENSORD_RUNTIME_UTIL_EXAMPLE_JSON_H_
