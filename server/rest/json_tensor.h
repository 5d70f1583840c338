// TF Serving REST predict responses, written straight from the output tensors into JSON text
// (tensorflow_serving/util/json_tensor.cc semantics), without a JSON tree.
//
// The text is laid out as json::Write(value, 4) lays out the equivalent json::Value: one object
// member or list element per line, indented by 4 spaces a level, except a list of plain values
// (no lists or objects inside), which stays on one line. Floats are the shortest text that reads
// back as the same float, with ".0" on whole numbers (json::AppendFloat; doubles likewise);
// non-finite values are NaN, Infinity, -Infinity. Strings are {"b64": ...} objects for outputs
// whose alias ends in "_bytes", and for any that is not valid UTF-8. (Request bodies:
// predict_json.h. Classify/regress results: runtime/util/example_json.h.)
//
// Thread safety: reentrant.
#ifndef TENSORD_SERVER_REST_JSON_TENSOR_H_
#define TENSORD_SERVER_REST_JSON_TENSOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "protos/serving/predict.pb.h"

namespace tensord {

// A predict body's layout, which its response repeats.
enum class JsonFormat { kRow, kColumnar };

// {"predictions": [...]} for kRow (one element per dim-0 row: the value itself for a single
// output, else an object of the outputs by alias), {"outputs": ...} for kColumnar (the value for
// a single output, else an object by alias). Aliases are sorted. INVALID_ARGUMENT for a row
// format whose outputs are scalars or disagree in dim 0, and for dtypes JSON cannot hold.
absl::StatusOr<std::string> PredictResponseJson(
    const ::tensorflow::serving::PredictResponse& response, JsonFormat format);

}  // namespace tensord

#endif  // TENSORD_SERVER_REST_JSON_TENSOR_H_
