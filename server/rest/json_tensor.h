// TF Serving REST JSON <-> tensors (tensorflow_serving/util/json_tensor.cc semantics).
//
// Predict requests: {"instances": [...]} (row format; rows are stacked into dim 0) or
// {"inputs": ...} (columnar). Values are converted to the dtype the signature declares for each
// input; {"b64": "..."} is a binary string. Errors are INVALID_ARGUMENT with TF Serving's
// messages. Floats are written as json::Value::Float writes them. (Classify/regress requests and
// results: runtime/util/example_json.h.)
#ifndef TENSORD_SERVER_REST_JSON_TENSOR_H_
#define TENSORD_SERVER_REST_JSON_TENSOR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/util/json.h"
#include "protos/serving/predict.pb.h"
#include "protos/tensorflow/meta_graph.pb.h"
#include "protos/tensorflow/tensor.pb.h"

namespace tensord {

enum class JsonFormat { kRow, kColumnar };

// Fills request->inputs from `body` (a parsed predict request) using the input dtypes of
// `signature`, and sets *format to the request's layout. Does not touch model_spec.
absl::Status FillPredictRequestFromJson(const json::Value& body,
                                        const ::tensorflow::SignatureDef& signature,
                                        ::tensorflow::serving::PredictRequest* request,
                                        JsonFormat* format);

// {"predictions": [...]} for kRow, {"outputs": ...} for kColumnar.
absl::StatusOr<json::Value> PredictResponseToJson(
    const ::tensorflow::serving::PredictResponse& response, JsonFormat format);

// Converts one value (scalar or nested list) to a tensor of `dtype`.
absl::StatusOr<::tensorflow::TensorProto> JsonToTensorProto(const json::Value& value,
                                                            ::tensorflow::DataType dtype);
// Writes a tensor as a nested list (or a scalar). `binary`: strings as {"b64": ...}.
absl::StatusOr<json::Value> TensorProtoToJson(const ::tensorflow::TensorProto& proto,
                                              bool binary = false);

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_JSON_TENSOR_H_
